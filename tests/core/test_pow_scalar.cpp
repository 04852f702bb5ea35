// tensor ** number (kernels/cpu/pow_scalar_kernels.cpp, Note [pow with a
// number exponent]): the exponents torch 1.13 computes as products, sqrt and
// division, with torch's values at the edges (printed by Debian's torch 1.13,
// e.g. torch.tensor([-0., float('-inf')]) ** 0.5 == [-0., nan]), float16's
// pow semantics, integer wrapping, a tensor exponent keeping pow's semantics,
// and autograd.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <ember/ember.h>

#include "special_ulp.h"

using namespace ember;
using ember::testing::expect_values;
using ember::testing::values_of;

namespace pow_scalar_test {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// torch 1.13: x = [-0., -inf, -4., 0., nan, 2.] ** e for float32 and float64.
TEST(PowScalar, SpecialExponentsMatchTorchAtTheEdges) {
  for (DType dt : {kFloat32, kFloat64}) {
    SCOPED_TRACE(dt);
    const Tensor x = tensor<double>({-0.0, -kInf, -4.0, 0.0, kNan, 2.0}, TensorOptions().dtype(dt));
    expect_values(pow(x, 0.5), {-0.0, kNan, kNan, 0.0, kNan, std::sqrt(2.0)});
    expect_values(pow(x, -0.5), {-kInf, kNan, kNan, kInf, kNan, 1 / std::sqrt(2.0)});
    expect_values(pow(x, -1), {-kInf, -0.0, -0.25, kInf, kNan, 0.5});
    expect_values(pow(x, 2), {0.0, kInf, 16.0, 0.0, kNan, 4.0});
    expect_values(pow(x, -2), {kInf, 0.0, 0.0625, kInf, kNan, 0.25});
    expect_values(pow(x, 3), {-0.0, -kInf, -64.0, 0.0, kNan, 8.0});
    expect_values(pow(x, 0), {1, 1, 1, 1, 1, 1});
    expect_values(pow(x, 1), {-0.0, -kInf, -4.0, 0.0, kNan, 2.0});
    expect_values(pow(x, 2.0), {0.0, kInf, 16.0, 0.0, kNan, 4.0});
    // A tensor exponent, even zero-dim, keeps pow's semantics (torch.pow(x, torch.tensor(0.5))).
    expect_values(pow(x, tensor<double>({0.5}, TensorOptions().dtype(dt)).reshape({})), {0.0, kInf, kNan, 0.0, kNan, std::sqrt(2.0)});
    // Other exponents are pow's: pow(-0, 0.25) = +0, pow(-inf, 0.25) = +inf.
    expect_values(pow(x, 0.25), {0.0, kInf, kNan, 0.0, kNan, std::pow(2.0, 0.25)});
  }
}

// Values over a wide range: 2 and 0.5 are exactly x * x and sqrt(x); 3, -2,
// -1, -0.5 within an ulp or two of the float64 (long double) pow.
TEST(PowScalar, ProductsAndRootsAgainstLibm) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  std::uniform_int_distribution<int> expo(-40, 40);
  std::vector<float> xs(10001);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(std::ldexp(mant(gen), expo(gen))) * (i % 3 ? 1 : -1);
  const Tensor x = tensor<float>(xs);
  const std::vector<double> sq = values_of(pow(x, 2)), rt = values_of(pow(x, 0.5));
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_EQ(static_cast<float>(sq[i]), xs[i] * xs[i]);
    if (xs[i] >= 0) EXPECT_EQ(static_cast<float>(rt[i]), std::sqrt(xs[i]));
    else EXPECT_TRUE(std::isnan(rt[i])) << "negative ** 0.5 is nan";
  }
  for (double e : {3.0, -2.0, -1.0, -0.5}) {
    const Tensor x64 = x.to(kFloat64);
    std::vector<double> ref(xs.size());
    for (size_t i = 0; i < xs.size(); ++i)
      ref[i] = static_cast<double>(powl(static_cast<long double>(xs[i]), static_cast<long double>(e)));
    const Tensor expected = tensor<double>(ref, TensorOptions().dtype(kFloat64));
    const std::vector<bool> finite = [&] {
      std::vector<bool> m(xs.size());
      for (size_t i = 0; i < xs.size(); ++i) m[i] = std::isfinite(ref[i]);
      return m;
    }();
    ember::testing::check_ulp("float32 ** " + std::to_string(e), pow(x, e), expected.to(kFloat32), 2.0, x, finite);
    ember::testing::check_ulp("float64 ** " + std::to_string(e), pow(x64, e), expected, 2.0, x64, finite);
  }
  // Strided (transposed) input and an in-place form take the same path.
  const Tensor m = x.slice(0, 0, 10000).reshape({100, 100});
  EXPECT_TRUE(equal(pow(m.t(), 2), (m * m).t()));
  Tensor c = m.abs();
  c.pow_(0.5);
  EXPECT_TRUE(equal(c, sqrt(m.abs())));
}

