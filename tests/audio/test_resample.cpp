// ember::audio::functional::resample / speed / the sinc kernel against
// torchaudio 0.13 (speed: torchaudio 2.0's formula) on real speech
// (fixtures: scripts/fixtures/audio_resample.py).
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include <ember/audio/functional.h>
#include <ember/audio/transforms.h>
#include <ember/autograd/gradcheck.h>
#include <ember/ember.h>

#include "npy.h"
#include "resample/kernel_cache.h"
#include "resample/on_the_fly.h"
#include "resample/sinc_taps.h"

namespace resample_test {

using namespace ember;
namespace AF = ember::audio::functional;
namespace AT = ember::audio::transforms;

Tensor fixture(const std::string& name) {
  return ember::testing::load_npy(ember::testing::fixture_path("audio/resample/" + name + ".npy"));
}

// Two excerpts of the speech, [2, 800] float64, as the fixture script takes them.
Tensor speech_pair() {
  const Tensor speech = fixture("speech").to(kFloat64);
  return stack({speech.narrow(0, 2000, 800), speech.narrow(0, 5000, 800)});
}

double max_abs_diff(const Tensor& actual, const Tensor& expected) {
  EXPECT_EQ(actual.sizes().vec(), expected.sizes().vec());
  EXPECT_EQ(actual.dtype(), expected.dtype());
  if (actual.sizes().vec() != expected.sizes().vec()) return 1e300;
  return (actual.to(kFloat64) - expected.to(kFloat64)).abs().max().item<double>();
}

struct Case {
  std::string name;
  int64_t cols, orig, next, lowpass_filter_width;
  double rolloff;
  std::string method;
  std::optional<double> beta;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"down_16k_8k", 800, 16000, 8000, 6, 0.99, "sinc_interpolation", std::nullopt},
      {"up_16k_44k1", 200, 16000, 44100, 6, 0.99, "sinc_interpolation", std::nullopt},
      {"down_44k1_16k", 800, 44100, 16000, 6, 0.99, "sinc_interpolation", std::nullopt},
      {"kaiser_48k_16k", 800, 48000, 16000, 16, 0.85, "kaiser_window", std::nullopt},
      {"kaiser_beta_16k_12k", 800, 16000, 12000, 4, 0.9, "kaiser_window", 8.555},
      {"narrow_16k_11k025", 800, 16000, 11025, 2, 0.5, "sinc_interpolation", std::nullopt},
      {"up_kaiser_8k_16k", 200, 8000, 16000, 6, 0.99, "kaiser_window", 5.0},
  };
  return all;
}

TEST(AudioResample, Float64MatchesTorchaudio) {
  const Tensor x = speech_pair();
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Tensor in = x.narrow(1, 0, c.cols);
    const Tensor out = AF::resample(in, c.orig, c.next, c.lowpass_filter_width, c.rolloff, c.method, c.beta);
    EXPECT_LE(max_abs_diff(out, fixture("resample__" + c.name + "__f64")), 1e-10);
  }
}

TEST(AudioResample, Float32MatchesTorchaudio) {
  const Tensor x = speech_pair().to(kFloat32);
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Tensor in = x.narrow(1, 0, c.cols);
    const Tensor out = AF::resample(in, c.orig, c.next, c.lowpass_filter_width, c.rolloff, c.method, c.beta);
    // Speech peaks near 0.5 here; float32 kernels and sums round differently
    // (observed: at most 6e-8).
    EXPECT_LE(max_abs_diff(out, fixture("resample__" + c.name + "__f32")), 5e-7);
  }
}

// With a gradient to record, resample runs torchaudio's pad + strided conv1d
// instead of the polyphase loop: both give torchaudio's values.
TEST(AudioResample, RecordedPathMatchesPolyphaseLoop) {
  const Tensor x = speech_pair();
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Tensor in = x.narrow(1, 0, c.cols).clone().requires_grad_();
    const Tensor out = AF::resample(in, c.orig, c.next, c.lowpass_filter_width, c.rolloff, c.method, c.beta);
    EXPECT_TRUE(out.requires_grad());
    EXPECT_LE(max_abs_diff(out.detach(), fixture("resample__" + c.name + "__f64")), 1e-10);
  }
}

