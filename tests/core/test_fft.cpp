// ember::fft against numpy.fft (fixtures from scripts/fixtures/fft.py), plus
// argument errors, round trips and gradient checks of every transform.
#include <functional>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/fft.h>

#include "tensor_expect.h"
#include "gradcheck_tight.h"

namespace ember {
namespace fft_test {

using testing::kTightGradcheck;
using testing::expect_error;
using testing::expect_tensor_near;
using testing::fixture;
namespace F = ember::fft;

using Call = std::function<Tensor(const Tensor&)>;

// The call for each fixture case of scripts/fixtures/fft.py (same names).
const std::map<std::string, Call>& cases() {
  static const std::map<std::string, Call> c = {
      {"fft_c1", [](const Tensor& x) { return F::fft(x); }},
      {"fft_c7", [](const Tensor& x) { return F::fft(x); }},
      {"fft_c16_ortho", [](const Tensor& x) { return F::fft(x, std::nullopt, -1, "ortho"); }},
      {"fft_c12_n8", [](const Tensor& x) { return F::fft(x, 8); }},
      {"fft_c12_n20_forward", [](const Tensor& x) { return F::fft(x, 20, -1, "forward"); }},
      {"fft_c6x5_dim0", [](const Tensor& x) { return F::fft(x, std::nullopt, 0); }},
      {"fft_r9", [](const Tensor& x) { return F::fft(x); }},
      {"ifft_c10", [](const Tensor& x) { return F::ifft(x); }},
      {"ifft_c10_forward", [](const Tensor& x) { return F::ifft(x, std::nullopt, -1, "forward"); }},
      {"ifft_r6_ortho", [](const Tensor& x) { return F::ifft(x, std::nullopt, -1, "ortho"); }},
      {"rfft_r16", [](const Tensor& x) { return F::rfft(x); }},
      {"rfft_r15_ortho", [](const Tensor& x) { return F::rfft(x, std::nullopt, -1, "ortho"); }},
      {"rfft_r10_n13", [](const Tensor& x) { return F::rfft(x, 13); }},
      {"rfft_r3x8x4_dim1", [](const Tensor& x) { return F::rfft(x, std::nullopt, 1); }},
      {"irfft_c9", [](const Tensor& x) { return F::irfft(x); }},
      {"irfft_c9_n17", [](const Tensor& x) { return F::irfft(x, 17); }},
      {"irfft_c5_n4_forward", [](const Tensor& x) { return F::irfft(x, 4, -1, "forward"); }},
      {"irfft_c4x6_dim0", [](const Tensor& x) { return F::irfft(x, std::nullopt, 0); }},
      {"hfft_c6", [](const Tensor& x) { return F::hfft(x); }},
      {"hfft_c6_n11_ortho", [](const Tensor& x) { return F::hfft(x, 11, -1, "ortho"); }},
      {"ihfft_r11", [](const Tensor& x) { return F::ihfft(x); }},
      {"ihfft_r8_forward", [](const Tensor& x) { return F::ihfft(x, std::nullopt, -1, "forward"); }},
      {"fft2_c4x6x5", [](const Tensor& x) { return F::fft2(x); }},
      {"fft2_c6x5_s3x8", [](const Tensor& x) { return F::fft2(x, IntArrayRef{3, 8}); }},
      {"ifft2_c5x7_ortho", [](const Tensor& x) { return F::ifft2(x, std::nullopt, {-2, -1}, "ortho"); }},
      {"fftn_c3x4x5", [](const Tensor& x) { return F::fftn(x); }},
      {"fftn_c3x4x5_s6", [](const Tensor& x) { return F::fftn(x, IntArrayRef{6}); }},
      {"fftn_c3x4x5_dim02_ortho",
       [](const Tensor& x) { return F::fftn(x, std::nullopt, IntArrayRef{0, 2}, "ortho"); }},
      {"fftn_r3x4_dim10", [](const Tensor& x) { return F::fftn(x, std::nullopt, IntArrayRef{1, 0}); }},
      {"ifftn_c4x3x2", [](const Tensor& x) { return F::ifftn(x); }},
      {"rfft2_r5x6", [](const Tensor& x) { return F::rfft2(x); }},
      {"rfftn_r3x4x6_s458", [](const Tensor& x) { return F::rfftn(x, IntArrayRef{4, 5, 8}); }},
      {"rfftn_r3x4x5_dim0", [](const Tensor& x) { return F::rfftn(x, std::nullopt, IntArrayRef{0}); }},
      {"irfft2_c5x4", [](const Tensor& x) { return F::irfft2(x); }},
      {"irfftn_c4x5x4_s457", [](const Tensor& x) { return F::irfftn(x, IntArrayRef{4, 5, 7}); }},
      {"irfftn_c3x6_forward", [](const Tensor& x) { return F::irfftn(x, std::nullopt, std::nullopt, "forward"); }},
      {"fftshift_r5x6", [](const Tensor& x) { return F::fftshift(x); }},
      {"fftshift_r5x6_dim1", [](const Tensor& x) { return F::fftshift(x, IntArrayRef{1}); }},
      {"ifftshift_r5x7", [](const Tensor& x) { return F::ifftshift(x); }},
  };
  return c;
}

TEST(FFT, MatchesNumpyFloat64) {
  for (const auto& [name, call] : cases()) {
    SCOPED_TRACE(name);
    const Tensor x = fixture("fft", name + "_x");
    expect_tensor_near(call(x), fixture("fft", name + "_y"), 1e-10, 1e-10);
  }
}

TEST(FFT, MatchesNumpyFloat32) {
  for (const auto& [name, call] : cases()) {
    SCOPED_TRACE(name);
    const Tensor x = fixture("fft", name + "_x");
    const Tensor x32 = x.to(x.is_complex() ? kComplex64 : kFloat32);
    const Tensor expected = fixture("fft", name + "_y");
    expect_tensor_near(call(x32), expected.to(expected.is_complex() ? kComplex64 : kFloat32), 1e-4, 1e-5);
  }
}

TEST(FFT, NonContiguousInputs) {
  // Transposed, sliced and expanded inputs give the values of their contiguous copies.
  const Tensor x = randn({6, 8}, kComplex128);
  const Tensor t = x.t();
  EXPECT_TRUE(allclose(F::fft(t), F::fft(t.contiguous()), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(F::fft2(t), F::fft2(t.contiguous()), 1e-12, 1e-12));
  const Tensor s = x.narrow(1, 1, 5);
  EXPECT_TRUE(allclose(F::ifft(s, std::nullopt, 0), F::ifft(s.contiguous(), std::nullopt, 0), 1e-12, 1e-12));
  const Tensor r = randn({8, 5}, kFloat64).t();
  EXPECT_TRUE(allclose(F::rfft(r), F::rfft(r.contiguous()), 1e-12, 1e-12));
  const Tensor e = randn({1, 9}, kFloat64).expand({3, 9});
  EXPECT_TRUE(allclose(F::rfft(e), F::rfft(e.contiguous()), 1e-12, 1e-12));
}

TEST(FFT, DtypesAndPromotion) {
  EXPECT_EQ(F::fft(randn({8})).dtype(), kComplex64);
  EXPECT_EQ(F::fft(randn({8}, kFloat64)).dtype(), kComplex128);
  EXPECT_EQ(F::rfft(arange(8)).dtype(), kComplex64);  // int64 -> default float
  EXPECT_EQ(F::irfft(randn({5}, kComplex128)).dtype(), kFloat64);
  EXPECT_EQ(F::hfft(randn({5}, kFloat32)).dtype(), kFloat32);
  EXPECT_EQ(F::ihfft(randn({5}, kFloat64)).dtype(), kComplex128);
  const Tensor h = randn({8}, kFloat16);
  EXPECT_EQ(F::rfft(h).dtype(), kComplex64);
}

TEST(FFT, RoundTrips) {
  for (int64_t n : {1, 2, 3, 5, 8, 13, 16, 30}) {
    SCOPED_TRACE(n);
    const Tensor x = randn({3, n}, kFloat64);
    EXPECT_TRUE(allclose(F::irfft(F::rfft(x), n), x, 1e-12, 1e-12));
    EXPECT_TRUE(allclose(F::ifft(F::fft(x)).real(), x, 1e-12, 1e-12));
    EXPECT_TRUE(allclose(F::hfft(F::ihfft(x), n), x, 1e-12, 1e-12));
    const Tensor z = randn({2, n}, kComplex128);
    for (const char* norm : {"backward", "forward", "ortho"}) {
      EXPECT_TRUE(allclose(F::ifft(F::fft(z, std::nullopt, -1, norm), std::nullopt, -1, norm), z, 1e-12, 1e-12));
    }
  }
  const Tensor v = randn({4, 6, 5}, kFloat64);
  EXPECT_TRUE(allclose(F::irfftn(F::rfftn(v), IntArrayRef{4, 6, 5}), v, 1e-12, 1e-12));
}

TEST(FFT, FreqAndShift) {
  expect_tensor_near(F::fftfreq(7, 0.1, kFloat64), fixture("fft", "fftfreq_7_d0.1"), 1e-15, 1e-15);
  expect_tensor_near(F::fftfreq(8, 1.0, kFloat64), fixture("fft", "fftfreq_8"), 1e-15, 1e-15);
  expect_tensor_near(F::rfftfreq(7, 1.0, kFloat64), fixture("fft", "rfftfreq_7"), 1e-15, 1e-15);
  expect_tensor_near(F::rfftfreq(8, 2.5, kFloat64), fixture("fft", "rfftfreq_8_d2.5"), 1e-15, 1e-15);
  EXPECT_EQ(F::fftfreq(4).dtype(), kFloat32);
  EXPECT_EQ(F::fftfreq(0).numel(), 0);
  const Tensor x = randn({5, 6});
  EXPECT_TRUE(equal(F::ifftshift(F::fftshift(x)), x));
}

TEST(FFT, Errors) {
  const Tensor z = randn({4, 5}, kComplex64);
  expect_error([&] { F::fft(z, std::nullopt, -1, "sideways"); }, "invalid normalization mode \"sideways\"");
  expect_error([&] { F::fft(z, 0); }, "fft: invalid number of data points (0)");
  expect_error([&] { F::fft(z, std::nullopt, 2); }, "dimension out of range");
  expect_error([&] { F::fftn(z, std::nullopt, IntArrayRef{0, -2}); }, "FFT dims must be unique");
  expect_error([&] { F::fftn(z, IntArrayRef{4}, IntArrayRef{0, 1}); }, "must have the same length");
  expect_error([&] { F::fftn(z, IntArrayRef{4, 4, 4}); }, "only 2 dimensions");
  expect_error([&] { F::rfft(z); }, "rfft expects a real input tensor, but got complex64");
  expect_error([&] { F::irfft(randn({1}, kComplex64)); }, "irfft: invalid number of data points (0)");
  expect_error([&] { F::rfftn(randn({3}), std::nullopt, IntArrayRef{}); }, "rfftn must transform at least one axis");
  expect_error([&] { F::fft(scalar_tensor(1.0)); }, "at least one dimension");
  expect_error([&] { F::fftfreq(-1); }, "fftfreq: n must be non-negative");
}

TEST(FFT, EmptyBatch) {
  const Tensor z = randn({0, 8}, kComplex64);
  EXPECT_EQ(F::fft(z).sizes(), IntArrayRef({0, 8}));
  EXPECT_EQ(F::rfft(randn({0, 8})).sizes(), IntArrayRef({0, 5}));
  EXPECT_EQ(F::irfft(z).sizes(), IntArrayRef({0, 14}));
}

// ---- gradients ----

autograd::variable_list one(const Tensor& t) { return {t}; }

TEST(FFTGrad, ComplexTransforms) {
  const Tensor z = randn({3, 5}, kComplex128).requires_grad_();
  const Tensor r = randn({3, 5}, kFloat64).requires_grad_();
  using V = autograd::variable_list;
  std::vector<std::pair<std::string, autograd::GradcheckFn>> fns = {
      {"fft", [](const V& v) { return one(F::fft(v[0])); }},
      {"fft_n7_ortho", [](const V& v) { return one(F::fft(v[0], 7, -1, "ortho")); }},
      {"fft_n3_dim0", [](const V& v) { return one(F::fft(v[0], 2, 0)); }},
      {"ifft", [](const V& v) { return one(F::ifft(v[0])); }},
      {"fft2_forward", [](const V& v) { return one(F::fft2(v[0], std::nullopt, {-2, -1}, "forward")); }},
      {"ifftn_s", [](const V& v) { return one(F::ifftn(v[0], IntArrayRef{4, 6})); }},
      {"irfft", [](const V& v) { return one(F::irfft(v[0])); }},
      {"irfft_n9_ortho", [](const V& v) { return one(F::irfft(v[0], 9, -1, "ortho")); }},
      {"irfft_n4", [](const V& v) { return one(F::irfft(v[0], 4)); }},
      {"irfftn", [](const V& v) { return one(F::irfftn(v[0])); }},
      {"irfft2_s", [](const V& v) { return one(F::irfft2(v[0], IntArrayRef{4, 7})); }},
      {"hfft", [](const V& v) { return one(F::hfft(v[0])); }},
      {"hfft_n9_forward", [](const V& v) { return one(F::hfft(v[0], 9, -1, "forward")); }},
  };
  for (const auto& [name, fn] : fns) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(autograd::gradcheck(fn, {z}, kTightGradcheck));
  }
  std::vector<std::pair<std::string, autograd::GradcheckFn>> real_fns = {
      {"fft_real", [](const V& v) { return one(F::fft(v[0])); }},
      {"ifft_real", [](const V& v) { return one(F::ifft(v[0], std::nullopt, 0)); }},
      {"rfft", [](const V& v) { return one(F::rfft(v[0])); }},
      {"rfft_n8_ortho", [](const V& v) { return one(F::rfft(v[0], 8, -1, "ortho")); }},
      {"rfft_dim0", [](const V& v) { return one(F::rfft(v[0], std::nullopt, 0)); }},
      {"rfft2", [](const V& v) { return one(F::rfft2(v[0])); }},
      {"rfftn_s", [](const V& v) { return one(F::rfftn(v[0], IntArrayRef{2, 6})); }},
      {"ihfft", [](const V& v) { return one(F::ihfft(v[0])); }},
      {"ihfft_forward", [](const V& v) { return one(F::ihfft(v[0], 6, -1, "forward")); }},
      {"fftn_real", [](const V& v) { return one(F::fftn(v[0])); }},
      {"fftshift", [](const V& v) { return one(F::fftshift(v[0])); }},
  };
  for (const auto& [name, fn] : real_fns) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(autograd::gradcheck(fn, {r}, kTightGradcheck));
  }
}

TEST(FFTGrad, SecondOrder) {
  using V = autograd::variable_list;
  const Tensor z = randn({2, 5}, kComplex128).requires_grad_();
  const Tensor r = randn({2, 6}, kFloat64).requires_grad_();
  EXPECT_TRUE(autograd::gradgradcheck([](const V& v) { return one(F::fft(v[0])); }, {z}, {}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck([](const V& v) { return one(F::irfft(v[0], 8, -1, "ortho")); }, {z}, {},
      kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck([](const V& v) { return one(F::rfft(v[0])); }, {r}, {}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck([](const V& v) { return one(F::hfft(v[0], 7)); }, {z}, {}, kTightGradcheck));
}

}  // namespace fft_test
}  // namespace ember
