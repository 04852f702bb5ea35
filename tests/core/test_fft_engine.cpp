// The FFT engine (core/src/fft): accuracy over many lengths and both precisions
// against a long-double O(n^2) DFT (small n) or exact bins, analytic tones,
// round trips and Parseval (large n); the real fast paths; strided, batched and
// multi-dim inputs; the plan cache; and thread-count independence.
#include <cmath>
#include <complex>
#include <functional>
#include <numbers>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/fft.h>

namespace ember {
namespace fft_engine_test {

namespace F = ember::fft;
using cld = std::complex<long double>;
using cd = std::complex<double>;

std::vector<cd> values(const Tensor& t) {
  const Tensor c = t.to(kComplex128).resolve_conj().contiguous();
  const cd* p = c.data_ptr<cd>();
  return std::vector<cd>(p, p + c.numel());
}

// exp(sign 2 pi i m / n), m reduced exactly (the sin/cos in double: within
// 1e-16, far below the engine's float64 error bound).
cld root(int64_t m, int64_t n, int sign) {
  m %= n;
  const double a = 2.0 * std::numbers::pi * static_cast<double>(m) / static_cast<double>(n);
  return {std::cos(a), sign * std::sin(a)};
}

// Bin k of the DFT of x (sign -1 forward, +1 backward, unnormalized), summed in long double.
cld dft_bin(const std::vector<cd>& x, int64_t k, int sign) {
  const int64_t n = static_cast<int64_t>(x.size());
  cld acc = 0;
  int64_t m = 0;  // j k mod n
  for (int64_t j = 0; j < n; ++j, m = (m + k) % n) acc += cld(x[j]) * root(m, n, sign);
  return acc;
}

std::vector<cd> dft(const std::vector<cd>& x, int sign) {
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<cld> w(n);
  for (int64_t m = 0; m < n; ++m) {
    const long double a = 2.0L * std::numbers::pi_v<long double> * static_cast<long double>(m) / n;
    w[m] = cld(std::cos(a), sign * std::sin(a));
  }
  std::vector<cd> out(n);
  for (int64_t k = 0; k < n; ++k) {
    cld acc = 0;
    for (int64_t j = 0; j < n; ++j) acc += cld(x[j]) * w[(j * k) % n];
    out[k] = cd(acc);
  }
  return out;
}

Tensor from_values(std::vector<cd> v, DType dtype) {
  return from_blob(v.data(), {static_cast<int64_t>(v.size())}, kComplex128).clone().to(dtype);
}

double rel_l2(const std::vector<cd>& a, const std::vector<cd>& b) {
  EXPECT_EQ(a.size(), b.size());
  long double num = 0, den = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    num += std::norm(cld(a[i]) - cld(b[i]));
    den += std::norm(cld(b[i]));
  }
  return den == 0 ? std::sqrt(static_cast<double>(num)) : std::sqrt(static_cast<double>(num / den));
}

double log2n(int64_t n) { return std::max(1.0, std::log2(static_cast<double>(n))); }

// Relative L2 error bounds, a few eps per level of the transform (measured:
// float32 1e-7 .. 2.6e-7, float64 3e-16 .. 8e-16 for n up to 2^20 and 1000003).
double bound(DType dtype, int64_t n) { return (dtype == kComplex64 ? 2e-7 : 2e-15) * log2n(n); }

Tensor complex_input(int64_t n, DType dtype, uint64_t seed) {
  manual_seed(seed);
  return randn({n}, kComplex128).to(dtype);
}

// ---- small and medium lengths: every bin against the long-double DFT ----

TEST(FFTEngine, ComplexMatchesLongDoubleDft) {
  for (int64_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 25, 27, 32, 49, 64, 97, 121, 125, 128, 169, 243,
                    256, 360, 500, 512, 1000, 1024, 2048, 2310, 4096, 4097}) {
    for (DType dtype : {kComplex64, kComplex128}) {
      SCOPED_TRACE(::testing::Message() << "n=" << n << " " << dtype);
      const Tensor x = complex_input(n, dtype, 100 + n);
      const std::vector<cd> xv = values(x);
      EXPECT_LT(rel_l2(values(F::fft(x)), dft(xv, -1)), bound(dtype, n));
      std::vector<cd> inv = dft(xv, +1);
      for (cd& v : inv) v /= static_cast<double>(n);
      EXPECT_LT(rel_l2(values(F::ifft(x)), inv), bound(dtype, n));
    }
  }
}

