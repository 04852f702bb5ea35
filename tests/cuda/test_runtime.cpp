// The CUDA runtime layer: availability, properties, errors, streams, events.
#include <cuda_runtime_api.h>

#include <set>
#include <thread>

#include "check.h"
#include "cuda/cuda_test.h"
#include "cuda/spin_kernel.h"
#include "kernels/slots/elementwise_kernels.h"

namespace ember::cuda {
namespace {

using testing::CudaTest;

// Holds with and without a GPU: core sees CUDA exactly when the backend found
// a device (Note [CUDA registration]).
TEST(CudaRuntime, CoreSeesCudaExactlyWhenADeviceExists) {
  EXPECT_EQ(ember::device_count(DeviceType::CUDA), device_count());
  EXPECT_EQ(is_available(), device_count() > 0);
  if (!is_available()) {
    EXPECT_THROW(empty({2}, TensorOptions(kFloat32).device(kCUDA)), Error);
    EXPECT_THROW({ DeviceGuard on_cuda(kCUDA); }, Error);
    EXPECT_FALSE(unary_slot.supports(kCUDA, kFloat32));
  } else {
    EXPECT_TRUE(empty({2}, TensorOptions(kFloat32).device(kCUDA)).device().is_cuda());
    EXPECT_TRUE(unary_slot.supports(kCUDA, kFloat32));
  }
}

TEST_P(CudaTest, PropertiesDescribeTheDevice) {
  const DeviceProperties p = get_device_properties();
  EXPECT_FALSE(p.name.empty());
  EXPECT_GE(p.major, 3);
  EXPECT_GT(p.total_memory, int64_t{1} << 30);
  EXPECT_GT(p.multi_processor_count, 0);
  EXPECT_EQ(p.warp_size, 32);
  EXPECT_GE(runtime_version(), 12000);
  EXPECT_GE(driver_version(), runtime_version() / 1000 * 1000);
}

TEST_P(CudaTest, DeviceIndicesAreChecked) {
  EXPECT_THROW(set_device(static_cast<int16_t>(device_count())), Error);
  EXPECT_THROW(get_device_properties(static_cast<int16_t>(device_count())), Error);
  EXPECT_THROW(set_device(-2), Error);
}

TEST_P(CudaTest, ErrorsNameTheOpTheCallAndCudasString) {
  try {
    EMBER_CUDA_CHECK(cudaSetDevice(9999), "test op");
    FAIL() << "expected a CUDAError";
  } catch (const CUDAError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("test op"), std::string::npos) << m;
    EXPECT_NE(m.find("cudaSetDevice"), std::string::npos) << m;
    EXPECT_NE(m.find("cudaErrorInvalidDevice"), std::string::npos) << m;
    EXPECT_NE(m.find("invalid device ordinal"), std::string::npos) << m;
    EXPECT_EQ(e.code(), static_cast<int>(cudaErrorInvalidDevice));
  }
  // Not sticky: the next call works.
  EXPECT_NO_THROW(synchronize());
}

TEST_P(CudaTest, DefaultAndCurrentStreams) {
  const CUDAStream def = default_stream();
  EXPECT_EQ(def.id(), 0u);
  EXPECT_EQ(current_stream(), def);
  EXPECT_EQ(ember::current_stream(kCUDA), def.unwrap());
  EXPECT_TRUE(def.query());
}

TEST_P(CudaTest, PoolStreamsAreDistinctAndRoundRobin) {
  std::set<uint64_t> ids;
  for (int i = 0; i < 32; ++i) {
    const CUDAStream s = stream_from_pool();
    EXPECT_NE(s.id(), 0u);
    ids.insert(s.id());
  }
  EXPECT_EQ(ids.size(), 32u);
  EXPECT_EQ(ids.count(stream_from_pool().id()), 1u);  // the 33rd is one of the 32 again
  EXPECT_EQ(ids.count(stream_from_pool(true).id()), 0u);  // high priority: a pool of its own
}

TEST_P(CudaTest, StreamGuardSetsAndRestoresTheCurrentStream) {
  const CUDAStream s = stream_from_pool();
  {
    CUDAStreamGuard guard(s);
    EXPECT_EQ(current_stream(), s);
    EXPECT_EQ(ember::current_stream(kCUDA), s.unwrap());
    // Work queued now runs on s.
    Tensor x = ones({1 << 20}, TensorOptions(kFloat32).device(kCUDA));
    Tensor y = x * 3;
    s.synchronize();
    EXPECT_EQ(y.sum().item<float>(), 3.0f * (1 << 20));
  }
  EXPECT_EQ(current_stream(), default_stream());
}

TEST_P(CudaTest, CurrentStreamIsPerThread) {
  const CUDAStream s = stream_from_pool();
  CUDAStreamGuard guard(s);
  uint64_t other_thread_stream = 1;
  std::thread([&] { other_thread_stream = current_stream().id(); }).join();
  EXPECT_EQ(other_thread_stream, 0u);
  EXPECT_EQ(current_stream(), s);
}

TEST_P(CudaTest, EventsTimeWorkAndOrderStreams) {
  const CUDAStream a = stream_from_pool(), b = stream_from_pool();
  CUDAEvent start(/*enable_timing=*/true), end(/*enable_timing=*/true);
  EXPECT_TRUE(start.query());  // nothing recorded yet
  start.record(a);
  testing::spin_on_stream(a.handle(), 20);
  end.record(a);
  EXPECT_FALSE(end.query());  // the spin is still running
  end.block(b);               // b waits for it
  CUDAEvent on_b;
  on_b.record(b);
  EXPECT_FALSE(on_b.query());
  on_b.synchronize();
  EXPECT_TRUE(end.query());
  const float ms = start.elapsed_time(end);
  EXPECT_GT(ms, 10.0f);
  EXPECT_LT(ms, 2000.0f);
}

TEST_P(CudaTest, ElapsedTimeNeedsTimingEvents) {
  CUDAEvent a, b;
  a.record();
  b.record();
  b.synchronize();
  EXPECT_THROW(a.elapsed_time(b), Error);
  CUDAEvent c(true), d(true);
  EXPECT_THROW(c.elapsed_time(d), Error);  // not recorded
}

TEST_P(CudaTest, SynchronizeWaitsForEveryStream) {
  const CUDAStream s = stream_from_pool();
  testing::spin_on_stream(s.handle(), 10);
  EXPECT_FALSE(s.query());
  synchronize();
  EXPECT_TRUE(s.query());
}

// Every TEST_P(CudaTest, ...) of the suite, in all its files: on device 0
// where there is a GPU, none where there is not (cuda_test.h).
INSTANTIATE_TEST_SUITE_P(OnTheGpu, CudaTest, ::testing::ValuesIn(testing::cuda_test_devices()));
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaTest);

}  // namespace
}  // namespace ember::cuda
