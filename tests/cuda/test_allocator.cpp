// The caching device allocator (Note [CUDA caching allocator]) and pinned host memory.
#include <optional>

#include "caching_allocator.h"
#include "cuda/cuda_test.h"
#include "cuda/spin_kernel.h"
#include "kernels/slots/copy_kernels.h"

namespace ember::cuda {
namespace {

using detail::kMinBlockSize;
using detail::round_block_size;
using detail::segment_size_for;
using testing::CudaTest;

constexpr size_t MiB = size_t{1} << 20;

// Size classes hold without a GPU.
TEST(CudaAllocatorSizes, RoundingAndSegmentsAsPyTorch) {
  EXPECT_EQ(round_block_size(1), 512u);
  EXPECT_EQ(round_block_size(512), 512u);
  EXPECT_EQ(round_block_size(513), 1024u);
  EXPECT_EQ(round_block_size(1000000), 1000448u);
  EXPECT_EQ(segment_size_for(512), 2 * MiB);        // small pool
  EXPECT_EQ(segment_size_for(MiB), 2 * MiB);
  EXPECT_EQ(segment_size_for(MiB + 512), 20 * MiB);  // large, under 10 MiB
  EXPECT_EQ(segment_size_for(10 * MiB), 10 * MiB);   // 10 MiB and up: rounded to 2 MiB
  EXPECT_EQ(segment_size_for(11 * MiB), 12 * MiB);
}

// Each test works on a fresh high-priority pool stream after emptying the
// cache: blocks are per stream, so other tests' cached blocks do not interfere.
class CudaAllocatorTest : public CudaTest {
 protected:
  void SetUp() override {
    synchronize();
    empty_cache();
    stream_ = stream_from_pool(/*high_priority=*/true);
  }
  void* alloc(size_t n) { return raw_alloc(n, *stream_); }
  std::optional<CUDAStream> stream_;  // made in SetUp: a CUDAStream needs a device
};
INSTANTIATE_TEST_SUITE_P(OnTheGpu, CudaAllocatorTest, ::testing::ValuesIn(testing::cuda_test_devices()));
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaAllocatorTest);

TEST_P(CudaAllocatorTest, FreedBlocksAreReusedOnTheirStream) {
  const MemoryStats before = memory_stats();
  void* p = alloc(1000);
  EXPECT_EQ(memory_allocated(), before.allocated_bytes + 1024);
  EXPECT_EQ(memory_reserved(), before.reserved_bytes + static_cast<int64_t>(2 * MiB));
  raw_delete(p);
  EXPECT_EQ(memory_allocated(), before.allocated_bytes);
  EXPECT_EQ(memory_reserved(), before.reserved_bytes + static_cast<int64_t>(2 * MiB));  // cached
  void* q = alloc(900);
  EXPECT_EQ(q, p);
  const MemoryStats after = memory_stats();
  EXPECT_EQ(after.device_allocations, before.device_allocations + 1);  // one cudaMalloc for both
  // Another stream does not get the block.
  void* other = raw_alloc(900, stream_from_pool());
  EXPECT_NE(other, q);
  raw_delete(q);
  raw_delete(other);
}

TEST_P(CudaAllocatorTest, BlocksSplitAndMergeWithinASegment) {
  const int64_t reserved0 = memory_reserved();
  char* a = static_cast<char*>(alloc(4096));
  char* b = static_cast<char*>(alloc(4096));
  char* c = static_cast<char*>(alloc(kMinBlockSize));
  EXPECT_EQ(b, a + 4096);  // carved from one 2 MiB segment
  EXPECT_EQ(c, b + 4096);
  EXPECT_EQ(memory_reserved(), reserved0 + static_cast<int64_t>(2 * MiB));
  raw_delete(b);
  EXPECT_GT(memory_stats().inactive_split_bytes, 0);
  void* b2 = alloc(2048);  // fits in b's hole
  EXPECT_EQ(b2, b);
  raw_delete(b2);
  raw_delete(a);
  raw_delete(c);
  // All three merged back into a whole segment, which empty_cache returns.
  EXPECT_EQ(memory_stats().inactive_split_bytes, 0);
  empty_cache();
  EXPECT_EQ(memory_reserved(), reserved0);
}

TEST_P(CudaAllocatorTest, LargeRequestsGetLargeSegments) {
  const int64_t reserved0 = memory_reserved();
  void* five = alloc(5 * MiB);
  EXPECT_EQ(memory_reserved(), reserved0 + static_cast<int64_t>(20 * MiB));
  void* eight = alloc(8 * MiB);  // the rest of the 20 MiB segment
  EXPECT_EQ(memory_reserved(), reserved0 + static_cast<int64_t>(20 * MiB));
  EXPECT_EQ(static_cast<char*>(eight), static_cast<char*>(five) + 5 * MiB);
  void* twelve = alloc(11 * MiB + 1);
  EXPECT_EQ(memory_reserved(), reserved0 + static_cast<int64_t>(32 * MiB));
  raw_delete(five);
  raw_delete(eight);
  raw_delete(twelve);
  empty_cache();
  EXPECT_EQ(memory_reserved(), reserved0);
}

TEST_P(CudaAllocatorTest, PeaksAndCounters) {
  reset_peak_memory_stats();
  reset_accumulated_memory_stats();
  const int64_t base = memory_allocated();
  void* a = alloc(3 * MiB);
  void* b = alloc(3 * MiB);
  raw_delete(a);
  raw_delete(b);
  const MemoryStats s = memory_stats();
  EXPECT_EQ(s.max_allocated_bytes, base + static_cast<int64_t>(6 * MiB));
  EXPECT_EQ(s.allocated_bytes, base);
  EXPECT_EQ(s.allocations, 2);
  EXPECT_EQ(s.frees, 2);
  EXPECT_EQ(max_memory_allocated(), s.max_allocated_bytes);
  EXPECT_NE(memory_summary().find("allocated"), std::string::npos);
}

TEST_P(CudaAllocatorTest, RecordStreamDelaysReuseUntilThatStreamIsDone) {
  const CUDAStream other = stream_from_pool();
  CUDAStreamGuard on(*stream_);
  Tensor t = empty({1024}, TensorOptions(kFloat32).device(kCUDA));
  void* p = t.storage()->data();
  testing::spin_on_stream(other.handle(), 50);  // `other` is busy ...
  record_stream(t, other);                      // ... and (say) reads t
  t = Tensor();                                 // freed while `other` still runs
  Tensor u = empty({1024}, TensorOptions(kFloat32).device(kCUDA));
  EXPECT_NE(u.storage()->data(), p);  // not reused yet
  other.synchronize();
  Tensor w = empty({1024}, TensorOptions(kFloat32).device(kCUDA));
  EXPECT_EQ(w.storage()->data(), p);  // reused once `other` passed the event
}

TEST_P(CudaAllocatorTest, OutOfMemoryReportsTheState) {
  const int64_t ooms = memory_stats().ooms;
  try {
    alloc(size_t{1} << 50);
    FAIL() << "expected an out-of-memory error";
  } catch (const CUDAError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("CUDA out of memory: tried to allocate 1048576.00 GiB"), std::string::npos) << m;
    EXPECT_NE(m.find("allocated by Ember's tensors"), std::string::npos) << m;
    EXPECT_NE(m.find("reserved by Ember's allocator"), std::string::npos) << m;
    EXPECT_NE(m.find("free"), std::string::npos) << m;
  }
  EXPECT_EQ(memory_stats().ooms, ooms + 1);
  EXPECT_NO_THROW(raw_delete(alloc(1024)));  // still usable
}

