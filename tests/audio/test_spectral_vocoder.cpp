// phase_vocoder's fused CPU kernel (audio/src/spectral/cpu/phase_vocoder_kernels.cpp,
// Note [phase_vocoder arithmetic]): against the composite of core ops (the path
// taken with gradients), against torchaudio 0.13 on float32 phases summed to
// ~1e6 rad (fixtures: scripts/fixtures/audio_spectral.py), and its vectorized
// atan2 / sincos / |z| (spectral/cpu/simd_math.h) against libm value by value.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <ember/audio/functional.h>
#include <ember/ember.h>

#include "spectral/cpu/simd_math_arrays.h"
#include "spectral/phase_vocoder_kernels.h"
#include "spectral_testing.h"

namespace spectral_vocoder_test {

using namespace ember;
using namespace spectral_testing;
namespace AF = ember::audio::functional;
namespace SM = ember::audio::simd_math;

// The composite path: phase_vocoder with the input recording gradients.
Tensor composite(const Tensor& spec, double rate, const Tensor& advance) {
  return AF::phase_vocoder(spec.detach().requires_grad_(), rate, advance).detach();
}

// |actual - expected| <= rtol |expected| + atol per complex value, in modulus (a phase
// error turns a value by that many radians, however small its real or imaginary part).
void expect_close_in_modulus(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  const Tensor diff = (actual - expected).abs().to(kFloat64), modulus = expected.abs().to(kFloat64);
  const Tensor excess = diff - (modulus * rtol + atol);
  EXPECT_LE(excess.max().item<double>(), 0.0) << "max |diff| " << diff.max().item<double>();
}

// A spectrogram [..., freq, frames] of normal(0, 1) parts.
Tensor random_spec(const std::vector<int64_t>& shape, DType dtype) {
  std::vector<int64_t> real_shape = shape;
  real_shape.push_back(2);
  return view_as_complex(randn(real_shape, to_real_dtype(dtype)));
}

// torchaudio's TimeStretch advance, pi * hop * k / (freq - 1), as [freq, 1].
Tensor advance_for(int64_t freq, double hop, DType dtype) {
  return linspace(0, std::numbers::pi * hop, freq, TensorOptions().dtype(dtype)).unsqueeze(-1);
}

TEST(AudioPhaseVocoderKernel, SlotIsFilledForComplexOnCpu) {
  EXPECT_TRUE(audio::phase_vocoder_slot.supports(kCPU, kComplex64));
  EXPECT_TRUE(audio::phase_vocoder_slot.supports(kCPU, kComplex128));
  EXPECT_FALSE(audio::phase_vocoder_slot.supports(kCPU, kFloat32));
  bool listed = false;
  for (const SlotEntry& e : slot_registry()) listed |= std::string(e.name) == "audio.phase_vocoder";
  EXPECT_TRUE(listed);
}

// float64: the kernel's transcendentals are within ~2 ulp of libm's, the rest rounds as
// the composite, so the two agree to ~1e-15 relative to the accumulated phase. Rates from
// 20 steps per frame to one step for the whole spectrogram (40 frames at rate 40);
// frequencies that fill blocks of 4 lanes partly and blocks that span batch items.
TEST(AudioPhaseVocoderKernel, MatchesCompositeComplex128) {
  manual_seed(5);
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{17, 40}, {2, 17, 40}, {2, 3, 9, 33}}) {
    const int64_t freq = shape[shape.size() - 2];
    const Tensor spec = random_spec(shape, kComplex128);
    for (const double rate : {0.05, 0.5, 0.7, 1.25, 1.3, 2.5, 7.0, 13.0, 40.0}) {
      SCOPED_TRACE(::testing::Message() << "shape " << spec.sizes() << ", rate " << rate);
      for (const Tensor& advance : {advance_for(freq, 64, kFloat64), advance_for(freq, 64, kFloat64).narrow(0, 3, 1),
                                    full({}, 0.75, kFloat64)}) {
        const Tensor fast = AF::phase_vocoder(spec, rate, advance);
        EXPECT_EQ(fast.dtype(), kComplex128);
        expect_close_in_modulus(fast, composite(spec, rate, advance), 1e-11, 1e-13);
      }
    }
  }
}