// ---- large lengths: exact bins, tones, round trip, Parseval ----

TEST(FFTEngine, LargeLengths) {
  std::mt19937_64 rng(7);
  for (int64_t n : {8192, 10007, 44100, 65536, 3 * 3 * 3 * 3 * 3 * 3 * 5 * 5 * 5 * 5, 1 << 20, 1000003}) {
    for (DType dtype : {kComplex64, kComplex128}) {
      SCOPED_TRACE(::testing::Message() << "n=" << n << " " << dtype);
      const Tensor x = complex_input(n, dtype, n);
      const std::vector<cd> xv = values(x);
      const Tensor X = F::fft(x);
      const std::vector<cd> Xv = values(X);

      // A few bins computed exactly, relative to the spectrum's RMS.
      long double energy = 0;
      for (const cd& v : xv) energy += std::norm(cld(v));
      const double rms = std::sqrt(static_cast<double>(energy));  // = RMS of X (Parseval)
      double worst = 0;
      for (int i = 0; i < 6; ++i) {
        const int64_t k = static_cast<int64_t>(rng() % n);
        worst = std::max(worst, std::abs(cd(cld(Xv[k]) - dft_bin(xv, k, -1))) / rms);
      }
      EXPECT_LT(worst, 4 * bound(dtype, n));

      // Parseval: sum |X|^2 = n sum |x|^2.
      long double spec = 0;
      for (const cd& v : Xv) spec += std::norm(cld(v));
      EXPECT_NEAR(static_cast<double>(spec / (energy * n)), 1.0, 4 * bound(dtype, n));

      // Round trip.
      EXPECT_LT(rel_l2(values(F::ifft(X)), xv), 2 * bound(dtype, n));

      // Three tones: exp(2 pi i f j / n) transforms to n at bin f.
      const int64_t f[3] = {1, n / 3, n - 5};
      const cd amp[3] = {cd(1, 0), cd(0.5, -2), cd(-0.25, 0.75)};
      std::vector<cd> tone(n), expected(n);
      for (int64_t j = 0; j < n; ++j) {
        cld acc = 0;
        for (int t = 0; t < 3; ++t) acc += cld(amp[t]) * root((f[t] * j) % n, n, +1);
        tone[j] = cd(acc);
      }
      for (int t = 0; t < 3; ++t) expected[f[t]] += amp[t] * static_cast<double>(n);
      const Tensor tt = from_values(tone, dtype);
      EXPECT_LT(rel_l2(values(F::fft(tt)), expected), 2 * bound(dtype, n));
    }
  }
}

// ---- real transforms: the even-length packing and the odd-length complex path ----

Tensor real_input(IntArrayRef shape, DType dtype, uint64_t seed) {
  manual_seed(seed);
  return randn(shape, kFloat64).to(dtype);
}

TEST(FFTEngine, RealTransformsMatchComplex) {
  for (int64_t n : {1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 30, 97, 100, 194, 400, 1000, 1001, 4096, 4097, 8192, 8194,
                    20014, 44100, 65536, 65537, 1 << 20}) {
    for (DType dtype : {kFloat32, kFloat64}) {
      SCOPED_TRACE(::testing::Message() << "n=" << n << " " << dtype);
      const DType cdtype = dtype == kFloat32 ? kComplex64 : kComplex128;
      const double tol = bound(cdtype, n);
      const Tensor x = real_input({n}, dtype, 300 + n);
      const Tensor full = F::fft(x.to(cdtype));  // the complex path
      const Tensor half = F::rfft(x);
      ASSERT_EQ(half.size(0), n / 2 + 1);
      EXPECT_LT(rel_l2(values(half), values(full.narrow(0, 0, n / 2 + 1))), tol);
      EXPECT_LT(rel_l2(values(F::fft(x)), values(full)), tol);  // real input, full spectrum
      EXPECT_LT(rel_l2(values(F::irfft(half, n)), values(x)), 2 * tol);
      // irfft ignores the imaginary parts of bin 0 and (even n) bin n/2.
      std::vector<cd> noisy = values(half);
      noisy[0] += cd(0, 0.75);
      if (n % 2 == 0) noisy[n / 2] += cd(0, -1.5);
      EXPECT_TRUE(equal(F::irfft(from_values(noisy, cdtype), n), F::irfft(half, n)));
    }
  }
}