TEST_P(CudaAllocatorTest, MemoryFractionCapsReservation) {
  const int64_t total = get_device_properties().total_memory;
  set_per_process_memory_fraction(static_cast<double>(memory_reserved() + 64 * MiB) / static_cast<double>(total));
  EXPECT_THROW(alloc(256 * MiB), CUDAError);
  void* small = alloc(8 * MiB);
  raw_delete(small);
  set_per_process_memory_fraction(1.0);
  void* big = alloc(256 * MiB);
  raw_delete(big);
  EXPECT_THROW(set_per_process_memory_fraction(1.5), Error);
}

TEST_P(CudaAllocatorTest, TensorsAllocateOnTheCurrentStream) {
  CUDAStreamGuard on(*stream_);
  const int64_t before = memory_allocated();
  {
    Tensor t = zeros({1000, 1000}, TensorOptions(kFloat32).device(kCUDA));
    EXPECT_EQ(memory_allocated(), before + static_cast<int64_t>(round_block_size(4000000)));
  }
  EXPECT_EQ(memory_allocated(), before);
}

TEST_P(CudaTest, PinnedMemoryIsCachedAndCopiesAsynchronously) {
  Tensor host = arange(0, 1 << 16, TensorOptions(kFloat32));
  EXPECT_FALSE(is_pinned(host));
  Tensor pinned = pin_memory(host);
  EXPECT_TRUE(is_pinned(pinned));
  EXPECT_TRUE(pinned.equal(host));
  const HostMemoryStats s0 = host_memory_stats();
  EXPECT_GE(s0.allocated_bytes, static_cast<int64_t>(host.nbytes()));
  // A non-blocking copy from pinned memory, through the slot core calls.
  Tensor gpu = empty({1 << 16}, TensorOptions(kFloat32).device(kCUDA));
  device_copy_slot(kCUDA)(gpu, pinned, /*non_blocking=*/true);
  synchronize();
  EXPECT_TRUE(gpu.cpu().equal(host));
  // Freed and allocated again: the cached block comes back.
  void* p = pinned.data_ptr();
  pinned = Tensor();
  Tensor again = pin_memory(host);
  EXPECT_EQ(again.data_ptr(), p);
  EXPECT_EQ(host_memory_stats().host_allocations, s0.host_allocations);
  again = Tensor();
  empty_host_cache();
  EXPECT_LT(host_memory_stats().reserved_bytes, s0.reserved_bytes);
}

}  // namespace
}  // namespace ember::cuda
