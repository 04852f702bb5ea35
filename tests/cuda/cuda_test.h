#pragma once
// The CUDA test fixtures and comparisons with the CPU. A test that needs a GPU
// is a TEST_P of CudaTest (or a fixture derived from it), instantiated over
// cuda_test_devices(): device 0 where a GPU exists, nothing where none does, so
// a machine without one has no such tests instead of skipped ones. Each suite
// is instantiated once, in test_runtime.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <ember/cuda/cuda.h>
#include <ember/ember.h>

namespace ember::cuda::testing {

class CudaTest : public ::testing::TestWithParam<int> {};

// The devices the GPU tests run on: {0} with a GPU, {} without.
inline std::vector<int> cuda_test_devices() {
  return is_available() ? std::vector<int>{0} : std::vector<int>{};
}

// Expects `gpu` (a CUDA tensor) to hold the values of `cpu` (same dtype and
// shape): exact for integers and bool, within atol + rtol * |expected| for
// floats (NaN matching NaN, infinities matching in sign).
inline void expect_matches_cpu(const Tensor& gpu, const Tensor& cpu, double rtol, double atol,
                               const std::string& what) {
  ASSERT_TRUE(gpu.device().is_cuda()) << what << ": result on " << gpu.device();
  ASSERT_EQ(gpu.dtype(), cpu.dtype()) << what;
  ASSERT_EQ(gpu.sizes().vec(), cpu.sizes().vec()) << what;
  const Tensor g = gpu.cpu().contiguous(), c = cpu.contiguous();
  if (is_floating_point(c.dtype())) {
    const Tensor gd = g.to(kFloat64), cd = c.to(kFloat64);
    const double* a = gd.data_ptr<double>();
    const double* b = cd.data_ptr<double>();
    int reported = 0;
    for (int64_t i = 0; i < c.numel() && reported < 5; ++i) {
      const bool ok = (std::isnan(a[i]) && std::isnan(b[i])) || a[i] == b[i] ||
                      std::abs(a[i] - b[i]) <= atol + rtol * std::abs(b[i]);
      if (!ok) {
        ADD_FAILURE() << what << ": element " << i << " is " << a[i] << " on the GPU, " << b[i] << " on the CPU";
        ++reported;
      }
    }
  } else if (is_complex(c.dtype())) {
    expect_matches_cpu(view_as_real(g).to(kCUDA), view_as_real(c), rtol, atol, what);
  } else {
    const Tensor gi = g.to(kInt64), ci = c.to(kInt64);
    const int64_t* a = gi.data_ptr<int64_t>();
    const int64_t* b = ci.data_ptr<int64_t>();
    int reported = 0;
    for (int64_t i = 0; i < c.numel() && reported < 5; ++i)
      if (a[i] != b[i]) {
        ADD_FAILURE() << what << ": element " << i << " is " << a[i] << " on the GPU, " << b[i] << " on the CPU";
        ++reported;
      }
  }
}

}  // namespace ember::cuda::testing
