// Complex numbers: values against PyTorch 1.13 fixtures (scripts/fixtures/complex.py)
// for arithmetic, promotion, unary ops, reductions, comparisons, products and
// indexing; real/imag views, view_as_real/view_as_complex, polar, complex();
// conjugate views (Note [Conjugate bit] in core/src/ops/conj_views.cpp):
// O(1) conj(), reads and in-place writes through them, fused consumers
// (copy_, BLAS products, dot/vdot) checked by counting allocations, autograd.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/fft.h>

#include "tensor_expect.h"
#include "gradcheck_tight.h"

namespace ember {
namespace complex_test {

using testing::kTightGradcheck;
using testing::expect_error;

// testing::expect_tensor_near compares in float64, which keeps only the real
// part of complex tensors: complex values are compared as [..., 2] real views.
void expect_tensor_near(const Tensor& actual, const Tensor& expected, double rtol = 1e-5, double atol = 1e-6) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << "shape mismatch";
  EXPECT_EQ(actual.dtype(), expected.dtype());
  auto as_real = [](const Tensor& t) {
    return t.is_complex() ? view_as_real(t.to(kComplex128).resolve_conj()) : t.to(kFloat64).unsqueeze(-1);
  };
  const Tensor a = as_real(actual), e = as_real(expected);
  ASSERT_EQ(a.sizes(), e.sizes()) << "real vs complex";
  EXPECT_TRUE(allclose(a, e, rtol, atol, /*equal_nan=*/true)) << "actual:\n" << actual << "\nexpected:\n" << expected;
}

Tensor fx(const std::string& name) { return testing::fixture("complex", name); }

// A 1-d complex tensor from values ({re, im} each).
Tensor ctensor(const std::vector<complex128>& values, DType dtype = kComplex128) { return tensor(values, dtype); }

struct Inputs {
  Tensor sp = fx("in_sp"), a = fx("in_a"), b = fx("in_b"), r = fx("in_r"), pos = fx("in_pos"), v = fx("in_v"), w = fx("in_w"),
         bt = fx("in_bt"), bt2 = fx("in_bt2");
  Tensor mask = tensor<bool>({true, false, true, false, false, false, true, true, true, true, false, false}).view({3, 4});
  Tensor idx = tensor<int64_t>({2, 0, 2});
  Tensor gidx = tensor<int64_t>({0, 3, 1, 1, 2, 2, 0, 3, 1, 0, 0, 2}).view({3, 4});
  Scalar z = Scalar(complex128(1.5, -2.25));
};

using Case = std::function<Tensor(const Inputs&)>;

// Same names and calls as CASES in scripts/fixtures/complex.py.
const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> c = {
      {"add_ab", [](const Inputs& i) { return i.a + i.b; }},
      {"add_ar", [](const Inputs& i) { return i.a + i.r; }},
      {"add_ra", [](const Inputs& i) { return i.r + i.a; }},
      {"add_a_scalar", [](const Inputs& i) { return i.a + 2.5; }},
      {"add_r_cscalar", [](const Inputs& i) { return i.r + i.z; }},
      {"add_alpha", [](const Inputs& i) { return add(i.a, i.b, i.z); }},
      {"sub_ab", [](const Inputs& i) { return i.a - i.b; }},
      {"sub_ra", [](const Inputs& i) { return i.r - i.a; }},
      {"sub_a_cscalar", [](const Inputs& i) { return i.a - i.z; }},
      {"mul_ab", [](const Inputs& i) { return i.a * i.b; }},
      {"mul_ar", [](const Inputs& i) { return i.a * i.r; }},
      {"mul_a_cscalar", [](const Inputs& i) { return i.a * i.z; }},
      {"mul_r_cscalar", [](const Inputs& i) { return i.r * i.z; }},
      {"div_ab", [](const Inputs& i) { return i.a / i.b; }},
      {"div_ar", [](const Inputs& i) { return i.a / i.r; }},
      {"div_ra", [](const Inputs& i) { return i.r / i.a; }},
      {"div_a_cscalar", [](const Inputs& i) { return i.a / i.z; }},
      {"rdiv_cscalar_a", [](const Inputs& i) { return i.z / i.a; }},
      {"pow_ab", [](const Inputs& i) { return i.a.pow(i.b); }},
      {"pow_a2", [](const Inputs& i) { return i.a.pow(2); }},
      {"pow_a_half", [](const Inputs& i) { return i.a.pow(0.5); }},
      {"pow_a_cscalar", [](const Inputs& i) { return i.a.pow(i.z); }},
      {"pow_pos_a", [](const Inputs& i) { return i.pos.pow(i.a); }},
      {"pow_a_r", [](const Inputs& i) { return i.a.pow(i.r); }},
      {"neg", [](const Inputs& i) { return -i.a; }},
      {"exp", [](const Inputs& i) { return i.a.exp(); }},
      {"log", [](const Inputs& i) { return i.a.log(); }},
      {"sqrt", [](const Inputs& i) { return i.a.sqrt(); }},
      {"sin", [](const Inputs& i) { return i.a.sin(); }},
      {"cos", [](const Inputs& i) { return i.a.cos(); }},
      {"tan", [](const Inputs& i) { return i.a.tan(); }},
      {"tanh", [](const Inputs& i) { return i.a.tanh(); }},
      {"sinh", [](const Inputs& i) { return i.a.sinh(); }},
      {"cosh", [](const Inputs& i) { return i.a.cosh(); }},
      {"reciprocal", [](const Inputs& i) { return i.a.reciprocal(); }},
      {"rsqrt", [](const Inputs& i) { return i.a.rsqrt(); }},
      {"sigmoid", [](const Inputs& i) { return i.a.sigmoid(); }},
      {"square", [](const Inputs& i) { return i.a.square(); }},
      {"log2", [](const Inputs& i) { return i.a.log2(); }},
      {"log10", [](const Inputs& i) { return i.a.log10(); }},
      {"asin", [](const Inputs& i) { return i.a.asin(); }},
      {"acos", [](const Inputs& i) { return i.a.acos(); }},
      {"atan", [](const Inputs& i) { return i.a.atan(); }},
      {"abs", [](const Inputs& i) { return i.a.abs(); }},
      {"angle", [](const Inputs& i) { return i.a.angle(); }},
      {"angle_r", [](const Inputs& i) { return i.r.angle(); }},
      {"sgn", [](const Inputs& i) { return i.a.sgn(); }},
      {"conj_physical", [](const Inputs& i) { return conj_physical(i.a); }},
      {"asinh", [](const Inputs& i) { return i.a.asinh(); }},
      {"acosh", [](const Inputs& i) { return i.a.acosh(); }},
      {"atanh", [](const Inputs& i) { return i.a.atanh(); }},
      {"sp_log", [](const Inputs& i) { return i.sp.log(); }},
      {"sp_sqrt", [](const Inputs& i) { return i.sp.sqrt(); }},
      {"sp_exp", [](const Inputs& i) { return i.sp.exp(); }},
      {"sp_abs", [](const Inputs& i) { return i.sp.abs(); }},
      {"sp_angle", [](const Inputs& i) { return i.sp.angle(); }},
      {"sp_sgn", [](const Inputs& i) { return i.sp.sgn(); }},
      {"sp_reciprocal", [](const Inputs& i) { return i.sp.reciprocal(); }},
      {"sp_div", [](const Inputs& i) { return Scalar(complex128(1, 1)) / i.sp; }},
      {"sp_mul", [](const Inputs& i) { return i.sp * Scalar(complex128(2, -1)); }},
      {"sp_isnan", [](const Inputs& i) { return i.sp.isnan(); }},
      {"sp_isinf", [](const Inputs& i) { return i.sp.isinf(); }},
      {"sp_isfinite", [](const Inputs& i) { return i.sp.isfinite(); }},
      {"sp_div_zero", [](const Inputs& i) { return i.a[0] / zeros({4}, kComplex128); }},
      {"var_dim1", [](const Inputs& i) { return var(i.a, {1}); }},
      {"std", [](const Inputs& i) { return ember::std(i.a); }},
      {"mean_keepdim", [](const Inputs& i) { return i.a.mean({0, 1}, true); }},
      {"sum", [](const Inputs& i) { return i.a.sum(); }},
      {"sum_dim1", [](const Inputs& i) { return i.a.sum({1}); }},
      {"mean", [](const Inputs& i) { return i.a.mean(); }},
      {"mean_dim0", [](const Inputs& i) { return i.a.mean({0}); }},
      {"prod", [](const Inputs& i) { return i.a.prod(); }},
      {"prod_dim1", [](const Inputs& i) { return prod(i.a, 1); }},
      {"cumsum_dim1", [](const Inputs& i) { return i.a.cumsum(1); }},
      {"cumprod_dim0", [](const Inputs& i) { return i.a.cumprod(0); }},
      {"norm", [](const Inputs& i) { return norm(i.a); }},
      {"norm_dim1", [](const Inputs& i) { return norm(i.a, 2, {1}); }},
      {"vector_norm_1", [](const Inputs& i) { return linalg::vector_norm(i.a, 1); }},
      {"vector_norm_inf", [](const Inputs& i) { return linalg::vector_norm(i.a, INFINITY); }},
      {"vector_norm_3_dim0", [](const Inputs& i) { return linalg::vector_norm(i.a, 3, {0}); }},
      {"eq_ab", [](const Inputs& i) { return eq(i.a, i.b); }},
      {"ne_ab", [](const Inputs& i) { return ne(i.a, i.b); }},
      {"isclose_ab", [](const Inputs& i) { return isclose(i.a, i.b); }},
      {"eq_a_cscalar", [](const Inputs& i) { return eq(i.a, i.a.index({1, 2}).item()); }},
      {"matmul_abT", [](const Inputs& i) { return i.a.matmul(i.b.t()); }},
      {"mm_aTb", [](const Inputs& i) { return i.a.t().mm(i.b); }},
      {"bmm", [](const Inputs& i) { return i.bt.bmm(i.bt2); }},
      {"dot_vw", [](const Inputs& i) { return i.v.dot(i.w); }},
      {"vdot_vw", [](const Inputs& i) { return i.v.vdot(i.w); }},
      {"mv_av", [](const Inputs& i) { return i.a.mv(i.v); }},
      {"matmul_a_conjbT", [](const Inputs& i) { return i.a.matmul(i.b.conj().t()); }},
      {"matmul_conja_bT", [](const Inputs& i) { return i.a.conj().matmul(i.b.t()); }},
      {"matmul_conjaT_b", [](const Inputs& i) { return i.a.conj().t().matmul(i.b); }},
      {"mv_conja_v", [](const Inputs& i) { return i.a.conj().mv(i.v); }},
      {"mv_a_conjv", [](const Inputs& i) { return i.a.mv(i.v.conj()); }},
      {"bmm_conj", [](const Inputs& i) { return i.bt.conj().bmm(i.bt2); }},
      {"bmm_conjT", [](const Inputs& i) { return i.bt2.transpose(1, 2).conj().bmm(i.bt.transpose(1, 2).conj()); }},
      {"mm_conj_both", [](const Inputs& i) { return i.a.conj().mm(i.b.t().conj()); }},
      {"dot_conjv_w", [](const Inputs& i) { return i.v.conj().dot(i.w); }},
      {"dot_v_conjw", [](const Inputs& i) { return i.v.dot(i.w.conj()); }},
      {"vdot_conjv_w", [](const Inputs& i) { return i.v.conj().vdot(i.w); }},
      {"vdot_conjv_conjw", [](const Inputs& i) { return i.v.conj().vdot(i.w.conj()); }},
      {"where", [](const Inputs& i) { return where(i.mask, i.a, i.b); }},
      {"where_r", [](const Inputs& i) { return where(i.mask, i.a, i.r); }},
      {"masked_fill", [](const Inputs& i) { return i.a.masked_fill(i.mask, i.z); }},
      {"index_select", [](const Inputs& i) { return i.a.index_select(0, i.idx); }},
      {"gather", [](const Inputs& i) { return gather(i.a, 1, i.gidx); }},
      {"scatter_add", [](const Inputs& i) { return scatter_add(i.a, 1, i.gidx, i.b); }},
      {"index_put", [](const Inputs& i) { return index_put(i.a, {std::optional<Tensor>(i.idx)}, i.b[0], true); }},
      {"masked_select", [](const Inputs& i) { return i.a.masked_select(i.mask); }},
      {"to_real", [](const Inputs& i) { return i.a.to(kFloat64); }},
      {"r_to_complex", [](const Inputs& i) { return i.r.to(kComplex128); }},
      {"polar", [](const Inputs& i) { return polar(i.pos, i.r); }},
      {"complex", [](const Inputs& i) { return complex(i.r, i.pos); }},
      {"complex_bcast", [](const Inputs& i) { return complex(i.r, i.pos[0]); }},
  };
  return c;
}

