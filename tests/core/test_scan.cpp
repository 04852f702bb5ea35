// Scans: cumsum, cumprod, cummax, cummin, logcumsumexp. Fixtures from
// scripts/fixtures/scan.py (PyTorch 1.13), plus float64 loops.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <vector>

#include <ember/ember.h>

#include "tensor_expect.h"
#include "test_util.h"

using namespace ember;
using ember::testing::at;
using ember::testing::expect_error;
using ember::testing::expect_tensor_near;

namespace scan_test {
Tensor fx(const std::string& name) { return ember::testing::fixture("scan", name); }

TEST(Scan, CumsumCumprodMatchTorch) {
  Tensor s = fx("s");
  expect_tensor_near(cumsum(s, 1), fx("cumsum_1"));
  expect_tensor_near(s.cumsum(-2), fx("cumsum_1"));
  expect_tensor_near(cumprod(s, -1), fx("cumprod_m1"));
  // Non-contiguous input: the same values through a transposed view.
  Tensor st = s.transpose(0, 2).contiguous().transpose(0, 2);
  expect_tensor_near(cumsum(st, 1), fx("cumsum_1"));
  expect_tensor_near(cumprod(st, 2), fx("cumprod_m1"));
  expect_tensor_near(cumsum(s.to(kFloat64), 1), fx("cumsum_1").to(kFloat64));
}

TEST(Scan, IntegerInputsAccumulateInInt64) {
  Tensor u = fx("small_u8");
  Tensor p = cumprod(u, 1);
  EXPECT_EQ(p.dtype(), kInt64);
  expect_tensor_near(p, fx("cumprod_u8_1"));
  expect_tensor_near(cumsum(u, 0, kFloat64), fx("cumsum_u8_0_f64"));
  EXPECT_EQ(cumsum(ones({3}, kInt32), 0).dtype(), kInt64);
  EXPECT_EQ(cumsum(ones({3}, kInt32), 0, kInt32).dtype(), kInt32);
  Tensor b = cumsum(tensor({true, false, true}), 0);
  EXPECT_EQ(b.dtype(), kInt64);
  EXPECT_TRUE(equal(b, tensor({1, 1, 2})));
  // int64 wraps like C++ (and PyTorch) instead of saturating.
  Tensor big = full({2}, int64_t{1} << 62, kInt64);
  EXPECT_EQ(at<int64_t>(cumsum(big, 0), {1}), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(cumsum(tensor({1.5f, 2.5f}).to(kHalf), 0).dtype(), kHalf);
  EXPECT_FLOAT_EQ(at<float>(cumsum(tensor({1.5f, 2.5f}).to(kHalf), 0), {1}), 4.f);
}

TEST(Scan, Float64LoopReferenceAlongEveryDim) {
  Tensor x = arange(60, kFloat64).view({3, 4, 5}).sin().permute({2, 0, 1});  // [5, 3, 4] non-contiguous
  for (int64_t dim = -3; dim < 3; ++dim) {
    Tensor cs = cumsum(x, dim), cp = cumprod(x, dim), lse = logcumsumexp(x, dim);
    const int64_t d = dim < 0 ? dim + 3 : dim;
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 3; ++j)
        for (int64_t k = 0; k < 4; ++k) {
          int64_t idx[3] = {i, j, k};
          double s = 0, p = 1, e = 0;
          for (int64_t r = 0; r <= idx[d]; ++r) {
            int64_t src[3] = {i, j, k};
            src[d] = r;
            const double v = at<double>(x, {src[0], src[1], src[2]});
            s += v;
            p *= v;
            e += std::exp(v);
          }
          ASSERT_NEAR(at<double>(cs, {i, j, k}), s, 1e-12);
          ASSERT_NEAR(at<double>(cp, {i, j, k}), p, 1e-12);
          ASSERT_NEAR(at<double>(lse, {i, j, k}), std::log(e), 1e-12);
        }
  }
}

TEST(Scan, LogcumsumexpMatchesTorchWithInfinitiesAndNan) {
  Tensor s = fx("s");
  expect_tensor_near(logcumsumexp(s, 0), fx("logcumsumexp_0"));
  expect_tensor_near(s.logcumsumexp(-1), fx("logcumsumexp_2"));
  expect_tensor_near(logcumsumexp(fx("lse_special"), 0), fx("logcumsumexp_special"));
  // Large values don't overflow.
  Tensor big = tensor({1000.0, 1000.0}, kFloat64);
  EXPECT_NEAR(at<double>(logcumsumexp(big, 0), {1}), 1000.0 + std::log(2.0), 1e-9);
  expect_error([] { logcumsumexp(ones({3}, kInt64), 0); }, "floating point");
}

TEST(Scan, CummaxCumminMatchTorch) {
  for (std::string op : {"cummax", "cummin"}) {
    SCOPED_TRACE(op);
    auto fn = [&](const Tensor& t, int64_t d) { return op == "cummax" ? cummax(t, d) : cummin(t, d); };
    auto [tv, ti] = fn(fx("ties"), 1);  // ties: the index moves to the latest equal value
    expect_tensor_near(tv, fx(op + "_ties_values"));
    expect_tensor_near(ti, fx(op + "_ties_indices"));
    auto [sv, si] = fn(fx("s"), 0);
    expect_tensor_near(sv, fx(op + "_s0_values"));
    expect_tensor_near(si, fx(op + "_s0_indices"));
    auto [nv, ni] = fn(fx("with_nan"), -1);  // a NaN sticks
    expect_tensor_near(nv, fx(op + "_nan_values"));
    expect_tensor_near(ni, fx(op + "_nan_indices"));
    // int32 and non-contiguous inputs.
    auto [iv, ii] = fn(fx("ties").to(kInt32).t().contiguous().t(), 1);
    expect_tensor_near(iv, fx(op + "_ties_values").to(kInt32));
    expect_tensor_near(ii, fx(op + "_ties_indices"));
  }
  auto [bv, bi] = cummax(tensor({false, true, false}), 0);
  EXPECT_TRUE(equal(bv, tensor({false, true, true})));
  EXPECT_TRUE(equal(bi, tensor({0, 1, 1})));
}

TEST(Scan, EmptyZeroDimOutAndErrors) {
  EXPECT_EQ(cumsum(empty({0, 3}), 0).sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(cummax(empty({2, 0}), 1).second.sizes(), IntArrayRef({2, 0}));
  EXPECT_EQ(cumsum(scalar_tensor(2.5), 0).item<double>(), 2.5);
  EXPECT_EQ(cumprod(scalar_tensor(3), -1).item<int64_t>(), 3);
  Tensor out = empty({0});
  cumsum_out(out, tensor({1.f, 2.f, 3.f}), 0);
  EXPECT_TRUE(equal(out, tensor({1.f, 3.f, 6.f})));
  Tensor strided = empty({3, 2}).select(1, 0);  // non-contiguous out
  cumprod_out(strided, tensor({1.f, 2.f, 3.f}), 0);
  EXPECT_TRUE(equal(strided, tensor({1.f, 2.f, 6.f})));
  Tensor in_place = tensor({1.0, 2.0, 3.0}, kFloat64);
  in_place.cumsum_(0);
  EXPECT_TRUE(equal(in_place, tensor({1.0, 3.0, 6.0}, kFloat64)));
  expect_error([] { cumsum(ones({3}), 1); }, "dimension out of range");
  expect_error([] { cummin(ones({2, 3}), -3); }, "dimension out of range");
  expect_error([] { cummax(ones({3}, kComplex64), 0); }, "complex");
  Tensor wrong = empty({3}, kInt64);
  expect_error([&] { cumsum_out(wrong, ones({3}), 0, kFloat64); }, "Expected out tensor to have dtype");
  Tensor bad_shape = empty({2});
  expect_error([&] { cumsum_out(bad_shape, ones({3}), 0); }, "shape");
}

TEST(Scan, ResultDoesNotDependOnThreadCount) {
  Tensor x = arange(200000, kFloat32).view({400, 500}).sin();
  const int threads = get_num_threads();
  set_num_threads(1);
  Tensor a0 = cumsum(x, 0), a1 = cumsum(x, 1), m0 = cummax(x, 0).second;
  set_num_threads(threads);
  EXPECT_TRUE(equal(cumsum(x, 0), a0));
  EXPECT_TRUE(equal(cumsum(x, 1), a1));
  EXPECT_TRUE(equal(cummax(x, 0).second, m0));
}

// Found by ember_difffuzz (cumsum of a float32[289, 257] along dim 0): an inner
// size of 64k + 1 leaves a last block of one lane, which was scanned as if the
// scanned dim were innermost (elements 1 apart instead of `inner`), writing
// over its neighbours' results.
TEST(Scan, InnerSizeOneMoreThanALaneBlock) {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{9, 65}, {2, 6, 129}, {5, 257}}) {
    const int64_t numel = std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
    Tensor x = (arange(numel, kFloat64).view(shape).sin() * 0.5 + 1.0);
    const int64_t dim = shape.size() == 3 ? 1 : 0;
    const int64_t n = shape[dim];
    Tensor cs = cumsum(x, dim), cp = cumprod(x, dim), lse = logcumsumexp(x, dim);
    Tensor s = zeros_like(x.select(dim, 0)), p = ones_like(s), e = zeros_like(s);
    for (int64_t i = 0; i < n; ++i) {  // the reference: row by row, elementwise ops only
      const Tensor row = x.select(dim, i);
      s = s + row;
      p = p * row;
      e = e + row.exp();
      EXPECT_TRUE(cs.select(dim, i).allclose(s, 1e-12, 1e-12)) << "cumsum row " << i;
      EXPECT_TRUE(cp.select(dim, i).allclose(p, 1e-12, 1e-12)) << "cumprod row " << i;
      EXPECT_TRUE(lse.select(dim, i).allclose(e.log(), 1e-12, 1e-12)) << "logcumsumexp row " << i;
    }
    EXPECT_TRUE(cumsum(x.to(kFloat32), dim).allclose(cs.to(kFloat32), 1e-6, 1e-6));  // the float32 kernel
  }
}

}  // namespace scan_test