TEST(AudioResample, LeadingDimsAndOneDim) {
  const Tensor x = speech_pair();
  EXPECT_LE(max_abs_diff(AF::resample(x.reshape({2, 2, 400}), 3, 2), fixture("resample__batched")), 1e-10);
  EXPECT_LE(max_abs_diff(AF::resample(x[0].narrow(0, 0, 300), 5, 7), fixture("resample__1d")), 1e-10);
  // A non-contiguous view gives the same values as its contiguous copy.
  const Tensor strided = x.t().contiguous().t();
  EXPECT_TRUE(AF::resample(strided, 16000, 8000).equal(AF::resample(x, 16000, 8000)));
  // Equal rates return the waveform itself, as torchaudio.
  EXPECT_TRUE(AF::resample(x, 16000, 16000).is_same(x));
  // An empty time axis gives an empty result.
  EXPECT_EQ(AF::resample(empty({3, 0}, kFloat64), 3, 2).sizes().vec(), (std::vector<int64_t>{3, 0}));
}

TEST(AudioResample, KernelMatchesTorchaudio) {
  auto [kernel, width] = AF::sinc_resample_kernel(16000, 12000, 4000);
  EXPECT_EQ(width, 9);
  EXPECT_LE(max_abs_diff(kernel, fixture("kernel__16k_12k__default")), 1e-7);
  auto [kaiser, kaiser_width] =
      AF::sinc_resample_kernel(48000, 16000, 16000, 16, 0.85, "kaiser_window", std::nullopt, kFloat64);
  EXPECT_EQ(kaiser_width, 57);
  EXPECT_LE(max_abs_diff(kaiser, fixture("kernel__48k_16k__kaiser_f64")), 1e-14);
  // The kernel applied by apply_sinc_resample_kernel is resample.
  const Tensor x = speech_pair().to(kFloat32);
  const Tensor applied = AF::apply_sinc_resample_kernel(x, 16000, 12000, 4000, kernel, width);
  auto [kernel32, width32] = AF::sinc_resample_kernel(16000, 12000, 4000, 6, 0.99, "sinc_interpolation",
                                                      std::nullopt, kFloat32);
  EXPECT_LE(max_abs_diff(applied, AF::apply_sinc_resample_kernel(x, 16000, 12000, 4000, kernel32, width32)), 1e-6);
}

TEST(AudioResample, SpeedMatchesTorchaudio2) {
  const Tensor x = speech_pair().narrow(1, 0, 400);
  const Tensor lengths = tensor<int64_t>({400, 325});
  for (auto [label, factor] : {std::pair<std::string, double>{"fast", 1.1}, {"slow", 0.9}}) {
    SCOPED_TRACE(label);
    auto [out, out_lengths] = AF::speed(x, 16000, factor, lengths);
    EXPECT_LE(max_abs_diff(out, fixture("speed__" + label)), 1e-10);
    ASSERT_TRUE(out_lengths.has_value());
    EXPECT_TRUE(out_lengths->equal(fixture("speed__" + label + "__lengths")));
  }
  auto [same, none] = AF::speed(x, 16000, 1.0);
  EXPECT_TRUE(same.is_same(x));
  EXPECT_FALSE(none.has_value());
}

TEST(AudioResample, Gradcheck) {
  manual_seed(20);
  const Tensor x = randn({2, 31}, kFloat64).requires_grad_();
  for (auto [orig, next] : {std::pair<int64_t, int64_t>{3, 2}, {2, 5}}) {
    EXPECT_TRUE(autograd::gradcheck(
        [orig, next](const autograd::variable_list& in) {
          return autograd::variable_list{AF::resample(in[0], orig, next, 3, 0.9, "kaiser_window")};
        },
        {x}));
  }
}