// irfft of an arbitrary half spectrum against the long-double inverse DFT of its Hermitian extension.
TEST(FFTEngine, IrfftMatchesLongDoubleDft) {
  for (int64_t n : {1, 2, 3, 4, 9, 10, 64, 97, 194, 360, 1001, 1024, 4096, 4098}) {
    for (DType dtype : {kComplex64, kComplex128}) {
      SCOPED_TRACE(::testing::Message() << "n=" << n << " " << dtype);
      const Tensor half = complex_input(n / 2 + 1, dtype, 500 + n);
      std::vector<cd> h = values(half), ext(n);
      for (int64_t k = 0; k < n; ++k) ext[k] = 2 * k <= n ? h[k] : std::conj(h[n - k]);
      ext[0] = ext[0].real();
      if (n % 2 == 0) ext[n / 2] = ext[n / 2].real();
      std::vector<cd> expected = dft(ext, +1);
      for (cd& v : expected) v = v.real() / static_cast<double>(n);
      EXPECT_LT(rel_l2(values(F::irfft(half, n)), expected), bound(dtype, n));
    }
  }
}

// ---- layouts: strides, batches, dims ----

// A transform of a strided view equals the transform of its contiguous copy
// bit for bit: every signal goes through the same plan whatever its layout.
TEST(FFTEngine, StridedAndBatchedInputs) {
  for (DType dtype : {kComplex64, kComplex128}) {
    SCOPED_TRACE(::testing::Message() << dtype);
    manual_seed(11);
    const Tensor x = randn({24, 40, 18}, dtype);
    for (int64_t dim : {0, 1, 2, -1, -2, -3}) {
      SCOPED_TRACE(dim);
      EXPECT_TRUE(equal(F::fft(x, std::nullopt, dim), F::fft(x.contiguous(), std::nullopt, dim)));
      const Tensor t = x.transpose(0, 2);  // [18, 40, 24], non-contiguous
      EXPECT_TRUE(equal(F::fft(t, std::nullopt, dim), F::fft(t.contiguous(), std::nullopt, dim)));
      EXPECT_TRUE(equal(F::ifft(t, std::nullopt, dim), F::ifft(t.contiguous(), std::nullopt, dim)));
    }
    // Every other element, a negative-stride view, a broadcast batch.
    const Tensor stepped = x.narrow(2, 1, 16).unfold(2, 1, 2).squeeze(-1);
    EXPECT_TRUE(equal(F::fft(stepped), F::fft(stepped.contiguous())));
    const Tensor flipped = x.flip({1});
    EXPECT_TRUE(equal(F::fft(flipped, std::nullopt, 1), F::fft(flipped.contiguous(), std::nullopt, 1)));
    const Tensor expanded = x.narrow(0, 0, 1).expand({5, 40, 18});
    EXPECT_TRUE(equal(F::fft(expanded, std::nullopt, 1), F::fft(expanded.contiguous(), std::nullopt, 1)));
    // A batch equals its signals transformed one at a time.
    const Tensor batch = F::fft(x, std::nullopt, 1);
    for (int64_t i : {0, 7, 23}) {
      EXPECT_TRUE(equal(batch.select(0, i).select(1, 5), F::fft(x.select(0, i).select(1, 5).contiguous())));
    }
  }
  // Real transforms over non-last dims and strided real inputs.
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor r = real_input({30, 16, 12}, dtype, 12);
    for (int64_t dim : {0, 1, 2}) {
      const Tensor t = r.transpose(0, 2);
      EXPECT_TRUE(equal(F::rfft(t, std::nullopt, dim), F::rfft(t.contiguous(), std::nullopt, dim)));
      const Tensor spec = F::rfft(t, std::nullopt, dim);
      const int64_t n = t.size(dim);
      EXPECT_TRUE(equal(F::irfft(spec.transpose(0, 1).contiguous().transpose(0, 1), n, dim), F::irfft(spec, n, dim)));
    }
  }
  // Columns of a matrix, many side by side (grouped several lane blocks at a
  // time), against each column alone; forward, inverse and scaled.
  for (DType dtype : {kComplex64, kComplex128}) {
    for (int64_t n : {60, 97, 256}) {
      SCOPED_TRACE(::testing::Message() << "columns n=" << n << " " << dtype);
      const Tensor x = complex_input(n * 64, dtype, 40 + n).view({n, 64});
      const Tensor X = F::fft(x, std::nullopt, 0), Y = F::ifft(x, std::nullopt, 0, "ortho");
      for (int64_t i : {0, 17, 63}) {
        const Tensor column = x.select(1, i).contiguous();
        EXPECT_TRUE(equal(X.select(1, i), F::fft(column)));
        EXPECT_TRUE(equal(Y.select(1, i), F::ifft(column, std::nullopt, -1, "ortho")));
      }
      EXPECT_LT(rel_l2(values(X.select(1, 5)), dft(values(x.select(1, 5)), -1)), bound(dtype, n));
    }
  }
  // Long signals (four-step, Bluestein) in a batch, along a strided dim.
  for (int64_t n : {8192, 10007}) {
    const Tensor x = complex_input(3 * n, kComplex128, n).view({n, 3});
    const Tensor X = F::fft(x, std::nullopt, 0);
    for (int64_t i = 0; i < 3; ++i) EXPECT_TRUE(equal(X.select(1, i), F::fft(x.select(1, i).contiguous())));
  }
}

