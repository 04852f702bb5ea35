// The spectral functionals on every device (device_test.h): they are core ops,
// so on the test device, which runs the CPU's kernels behind core's kernel
// slots, the results must live on the device and match the CPU's; any host
// read of device memory raises there.
#include <gtest/gtest.h>

#include <numbers>

#include <ember/audio/functional.h>
#include <ember/ember.h>

#include "device_test.h"
#include "spectral/masking.h"
#include "spectral_testing.h"

namespace spectral_on_device_test {

using namespace ember;
using ember::testing::OnEachDevice;
namespace AF = ember::audio::functional;

class AudioSpectralOnDevice : public OnEachDevice {
 protected:
  // result on the device, equal to the CPU's within tol.
  void expect_matches(const Tensor& on_device_result, const Tensor& cpu_result, double tol) {
    EXPECT_EQ(on_device_result.device(), device());
    spectral_testing::expect_close(on_device_result.to(kCPU), cpu_result, tol);
  }
};

TEST_P(AudioSpectralOnDevice, SpectrogramFamilyMatchesCpu) {
  const Tensor wave = spectral_testing::fixture("wave");  // [2, 2, 200] float64
  const Tensor w = spectral_testing::fixture("window24");
  const Tensor dw = on_device(w);
  const Tensor power = AF::spectrogram(wave, 3, w, 32, 8, 24, 2.0, true);
  expect_matches(AF::spectrogram(on_device(wave), 3, dw, 32, 8, 24, 2.0, true), power, 1e-12);
  const Tensor spec = AF::spectrogram(wave, 0, w, 32, 8, 24, std::nullopt, "frame_length");
  expect_matches(AF::spectrogram(on_device(wave), 0, dw, 32, 8, 24, std::nullopt, "frame_length"), spec, 1e-12);
  expect_matches(AF::inverse_spectrogram(on_device(spec), 200, 0, dw, 32, 8, 24, "frame_length"),
                 AF::inverse_spectrogram(spec, 200, 0, w, 32, 8, 24, "frame_length"), 1e-12);
  const Tensor mag = AF::spectrogram(wave, 0, w, 32, 8, 24, 2.0, false);
  expect_matches(AF::griffinlim(on_device(mag), dw, 32, 8, 24, 2.0, 3, 0.9, 200, false),
                 AF::griffinlim(mag, w, 32, 8, 24, 2.0, 3, 0.9, 200, false), 1e-10);
  const Tensor advance = linspace(0, std::numbers::pi * 8, 17, kFloat64).unsqueeze(-1);
  expect_matches(AF::phase_vocoder(on_device(spec), 1.3, on_device(advance)), AF::phase_vocoder(spec, 1.3, advance),
                 1e-12);
  expect_matches(AF::spectral_centroid(on_device(wave), 16000, 0, dw, 32, 8, 24),
                 AF::spectral_centroid(wave, 16000, 0, w, 32, 8, 24), 1e-9);
  // rand_init draws on the device; the result stays there.
  manual_seed(1);
  EXPECT_EQ(AF::griffinlim(on_device(mag), dw, 32, 8, 24, 2.0, 1, 0.0, 200, true).device(), device());
}

TEST_P(AudioSpectralOnDevice, FeaturesMatchCpu) {
  const Tensor tones = spectral_testing::fixture("tones_16k").to(kFloat64);
  expect_matches(AF::detect_pitch_frequency(on_device(tones), 16000, 0.01, 5, 100, 1000),
                 AF::detect_pitch_frequency(tones, 16000, 0.01, 5, 100, 1000), 0.0);
  const Tensor spec = spectral_testing::fixture("deltas_spec");
  expect_matches(AF::compute_deltas(on_device(spec), 7, "reflect"), AF::compute_deltas(spec, 7, "reflect"), 1e-12);
  const Tensor feats = spectral_testing::fixture("cmn_feats");
  expect_matches(AF::sliding_window_cmn(on_device(feats), 9, 3, true, true),
                 AF::sliding_window_cmn(feats, 9, 3, true, true), 1e-12);
  const Tensor specs = spectral_testing::fixture("mask_specs");
  const Tensor draws = spectral_testing::fixture("mask_iid__time__value");
  const Tensor starts = spectral_testing::fixture("mask_iid__time__start");
  expect_matches(AF::detail::mask_along_axis_iid_drawn(on_device(specs), 6, -1.5, 3, on_device(draws),
                                                       on_device(starts)),
                 AF::detail::mask_along_axis_iid_drawn(specs, 6, -1.5, 3, draws, starts), 0.0);
  manual_seed(3);
  EXPECT_EQ(AF::mask_along_axis_iid(on_device(specs), 6, 0.0, 2).device(), device());
  EXPECT_EQ(AF::mask_along_axis(on_device(specs), 6, 0.0, 2).device(), device());
}

EMBER_INSTANTIATE_ON_EACH_DEVICE(AudioSpectralOnDevice);

}  // namespace spectral_on_device_test