// Rates whose reduced kernel is large are resampled without one, with the
// kernel's values: 19027 -> 16000 (PitchShift(16000, 3)), 44100 -> 44099 and an
// upsampling kaiser case, on [2, 7200 * tiles] (the speech and its reversal,
// repeated), against torchaudio's resample at ~300 of the outputs each
// (observed: at most 4e-16 in float64, 6e-8 in float32).
TEST(AudioResample, LargeKernelRatesMatchTorchaudio) {
  struct BigCase {
    std::string name;
    int64_t orig, next, lowpass_filter_width;
    double rolloff;
    std::string method;
    std::optional<double> beta;
    int64_t tiles;
  };
  const std::vector<BigCase> big = {
      {"19027_16000", 19027, 16000, 6, 0.99, "sinc_interpolation", std::nullopt, 3},
      {"44100_44099", 44100, 44099, 6, 0.99, "sinc_interpolation", std::nullopt, 7},
      {"up_kaiser_16000_19027", 16000, 19027, 8, 0.9, "kaiser_window", 8.0, 3},
  };
  const Tensor speech = fixture("speech").to(kFloat64);
  for (const BigCase& c : big) {
    SCOPED_TRACE(c.name);
    const Tensor x = stack({speech.repeat({c.tiles}), speech.flip({0}).repeat({c.tiles})});
    const Tensor outputs = fixture("big__" + c.name + "__outputs");
    const int64_t length = fixture("big__" + c.name + "__length").item<int64_t>();
    const Tensor y64 = AF::resample(x, c.orig, c.next, c.lowpass_filter_width, c.rolloff, c.method, c.beta);
    ASSERT_EQ(y64.size(-1), length);
    EXPECT_LE(max_abs_diff(y64.index_select(1, outputs), fixture("big__" + c.name + "__f64")), 1e-10);
    const Tensor y32 =
        AF::resample(x.to(kFloat32), c.orig, c.next, c.lowpass_filter_width, c.rolloff, c.method, c.beta);
    EXPECT_LE(max_abs_diff(y32.index_select(1, outputs), fixture("big__" + c.name + "__f32")), 1e-6);
    // The Resample transform: torchaudio's float32 buffer (dtype None), no
    // buffer in Ember, the same values on the fly (cast to float64 as the module).
    AT::Resample module(AT::ResampleOptions{.orig_freq = c.orig,
                                            .new_freq = c.next,
                                            .resampling_method = c.method,
                                            .lowpass_filter_width = c.lowpass_filter_width,
                                            .rolloff = c.rolloff,
                                            .beta = c.beta});
    EXPECT_FALSE(module->kernel.defined());
    EXPECT_LE(max_abs_diff(module(x.to(kFloat32)).index_select(1, outputs), fixture("big__" + c.name + "__module_f32")),
              1e-6);
    EXPECT_LE(max_abs_diff(module(x).index_select(1, outputs), fixture("big__" + c.name + "__module_f64")), 1e-10);
  }
}