// Special values where Ember and torch 1.13 differ on purpose: Ember's complex
// arithmetic is std::complex's (C99 Annex G: infinities are recovered, abs is
// hypot, division and reciprocal scale to avoid overflow), while torch's
// vectorized CPU kernels use the textbook formulas, so e.g. abs(1e300+1e300j)
// is inf, 1/(1e300+1e300j) is 0 and (1+1j)/0 is nan+nanj there. These entries
// (indices into in_sp) are checked against C99 values in SpecialValuesFollowC99.
const std::map<std::string, std::vector<int64_t>>& c99_entries() {
  static const std::map<std::string, std::vector<int64_t>> m = {
      {"sp_abs", {8, 9, 10}},          {"sp_div", {0, 1, 4, 5, 6, 8, 9, 10}},
      {"sp_div_zero", {0, 1, 2, 3}},   {"sp_exp", {4, 7, 8}},
      {"sp_mul", {8}},                 {"sp_reciprocal", {0, 1, 4, 5, 6, 8, 9}},
      {"sp_sgn", {9, 10}},
  };
  return m;
}

// Drops the listed entries of a 1-d tensor.
Tensor without_entries(const Tensor& t, const std::vector<int64_t>& drop) {
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < t.size(0); ++i)
    if (std::find(drop.begin(), drop.end(), i) == drop.end()) keep.push_back(i);
  return t.index_select(0, tensor(keep));
}

// Every case in complex128 against torch.
TEST(ComplexFixture, Complex128MatchesTorch) {
  const Inputs in;
  for (const auto& [name, f] : cases()) {
    SCOPED_TRACE(name);
    Tensor got = f(in), expected = fx(name);
    if (auto it = c99_entries().find(name); it != c99_entries().end()) {
      got = without_entries(got, it->second);
      expected = without_entries(expected, it->second);
    }
    expect_tensor_near(got, expected, 1e-10, 1e-12);
  }
}