// torch 1.13: integers use powi with wrapping; 0 ** -1 is an error, not inf.
TEST(PowScalar, IntegerDtypes) {
  const Tensor i = tensor<int64_t>({-3, 0, 2, 5});
  EXPECT_EQ(values_of(pow(i, 2)), (std::vector<double>{9, 0, 4, 25}));
  EXPECT_EQ(values_of(pow(i, 3)), (std::vector<double>{-27, 0, 8, 125}));
  EXPECT_EQ(values_of(pow(i, 5)), (std::vector<double>{-243, 0, 32, 3125}));
  EXPECT_EQ(values_of(pow(i, 0)), (std::vector<double>{1, 1, 1, 1}));
  EXPECT_EQ(values_of(pow(i, 1)), (std::vector<double>{-3, 0, 2, 5}));
  EXPECT_EQ(pow(i, 2).dtype(), kInt64);
  const Tensor i8 = tensor<int64_t>({100, -100, 7}).to(kInt8);
  EXPECT_EQ(values_of(pow(i8, 2)), (std::vector<double>{16, 16, 49}));
  EXPECT_EQ(values_of(pow(i8, 3)), (std::vector<double>{64, -64, 87}));
  const Tensor u8 = tensor<int64_t>({200, 3}).to(kUInt8);
  EXPECT_EQ(values_of(pow(u8, 2)), (std::vector<double>{64, 9}));
  EXPECT_EQ(values_of(pow(u8, 3)), (std::vector<double>{0, 27}));
  // An integer tensor to a float power is float: sqrt of -3 is nan.
  const Tensor f = pow(i, 0.5);
  EXPECT_EQ(f.dtype(), kFloat32);
  expect_values(f, {kNan, 0.0, std::sqrt(2.0), std::sqrt(5.0)});
  // bool ** 2 is int64 (a wrapped int promotes bool).
  const Tensor b = pow(tensor<bool>({true, false}), 2);
  EXPECT_EQ(b.dtype(), kInt64);
  EXPECT_EQ(values_of(b), (std::vector<double>{1, 0}));
  EXPECT_THROW(pow(i, -1), Error);
  EXPECT_THROW(pow(i, -2), Error);
}

// float16 keeps pow for every exponent (torch 1.13's Half path); bfloat16
// takes the special forms like float32.
TEST(PowScalar, ReducedFloats) {
  const Tensor h = tensor<double>({-0.0, -kInf, 4.0, -4.0}).to(kHalf);
  expect_values(pow(h, 0.5).to(kFloat64), {0.0, kInf, 2.0, kNan});
  expect_values(pow(h, -0.5).to(kFloat64), {kInf, 0.0, 0.5, kNan});
  expect_values(pow(h, -1).to(kFloat64), {-kInf, -0.0, 0.25, -0.25});
  expect_values(pow(h, 2).to(kFloat64), {0.0, kInf, 16.0, 16.0});
  const Tensor bf = tensor<double>({-0.0, -kInf, 4.0}).to(kBFloat16);
  expect_values(pow(bf, 0.5).to(kFloat64), {-0.0, kNan, 2.0});
  expect_values(pow(bf, -1).to(kFloat64), {-kInf, -0.0, 0.25});
}

// Complex: products, sqrt and reciprocal (torch 1.13's values); inf ** 0 is 1.
TEST(PowScalar, ComplexBases) {
  const Tensor c = tensor<complex128>({complex128(-4, 0), complex128(-4, -0.0), complex128(1, 2)});
  const Tensor r = view_as_real(pow(c, 0.5));
  expect_values(r.flatten(), {0, 2, 0, -2, 1.272019649514069, 0.7861513777574233});
  const Tensor s = view_as_real(pow(c, 2));
  expect_values(s.flatten(), {16, -0.0, 16, 0, -3, 4});
  // -1 is Ember's complex reciprocal (C99 division: 1 / (-4 - 0j) has imaginary
  // part -0 where torch's vectorized reciprocal gives +0; docs/complex.md).
  const Tensor inv = pow(c, -1);
  EXPECT_TRUE(equal(inv, reciprocal(c)));
  const std::vector<double> iv = values_of(view_as_real(inv).flatten()), inv_want = {-0.25, 0, -0.25, 0, 0.2, -0.4};
  for (size_t k = 0; k < inv_want.size(); ++k) EXPECT_EQ(iv[k], inv_want[k]) << "element " << k;
  const Tensor cube = view_as_real(pow(tensor<complex128>({complex128(2, 1)}), 3));
  expect_values(cube.flatten(), {2, 11});
  const Tensor one = view_as_real(pow(tensor<complex128>({complex128(kInf, 0)}), 0));
  expect_values(one.flatten(), {1, 0});
  // A complex exponent with an imaginary part is pow's.
  const Tensor g = pow(tensor<complex128>({complex128(1, 2)}), Scalar(complex128(2, 1)));
  const complex128 want = std::pow(complex128(1, 2), complex128(2, 1));
  EXPECT_NEAR(values_of(view_as_real(g))[0], want.real(), 1e-12);
  EXPECT_NEAR(values_of(view_as_real(g))[1], want.imag(), 1e-12);
}

// The gradient formula is pow's (e * x^(e-1)), whatever kernel ran forward.
TEST(PowScalar, GradientsUnchanged) {
  Tensor x = tensor<double>({1.5, 2.0, 0.25}, TensorOptions().dtype(kFloat64)).requires_grad_();
  for (double e : {2.0, 3.0, 0.5, -0.5, -1.0, -2.0, 0.0, 1.0}) {
    SCOPED_TRACE(e);
    x.mutable_grad() = Tensor();
    pow(x, e).sum().backward();
    const std::vector<double> g = values_of(x.grad()), xv = {1.5, 2.0, 0.25};
    for (size_t i = 0; i < xv.size(); ++i) EXPECT_NEAR(g[i], e == 0 ? 0.0 : e * std::pow(xv[i], e - 1), 1e-12);
  }
}

}  // namespace pow_scalar_test