// float32: both sum the phase in float64 and round each partial sum to float32, as
// torch's cumsum; an angle one ulp apart (libm's atan2f against the kernel's correctly
// rounded one) can round a partial sum the other way: one float32 ulp of the phase.
TEST(AudioPhaseVocoderKernel, MatchesCompositeComplex64) {
  manual_seed(6);
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{33, 200}, {3, 2, 17, 90}}) {
    const int64_t freq = shape[shape.size() - 2];
    const Tensor spec = random_spec(shape, kComplex64);
    for (const double rate : {0.6, 1.25, 1.9, 3.3}) {
      SCOPED_TRACE(::testing::Message() << "shape " << spec.sizes() << ", rate " << rate);
      const Tensor advance = advance_for(freq, 128, kFloat32);
      const Tensor fast = AF::phase_vocoder(spec, rate, advance);
      EXPECT_EQ(fast.dtype(), kComplex64);
      const Tensor slow = composite(spec, rate, advance);
      // |phase| < frames * (pi * 128 + pi): its float32 ulp bounds a flipped rounding.
      const double max_phase = static_cast<double>(shape.back()) * std::numbers::pi * 129;
      const double ulp = std::ldexp(1.0, std::ilogb(max_phase) - 23);
      expect_close_in_modulus(fast, slow, ulp + 1e-6, 1e-6);
      // Most values agree to a few float32 ulp.
      const Tensor close = (fast - slow).abs() <= slow.abs() * 1e-6 + 1e-6;
      EXPECT_GE(close.to(kFloat64).mean().item<double>(), 0.97);
    }
  }
}

// Strided, sliced and conjugated inputs give the kernel the same values as their contiguous copies.
TEST(AudioPhaseVocoderKernel, NonContiguousInputs) {
  manual_seed(7);
  const Tensor wide = random_spec({2, 50, 13}, kComplex64);  // [batch, frames, freq]
  const Tensor spec = wide.transpose(-1, -2);                 // [batch, freq = 13, frames = 50]
  ASSERT_FALSE(spec.is_contiguous());
  const Tensor advance = advance_for(13, 32, kFloat32);
  EXPECT_TRUE(AF::phase_vocoder(spec, 1.3, advance).equal(AF::phase_vocoder(spec.contiguous(), 1.3, advance)));
  const Tensor sliced = spec.narrow(-1, 5, 40).narrow(0, 1, 1);
  EXPECT_TRUE(AF::phase_vocoder(sliced, 0.8, advance).equal(AF::phase_vocoder(sliced.contiguous(), 0.8, advance)));
  const Tensor conjugated = spec.conj();
  EXPECT_TRUE(AF::phase_vocoder(conjugated, 1.3, advance)
                  .equal(AF::phase_vocoder(conjugated.resolve_conj().contiguous(), 1.3, advance)));
  // A float32 advance on a complex128 spectrogram widens exactly, as torch's promotion.
  const Tensor spec64 = spec.to(kComplex128);
  EXPECT_TRUE(AF::phase_vocoder(spec64, 1.3, advance).equal(AF::phase_vocoder(spec64, 1.3, advance.to(kFloat64))));
  // A single advance value means the same in every shape.
  EXPECT_TRUE(AF::phase_vocoder(spec, 1.3, full({1, 1}, 2.5, kFloat32))
                  .equal(AF::phase_vocoder(spec, 1.3, full({}, 2.5, kFloat32))));
}

// Zero frames, an infinite and a NaN value: the kernel's results are the composite's
// (NaN where it has NaN: a NaN angle poisons the rest of its row's running phase).
TEST(AudioPhaseVocoderKernel, NonFiniteValuesAsComposite) {
  manual_seed(8);
  for (const DType dtype : {kComplex64, kComplex128}) {
    SCOPED_TRACE(::testing::Message() << dtype);
    Tensor spec = random_spec({2, 11, 30}, dtype);
    spec.select(-1, 4).zero_();
    spec.select(0, 0).select(0, 3).select(0, 7).fill_(INFINITY);
    spec.select(0, 1).select(0, 9).select(0, 20).fill_(NAN);
    const Tensor advance = advance_for(11, 16, to_real_dtype(dtype));
    const Tensor fast = AF::phase_vocoder(spec, 1.3, advance), slow = composite(spec, 1.3, advance);
    const Tensor fast_real = view_as_real(fast), slow_real = view_as_real(slow);
    EXPECT_TRUE(fast_real.isnan().equal(slow_real.isnan()));
    EXPECT_TRUE(fast_real.isinf().equal(slow_real.isinf()));
    const Tensor finite = slow_real.isfinite();
    EXPECT_GT(finite.to(kFloat64).mean().item<double>(), 0.5);
    const double tol = dtype == kComplex64 ? 1e-3 : 1e-10;
    EXPECT_LE((fast_real - slow_real).masked_fill(finite.logical_not(), 0).abs().max().item<double>(), tol);
  }
}