TEST(FFTEngine, MultiDim) {
  for (DType dtype : {kComplex64, kComplex128}) {
    SCOPED_TRACE(::testing::Message() << dtype);
    manual_seed(13);
    const Tensor x = randn({6, 10, 12, 7}, dtype);
    // fftn over some dims = the 1-D transforms one dim at a time.
    const Tensor X = F::fftn(x, std::nullopt, IntArrayRef{0, 2, 3});
    const Tensor Y = F::fft(F::fft(F::fft(x, std::nullopt, 0), std::nullopt, 2), std::nullopt, 3);
    EXPECT_LT(rel_l2(values(X), values(Y)), bound(dtype, 504));
    // A 2-D transform against the long-double DFT of rows then columns.
    const Tensor m = randn({9, 16}, dtype);
    std::vector<cd> mv = values(m), rows(9 * 16), out(9 * 16);
    for (int i = 0; i < 9; ++i) {
      std::vector<cd> r(mv.begin() + 16 * i, mv.begin() + 16 * (i + 1));
      r = dft(r, -1);
      std::copy(r.begin(), r.end(), rows.begin() + 16 * i);
    }
    for (int j = 0; j < 16; ++j) {
      std::vector<cd> c(9);
      for (int i = 0; i < 9; ++i) c[i] = rows[16 * i + j];
      c = dft(c, -1);
      for (int i = 0; i < 9; ++i) out[16 * i + j] = c[i];
    }
    EXPECT_LT(rel_l2(values(F::fft2(m)), out), bound(dtype, 144));
    EXPECT_LT(rel_l2(values(F::ifft2(F::fft2(m))), mv), bound(dtype, 144));
  }
  for (DType dtype : {kFloat32, kFloat64}) {
    const DType cdtype = dtype == kFloat32 ? kComplex64 : kComplex128;
    const Tensor r = real_input({5, 12, 10}, dtype, 14);
    const Tensor R = F::rfftn(r);
    EXPECT_LT(rel_l2(values(R), values(F::fftn(r.to(cdtype)).narrow(2, 0, 6))), bound(cdtype, 600));
    EXPECT_LT(rel_l2(values(F::irfftn(R, IntArrayRef{5, 12, 10})), values(r)), bound(cdtype, 600));
    const Tensor odd = real_input({4, 9}, dtype, 15);
    EXPECT_LT(rel_l2(values(F::irfft2(F::rfft2(odd), IntArrayRef{4, 9})), values(odd)), bound(cdtype, 36));
  }
  // A 1024 x 1024 transform (rows and columns through the lane paths).
  const Tensor big = complex_input(1 << 20, kComplex64, 16).view({1024, 1024});
  const Tensor B = F::fft2(big);
  EXPECT_LT(rel_l2(values(F::ifft2(B)), values(big)), 2 * bound(kComplex64, 1 << 20));
  // Dims run in the order given (0 then 1); each pass is an ordinary batch.
  EXPECT_TRUE(equal(B.select(0, 3), F::fft(F::fft(big, std::nullopt, 0).select(0, 3).contiguous())));
}

