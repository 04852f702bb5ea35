// The speech metrics and decoders on every device (device_test.h): results live
// on the input's device and equal the CPU's; the decoders read any device.
#include <gtest/gtest.h>

#include <ember/audio/audio.h>
#include <ember/ember.h>

#include "device_test.h"
#include "npy.h"

namespace speech_on_device_test {

using namespace ember;
using namespace ember::testing;
namespace M = ember::audio::metrics;
namespace D = ember::audio::decoders;

Tensor fixture(const std::string& name) {
  return ember::testing::load_npy(ember::testing::fixture_path("audio/speech_metrics/" + name + ".npy"));
}

class SpeechOnDevice : public OnEachDevice {};

void expect_same(const Tensor& on_device, const Tensor& on_cpu, Device device) {
  EXPECT_EQ(on_device.device(), device);
  EXPECT_LE((on_device.cpu().to(kFloat64) - on_cpu.to(kFloat64)).abs().max().item<double>(), 1e-12);
}

TEST_P(SpeechOnDevice, SeparationMetricsMatchTheCpu) {
  for (const DType dtype : {kFloat32, kFloat64}) {
    const Tensor est = fixture("estimate_3src").to(dtype);
    const Tensor ref = fixture("reference_3src").to(dtype);
    const Tensor mix = fixture("mix_3src").to(dtype);
    const Tensor mask = fixture("mask_3src").to(dtype);
    expect_same(M::si_snr(on_device(est), on_device(ref)), M::si_snr(est, ref), device());
    expect_same(M::si_snr(on_device(est), on_device(ref * mask), 1e-8, on_device(mask)), M::si_snr(est, ref * mask, 1e-8, mask),
                device());
    const M::PitResult got = M::pit_loss(on_device(est), on_device(ref));
    const M::PitResult want = M::pit_loss(est, ref);
    expect_same(got.loss, want.loss, device());
    expect_same(got.best_si_sdr, want.best_si_sdr, device());
    EXPECT_EQ(got.permutation.device(), device());
    EXPECT_TRUE(got.permutation.cpu().equal(want.permutation));
    expect_same(M::si_snr_improvement(on_device(est), on_device(ref), on_device(mix)), M::si_snr_improvement(est, ref, mix),
                device());
  }
}

TEST_P(SpeechOnDevice, PitGradientsMatchTheCpu) {
  const Tensor est_cpu = fixture("estimate_2src").clone().requires_grad_();
  const Tensor est_dev = on_device(fixture("estimate_2src")).requires_grad_();
  const Tensor ref = fixture("reference_2src");
  M::pit_loss(est_cpu, ref).loss.backward();
  M::pit_loss(est_dev, on_device(ref)).loss.backward();
  expect_same(est_dev.grad(), est_cpu.grad(), device());
}

TEST_P(SpeechOnDevice, DecodersReadTheDevice) {
  const Tensor lp = fixture("ctc_log_probs");
  const Tensor lengths = fixture("ctc_lengths");
  EXPECT_EQ(D::ctc_greedy_decode(on_device(lp), on_device(lengths)), D::ctc_greedy_decode(lp, lengths));
  D::CtcBeamSearchOptions options;
  options.beam_size = 5;
  options.nbest = 3;
  const auto got = D::ctc_prefix_beam_search(on_device(lp), on_device(lengths), options);
  const auto want = D::ctc_prefix_beam_search(lp, lengths, options);
  ASSERT_EQ(got.size(), want.size());
  for (size_t n = 0; n < got.size(); ++n) {
    ASSERT_EQ(got[n].size(), want[n].size());
    for (size_t k = 0; k < got[n].size(); ++k) {
      EXPECT_EQ(got[n][k].tokens, want[n][k].tokens);
      EXPECT_EQ(got[n][k].score, want[n][k].score);
    }
  }
}

EMBER_INSTANTIATE_ON_EACH_DEVICE(SpeechOnDevice);

}  // namespace speech_on_device_test
