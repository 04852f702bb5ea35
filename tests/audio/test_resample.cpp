// ember::audio::functional::resample / speed / the sinc kernel against
// torchaudio 0.13 (speed: torchaudio 2.0's formula) on real speech
// (fixtures: scripts/fixtures/audio_resample.py).
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include <ember/audio/functional.h>
#include <ember/autograd/gradcheck.h>
#include <ember/ember.h>

#include "npy.h"
#include "resample/kernel_cache.h"

namespace resample_test {

using namespace ember;
namespace AF = ember::audio::functional;

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
  // Rates without a common factor would need a kernel of billions of taps.
  EXPECT_NE(message([&] { AF::resample(x, 44100, 44099); }).find("larger common divisor"), std::string::npos);
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