TEST(ComplexFixture, SpecialValuesFollowC99) {
  const Tensor sp = fx("in_sp");
  const double inf = INFINITY;
  auto at = [](const Tensor& t, int64_t i) { return t.index({i}).item().to<complex128>(); };
  EXPECT_EQ(sp.abs().index({8}).item<double>(), inf);  // hypot(inf, nan) = inf
  EXPECT_DOUBLE_EQ(sp.abs().index({9}).item<double>(), 1e300 * M_SQRT2);  // no overflow
  EXPECT_NEAR(sp.abs().index({10}).item<double>() / 1e-310, M_SQRT2, 1e-4);  // subnormal, no underflow
  EXPECT_EQ(at(Scalar(complex128(1, 1)) / sp, 0), complex128(inf, inf));  // C99: x / 0 is an infinity
  EXPECT_EQ(at(Scalar(complex128(1, 1)) / sp, 4), complex128(0, 0));  // x / inf = 0
  EXPECT_EQ(at(sp.exp(), 4), complex128(inf, 0));  // exp(+inf + 0i) = +inf + 0i
  const complex128 r = at(sp.reciprocal(), 9);
  EXPECT_DOUBLE_EQ(r.real(), 5e-301);
  EXPECT_DOUBLE_EQ(r.imag(), -5e-301);
  const complex128 s = at(sp.sgn(), 9);
  EXPECT_DOUBLE_EQ(s.real(), M_SQRT1_2);
  EXPECT_DOUBLE_EQ(s.imag(), M_SQRT1_2);
  EXPECT_TRUE(std::isinf(at(sp * Scalar(complex128(2, -1)), 8).real()));  // infinity recovered
}

// The same calls in complex64 (inputs rounded): float precision.
TEST(ComplexFixture, Complex64MatchesTorch) {
  Inputs in;
  for (Tensor* t : {&in.sp, &in.a, &in.b, &in.v, &in.w, &in.bt, &in.bt2}) *t = t->to(kComplex64);
  for (Tensor* t : {&in.r, &in.pos}) *t = t->to(kFloat32);
  for (const auto& [name, f] : cases()) {
    SCOPED_TRACE(name);
    if (name == "to_real" || name == "r_to_complex") continue;  // explicit float64/complex128 targets
    if (name.rfind("sp_", 0) == 0) continue;  // special values: 1e300 is out of float range
    const Tensor expected = fx(name);
    const Tensor got = f(in);
    DType want = expected.dtype();
    if (want == kComplex128) want = kComplex64;
    if (want == kFloat64) want = kFloat32;
    EXPECT_EQ(got.dtype(), want);
    // Rounding the inputs to float moves the results by a few float ULPs
    // (more where the function amplifies, e.g. pow, cumprod).
    if (got.dtype() == kBool) continue;  // eq/isclose of rounded inputs: not comparable
    expect_tensor_near(got.to(expected.dtype()), expected, 2e-4, 2e-5);
  }
}

// torch.load of a checkpoint holding complex64, complex128 and a conjugate view.
TEST(ComplexFixture, TorchCheckpointLoads) {
  const StateDict sd = serialize::load_torch_state_dict(testing::fixture_path("core/complex/checkpoint.pt"));
  const Tensor a = fx("in_a"), b = fx("in_b");
  ASSERT_NE(sd.find("c64"), nullptr);
  EXPECT_EQ(sd.find("c64")->dtype(), kComplex64);
  expect_tensor_near(*sd.find("c64"), a.to(kComplex64), 0, 0);
  expect_tensor_near(*sd.find("c128"), b, 0, 0);
  // torch 1.13 pickles a conjugate view as its storage, without the bit:
  // torch.load gives the unconjugated values, and so does Ember.
  expect_tensor_near(*sd.find("conj"), a, 0, 0);
}

// ---- promotion and copies between real and complex dtypes ----
TEST(ComplexPromotion, ResultTypes) {
  const Tensor c64 = zeros({2}, kComplex64), f64 = zeros({2}, kFloat64), i32 = zeros({2}, kInt32);
  EXPECT_EQ((c64 + f64).dtype(), kComplex128);  // complex64 + float64 tensor -> complex128
  EXPECT_EQ((c64 + 1.5).dtype(), kComplex64);
  EXPECT_EQ((i32 + Scalar(complex128(1, 1))).dtype(), kComplex64);
  EXPECT_EQ((f64 * Scalar(complex128(1, 1))).dtype(), kComplex128);
  EXPECT_EQ((c64 + scalar_tensor(1.0, kFloat64)).dtype(), kComplex64);  // zero-dim float64 does not win
  EXPECT_EQ((zeros({2}, kFloat32) + scalar_tensor(complex128(1, 0), kComplex128)).dtype(), kComplex64);
  EXPECT_EQ(c64.abs().dtype(), kFloat32);
  EXPECT_EQ(c64.angle().dtype(), kFloat32);
}

TEST(ComplexPromotion, CopiesBetweenRealAndComplex) {
  const Tensor c = ctensor({{1, 2}, {-3, 4}}, kComplex128);
  // complex -> real keeps the real part (torch warns and discards the imaginary part).
  Tensor r = empty({2}, kFloat32);
  r.copy_(c);
  expect_tensor_near(r, tensor<float>({1, -3}), 0, 0);
  // real -> complex has a zero imaginary part.
  Tensor z = empty({2}, kComplex64);
  z.copy_(tensor<double>({5, 6}));
  expect_tensor_near(z, ctensor({{5, 0}, {6, 0}}, kComplex64), 0, 0);
  expect_tensor_near(c.to(kComplex64).clone().contiguous(), ctensor({{1, 2}, {-3, 4}}, kComplex64), 0, 0);
  // Out-of-place into a real out= tensor is refused (can't cast complex to float).
  Tensor out = empty({2}, kFloat64);
  expect_error([&] { add_out(out, c, c); }, "can't be cast");
}

// Ops torch 1.13 refuses for complex inputs are errors here too (no silent
// ordering of complex numbers). nan_to_num is the exception: Ember applies it
// to the real and imaginary parts, as PyTorch does from 2.0.
TEST(ComplexPromotion, UnsupportedOpsAreErrors) {
  namespace F = nn::functional;
  const Tensor x = fx("in_v");
  const std::vector<std::pair<const char*, std::function<void()>>> ops = {
      {"max", [&] { x.max(); }},
      {"amax", [&] { x.amax(); }},
      {"sort", [&] { sort(x); }},
      {"clamp", [&] { x.clamp(0, 1); }},
      {"argmax", [&] { argmax(x); }},
      {"floor", [&] { x.floor(); }},
      {"sign", [&] { x.sign(); }},
      {"round", [&] { x.round(); }},
      {"topk", [&] { topk(x, 2); }},
      {"cummax", [&] { cummax(x, 0); }},
      {"median", [&] { median(x); }},
      {"abs_", [&] { x.clone().abs_(); }},
      {"relu", [&] { F::relu(x); }},
      {"lt", [&] { lt(x, x); }},
      {"remainder", [&] { x.remainder(x); }},
      {"atan2", [&] { atan2(x, x); }},
      {"logsumexp", [&] { logsumexp(x, {0}); }},
      {"erf", [&] { x.erf(); }},
      {"trunc", [&] { x.trunc(); }},
      {"frac", [&] { x.frac(); }},
      {"unique", [&] { unique(x); }},
      {"minimum", [&] { minimum(x, x); }},
      {"logcumsumexp", [&] { logcumsumexp(x, 0); }},
      {"softmax", [&] { F::softmax(x, 0); }},
      {"signbit", [&] { x.signbit(); }},
      {"isposinf", [&] { x.isposinf(); }},
  };
  for (const auto& [name, f] : ops) EXPECT_THROW(f(), Error) << name;
}

