// Resampling and Kaldi features on every device (device_test.h): off the CPU
// they run as core ops (torchaudio's pad + conv1d, framing as tensor ops), so
// on the test device, which runs the CPU's kernels behind core's kernel slots,
// the results must live on the device and match the CPU's polyphase loop and
// fused framing pass; any host read of device memory raises there.
#include <gtest/gtest.h>

#include <ember/audio/audio.h>
#include <ember/ember.h>

#include "device_test.h"
#include "npy.h"

namespace resample_on_device_test {

using namespace ember;
using ember::testing::OnEachDevice;
namespace AF = ember::audio::functional;
namespace kaldi = ember::audio::kaldi;

Tensor speech(DType dtype) {
  const Tensor s = ember::testing::load_npy(ember::testing::fixture_path("audio/resample/speech.npy"));
  return s.narrow(0, 1000, 3200).unsqueeze(0).to(dtype);
}

double max_relative_diff(const Tensor& on_device, const Tensor& on_cpu) {
  EXPECT_EQ(on_device.sizes().vec(), on_cpu.sizes().vec());
  if (on_device.sizes().vec() != on_cpu.sizes().vec()) return 1e300;
  const Tensor expected = on_cpu.to(kFloat64);
  const double scale = std::max(1.0, expected.abs().max().item<double>());
  return (on_device.to(kCPU).to(kFloat64) - expected).abs().max().item<double>() / scale;
}

class AudioOnDevice : public OnEachDevice {};

TEST_P(AudioOnDevice, ResampleMatchesCpu) {
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor x = speech(dtype).reshape({2, 1600});
    const double tol = dtype == kFloat64 ? 1e-12 : 1e-6;
    for (auto [orig, next] : {std::pair<int64_t, int64_t>{44100, 16000}, {16000, 48000}}) {
      const Tensor y = AF::resample(on_device(x), orig, next, 6, 0.99, "kaiser_window");
      EXPECT_EQ(y.device(), device());
      EXPECT_LE(max_relative_diff(y, AF::resample(x, orig, next, 6, 0.99, "kaiser_window")), tol);
    }
    auto [out, lengths] = AF::speed(on_device(x), 16000, 1.1, on_device(tensor<int64_t>({1600, 1000})));
    EXPECT_EQ(out.device(), device());
    EXPECT_TRUE(lengths->to(kCPU).equal(AF::speed(x, 16000, 1.1, tensor<int64_t>({1600, 1000})).second.value()));
  }
}

TEST_P(AudioOnDevice, KaldiFeaturesMatchCpu) {
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor x = speech(dtype);
    // float32: the fused pass sums in double, the tensor ops in float; the
    // log of near-DC bins (close to zero after DC removal) shows it.
    const double tol = dtype == kFloat64 ? 1e-12 : 1e-4;
    const Tensor f = kaldi::fbank(on_device(x), {.snip_edges = false, .use_energy = true, .vtln_warp = 0.9});
    EXPECT_EQ(f.device(), device());
    EXPECT_LE(max_relative_diff(f, kaldi::fbank(x, {.snip_edges = false, .use_energy = true, .vtln_warp = 0.9})),
              tol);
    const Tensor m = kaldi::mfcc(on_device(x), {.htk_compat = true, .window_type = "blackman"});
    EXPECT_LE(max_relative_diff(m, kaldi::mfcc(x, {.htk_compat = true, .window_type = "blackman"})), tol);
    const Tensor s = kaldi::spectrogram(on_device(x), {.raw_energy = false, .window_type = "hamming"});
    EXPECT_LE(max_relative_diff(s, kaldi::spectrogram(x, {.raw_energy = false, .window_type = "hamming"})), tol);
  }
}

EMBER_INSTANTIATE_ON_EACH_DEVICE(AudioOnDevice);

}  // namespace resample_on_device_test