// The float64 fixtures of test_spectral.cpp (AudioPhaseVocoder.MatchesTorchaudio) run the
// kernel too; here the kernel's float32 path on phases torch sums to ~1.5e6 rad.
// The fixture's input: scripts/fixtures/audio_spectral.py's lcg_spectrogram, bit for bit.
Tensor lcg_spectrogram(const std::vector<int64_t>& shape, uint32_t seed) {
  int64_t n = 2;
  for (const int64_t s : shape) n *= s;
  std::vector<float> values(static_cast<size_t>(n));
  uint32_t state = seed;
  for (float& v : values) {
    state = 1664525u * state + 1013904223u;
    v = static_cast<float>((state >> 8) & 0xFFFF) / 32768.0f - 1.0f;
  }
  std::vector<int64_t> real_shape = shape;
  real_shape.push_back(2);
  return view_as_complex(from_blob(values.data(), real_shape, kFloat32).clone());
}

void expect_matches_torchaudio_f32(const Tensor& ours, const Tensor& theirs, double advance_max) {
  ASSERT_EQ(ours.sizes().vec(), theirs.sizes().vec());
  const int64_t steps = ours.size(-1);
  // Step s's phase is below (s + 1) (pi + advance_max): one float32 ulp of it turns
  // the value by that angle when a partial sum rounds the other way.
  const Tensor s = arange(0, steps, TensorOptions().dtype(kFloat64));
  const Tensor phase_ulp = ((s + 1) * (std::numbers::pi + advance_max)).log2().floor().sub(23).exp2();
  const Tensor diff = (ours - theirs).abs().to(kFloat64), modulus = theirs.abs().to(kFloat64);
  const Tensor excess = diff - (modulus * (phase_ulp * 1.01 + 1e-6) + 1e-6);
  EXPECT_LE(excess.max().item<double>(), 0.0);
  // And nearly all values are torch's to float32 rounding.
  const Tensor close = diff <= modulus * 1e-6 + 1e-6;
  EXPECT_GE(close.to(kFloat64).mean().item<double>(), 0.99);
}

TEST(AudioPhaseVocoderKernel, Float32MatchesTorchaudioOverLongSums) {
  const Tensor spec = lcg_spectrogram({1, 5, 1200}, 20);
  const double advance_max = std::numbers::pi * 512;
  const Tensor advance = linspace(0, advance_max, 5, TensorOptions().dtype(kFloat32)).unsqueeze(-1);
  expect_matches_torchaudio_f32(AF::phase_vocoder(spec, 1.25, advance), complex_fixture("phase_vocoder_long__f32"),
                                advance_max);
  expect_matches_torchaudio_f32(AF::phase_vocoder(spec.narrow(-1, 0, 300), 0.75, advance),
                                complex_fixture("phase_vocoder_long_slower__f32"), advance_max);
}

// ---- simd_math.h against libm ----

// Distance in units of T's last place at `reference` (computed in long double).
template <class T>
double ulps(T value, long double reference) {
  if (std::isnan(value) && std::isnan(reference)) return 0;
  if (static_cast<long double>(value) == reference) return 0;
  const int exponent = std::max(std::ilogb(reference), std::numeric_limits<T>::min_exponent - 1);
  return static_cast<double>(std::fabs(static_cast<long double>(value) - reference) /
                             std::ldexp(1.0L, exponent - (std::numeric_limits<T>::digits - 1)));
}

// The values libm defines specially, and both signs of each.
template <class T>
std::vector<T> special_values() {
  const T inf = std::numeric_limits<T>::infinity();
  std::vector<T> v = {T(0), inf, std::numeric_limits<T>::quiet_NaN(), T(1), std::numeric_limits<T>::denorm_min(),
                      std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(1e6), T(3e9)};
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back(-v[i]);
  return v;
}