// ---- real / imag / view_as_real / view_as_complex / polar / complex ----
TEST(ComplexViews, RealImagAreWritableViews) {
  Tensor c = ctensor({{1, 2}, {3, 4}}, kComplex128);
  Tensor re = c.real(), im = c.imag();
  EXPECT_EQ(re.dtype(), kFloat64);
  EXPECT_EQ(re.data_ptr(), c.data_ptr());
  EXPECT_EQ(static_cast<char*>(im.data_ptr()), static_cast<char*>(c.data_ptr()) + 8);
  re.mul_(10);
  im.fill_(-1);
  expect_tensor_near(c, ctensor({{10, -1}, {30, -1}}, kComplex128), 0, 0);
  const Tensor r = tensor<float>({1, 2});
  EXPECT_TRUE(r.real().is_same(r));  // real() of a real tensor is itself
  expect_error([&] { r.imag(); }, "imag is not implemented for tensors with non-complex dtypes");
}

TEST(ComplexViews, ViewAsRealAndComplexShareStorage) {
  Tensor c = ctensor({{1, 2}, {3, 4}, {5, 6}}, kComplex64);
  Tensor vr = view_as_real(c);
  EXPECT_EQ(vr.sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(vr.strides(), IntArrayRef({2, 1}));
  EXPECT_EQ(vr.dtype(), kFloat32);
  EXPECT_EQ(vr.data_ptr(), c.data_ptr());
  vr.select(1, 1).fill_(7);
  expect_tensor_near(c, ctensor({{1, 7}, {3, 7}, {5, 7}}, kComplex64), 0, 0);
  Tensor back = view_as_complex(vr);
  EXPECT_EQ(back.dtype(), kComplex64);
  EXPECT_EQ(back.data_ptr(), c.data_ptr());
  // Strided: every other row of a [4, 2] real tensor, and an even storage offset.
  Tensor rr = arange(10, kFloat64).view({5, 2});
  Tensor every_other = view_as_complex(rr.slice(0, 0, 5, 2));
  expect_tensor_near(every_other, ctensor({{0, 1}, {4, 5}, {8, 9}}, kComplex128), 0, 0);
  Tensor shifted = view_as_complex(rr.slice(0, 1));
  EXPECT_EQ(shifted.storage_offset(), 1);
  expect_tensor_near(shifted[0], scalar_tensor(complex128(2, 3), kComplex128), 0, 0);
  // view_as_real of a slice of a complex tensor keeps the offset.
  EXPECT_EQ(view_as_real(c.slice(0, 1)).storage_offset(), 2);
}

TEST(ComplexViews, ViewErrors) {
  expect_error([] { view_as_real(zeros({2}, kFloat32)); }, "view_as_real is only supported for complex tensors");
  expect_error([] { view_as_real(zeros({2}, kComplex64).conj()); },
               "view_as_real doesn't work on unresolved conjugated tensors");
  expect_error([] { view_as_complex(zeros({3, 3})); }, "Tensor must have a last dimension of size 2");
  expect_error([] { view_as_complex(zeros({2, 2}).t()); }, "Tensor must have a last dimension with stride 1");
  expect_error([] { view_as_complex(zeros({3, 4}).slice(1, 0, 4, 2).unsqueeze(-1).expand({3, 2, 2})); },
               "stride 1");
  expect_error([] { view_as_complex(zeros({3, 3}).as_strided({2, 2}, {3, 1})); },
               "stride divisible by 2");
  expect_error([] { view_as_complex(zeros({5}).slice(0, 1, 5).view({2, 2})); }, "storage_offset divisible by 2");
  expect_error([] { view_as_complex(zeros({2, 2}, kInt64)); }, "only supported for float and double");
  expect_error([] { view_as_complex(zeros({}, kFloat32)); }, "one or more dimensions");
}

TEST(ComplexViews, PolarAndComplex) {
  const Tensor abs = tensor<double>({1, 2, 0.5}, kFloat64), ang = tensor<double>({0, M_PI / 2, -M_PI / 4}, kFloat64);
  const Tensor p = polar(abs, ang);
  EXPECT_EQ(p.dtype(), kComplex128);
  expect_tensor_near(p, ctensor({{1, 0}, {0, 2}, {0.5 * M_SQRT1_2, -0.5 * M_SQRT1_2}}, kComplex128), 1e-12, 1e-15);
  const Tensor c = complex(tensor<float>({1, 2}), tensor<float>({3, 4}));
  EXPECT_EQ(c.dtype(), kComplex64);
  expect_tensor_near(c, ctensor({{1, 3}, {2, 4}}, kComplex64), 0, 0);
  // Broadcast: [2, 1] and [3].
  EXPECT_EQ(complex(zeros({2, 1}), zeros({3})).sizes(), IntArrayRef({2, 3}));
  expect_error([] { complex(zeros({2}), zeros({2}, kFloat64)); }, "same dtype");
  expect_error([] { complex(zeros({2}, kInt32), zeros({2}, kInt32)); }, "float32 or float64");
  expect_error([] { polar(zeros({2}), zeros({2}, kFloat64)); }, "same dtype");
  expect_error([] { complex(zeros({2}), zeros({3})); }, "complex");
}

TEST(ComplexViews, Gradcheck) {
  using autograd::gradcheck;
  using autograd::variable_list;
  Tensor c = fx("in_a").requires_grad_();
  Tensor r = fx("in_r").requires_grad_(), pos = fx("in_pos").requires_grad_();
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return variable_list{view_as_real(x[0]) * 1.0}; }, {c},
      kTightGradcheck));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return variable_list{view_as_complex(x[0]) * 1.0}; },
                        {fx("in_r").view({3, 2, 2}).clone().requires_grad_()}, kTightGradcheck));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return variable_list{polar(x[0], x[1])}; }, {pos, r},
      kTightGradcheck));
  // Non-positive abs too (the e^{i angle} form of the gradient).
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return variable_list{polar(x[0], x[1])}; },
                        {fx("in_r").requires_grad_(), fx("in_pos").requires_grad_()}, kTightGradcheck));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return variable_list{complex(x[0], x[1])}; },
                        {r, pos.select(0, 0).detach().requires_grad_()}, kTightGradcheck));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return variable_list{x[0].real() * x[0].imag()}; }, {c},
      kTightGradcheck));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return variable_list{x[0].abs(), x[0].angle(), x[0].sgn()}; },
                        {c}, kTightGradcheck));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return variable_list{var(x[0], {1}), ember::std(x[0])}; }, {c},
      kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck([](const variable_list& x) { return variable_list{polar(x[0], x[1])}; },
                                      {pos, r}, {}, kTightGradcheck));
}

// ---- conjugate views ----
TEST(ComplexConj, IsAnO1View) {
  const Tensor a = fx("in_a");
  const Tensor c = a.conj();
  EXPECT_TRUE(c.is_conj());
  EXPECT_FALSE(a.is_conj());
  EXPECT_EQ(c.data_ptr(), a.data_ptr());
  EXPECT_TRUE(c.storage().get() == a.storage().get());
  EXPECT_FALSE(c.conj().is_conj());
  EXPECT_EQ(c.conj().data_ptr(), a.data_ptr());
  EXPECT_TRUE(is_conj(c));
  // Real tensors: conj() is the tensor itself; resolve_conj() of a plain tensor too.
  const Tensor r = fx("in_r");
  EXPECT_TRUE(r.conj().is_same(r));
  EXPECT_TRUE(a.resolve_conj().is_same(a));
  // resolve_conj materializes, conj_physical always computes.
  const Tensor resolved = c.resolve_conj();
  EXPECT_FALSE(resolved.is_conj());
  EXPECT_NE(resolved.data_ptr(), a.data_ptr());
  expect_tensor_near(resolved, fx("conj_physical"), 0, 0);
  const Tensor phys = a.conj_physical();
  EXPECT_FALSE(phys.is_conj());
  EXPECT_NE(phys.data_ptr(), a.data_ptr());
  expect_tensor_near(phys, fx("conj_physical"), 0, 0);
  expect_tensor_near(c.conj_physical(), a, 0, 0);
  // Views of a conjugate view keep the bit; real() drops it; imag() is a negative view.
  EXPECT_TRUE(c.t().is_conj());
  EXPECT_TRUE(c[1].is_conj());
  EXPECT_TRUE(c.view({12}).is_conj());
  EXPECT_TRUE(c.detach().is_conj());
  EXPECT_TRUE(c.contiguous().is_conj());
  EXPECT_FALSE(c.clone().is_conj());
  EXPECT_FALSE(c.to(kComplex64).is_conj());
  EXPECT_FALSE(c.real().is_conj());
  EXPECT_FALSE(c.real().is_neg());
  EXPECT_TRUE(c.imag().is_neg());
  EXPECT_FALSE(a.imag().is_neg());
  // A kernel reading raw memory of a conjugate view would be a bug: refused.
  expect_error([&] { c.data_ptr<complex128>(); }, "conjugate view");
}