// The taps computed one at a time are the kernel's rows (where both exist),
// and the taps they skip are the kernel's clamped edge values, negligible
// (Note [On-the-fly sinc taps]).
TEST(AudioResample, OnTheFlyTapsAreTheKernelRows) {
  // Against torchaudio's kernel: 64 columns around the window of phases 100, 777, 1500.
  struct TorchaudioRows {
    std::string name;
    int64_t orig, next, lowpass_filter_width;
    double rolloff;
    std::string method;
    std::optional<double> beta;
  };
  for (const TorchaudioRows& c : std::vector<TorchaudioRows>{
           {"1901_1600", 1901, 1600, 6, 0.99, "sinc_interpolation", std::nullopt},
           {"kaiser_1600_1901", 1600, 1901, 8, 0.9, "kaiser_window", 8.0}}) {
    const auto spec =
        AF::detail::make_sinc_tap_spec(c.orig, c.next, c.lowpass_filter_width, c.rolloff, c.method, c.beta);
    for (const std::string label : {"f64", "f32"}) {
      SCOPED_TRACE(c.name + " " + label);
      const Tensor expected = fixture("taps__" + c.name + "__" + label);
      std::vector<double> got;
      for (int64_t p : {100, 777, 1500}) {
        const AF::detail::TapRange range{c.orig * p / c.next - 32, c.orig * p / c.next + 31};
        if (label == "f64") {
          std::vector<double> taps(64);
          AF::detail::sinc_taps(spec, p, range, taps.data());
          got.insert(got.end(), taps.begin(), taps.end());
        } else {
          std::vector<float> taps(64);
          AF::detail::sinc_taps(spec, p, range, taps.data());
          got.insert(got.end(), taps.begin(), taps.end());
        }
      }
      const double diff =
          max_abs_diff(tensor(got, kFloat64).view({3, 64}).to(expected.dtype()), expected);
      // Observed: 2e-17 and 5e-20 in float64, 2e-10 and 7e-9 (a unit in the last place) in float32.
      EXPECT_LE(diff, label == "f64" ? 1e-16 : 2e-8);
    }
  }
  struct TapCase {
    int64_t orig, next, lowpass_filter_width;
    double rolloff;
    std::string method;
    std::optional<double> beta;
    double skipped64, skipped32;  // bounds of a skipped tap relative to the row's peak
  };
  const std::vector<TapCase> tap_cases = {
      {1901, 1600, 6, 0.99, "sinc_interpolation", std::nullopt, 1e-40, 1e-20},
      {1600, 1901, 8, 0.9, "kaiser_window", 8.0, 1e-16, 1e-8},
      {997, 96, 4, 0.8, "kaiser_window", std::nullopt, 1e-16, 1e-8},
  };
  const Tensor speech = fixture("speech").to(kFloat64).narrow(0, 1000, 3000).reshape({2, 1500});
  for (const TapCase& c : tap_cases) {
    for (DType dtype : {kFloat64, kFloat32}) {
      SCOPED_TRACE(std::to_string(c.orig) + " -> " + std::to_string(c.next) + " " + c.method + " " +
                   std::string(dtype_name(dtype)));
      auto [kernel, width] = AF::sinc_resample_kernel(c.orig, c.next, 1, c.lowpass_filter_width, c.rolloff,
                                                      c.method, c.beta, dtype);
      const auto spec = AF::detail::make_sinc_tap_spec(c.orig, c.next, c.lowpass_filter_width, c.rolloff, c.method,
                                                       c.beta);
      ASSERT_EQ(spec.width, width);
      const Tensor rows = kernel.to(kFloat64).contiguous();
      const int64_t columns = rows.size(2);
      double worst_inside = 0, worst_skipped = 0;
      for (int64_t p = 0; p < c.next; ++p) {
        const auto range = AF::detail::sinc_tap_range(spec, p);
        ASSERT_LE(range.count(), AF::detail::max_sinc_taps(spec));
        std::vector<double> taps(static_cast<size_t>(range.count()));
        if (dtype == kFloat64) {
          AF::detail::sinc_taps(spec, p, range, taps.data());
        } else {
          std::vector<float> taps32(taps.size());
          AF::detail::sinc_taps(spec, p, range, taps32.data());
          std::copy(taps32.begin(), taps32.end(), taps.begin());
        }
        const double* row = rows.data_ptr<double>() + p * columns;
        double peak = 0;
        for (int64_t k = 0; k < columns; ++k) peak = std::max(peak, std::fabs(row[k]));
        for (int64_t k = 0; k < columns; ++k) {
          const int64_t m = k - width;
          if (m >= range.first && m <= range.last)
            worst_inside = std::max(worst_inside, std::fabs(row[k] - taps[static_cast<size_t>(m - range.first)]) / peak);
          else
            worst_skipped = std::max(worst_skipped, std::fabs(row[k]) / peak);
        }
      }
      // Ember's tensor-op kernel (sinc_kernel.cpp) rounds its float32 cos, sin
      // and I0 a few units in the last place away from the scalar replay,
      // which matches torchaudio's to one unit (above). Observed: 7e-16 and 4e-7.
      EXPECT_LE(worst_inside, dtype == kFloat64 ? 1e-15 : 5e-7);
      EXPECT_LE(worst_skipped, dtype == kFloat64 ? c.skipped64 : c.skipped32);
      // Resampling without the kernel gives resample's kernel path.
      const Tensor x = speech.to(dtype);
      const int64_t target = (c.next * x.size(1) + c.orig - 1) / c.orig;
      const Tensor direct = AF::detail::resample_on_the_fly("test", x, spec, target);
      const Tensor cached = AF::resample(x, c.orig, c.next, c.lowpass_filter_width, c.rolloff, c.method, c.beta);
      EXPECT_LE(max_abs_diff(direct, cached), dtype == kFloat64 ? 1e-14 : 1e-6);
    }
  }
}

TEST(AudioResample, LargeKernelRatesGradcheck) {
  manual_seed(21);
  const Tensor x = randn({2, 37}, kFloat64).requires_grad_();
  for (auto [orig, next] : {std::pair<int64_t, int64_t>{19027, 16000}, {16000, 19027}, {44100, 44099}}) {
    SCOPED_TRACE(std::to_string(orig) + " -> " + std::to_string(next));
    auto fn = [orig, next](const autograd::variable_list& in) {
      return autograd::variable_list{AF::resample(in[0], orig, next, 4, 0.9, "kaiser_window")};
    };
    EXPECT_TRUE(autograd::gradcheck(fn, {x}));
    EXPECT_TRUE(autograd::gradgradcheck(fn, {x}));
  }
  // The backward pass is split into fixed chunks of outputs: a long input
  // gives the transpose's values (<g, R x> == <R^T g, x>).
  const Tensor long_x = randn({1, 50000}, kFloat64).requires_grad_();
  const Tensor y = AF::resample(long_x, 19027, 16000);
  const Tensor g = randn(y.sizes().vec(), kFloat64);
  const Tensor dx = autograd::grad({y}, {long_x}, {g})[0];
  EXPECT_NEAR((y.detach() * g).sum().item<double>(), (dx * long_x.detach()).sum().item<double>(), 1e-9);
  // Its chunks are fixed: one thread gives the same bits as several.
  const int threads = get_num_threads();
  set_num_threads(1);
  const Tensor dx_one_thread = autograd::grad({AF::resample(long_x, 19027, 16000)}, {long_x}, {g})[0];
  set_num_threads(threads);
  EXPECT_TRUE(dx_one_thread.equal(dx));
}

