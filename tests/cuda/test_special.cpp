// softplus, nan_to_num and ember::special's sinc, entr, logit, xlog1py,
// round(decimals) and Bessel functions on CUDA against the CPU, over the floating dtypes, strided
// and broadcast operands and edge values (zeros, integers, the ends of logit's
// domain, infinities, NaN). The CPU evaluates the special functions in long
// double, the GPU in double: float64 within a few ulps, the others exact up
// to a rounding.
#include <cmath>

#include <ember/special/bessel.h>
#include <ember/special/misc.h>

#include "cuda/cuda_test.h"

namespace ember::cuda {
namespace {

using testing::CudaTest;
using testing::expect_matches_cpu;

constexpr DType kFloatingDTypes[] = {kFloat32, kFloat64, kFloat16, kBFloat16};

double stol(DType dt) {
  switch (dt) {
    case DType::Float16: return 1e-3;
    case DType::BFloat16: return 8e-3;
    case DType::Float32: return 2e-7;
    default: return 1e-14;
  }
}

// Random values in [lo, hi] followed by the edge values.
Tensor with_edges(DType dt, double lo, double hi, std::vector<double> edges) {
  Tensor u = rand({2000}, TensorOptions(kFloat64)) * (hi - lo) + lo;
  return cat({u, tensor(edges, TensorOptions(kFloat64))}).to(dt);
}

const std::vector<double> kEdges = {0.0, -0.0, 1.0, -1.0, 2.0, -3.0, 0.5, 0.25, 1e-30, -1e-30, 1e30,
                                    INFINITY, -INFINITY, NAN};

TEST_P(CudaTest, SpecialMiscOpsMatchTheCpu) {
  for (DType dt : kFloatingDTypes) {
    const std::string d(dtype_name(dt));
    const double rt = stol(dt);
    const Tensor x = with_edges(dt, -6, 6, kEdges);
    const Tensor xg = x.to(kCUDA);
    expect_matches_cpu(special::sinc(xg), special::sinc(x), rt, 1e-15, "sinc " + d);
    expect_matches_cpu(special::sinc(xg.slice(0, 0, 2000, 3)), special::sinc(x.slice(0, 0, 2000, 3)), rt, 1e-15,
                       "sinc strided " + d);
    expect_matches_cpu(special::entr(xg), special::entr(x), rt, 1e-15, "entr " + d);
    const Tensor p = with_edges(dt, 0, 1, {0.0, -0.0, 1.0, 0.5, 0.25, 0.2499, 1e-20, 1 - 1e-7, -0.5, 1.5, NAN});
    expect_matches_cpu(special::logit(p.to(kCUDA)), special::logit(p), rt, 0, "logit " + d);
    expect_matches_cpu(special::logit(p.to(kCUDA), 1e-3), special::logit(p, 1e-3), rt, 0, "logit eps " + d);
    const Tensor y = with_edges(dt, -0.99, 5, {0.0, -1.0, -0.5, INFINITY, NAN, 1e-30, 3.0, -2.0, 0.0, NAN, 1.0, 2.0,
                                               -1e-30, 7.0});
    expect_matches_cpu(special::xlog1py(xg, y.to(kCUDA)), special::xlog1py(x, y), rt, 1e-15, "xlog1py " + d);
    expect_matches_cpu(special::xlog1py(xg, y.to(kCUDA).select(0, 5)), special::xlog1py(x, y.select(0, 5)), rt, 1e-15,
                       "xlog1py broadcast " + d);
    for (int64_t decimals : {0, 1, 3, -1, -2, 400, -400})
      expect_matches_cpu(special::round(xg * 37.123, decimals), special::round(x * 37.123, decimals), 0, 0,
                         "round decimals " + std::to_string(decimals) + " " + d);
  }
}

TEST_P(CudaTest, BesselFunctionsMatchTheCpu) {
  // Past x ~ 26 J0 and J1 keep an absolute accuracy of ~1e-17 near their zeros
  // in double (the CPU's long double keeps more): test_special_math.cpp.
  for (DType dt : kFloatingDTypes) {
    const std::string d(dtype_name(dt));
    const double rt = dt == kFloat64 ? 1e-14 : stol(dt);
    const Tensor x = with_edges(dt, -40, 40, {0.0, -0.0, 25.0, 26.0, 30.0, 100.0, 700.0, 710.0, 713.0, 1e5, INFINITY,
                                              -INFINITY, NAN, 2.404825557695773, 3.8317059702075125});
    const Tensor xg = x.to(kCUDA);
    expect_matches_cpu(special::i0(xg), special::i0(x), rt, 0, "i0 " + d);
    expect_matches_cpu(special::i0e(xg), special::i0e(x), rt, 0, "i0e " + d);
    expect_matches_cpu(special::i1(xg), special::i1(x), rt, 0, "i1 " + d);
    expect_matches_cpu(special::i1e(xg), special::i1e(x), rt, 0, "i1e " + d);
    expect_matches_cpu(special::bessel_j0(xg), special::bessel_j0(x), rt, 1e-16, "bessel_j0 " + d);
    expect_matches_cpu(special::bessel_j1(xg.slice(0, 0, 2000, 2)), special::bessel_j1(x.slice(0, 0, 2000, 2)), rt, 1e-16,
                       "bessel_j1 strided " + d);
  }
}

TEST_P(CudaTest, SoftplusAndNanToNumMatchTheCpu) {
  for (DType dt : kFloatingDTypes) {
    const std::string d(dtype_name(dt));
    const double rt = dt == kFloat64 ? 1e-13 : dt == kFloat32 ? 2e-6 : stol(dt);
    const Tensor x = with_edges(dt, -30, 30, kEdges);
    const Tensor xg = x.to(kCUDA);
    expect_matches_cpu(softplus(xg), softplus(x), rt, 1e-30, "softplus " + d);
    expect_matches_cpu(softplus(xg, 2, 5), softplus(x, 2, 5), rt, 1e-30, "softplus beta 2 threshold 5 " + d);
    expect_matches_cpu(softplus(xg.slice(0, 1, 2000, 2), 0.5, 40), softplus(x.slice(0, 1, 2000, 2), 0.5, 40), rt, 1e-30,
                       "softplus strided " + d);
    expect_matches_cpu(nan_to_num(xg), nan_to_num(x), 0, 0, "nan_to_num defaults " + d);
    expect_matches_cpu(nan_to_num(xg, 1.5, 100.0, -200.0), nan_to_num(x, 1.5, 100.0, -200.0), 0, 0,
                       "nan_to_num values " + d);
  }
  for (DType dt : {kComplex64, kComplex128}) {
    const DType real = dt == kComplex64 ? kFloat32 : kFloat64;
    const Tensor re = with_edges(real, -3, 3, kEdges), im = re.flip({0});
    const Tensor z = complex(re, im);
    expect_matches_cpu(nan_to_num(z.to(kCUDA)), nan_to_num(z), 0, 0, "nan_to_num " + std::string(dtype_name(dt)));
    expect_matches_cpu(nan_to_num(z.to(kCUDA), 0.0, 1.0, -1.0), nan_to_num(z, 0.0, 1.0, -1.0), 0, 0,
                       "nan_to_num values " + std::string(dtype_name(dt)));
  }
}

}  // namespace
}  // namespace ember::cuda