TEST(ComplexConj, ReadsSeeConjugatedValues) {
  const Inputs in;
  const Tensor a = in.a, b = in.b, ca = a.conj(), ref = fx("conj_physical");
  const Tensor cref = ref;  // conj(a), materialized by torch
  expect_tensor_near(ca.clone(), cref, 0, 0);
  expect_tensor_near(ca + b, cref + b, 0, 0);
  expect_tensor_near(b * ca, b * cref, 0, 0);
  expect_tensor_near(ca.exp(), cref.exp(), 0, 0);
  expect_tensor_near(ca.abs(), a.abs(), 0, 0);
  expect_tensor_near(ca.angle(), cref.angle(), 0, 0);
  expect_tensor_near(ca.sum(), cref.sum(), 1e-14, 0);
  expect_tensor_near(ca.sum({1}), cref.sum({1}), 1e-14, 0);
  expect_tensor_near(ca.prod(), cref.prod(), 1e-14, 0);
  expect_tensor_near(ca.cumsum(0), cref.cumsum(0), 1e-14, 0);
  expect_tensor_near(ca.mean(), cref.mean(), 1e-14, 0);
  expect_tensor_near(eq(ca, cref), ones({3, 4}, kBool), 0, 0);
  expect_tensor_near(where(in.mask, ca, b), where(in.mask, cref, b), 0, 0);
  expect_tensor_near(ca.masked_fill(in.mask, in.z), cref.masked_fill(in.mask, in.z), 0, 0);
  expect_tensor_near(ca.index_select(0, in.idx), cref.index_select(0, in.idx), 0, 0);
  expect_tensor_near(gather(ca, 1, in.gidx), gather(cref, 1, in.gidx), 0, 0);
  expect_tensor_near(scatter_add(ca, 1, in.gidx, b.conj()), scatter_add(cref, 1, in.gidx, b.conj_physical()), 0, 0);
  expect_tensor_near(ca.index({in.idx}), cref.index({in.idx}), 0, 0);
  expect_tensor_near(ca.masked_select(in.mask), cref.masked_select(in.mask), 0, 0);
  expect_tensor_near(cat({ca, b}), cat({cref, b}), 0, 0);
  expect_tensor_near(ca.flip({1}), cref.flip({1}), 0, 0);
  expect_tensor_near(ca.t().contiguous(), cref.t().contiguous(), 0, 0);
  expect_tensor_near(ca.expand({2, 3, 4}).sum({0}), cref * 2, 1e-15, 0);
  expect_tensor_near(ca.index({1, 2}), cref.index({1, 2}), 0, 0);
  EXPECT_EQ(ca.index({1, 2}).item().to<complex128>(), cref.index({1, 2}).item().to<complex128>());
  expect_tensor_near(fft::fft(ca), fft::fft(cref), 1e-12, 1e-12);
  expect_tensor_near(ca.imag(), cref.imag(), 0, 0);
  expect_tensor_near(ca.imag() * 2, cref.imag() * 2, 0, 0);
  expect_tensor_near(sort(ca.imag(), 1).first, sort(cref.imag(), 1).first, 0, 0);
  expect_tensor_near(ca.imag().amax(), cref.imag().amax(), 0, 0);
  expect_tensor_near(ca.real(), a.real(), 0, 0);
  // Products read the conjugate without materializing (see FusedConsumers).
  expect_tensor_near(ca.mm(b.t()), cref.mm(b.t()), 1e-14, 1e-14);
  expect_tensor_near(ca.imag().mm(b.real().t()), cref.imag().mm(b.real().t()), 1e-14, 1e-14);
  expect_tensor_near(in.v.conj().dot(in.w.conj()), in.v.conj_physical().dot(in.w.conj_physical()), 1e-14, 1e-14);
  expect_tensor_near(einsum("ij,kj->ik", {ca, b}), cref.mm(b.t()), 1e-14, 1e-14);
}

// Fixture cases with conjugate operands (torch computes them with its conj bit too).
TEST(ComplexConj, ProductsMatchTorch) {
  const Inputs in;
  for (const char* name : {"matmul_a_conjbT", "matmul_conja_bT", "matmul_conjaT_b", "mv_conja_v", "mv_a_conjv",
                           "bmm_conj", "bmm_conjT", "mm_conj_both", "dot_conjv_w", "dot_v_conjw", "vdot_conjv_w",
                           "vdot_conjv_conjw"}) {
    SCOPED_TRACE(name);
    expect_tensor_near(cases().at(name)(in), fx(name), 1e-12, 1e-14);
  }
}