// Many parameter sets (more than the cache holds) from several threads at
// once: every result equals a fresh, uncached computation.
TEST(AudioResample, CacheIsThreadSafeAndBounded) {
  const Tensor x = speech_pair().to(kFloat32);
  std::vector<Tensor> expected;
  for (int64_t w = 1; w <= 20; ++w) {
    auto [kernel, width] = AF::sinc_resample_kernel(3, 2, 1, w, 0.99, "sinc_interpolation", std::nullopt, kFloat32);
    expected.push_back(AF::apply_sinc_resample_kernel(x, 3, 2, 1, kernel, width));
  }
  std::vector<int> failures(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round)
        for (int64_t w = 1; w <= 20; ++w)
          if (!AF::resample(x, 3, 2, w).equal(expected[static_cast<size_t>(w - 1)])) ++failures[t];
    });
  }
  for (auto& th : threads) th.join();
  for (int f : failures) EXPECT_EQ(f, 0);
  EXPECT_EQ(AF::detail::resample_kernel_cache_entries(), AF::detail::kResampleKernelCacheSize);
}

TEST(AudioResample, BadArgumentsRaise) {
  const Tensor x = speech_pair();
  auto message = [](auto&& fn) {
    try {
      fn();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] { AF::resample(x, 0, 16000); }).find("resample: orig_freq and new_freq must be positive"),
            std::string::npos);
  EXPECT_NE(message([&] { AF::resample(x, 16000, -8000); }).find("-8000"), std::string::npos);
  EXPECT_NE(message([&] { AF::resample(x, 16000, 8000, 0); }).find("lowpass_filter_width must be positive, got 0"),
            std::string::npos);
  EXPECT_NE(message([&] { AF::resample(x, 16000, 8000, 6, std::nan("")); }).find("rolloff"), std::string::npos);
  EXPECT_NE(message([&] { AF::resample(x, 16000, 8000, 6, 0.99, "linear"); }).find("\"linear\""), std::string::npos);
  EXPECT_NE(message([&] { AF::resample(x, 16000, 8000, 6, 0.99, "kaiser_window", INFINITY); }).find("beta"),
            std::string::npos);
  EXPECT_NE(message([&] { AF::resample(x.to(kInt32), 16000, 8000); }).find("float32 or float64"), std::string::npos);
  EXPECT_NE(message([&] { AF::resample(scalar_tensor(1.0, kFloat64), 16000, 8000); }).find("0-dim"),
            std::string::npos);
  // sinc_resample_kernel returns the whole kernel: not for rates without a common factor.
  EXPECT_NE(message([&] { AF::sinc_resample_kernel(44100, 44099, 1); }).find("larger common divisor"),
            std::string::npos);
  // Absurd rates: an output length beyond int64, work of days, a filter wider than 2^52 taps.
  EXPECT_NE(message([&] { AF::resample(x, 3, int64_t{1} << 61); })
                .find("resample: resampling 800 samples by 2305843009213693952/3"),
            std::string::npos);
  EXPECT_NE(message([&] { AF::resample(x, 300000000000001, 1); }).find("more than 2^50"), std::string::npos);
  EXPECT_NE(message([&] { AF::resample(x, 16000, 8000, 6, 1e-300); }).find("resample: lowpass_filter_width 6"),
            std::string::npos);
  auto [kernel, width] = AF::sinc_resample_kernel(16000, 12000, 4000);
  EXPECT_NE(message([&] { AF::apply_sinc_resample_kernel(x, 16000, 12000, 4000, kernel, width); }).find("dtype"),
            std::string::npos);
  EXPECT_NE(message([&] { AF::apply_sinc_resample_kernel(x.to(kFloat32), 16000, 8000, 8000, kernel, width); })
                .find("expected a kernel of shape"),
            std::string::npos);
  EXPECT_NE(message([&] { AF::sinc_resample_kernel(16000, 12000, 3000); }).find("common divisor"), std::string::npos);
  EXPECT_NE(message([&] { AF::speed(x, 16000, 0.0); }).find("factor must be positive"), std::string::npos);
  EXPECT_NE(message([&] { AF::speed(x, 16000, std::nan("")); }).find("factor"), std::string::npos);
}

}  // namespace resample_test