// Same value, NaN for NaN, and the same sign of zero.
template <class T>
bool same(T a, T b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

// Values spread over every binade from 2^lo to 2^hi, both signs.
template <class T>
std::vector<T> log_uniform(int64_t n, int lo, int hi, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> exponent(lo, hi);
  std::vector<T> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>((i % 2 ? -1 : 1) * std::exp2(exponent(gen)));
  return v;
}

template <class T>
void check_atan2(double max_ulps) {
  const std::vector<T> y = log_uniform<T>(200003, -40, 40, 1), x = log_uniform<T>(200003, -40, 40, 2);
  std::vector<T> out(y.size());
  SM::atan2_array(y.data(), x.data(), out.data(), static_cast<int64_t>(y.size()));
  double worst = 0;
  for (size_t i = 0; i < y.size(); ++i) worst = std::max(worst, ulps(out[i], std::atan2(static_cast<long double>(y[i]), static_cast<long double>(x[i]))));
  EXPECT_LE(worst, max_ulps);
  const std::vector<T> special = special_values<T>();
  for (const T a : special) {
    for (const T b : special) {
      T r;
      SM::atan2_array(&a, &b, &r, 1);
      const T libm = std::atan2(a, b);
      EXPECT_TRUE(same(r, libm) || ulps(r, std::atan2(static_cast<long double>(a), static_cast<long double>(b))) <= max_ulps)
          << "atan2(" << a << ", " << b << ") = " << r << ", libm " << libm;
    }
  }
}

TEST(AudioSimdMath, Atan2MatchesLibm) {
  check_atan2<float>(0.501);  // evaluated in float64, rounded once: correctly rounded but for near-ties
  check_atan2<double>(2.5);
}

template <class T>
void check_sincos(int hi_exponent, double max_ulps) {
  // Up to 2^hi_exponent: past 2^30 the kernel hands lanes to libm.
  std::vector<T> x = log_uniform<T>(200003, -30, hi_exponent, 3);
  // Right next to multiples of pi/2, where the reduction cancels most bits.
  for (int64_t k = 1; k < (int64_t{1} << 29); k = 3 * k + 1) {
    const T near = static_cast<T>(static_cast<long double>(k) * std::numbers::pi_v<long double> / 2);
    x.push_back(near);
    x.push_back(std::nextafter(near, T(0)));
  }
  std::vector<T> s(x.size()), c(x.size());
  SM::sincos_array(x.data(), s.data(), c.data(), static_cast<int64_t>(x.size()));
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    worst = std::max(worst, ulps(s[i], std::sin(static_cast<long double>(x[i]))));
    worst = std::max(worst, ulps(c[i], std::cos(static_cast<long double>(x[i]))));
  }
  EXPECT_LE(worst, max_ulps);
  for (const T a : special_values<T>()) {
    T sa, ca;
    SM::sincos_array(&a, &sa, &ca, 1);
    EXPECT_TRUE(same(sa, std::sin(a)) || ulps(sa, std::sin(static_cast<long double>(a))) <= max_ulps)
        << "sin(" << a << ") = " << sa << ", libm " << std::sin(a);
    EXPECT_TRUE(same(ca, std::cos(a)) || ulps(ca, std::cos(static_cast<long double>(a))) <= max_ulps)
        << "cos(" << a << ") = " << ca << ", libm " << std::cos(a);
  }
}

TEST(AudioSimdMath, SincosMatchesLibm) {
  check_sincos<float>(40, 0.501);
  check_sincos<double>(40, 2.0);
}

template <class T>
void check_hypot(double max_ulps) {
  const std::vector<T> re = log_uniform<T>(100003, -150, 150, 4), im = log_uniform<T>(100003, -150, 150, 5);
  std::vector<T> out(re.size());
  SM::hypot_array(re.data(), im.data(), out.data(), static_cast<int64_t>(re.size()));
  double worst = 0;
  for (size_t i = 0; i < re.size(); ++i) worst = std::max(worst, ulps(out[i], std::hypot(static_cast<long double>(re[i]), static_cast<long double>(im[i]))));
  EXPECT_LE(worst, max_ulps);
  for (const T a : special_values<T>()) {
    for (const T b : special_values<T>()) {
      T r;
      SM::hypot_array(&a, &b, &r, 1);
      EXPECT_TRUE(same(r, std::hypot(a, b)) || ulps(r, std::hypot(static_cast<long double>(a), static_cast<long double>(b))) <= max_ulps)
          << "|" << a << " + " << b << "i| = " << r << ", libm " << std::hypot(a, b);
    }
  }
}

TEST(AudioSimdMath, AbsMatchesLibmHypot) {
  // sqrt(re * re + im * im) rounded at each step (torch's): within 1.5 ulp; over- and
  // underflowing squares (parts out to 2^+-150) exact.
  check_hypot<float>(1.5);
  check_hypot<double>(1.5);
}

}  // namespace spectral_vocoder_test