TEST(ComplexConj, InPlaceWritesThroughConjView) {
  const Inputs in;
  const Tensor a = in.a;
  const complex128 i1(0, 1);
  {
    Tensor x = a.clone();
    x.conj().mul_(2);  // conj(x) becomes 2 conj(x): x becomes 2x
    expect_tensor_near(x, a * 2, 0, 0);
  }
  {
    Tensor x = a.clone();
    Tensor cx = x.conj();
    cx.mul_(Scalar(i1));  // conj(x) * i stored: x = conj(i conj(x)) = -i x
    expect_tensor_near(x, a * Scalar(-i1), 0, 0);
    expect_tensor_near(cx, a.conj_physical() * Scalar(i1), 0, 0);
  }
  {
    Tensor x = a.clone();
    x.conj().add_(in.b);  // x = conj(conj(x) + b) = x + conj(b)
    expect_tensor_near(x, a + in.b.conj_physical(), 0, 0);
    Tensor y = a.clone();
    y.conj().add_(y);  // the other operand is the base itself: conj(y) + y = 2 re(y)
    expect_tensor_near(y, (a.real() * 2).to(kComplex128), 0, 0);
    Tensor z = a.clone();
    z.conj().copy_(z);  // in-place conjugation through copy_
    expect_tensor_near(z, a.conj_physical(), 0, 0);
  }
  {
    Tensor x = a.clone();
    x.conj().copy_(in.b);  // copy_ into a conjugate view stores conj(b)
    expect_tensor_near(x, in.b.conj_physical(), 0, 0);
    x.copy_(in.b.conj());  // and from one
    expect_tensor_near(x, in.b.conj_physical(), 0, 0);
    x.conj().copy_(in.b.conj());  // both: memory gets b
    expect_tensor_near(x, in.b, 0, 0);
    x.conj().copy_(in.r);  // real source
    expect_tensor_near(x, in.r.to(kComplex128), 0, 0);
  }
  {
    Tensor x = a.clone();
    x.conj().fill_(Scalar(complex128(1, 2)));
    expect_tensor_near(x, full({3, 4}, Scalar(complex128(1, -2)), kComplex128), 0, 0);
    x.conj()[1].zero_();
    EXPECT_EQ(x.index({1, 0}).item().to<complex128>(), complex128(0, 0));
  }
  {
    Tensor x = a.clone();
    Tensor cx = x.conj();
    index_put_(cx, {std::optional<Tensor>(in.idx)}, in.b[0], true);  // accumulate through the view
    Tensor expected = index_put(a.conj_physical(), {std::optional<Tensor>(in.idx)}, in.b[0], true);
    expect_tensor_near(cx, expected, 1e-15, 0);
    expect_tensor_near(x, expected.conj_physical(), 1e-15, 0);
  }
  {
    Tensor x = a.clone();
    Tensor cx = x.conj();
    cx.masked_fill_(in.mask, in.z);
    expect_tensor_near(x, a.masked_fill(in.mask, Scalar(std::conj(in.z.to<complex128>()))), 0, 0);
    Tensor y = a.clone();
    Tensor cy = y.conj();
    cy.scatter_add_(1, in.gidx, in.b);
    expect_tensor_near(y, scatter_add(a.conj_physical(), 1, in.gidx, in.b).conj_physical(), 1e-15, 0);
    Tensor z = a.clone();
    Tensor cz = z.conj();
    cz.index_fill_(0, in.idx, in.z);
    expect_tensor_near(z, a.index_fill(0, in.idx, Scalar(std::conj(in.z.to<complex128>()))), 0, 0);
  }
  {
    // out= into a conjugate view.
    Tensor x = a.clone();
    Tensor cx = x.conj();
    add_out(cx, in.a, in.b);
    expect_tensor_near(x, (in.a + in.b).conj_physical(), 0, 0);
    Tensor m = zeros({3, 3}, kComplex128);
    Tensor cm = m.conj();
    mm_out(cm, in.a, in.b.t());
    expect_tensor_near(m, in.a.mm(in.b.t()).conj_physical(), 1e-14, 1e-14);
  }
  {
    // imag() of a conjugate view is -imag: reads and writes.
    Tensor x = a.clone();
    Tensor im = x.conj().imag();
    expect_tensor_near(im, a.imag().neg(), 0, 0);
    im.fill_(3);  // conj(x).imag = 3 -> x.imag = -3
    expect_tensor_near(x.imag(), full({3, 4}, -3.0, kFloat64), 0, 0);
    im.add_(1);  // conj(x).imag = 4 -> x.imag = -4
    expect_tensor_near(x.imag(), full({3, 4}, -4.0, kFloat64), 0, 0);
    im.copy_(in.r);
    expect_tensor_near(x.imag(), in.r.neg(), 0, 0);
    expect_tensor_near(x.real(), a.real(), 0, 0);
    EXPECT_DOUBLE_EQ(im.index({0, 0}).item<double>(), in.r.index({0, 0}).item<double>());
  }
}

// An allocator that counts bytes, to check that fused consumers of the conjugate
// bit allocate nothing but their result.
class CountingAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes) override {
    bytes += nbytes;
    ++calls;
    return plain_cpu_allocator().allocate(nbytes);
  }
  void deallocate(void* ptr, size_t nbytes) override { plain_cpu_allocator().deallocate(ptr, nbytes); }
  Device device() const override { return kCPU; }
  std::atomic<size_t> bytes{0}, calls{0};
};

// Counts the allocations of its scope. The allocator outlives every scope:
// tensors made inside may be freed after it ends.
struct CountAllocations {
  CountingAllocator& counter = instance();
  CountAllocations() {
    counter.bytes = 0;
    counter.calls = 0;
    set_cpu_allocator(&counter);
  }
  ~CountAllocations() { set_cpu_allocator(nullptr); }
  static CountingAllocator& instance() {
    static CountingAllocator* a = new CountingAllocator();  // never destroyed
    return *a;
  }
};

TEST(ComplexConj, FusedConsumersDoNotMaterialize) {
  const int64_t n = 64;
  const Tensor a = randn({n, n}, kComplex128), b = randn({n, n}, kComplex128);
  const Tensor v = randn({n}, kComplex128), w = randn({n}, kComplex128);
  const size_t matrix = n * n * 16;
  // copy_ from and into conjugate views: no temporary at all.
  Tensor dst = empty({n, n}, kComplex128);
  {
    CountAllocations count;
    dst.copy_(a.conj());
    dst.conj().copy_(b);
    dst.t().conj().copy_(a.conj());
    EXPECT_EQ(count.counter.bytes.load(), 0u);
  }
  // clone / resolve_conj: exactly the result.
  {
    CountAllocations count;
    Tensor r = a.conj().resolve_conj();
    EXPECT_EQ(count.counter.bytes.load(), matrix);
  }
  // mm with conjugate operands, row- or column-major (BLAS 'C' or OpenBLAS's
  // ConjNoTrans), on either side or both: only the output is allocated.
  const std::vector<Tensor> lhs_cases = {a, a.t().conj(), a.conj(), a.slice(1, 0, n / 2).conj()};
  const std::vector<Tensor> rhs_cases = {b, b.t().conj(), b.conj(), b.slice(0, 0, n / 2).conj()};
  for (size_t i = 0; i < lhs_cases.size(); ++i)
    for (size_t j = 0; j < rhs_cases.size(); ++j) {
      const Tensor& lhs = lhs_cases[i];
      const Tensor& rhs = rhs_cases[j];
      if (lhs.size(1) != rhs.size(0)) continue;
      Tensor expected = lhs.conj_physical().conj_physical().mm(rhs.conj_physical().conj_physical());
      Tensor got;
      {
        CountAllocations count;
        got = lhs.mm(rhs);
        EXPECT_EQ(count.counter.bytes.load(), got.nbytes()) << "case " << i << ", " << j;
      }
      expect_tensor_near(got, expected, 1e-12, 1e-12);
    }
  // matmul and bmm take the same path; mv with a conjugate transposed matrix too.
  {
    Tensor expected = a.t().conj_physical().matmul(b);
    Tensor got;
    {
      CountAllocations count;
      got = a.t().conj().matmul(b);
      EXPECT_EQ(count.counter.bytes.load(), matrix);
    }
    expect_tensor_near(got, expected, 1e-12, 1e-12);
    Tensor bt = randn({3, n, n}, kComplex128);
    {
      CountAllocations count;
      got = bt.transpose(1, 2).conj().bmm(bt);
      EXPECT_EQ(count.counter.bytes.load(), 3 * matrix);
    }
    expect_tensor_near(got, bt.transpose(1, 2).conj_physical().bmm(bt), 1e-12, 1e-12);
    for (const Tensor& m : {a.conj(), a.t().conj()}) {
      {
        CountAllocations count;
        got = m.mv(v);
        EXPECT_EQ(count.counter.bytes.load(), size_t(n) * 16);
      }
      expect_tensor_near(got, m.resolve_conj().mv(v), 1e-12, 1e-12);
    }
  }
  // dot/vdot: cdotc/zdotc variants, only the 0-d result.
  {
    Tensor d1, d2, d3;
    {
      CountAllocations count;
      d1 = v.conj().dot(w);
      d2 = v.vdot(w.conj());
      d3 = v.conj().vdot(w.conj());
      EXPECT_EQ(count.counter.bytes.load(), 3u * 16);
    }
    expect_tensor_near(d1, v.conj_physical().dot(w), 1e-12, 1e-12);
    expect_tensor_near(d2, v.vdot(w.conj_physical()), 1e-12, 1e-12);
    expect_tensor_near(d3, v.conj_physical().vdot(w.conj_physical()), 1e-12, 1e-12);
  }
  // conj() itself allocates no memory.
  {
    CountAllocations count;
    Tensor c = a.conj().t().conj().conj();
    EXPECT_EQ(count.counter.calls.load(), 0u);
  }
}

