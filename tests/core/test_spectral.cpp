// Window functions, stft and istft against torch (fixtures from
// scripts/fixtures/spectral.py), plus round trips, argument errors and
// gradient checks.
#include <functional>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/ops/spectral.h>
#include <ember/ops/windows.h>

#include "tensor_expect.h"
#include "gradcheck_tight.h"

namespace ember {
namespace spectral_test {

using testing::kTightGradcheck;
using testing::expect_error;
using testing::expect_tensor_near;
using testing::fixture;

Tensor spectral_fixture(const std::string& name) { return fixture("spectral", name); }

TEST(SpectralWindows, MatchTorch) {
  const TensorOptions f64(kFloat64);
  const std::map<std::string, Tensor> windows = {
      {"hann_0", hann_window(0, true, f64)},
      {"hann_1", hann_window(1, true, f64)},
      {"hann_8", hann_window(8, true, f64)},
      {"hann_8_sym", hann_window(8, false, f64)},
      {"hann_9_sym", hann_window(9, false, f64)},
      {"hamming_10", hamming_window(10, true, 0.54, 0.46, f64)},
      {"hamming_7_sym_a0.5_b0.4", hamming_window(7, false, 0.5, 0.4, f64)},
      {"blackman_12", blackman_window(12, true, f64)},
      {"blackman_11_sym", blackman_window(11, false, f64)},
      {"bartlett_9", bartlett_window(9, true, f64)},
      {"bartlett_10_sym", bartlett_window(10, false, f64)},
      {"bartlett_2_sym", bartlett_window(2, false, f64)},
      {"kaiser_16", kaiser_window(16, true, 12.0, f64)},
      {"kaiser_15_sym_b5", kaiser_window(15, false, 5.0, f64)},
      {"kaiser_400_b30", kaiser_window(400, true, 30.0, f64)},
  };
  for (const auto& [name, window] : windows) {
    SCOPED_TRACE(name);
    expect_tensor_near(window, spectral_fixture("window_" + name), 1e-12, 1e-14);
  }
}

TEST(SpectralWindows, DtypesAndErrors) {
  EXPECT_EQ(hann_window(5).dtype(), default_dtype());
  const Tensor w32 = blackman_window(9, false, kFloat32);
  EXPECT_EQ(w32.dtype(), kFloat32);
  expect_tensor_near(w32, blackman_window(9, false, kFloat64).to(kFloat32), 0, 0);
  // Symmetric windows are symmetric; periodic ones are the symmetric N+1 window cut.
  const Tensor sym = kaiser_window(11, false, 8.0, kFloat64);
  expect_tensor_near(sym, sym.flip({0}), 1e-15, 1e-15);
  expect_tensor_near(hamming_window(10, true, 0.54, 0.46, kFloat64),
                     hamming_window(11, false, 0.54, 0.46, kFloat64).narrow(0, 0, 10), 1e-15, 1e-15);
  expect_error([] { hann_window(-1); }, "hann_window: window_length must be non-negative, got -1");
  expect_error([] { bartlett_window(4, true, kInt64); }, "bartlett_window: expected a floating point dtype");
  expect_error([] { kaiser_window(4, true, -1.0); }, "kaiser_window: beta must be finite and non-negative");
}

using Call = std::function<Tensor(const Tensor& x, const Tensor& w)>;

const std::map<std::string, Call>& stft_cases() {
  static const std::map<std::string, Call> c = {
      {"stft_default", [](const Tensor& x, const Tensor& w) { return stft(x, 32, {.window = w}); }},
      {"stft_hop5_nocenter",
       [](const Tensor& x, const Tensor& w) { return stft(x, 16, {.hop_length = 5, .window = w, .center = false}); }},
      {"stft_rect_constant",
       [](const Tensor& x, const Tensor&) { return stft(x, 20, {.hop_length = 7, .pad_mode = "constant"}); }},
      {"stft_replicate",
       [](const Tensor& x, const Tensor& w) {
         return stft(x, 12, {.hop_length = 4, .window = w, .pad_mode = "replicate"});
       }},
      {"stft_circular_norm",
       [](const Tensor& x, const Tensor& w) {
         return stft(x, 10, {.hop_length = 3, .window = w, .pad_mode = "circular", .normalized = true});
       }},
      {"stft_winlen",
       [](const Tensor& x, const Tensor& w) { return stft(x, 32, {.hop_length = 8, .win_length = 19, .window = w}); }},
      {"stft_twosided", [](const Tensor& x, const Tensor& w) { return stft(x, 16, {.window = w, .onesided = false}); }},
      {"stft_batch", [](const Tensor& x, const Tensor& w) { return stft(x, 16, {.hop_length = 6, .window = w}); }},
      {"stft_complex", [](const Tensor& x, const Tensor& w) { return stft(x, 16, {.hop_length = 4, .window = w}); }},
      {"stft_complex_window",
       [](const Tensor& x, const Tensor& w) { return stft(x, 16, {.hop_length = 4, .window = w}); }},
      {"stft_odd_nfft", [](const Tensor& x, const Tensor& w) { return stft(x, 15, {.hop_length = 4, .window = w}); }},
  };
  return c;
}

const std::map<std::string, Call>& istft_cases() {
  static const std::map<std::string, Call> c = {
      {"istft_default", [](const Tensor& x, const Tensor& w) { return istft(x, 32, {.window = w}); }},
      {"istft_length_short",
       [](const Tensor& x, const Tensor& w) { return istft(x, 32, {.window = w, .length = 150}); }},
      {"istft_length_long", [](const Tensor& x, const Tensor& w) { return istft(x, 32, {.window = w, .length = 230}); }},
      {"istft_nocenter",
       [](const Tensor& x, const Tensor& w) { return istft(x, 16, {.hop_length = 5, .window = w, .center = false}); }},
      {"istft_normalized_batch",
       [](const Tensor& x, const Tensor& w) {
         return istft(x, 16, {.hop_length = 4, .window = w, .normalized = true});
       }},
      {"istft_winlen",
       [](const Tensor& x, const Tensor& w) { return istft(x, 32, {.hop_length = 5, .win_length = 20, .window = w}); }},
      {"istft_twosided_real",
       [](const Tensor& x, const Tensor& w) { return istft(x, 16, {.window = w, .onesided = false}); }},
      {"istft_complex",
       [](const Tensor& x, const Tensor& w) {
         return istft(x, 16, {.hop_length = 4, .window = w, .return_complex = true});
       }},
      {"istft_rect", [](const Tensor& x, const Tensor&) { return istft(x, 20, {.hop_length = 5}); }},
      {"istft_arbitrary_spectrum",
       [](const Tensor& x, const Tensor& w) { return istft(x, 16, {.hop_length = 4, .window = w}); }},
  };
  return c;
}

Tensor optional_fixture(const std::string& name) {
  try {
    return spectral_fixture(name);
  } catch (const Error&) {
    return {};
  }
}

void check_cases(const std::map<std::string, Call>& cases) {
  for (const auto& [name, call] : cases) {
    SCOPED_TRACE(name);
    const Tensor x = spectral_fixture(name + "_x");
    const Tensor w = optional_fixture(name + "_w");
    expect_tensor_near(call(x, w), spectral_fixture(name + "_y"), 1e-10, 1e-10);
  }
}

TEST(SpectralStft, MatchesTorch) { check_cases(stft_cases()); }

TEST(SpectralIstft, MatchesTorch) { check_cases(istft_cases()); }

TEST(SpectralStft, Float32AndRealLayout) {
  const Tensor x = spectral_fixture("stft_default_x");
  const Tensor w = spectral_fixture("stft_default_w");
  const Tensor y = stft(x.to(kFloat32), 32, {.window = w.to(kFloat32)});
  EXPECT_EQ(y.dtype(), kComplex64);
  expect_tensor_near(y, spectral_fixture("stft_default_y").to(kComplex64), 1e-4, 1e-4);
  // return_complex=false: the real [..., 2] layout.
  const Tensor r = stft(x, 32, {.window = w, .return_complex = false});
  ASSERT_EQ(r.dim(), 3);
  EXPECT_EQ(r.size(-1), 2);
  const Tensor c = spectral_fixture("stft_default_y");
  expect_tensor_near(r.select(-1, 0), c.real(), 1e-10, 1e-10);
  expect_tensor_near(r.select(-1, 1), c.imag(), 1e-10, 1e-10);
}

TEST(SpectralIstft, RoundTrip) {
  const Tensor x = randn({2, 1000}, kFloat64);
  for (int64_t n_fft : {64, 101, 400}) {
    SCOPED_TRACE(n_fft);
    const Tensor w = hann_window(n_fft, true, kFloat64);
    const int64_t hop = n_fft / 4;
    const Tensor spec = stft(x, n_fft, {.hop_length = hop, .window = w});
    const Tensor back = istft(spec, n_fft, {.hop_length = hop, .window = w, .length = 1000});
    expect_tensor_near(back, x, 1e-10, 1e-10);
  }
  // A complex signal through the two-sided transforms.
  const Tensor z = randn({300}, kComplex128);
  const Tensor w = hamming_window(32, true, 0.54, 0.46, kFloat64);
  const Tensor spec = stft(z, 32, {.hop_length = 8, .window = w});
  expect_tensor_near(istft(spec, 32, {.hop_length = 8, .window = w, .length = 300, .return_complex = true}), z, 1e-10,
                     1e-10);
}

TEST(SpectralStft, Errors) {
  const Tensor x = randn({100}, kFloat64);
  expect_error([&] { stft(randn({2, 3, 4}), 4); }, "stft: expected a 1D or 2D tensor, got 3D");
  expect_error([&] { stft(x, 0); }, "stft: expected n_fft > 0, got 0");
  expect_error([&] { stft(x, 16, {.hop_length = 0}); }, "stft: expected hop_length > 0, got 0");
  expect_error([&] { stft(x, 16, {.win_length = 17}); }, "stft: expected 0 < win_length <= n_fft");
  expect_error([&] { stft(x, 16, {.window = ones({15})}); }, "stft: expected a 1D window tensor of size equal to");
  expect_error([&] { stft(x, 200, {.center = false}); }, "stft: expected 0 < n_fft <= 100");
  expect_error([&] { stft(randn({10}), 32); }, "stft: reflect padding needs a signal longer than");
  expect_error([&] { stft(randn({50}, kComplex128), 16, {.onesided = true}); }, "stft: onesided output is not possible");
  expect_error([&] { stft(x, 16, {.pad_mode = "mirror"}); }, "mirror");
}

TEST(SpectralIstft, Errors) {
  const Tensor w = hann_window(16, true, kFloat64);
  const Tensor spec = stft(randn({100}, kFloat64), 16, {.window = w});
  expect_error([&] { istft(spec.real(), 16); }, "istft: expected a complex input tensor");
  expect_error([&] { istft(spec.unsqueeze(0).unsqueeze(0), 16); }, "istft: expected a 2D [freq, frames] or 3D");
  expect_error([&] { istft(spec, 20); }, "istft: expected the frequency dimension (9) to equal n_fft / 2 + 1 = 11");
  expect_error([&] { istft(spec, 16, {.onesided = false}); }, "to equal n_fft = 16 when onesided=false");
  expect_error([&] { istft(spec, 16, {.window = w, .return_complex = true}); }, "istft: cannot have onesided output");
  // A periodic Hann window without centring is zero at the first sample: NOLA fails.
  expect_error([&] { istft(spec, 16, {.window = w, .center = false}); }, "istft: window overlap add min");
}

TEST(SpectralGrad, StftAndIstft) {
  const Tensor x = randn({40}, kFloat64).requires_grad_();
  const Tensor w = hann_window(12, true, kFloat64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{stft(in[0], 12, {.hop_length = 3, .window = in[1]})};
      },
      {x, w}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{stft(in[0], 12, {.hop_length = 3, .window = in[1], .pad_mode = "constant"})};
      },
      {x, w}, {}, kTightGradcheck));
  const Tensor spec = stft(x.detach(), 12, {.hop_length = 3, .window = w.detach()}).requires_grad_();
  const Tensor w2 = (w.detach() + 0.1).requires_grad_();  // keeps the overlap-add envelope away from zero
  EXPECT_TRUE(autograd::gradcheck(
      [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{istft(in[0], 12, {.hop_length = 3, .window = in[1], .length = 38})};
      },
      {spec, w2}, kTightGradcheck));
  const Tensor z = randn({30}, kComplex128).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const std::vector<Tensor>& in) {
        const Tensor s = stft(in[0], 8, {.hop_length = 2, .onesided = false});
        return std::vector<Tensor>{istft(s, 8, {.hop_length = 2, .length = 30, .return_complex = true})};
      },
      {z}, kTightGradcheck));
}

}  // namespace spectral_test
}  // namespace ember