// ---- the plan cache ----

TEST(FFTEngine, PlanCacheReuse) {
  const Tensor a = complex_input(1000, kComplex64, 21), b = complex_input(4097, kComplex128, 22);
  const Tensor ra = F::fft(a), rb = F::fft(b);
  EXPECT_TRUE(equal(F::fft(a), ra));  // the same plan, reused
  // Interleaved sizes and dtypes, then many sizes past the cache capacity (64),
  // which evict the first plans: rebuilt, they give the same bits.
  for (int64_t n = 2; n < 200; ++n) {
    const Tensor x = complex_input(n, n % 2 ? kComplex64 : kComplex128, n);
    const Tensor X = F::fft(x);
    EXPECT_TRUE(equal(F::fft(x), X)) << n;
    if (n % 17 == 0) {
      EXPECT_TRUE(equal(F::fft(a), ra));
      EXPECT_TRUE(equal(F::fft(b), rb));
    }
    if (n % 50 == 0) {
      EXPECT_LT(rel_l2(values(X), dft(values(x), -1)), bound(x.dtype(), n)) << n;
      const Tensor r = real_input({2 * n}, kFloat64, n);
      EXPECT_LT(rel_l2(values(F::irfft(F::rfft(r), 2 * n)), values(r)), 1e-13);
    }
  }
  EXPECT_TRUE(equal(F::fft(a), ra));
  EXPECT_TRUE(equal(F::fft(b), rb));
}

// ---- threads ----

TEST(FFTEngine, ThreadCountIndependent) {
  const int saved = get_num_threads();
  const std::vector<std::pair<const char*, std::function<Tensor()>>> cases = {
      {"batch of 400 (stft-like rfft)", [] { return F::rfft(real_input({600, 400}, kFloat32, 31)); }},
      {"fft2 512x512", [] { return F::fft2(complex_input(1 << 18, kComplex64, 32).view({512, 512})); }},
      {"columns", [] { return F::fft(complex_input(256 * 96, kComplex128, 33).view({256, 96}), std::nullopt, 0); }},
      {"four-step 2^16", [] { return F::fft(complex_input(1 << 16, kComplex64, 34)); }},
      {"rfft 2^20", [] { return F::rfft(real_input({1 << 20}, kFloat32, 35)); }},
      {"irfft 2^17", [] { return F::irfft(complex_input((1 << 16) + 1, kComplex64, 36)); }},
      {"Bluestein 1000003", [] { return F::fft(complex_input(1000003, kComplex64, 37)); }},
      {"Bluestein batch 97", [] { return F::ifft(complex_input(97 * 50, kComplex128, 38).view({50, 97})); }},
  };
  for (const auto& [name, run] : cases) {
    SCOPED_TRACE(name);
    set_num_threads(1);
    const Tensor one = run();
    set_num_threads(2);
    const Tensor two = run();
    EXPECT_TRUE(equal(one, two));
  }
  set_num_threads(saved);
}

}  // namespace fft_engine_test
}  // namespace ember