// Every op reads a conjugate view (complex ops) or a negative view (real ops,
// from imag() of a conjugate view) as the values it stands for: results must
// equal those on a materialized copy. A kernel reached with a bit unresolved
// would throw (data_ptr<T>() refuses) or differ.
TEST(ComplexConj, OpSweepMatchesResolvedInputs) {
  namespace F = nn::functional;
  using Op = std::function<Tensor(const Tensor&)>;
  const Tensor idx = tensor<int64_t>({2, 0, 2}), flat_idx = tensor<int64_t>({11, 0, 5, 7});
  const Tensor gidx = tensor<int64_t>({0, 3, 1, 1, 2, 2, 0, 3, 1, 0, 0, 2}).view({3, 4});
  const std::vector<std::pair<const char*, Op>> complex_ops = {
      {"exp", [](const Tensor& x) { return x.exp(); }},
      {"sigmoid", [](const Tensor& x) { return x.sigmoid(); }},
      {"sgn", [](const Tensor& x) { return x.sgn(); }},
      {"pow", [](const Tensor& x) { return x.pow(x); }},
      {"sum_dim", [](const Tensor& x) { return x.sum({0}, true); }},
      {"prod", [](const Tensor& x) { return x.prod(); }},
      {"var", [](const Tensor& x) { return var(x, {1}); }},
      {"norm3", [](const Tensor& x) { return norm(x, 3); }},
      {"cumprod", [](const Tensor& x) { return x.cumprod(1); }},
      {"flip", [](const Tensor& x) { return x.flip({0, 1}); }},
      {"roll", [](const Tensor& x) { return roll(x, {1}, {1}); }},
      {"tril", [](const Tensor& x) { return tril(x); }},
      {"repeat", [](const Tensor& x) { return x.repeat({2, 1}); }},
      {"tile", [](const Tensor& x) { return tile(x, {1, 2}); }},
      {"repeat_interleave", [](const Tensor& x) { return repeat_interleave(x, 2, 0); }},
      {"stack", [](const Tensor& x) { return stack({x, x.t().t()}); }},
      {"pad", [](const Tensor& x) { return constant_pad_nd(x, {1, 2}, Scalar(complex128(1, 1))); }},
      {"take", [&](const Tensor& x) { return take(x, flat_idx); }},
      {"take_along_dim", [&](const Tensor& x) { return take_along_dim(x, gidx, 1); }},
      {"index_add", [&](const Tensor& x) { return index_add(x, 0, idx, x); }},
      {"index_copy", [&](const Tensor& x) { return index_copy(x.slice(0, 0, 3), 0, tensor<int64_t>({2, 1, 0}), x); }},
      {"scatter", [&](const Tensor& x) { return scatter(x, 1, gidx, x); }},
      {"masked_scatter", [](const Tensor& x) { return masked_scatter(x, x.real() > 0, x.flip({0})); }},
      {"nonzero", [](const Tensor& x) { return nonzero(ne(x.imag(), x.real())); }},
      {"isfinite", [](const Tensor& x) { return x.isfinite(); }},
      {"reshape_copy", [](const Tensor& x) { return x.t().reshape({12}); }},
      {"addcmul", [](const Tensor& x) { return addcmul(x, x, x.flip({1}), 2); }},
      {"lerp", [](const Tensor& x) { return lerp(x, x.flip({1}), 0.25); }},
      {"outer", [](const Tensor& x) { return outer(x[0], x[1]); }},
      {"einsum_trace", [](const Tensor& x) { return einsum("ij,ij->", {x, x}); }},
      {"fft", [](const Tensor& x) { return fft::fft(x, std::nullopt, 0); }},
      {"to_real", [](const Tensor& x) { return x.to(kFloat32); }},
      {"item", [](const Tensor& x) { return scalar_tensor(x.index({2, 1}).item(), kComplex128); }},
      {"equal", [](const Tensor& x) { return scalar_tensor(x.equal(x.clone()) && !x.equal(x.conj_physical())); }},
      {"allclose", [](const Tensor& x) { return scalar_tensor(allclose(x, x.clone())); }},
      {"count_nonzero", [](const Tensor& x) { return count_nonzero(x.imag() > 0); }},
      {"diagonal", [](const Tensor& x) { return x.diagonal().clone(); }},
      {"unfold", [](const Tensor& x) { return x.unfold(1, 2, 1).contiguous(); }},
      {"narrow", [](const Tensor& x) { return x.narrow(1, 1, 2).clone(); }},
      {"tensordot", [](const Tensor& x) { return tensordot(x, x, {1}, {1}); }},
      {"sum_to_c64", [](const Tensor& x) { return x.sum(kComplex64); }},
      {"abs_sq", [](const Tensor& x) { return x * x.conj(); }},
  };
  const Tensor a = fx("in_a");
  const Tensor ca = a.conj(), cref = a.conj_physical();
  for (const auto& [name, f] : complex_ops) {
    SCOPED_TRACE(name);
    try {
      expect_tensor_near(f(ca), f(cref), 1e-13, 1e-13);
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
    }
  }
  const std::vector<std::pair<const char*, Op>> real_ops = {
      {"sort", [](const Tensor& x) { return sort(x, 1).first; }},
      {"argsort", [](const Tensor& x) { return argsort(x, 0); }},
      {"topk", [](const Tensor& x) { return topk(x, 2, 1).first; }},
      {"kthvalue", [](const Tensor& x) { return kthvalue(x, 2, 1).first; }},
      {"median", [](const Tensor& x) { return median(x); }},
      {"unique", [](const Tensor& x) { return std::get<0>(unique(x.sign())); }},
      {"max_dim", [](const Tensor& x) { return max(x, 1).first; }},
      {"argmax", [](const Tensor& x) { return argmax(x); }},
      {"cummax", [](const Tensor& x) { return cummax(x, 1).first; }},
      {"logcumsumexp", [](const Tensor& x) { return logcumsumexp(x, 0); }},
      {"logsumexp", [](const Tensor& x) { return logsumexp(x, {1}); }},
      {"clamp", [](const Tensor& x) { return x.clamp(-0.5, 0.5); }},
      {"relu", [](const Tensor& x) { return F::relu(x); }},
      {"softmax", [](const Tensor& x) { return F::softmax(x, 1); }},
      {"log_softmax", [](const Tensor& x) { return F::log_softmax(x, 0); }},
      {"layer_norm", [](const Tensor& x) { return F::layer_norm(x, {4}); }},
      {"linear", [](const Tensor& x) { return F::linear(x, x, x[0].slice(0, 0, 3)); }},
      {"conv1d", [](const Tensor& x) { return F::conv1d(x.unsqueeze(0), x.slice(1, 0, 2).unsqueeze(1).expand({3, 3, 2}).contiguous()); }},
      {"max_pool1d", [](const Tensor& x) { return F::max_pool1d(x.unsqueeze(0), 2); }},
      {"embedding", [](const Tensor& x) { return F::embedding(tensor<int64_t>({2, 0}), x); }},
      {"mse_loss", [](const Tensor& x) { return F::mse_loss(x, x.flip({1})); }},
      {"cross_entropy", [](const Tensor& x) { return F::cross_entropy(x, tensor<int64_t>({1, 0, 3})); }},
      {"solve", [](const Tensor& x) { return linalg::solve(x.slice(1, 0, 3) + eye(3, kFloat64) * 4, x); }},
      {"matrix_exp", [](const Tensor& x) { return linalg::matrix_exp(x.slice(1, 0, 3)); }},
      {"mm", [](const Tensor& x) { return x.mm(x.t()); }},
      {"dot", [](const Tensor& x) { return x[0].dot(x[1]); }},
      {"copy_into_float32", [](const Tensor& x) { return empty({3, 4}, kFloat32).copy_(x); }},
      {"str", [](const Tensor& x) {
         std::ostringstream os;
         os << x;
         return scalar_tensor(static_cast<int64_t>(std::hash<std::string>()(os.str()) % 1000003));
       }},
  };
  const Tensor neg = ca.imag(), nref = neg.clone();
  ASSERT_TRUE(neg.is_neg());
  ASSERT_FALSE(nref.is_neg());
  for (const auto& [name, f] : real_ops) {
    SCOPED_TRACE(name);
    try {
      expect_tensor_near(f(neg), f(nref), 1e-13, 1e-13);
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
    }
  }
}

