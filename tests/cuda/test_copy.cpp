// Copies between the host and the GPU and on the GPU, fill_, across dtypes and strides.
#include "cuda/cuda_test.h"

namespace ember::cuda {
namespace {

using testing::CudaTest;
using testing::expect_matches_cpu;

constexpr DType kAllDTypes[] = {kBool,    kUInt8,    kInt8,    kInt16,     kInt32,    kInt64,
                                kFloat16, kBFloat16, kFloat32, kFloat64, kComplex64, kComplex128};

// Values that every dtype holds exactly (small integers, halves), as `dtype`.
Tensor sample(IntArrayRef sizes, DType dtype) {
  Tensor v = randint(-40, 40, sizes, TensorOptions(kInt64)).to(kFloat64) / 2;
  if (dtype == kBool) return v.ne(0);
  if (dtype == kUInt8) return v.abs().to(kUInt8);
  if (!is_floating_point(dtype) && !is_complex(dtype)) return v.trunc().to(dtype);
  return v.to(dtype);
}

TEST_P(CudaTest, RoundTripsEveryDType) {
  for (DType dt : kAllDTypes) {
    const Tensor host = sample({3, 1000}, dt);
    const Tensor gpu = host.to(kCUDA);
    EXPECT_TRUE(gpu.device().is_cuda());
    EXPECT_EQ(gpu.device().index, 0);
    EXPECT_TRUE(gpu.cpu().equal(host)) << dt;
  }
}

TEST_P(CudaTest, CopiesStridedAndBroadcastSources) {
  const Tensor host = sample({64, 48}, kFloat32);
  const Tensor gpu = host.to(kCUDA);
  expect_matches_cpu(gpu.t().contiguous(), host.t().contiguous(), 0, 0, "transpose");
  expect_matches_cpu(gpu.slice(1, 3, 40, 5).contiguous(), host.slice(1, 3, 40, 5).contiguous(), 0, 0, "slice");
  // A non-contiguous host source and a non-contiguous device destination.
  Tensor dst = zeros({48, 64}, TensorOptions(kFloat32).device(kCUDA)).t();
  dst.copy_(host);
  expect_matches_cpu(dst.contiguous(), host, 0, 0, "into a transposed destination");
  Tensor row = sample({1, 48}, kFloat32);
  Tensor expanded = empty({64, 48}, TensorOptions(kFloat32).device(kCUDA));
  expanded.copy_(row.to(kCUDA).expand({64, 48}));
  expect_matches_cpu(expanded, row.expand({64, 48}).contiguous(), 0, 0, "broadcast source");
}

TEST_P(CudaTest, ConvertsBetweenEveryPairOfDTypes) {
  for (DType from : kAllDTypes) {
    const Tensor host = sample({257}, from);
    const Tensor gpu = host.to(kCUDA);
    for (DType to : kAllDTypes) {
      expect_matches_cpu(gpu.to(to), host.to(to), 0, 0, std::string("from ") + std::string(dtype_name(from)) + " to " +
                                                         std::string(dtype_name(to)));
    }
  }
}

TEST_P(CudaTest, ConvertsFloatEdgeValuesAsTheCpu) {
  const Tensor host = tensor(std::vector<double>{0.0, -0.0, 1e-40, 65504.0, 65520.0, 3.4e38, 1e300, -1e300, 0.1, 2.5, -2.5},
                             TensorOptions(kFloat64));
  const Tensor gpu = host.to(kCUDA);
  for (DType to : {kFloat32, kFloat16, kBFloat16}) expect_matches_cpu(gpu.to(to), host.to(to), 0, 0, "narrowing");
  const Tensor ints = tensor(std::vector<double>{-3.7, -0.5, 0.5, 3.7, 127.0, -128.0}, TensorOptions(kFloat64));
  for (DType to : {kInt8, kInt32, kInt64, kBool})
    expect_matches_cpu(ints.to(kCUDA).to(to), ints.to(to), 0, 0, "float to integer");
  // Complex to bool tests both parts; complex to real keeps the real part.
  const Tensor z = complex(tensor(std::vector<float>{0, 0, 1, 2}), tensor(std::vector<float>{0, 1, 0, -3}));
  for (DType to : {kBool, kFloat32, kInt64, kComplex128})
    expect_matches_cpu(z.to(kCUDA).to(to), z.to(to), 0, 0, "complex64 to " + std::string(dtype_name(to)));
}

TEST_P(CudaTest, CopiesOnTheDeviceAndBetweenDevices) {
  const Tensor host = sample({1000}, kFloat64);
  const Tensor a = host.to(kCUDA);
  const Tensor b = a.clone();
  EXPECT_NE(a.storage()->data(), b.storage()->data());  // (data_ptr() of device memory is for kernels only)
  expect_matches_cpu(b, host, 0, 0, "clone");
  if (device_count() > 1) {
    const Tensor c = a.to(Device(DeviceType::CUDA, 1));
    EXPECT_EQ(c.device().index, 1);
    EXPECT_TRUE(c.cpu().equal(host));
  }
}

TEST_P(CudaTest, ConjugateAndNegativeViewsMaterializeOnTheDevice) {
  const Tensor host = sample({100}, kComplex64);
  const Tensor gpu = host.to(kCUDA);
  expect_matches_cpu(gpu.conj().resolve_conj(), host.conj().resolve_conj(), 0, 0, "conj");
  EXPECT_TRUE(gpu.conj().cpu().resolve_conj().equal(host.conj().resolve_conj()));
}

TEST_P(CudaTest, FillsEveryDType) {
  for (DType dt : kAllDTypes) {
    const Scalar v = dt == kBool ? Scalar(true) : Scalar(3);
    expect_matches_cpu(full({5, 7}, v, TensorOptions(dt).device(kCUDA)), full({5, 7}, v, TensorOptions(dt)), 0, 0,
                       "full");
    Tensor z = zeros({4, 6}, TensorOptions(dt).device(kCUDA));
    z.slice(1, 1, 3).fill_(v);
    Tensor zc = zeros({4, 6}, TensorOptions(dt));
    zc.slice(1, 1, 3).fill_(v);
    expect_matches_cpu(z, zc, 0, 0, "strided fill_");
  }
  expect_matches_cpu(full({3}, 0.1, TensorOptions(kFloat16).device(kCUDA)), full({3}, 0.1, TensorOptions(kFloat16)), 0, 0,
                     "float16 fill rounds as the CPU");
}

TEST_P(CudaTest, EmptyTensorsCopy) {
  const Tensor host = empty({0, 3}, TensorOptions(kFloat32));
  const Tensor gpu = host.to(kCUDA);
  EXPECT_EQ(gpu.numel(), 0);
  EXPECT_EQ(gpu.cpu().sizes().vec(), host.sizes().vec());
}

}  // namespace
}  // namespace ember::cuda
