// The FFT engine (core/src/fft): accuracy over many lengths and both precisions
// against a long-double O(n^2) DFT (small n) or exact bins, analytic tones,
// round trips and Parseval (large n); the real fast paths; strided, batched and
// multi-dim inputs; the plan cache; and thread-count independence.
#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/fft.h>

namespace ember {
namespace {

namespace F = ember::fft;
using cld = std::complex<long double>;
using cd = std::complex<double>;

std::vector<cd> values(const Tensor& t) {
  const Tensor c = t.to(kComplex128).resolve_conj().contiguous();
  const cd* p = c.data_ptr<cd>();
  return std::vector<cd>(p, p + c.numel());
}

// exp(sign 2 pi i m / n) in long double, m reduced exactly.
cld root(int64_t m, int64_t n, int sign) {
  m %= n;
  const long double a = 2.0L * std::numbers::pi_v<long double> * static_cast<long double>(m) / n;
  return {std::cos(a), sign * std::sin(a)};
}

// Bin k of the DFT of x (sign -1 forward, +1 backward, unnormalized), in long double.
cld dft_bin(const std::vector<cd>& x, int64_t k, int sign) {
  const int64_t n = static_cast<int64_t>(x.size());
  cld acc = 0;
  for (int64_t j = 0; j < n; ++j) acc += cld(x[j]) * root((j * k) % n, n, sign);
  return acc;
}

std::vector<cd> dft(const std::vector<cd>& x, int sign) {
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<cld> w(n);
  for (int64_t m = 0; m < n; ++m) w[m] = root(m, n, sign);
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

// Error bounds: float32 a few eps per level of the transform, float64 as the issue asks.
double bound(DType dtype, int64_t n) { return dtype == kComplex64 ? 1e-6 * log2n(n) : 1e-13; }

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

}  // namespace
}  // namespace ember