// Kernels behind a KernelSlot that write into a conjugate/negative view get
// plain memory, written back through the bits (Note [Conjugate bit]).
TEST(ComplexConj, SlotKernelsWriteThroughViews) {
  const Tensor a = fx("in_a");
  const Tensor mask = a.real() > 0;
  {
    Tensor x = a.clone();
    Tensor cx = x.conj();
    cx.masked_scatter_(mask, a.flip({0}));
    expect_tensor_near(cx, masked_scatter(a.conj_physical(), mask, a.flip({0})), 0, 0);
  }
  {
    Tensor x = a.clone();
    Tensor cx = x.conj();
    cx.tril_();
    expect_tensor_near(x, tril(a), 0, 0);
  }
  {
    manual_seed(3);
    const Tensor plain = empty({3, 4}, kComplex128).normal_();
    manual_seed(3);
    Tensor x = empty({3, 4}, kComplex128);
    Tensor cx = x.conj();
    cx.normal_();
    expect_tensor_near(cx, plain, 0, 0);  // the view reads the generated values
    manual_seed(3);
    const Tensor u = empty({3, 4}, kFloat64).uniform_(2, 3);
    manual_seed(3);
    Tensor im = x.conj().imag();
    im.uniform_(2, 3);
    expect_tensor_near(im, u, 0, 0);
    expect_tensor_near(x.imag(), u.neg(), 0, 0);
  }
  {
    // out= scans into a conjugate view and a negative view.
    Tensor x = a.clone();
    Tensor cx = x.conj();
    cumsum_out(cx, a, 1);
    expect_tensor_near(x, a.cumsum(1).conj_physical(), 1e-15, 0);
    Tensor im = x.conj().imag();
    cumprod_out(im, a.real(), 0);
    expect_tensor_near(x.imag(), a.real().cumprod(0).neg(), 1e-15, 0);
  }
}

TEST(ComplexConj, Autograd) {
  using autograd::gradcheck;
  using autograd::variable_list;
  const Tensor a = fx("in_a").requires_grad_(), b = fx("in_b").requires_grad_();
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return variable_list{x[0].conj()}; }, {a}, kTightGradcheck));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return variable_list{x[0].conj() * x[1]}; }, {a, b},
      kTightGradcheck));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return variable_list{x[0].conj().mm(x[1].t())}; }, {a, b},
      kTightGradcheck));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return variable_list{x[0].t().conj().mm(x[1])}; }, {a, b},
      kTightGradcheck));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return variable_list{x[0].conj().imag()}; }, {a},
      kTightGradcheck));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return variable_list{x[0].conj().resolve_conj().exp()}; }, {a},
      kTightGradcheck));
  EXPECT_TRUE(gradcheck([](const variable_list& x) { return variable_list{x[0].conj_physical()}; }, {a},
      kTightGradcheck));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& x) { return variable_list{x[0][0].conj().vdot(x[1][1].conj())}; }, {a, b},
          kTightGradcheck));
  // In-place through a conjugate view of a non-leaf.
  EXPECT_TRUE(gradcheck(
      [](const variable_list& x) {
        Tensor y = x[0] * 1.0;
        y.conj().mul_(x[1]);
        return variable_list{y};
      },
      {a, b}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& x) {
        Tensor y = x[0] * 1.0;
        y.conj()[1].copy_(x[1][0]);
        return variable_list{y};
      },
      {a, b}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(
      [](const variable_list& x) {
        Tensor y = x[0] * 1.0;
        y.conj().imag().mul_(3);
        return variable_list{y};
      },
      {a}, kTightGradcheck));
  // .grad of a leaf reached through conj() holds values, not a conjugate view.
  Tensor leaf = fx("in_v").requires_grad_();
  (leaf.conj() * fx("in_w")).real().sum().backward();
  EXPECT_FALSE(leaf.grad().is_conj());
  // L = sum Re(conj(v) w) = sum (v.re w.re + v.im w.im): dL/dv.re + i dL/dv.im = w.
  expect_tensor_near(leaf.grad(), fx("in_w"), 0, 0);
}

// repr() strings of torch 1.13 for the same tensors (dtype names without "torch.").
TEST(ComplexPrint, MatchesTorchRepr) {
  auto str = [](const Tensor& t) {
    std::ostringstream os;
    os << t;
    return os.str();
  };
  EXPECT_EQ(str(ctensor({{1, 2}, {-3.5, -0.25}}, kComplex64)), "tensor([ 1.0000+2.0000j, -3.5000-0.2500j])");
  EXPECT_EQ(str(ctensor({{1, 2}, {3, -4}}, kComplex64)), "tensor([1.+2.j, 3.-4.j])");
  EXPECT_EQ(str(ctensor({{1, 2}, {3, -4}, {0, 0}, {-0.0, -1}}).view({2, 2})),
            "tensor([[1.+2.j, 3.-4.j],\n        [0.+0.j, -0.-1.j]], dtype=complex128)");  // Ember names dtypes without "torch."
  EXPECT_EQ(str(ctensor({{1e-5, 1e5}, {0, 2}}, kComplex64)), "tensor([1.0000e-05+1.0000e+05j, 0.0000e+00+2.0000e+00j])");
  EXPECT_EQ(str(scalar_tensor(complex128(1.5, -2), kComplex64)), "tensor(1.5000-2.j)");
  EXPECT_EQ(str(ctensor({{1, 2}, {3, -4}}, kComplex64).conj()), "tensor([1.-2.j, 3.+4.j])");
  EXPECT_EQ(str(ctensor({{1, 2}, {3, -4}}, kComplex64).conj().imag()), "tensor([-2.,  4.])");
}

TEST(ComplexConj, PrintingAndSerialization) {
  const Tensor a = ctensor({{1, 2}, {3, -4}}, kComplex64);
  std::ostringstream plain, viewed;
  plain << a.conj_physical();
  viewed << a.conj();
  EXPECT_EQ(viewed.str(), plain.str());
  EXPECT_NE(viewed.str().find("1.-2.j"), std::string::npos) << viewed.str();
  std::ostringstream neg;
  neg << a.conj().imag();
  EXPECT_NE(neg.str().find("-2.,  4."), std::string::npos) << neg.str();
  // safetensors stores values (C64/C128 entries); loading gives a plain tensor.
  const std::string path = ::testing::TempDir() + "ember_complex_conj.safetensors";
  save(path, StateDict({{"c", a.conj()}, {"n", a.conj().imag()}, {"d", fx("in_a")}}));
  const StateDict back = load(path);
  EXPECT_FALSE(back.find("c")->is_conj());
  expect_tensor_near(*back.find("c"), a.conj_physical(), 0, 0);
  expect_tensor_near(*back.find("n"), tensor<float>({-2, 4}), 0, 0);
  expect_tensor_near(*back.find("d"), fx("in_a"), 0, 0);
  std::remove(path.c_str());
}

}  // namespace complex_test
}  // namespace ember
