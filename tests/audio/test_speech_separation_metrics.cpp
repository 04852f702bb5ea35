// ember::audio::metrics' si_sdr / si_snr, pit_loss and SDR improvements against
// the ConvTasNet recipe's formulas in float64 (scripts/fixtures/audio_speech_metrics.py).
#include <gtest/gtest.h>

#include <ember/audio/audio.h>
#include <ember/autograd/gradcheck.h>
#include <ember/ember.h>

#include <cmath>
#include <random>

#include "npy.h"

namespace speech_separation_test {

using namespace ember;
namespace M = ember::audio::metrics;

Tensor fixture(const std::string& name) {
  return ember::testing::load_npy(ember::testing::fixture_path("audio/speech_metrics/" + name + ".npy"));
}

double max_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.sizes().vec(), b.sizes().vec());
  return (a.to(kFloat64) - b.to(kFloat64)).abs().max().item<double>();
}

class SpeechSeparation : public ::testing::TestWithParam<int> {
 protected:
  std::string tag() const { return std::to_string(GetParam()) + "src"; }
};

TEST_P(SpeechSeparation, SiSdrAndSiSnrMatchTheRecipe) {
  const Tensor est = fixture("estimate_" + tag());
  const Tensor ref = fixture("reference_" + tag());
  EXPECT_LE(max_diff(M::si_sdr(est, ref), fixture("si_sdr_" + tag())), 1e-10);
  EXPECT_LE(max_diff(M::si_snr(est, ref), fixture("si_snr_" + tag())), 1e-10);
  EXPECT_LE(max_diff(M::si_sdr(est, ref, {.zero_mean = true, .epsilon = 1e-8, .mask = std::nullopt}),
                     fixture("si_snr_" + tag())),
            1e-10);
  // float32 inputs: the same values to float32 precision.
  EXPECT_LE(max_diff(M::si_snr(est.to(kFloat32), ref.to(kFloat32)), fixture("si_snr_" + tag())), 1e-3);
  EXPECT_EQ(M::si_snr(est.to(kFloat32), ref.to(kFloat32)).dtype(), kFloat32);
}

TEST_P(SpeechSeparation, MaskedSiSdrMatchesTheRecipe) {
  const Tensor est = fixture("estimate_" + tag());
  const Tensor mask = fixture("mask_" + tag());
  const Tensor ref = fixture("reference_" + tag()) * mask;  // zero-padded, as the recipe's collate
  EXPECT_LE(max_diff(M::si_sdr(est, ref, {.zero_mean = false, .epsilon = 1e-8, .mask = mask}),
                     fixture("si_sdr_masked_" + tag())),
            1e-10);
  EXPECT_LE(max_diff(M::si_snr(est, ref, 1e-8, mask), fixture("si_snr_masked_" + tag())), 1e-10);
  // Whatever lies in the padding is ignored.
  const Tensor noisy_padding = est + (1.0 - mask) * 100.0;
  EXPECT_LE(max_diff(M::si_snr(noisy_padding, ref + (1.0 - mask) * 7.0, 1e-8, mask),
                     fixture("si_snr_masked_" + tag())),
            1e-10);
}

TEST_P(SpeechSeparation, PitLossMatchesTheRecipe) {
  const Tensor est = fixture("estimate_" + tag());
  const Tensor ref = fixture("reference_" + tag());
  const M::PitResult pit = M::pit_loss(est, ref);
  EXPECT_LE(max_diff(pit.best_si_sdr, fixture("pit_best_" + tag())), 1e-10);
  EXPECT_TRUE(pit.permutation.equal(fixture("pit_perm_" + tag())));
  EXPECT_NEAR(pit.loss.item<double>(), -fixture("pit_best_" + tag()).mean().item<double>(), 1e-10);
  // The permutation reorders the estimates onto the references: their plain
  // si_snr, averaged over sources, is the best utility.
  for (int64_t b = 0; b < est.size(0); ++b) {
    const Tensor aligned = est[b].index_select(0, pit.permutation[b]);
    EXPECT_NEAR(M::si_snr(aligned, ref[b]).mean().item<double>(), pit.best_si_sdr[b].item<double>(), 1e-10);
  }
  // Masked (padded) batches.
  const Tensor mask = fixture("mask_" + tag());
  const M::PitResult masked =
      M::pit_loss(est, ref * mask, {.zero_mean = true, .epsilon = 1e-8, .mask = mask.squeeze(1)});
  EXPECT_LE(max_diff(masked.best_si_sdr, fixture("pit_best_masked_" + tag())), 1e-10);
  EXPECT_TRUE(masked.permutation.equal(fixture("pit_perm_masked_" + tag())));
}

TEST_P(SpeechSeparation, ImprovementsMatchTheRecipe) {
  const Tensor est = fixture("estimate_" + tag());
  const Tensor ref = fixture("reference_" + tag());
  const Tensor mix = fixture("mix_" + tag());
  EXPECT_LE(max_diff(M::sdr_improvement(est, ref, mix), fixture("sdri_" + tag())), 1e-10);
  EXPECT_LE(max_diff(M::si_snr_improvement(est, ref, mix), fixture("si_snri_" + tag())), 1e-10);
  EXPECT_LE(max_diff(M::si_snr_improvement(est, ref, mix.squeeze(1)), fixture("si_snri_" + tag())), 1e-10);
}

INSTANTIATE_TEST_SUITE_P(Sources, SpeechSeparation, ::testing::Values(2, 3));

// Float64 loops: SI-SNR by its definition, one signal at a time.
TEST(SpeechSeparationMetrics, SiSnrMatchesFloat64Loops) {
  std::mt19937 rng(7);
  std::normal_distribution<double> normal;
  const int64_t rows = 5;
  const int64_t time = 333;
  std::vector<double> s(rows * time);
  std::vector<double> r(rows * time);
  for (int64_t i = 0; i < rows * time; ++i) {
    r[i] = normal(rng) + 0.5;
    s[i] = 0.8 * r[i] + 0.4 * normal(rng) - 0.2;
  }
  const Tensor est = ember::tensor(s, TensorOptions().dtype(kFloat64)).reshape({rows, time});
  const Tensor ref = ember::tensor(r, TensorOptions().dtype(kFloat64)).reshape({rows, time});
  const Tensor got = M::si_snr(est, ref, /*epsilon=*/0.0);
  for (int64_t row = 0; row < rows; ++row) {
    double ms = 0, mr = 0;
    for (int64_t t = 0; t < time; ++t) ms += s[row * time + t], mr += r[row * time + t];
    ms /= time, mr /= time;
    double dot = 0, rr = 0;
    for (int64_t t = 0; t < time; ++t) {
      dot += (s[row * time + t] - ms) * (r[row * time + t] - mr);
      rr += (r[row * time + t] - mr) * (r[row * time + t] - mr);
    }
    const double alpha = dot / rr;
    double target = 0, noise = 0;
    for (int64_t t = 0; t < time; ++t) {
      const double proj = alpha * (r[row * time + t] - mr);
      const double err = (s[row * time + t] - ms) - proj;
      target += proj * proj, noise += err * err;
    }
    EXPECT_NEAR(got[row].item<double>(), 10.0 * std::log10(target / noise), 1e-9);
  }
}

TEST(SpeechSeparationMetrics, ScaleInvariance) {
  const Tensor est = fixture("estimate_2src");
  const Tensor ref = fixture("reference_2src");
  // Rescaling the estimate leaves SI-SDR unchanged (up to epsilon's share).
  EXPECT_LE(max_diff(M::si_sdr(est * 5.0, ref), M::si_sdr(est, ref)), 1e-9);
  EXPECT_LE(max_diff(M::si_snr(est * 0.1 + 3.0, ref), M::si_snr(est, ref)), 1e-9);
}

TEST(SpeechSeparationMetrics, PitRecoversAShuffle) {
  // Estimates are the references in a known order with small noise: PIT finds it.
  const Tensor ref = fixture("reference_3src");
  const Tensor order = ember::tensor<int64_t>({2, 0, 1});
  const Tensor est = ref.index_select(1, order) + 0.01 * fixture("estimate_3src");
  const M::PitResult pit = M::pit_loss(est, ref);
  for (int64_t b = 0; b < ref.size(0); ++b) {
    // est[:, perm] == ref: perm is the inverse of `order`.
    EXPECT_EQ(pit.permutation[b][0].item<int64_t>(), 1);
    EXPECT_EQ(pit.permutation[b][1].item<int64_t>(), 2);
    EXPECT_EQ(pit.permutation[b][2].item<int64_t>(), 0);
  }
  EXPECT_GT(pit.best_si_sdr.min().item<double>(), 20.0);
}

TEST(SpeechSeparationMetrics, Gradcheck) {
  const Tensor est = fixture("estimate_2src").narrow(2, 0, 24).contiguous().requires_grad_();
  const Tensor ref = fixture("reference_2src").narrow(2, 0, 24).contiguous().requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) { return autograd::variable_list{M::si_snr(in[0], in[1])}; },
      {est, ref}));
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) { return autograd::variable_list{M::si_sdr(in[0], in[1])}; },
      {est, ref}));
  const Tensor mask = fixture("mask_2src").narrow(2, 0, 24).contiguous();
  const Tensor ref_padded = (fixture("reference_2src").narrow(2, 0, 24) * mask).contiguous().requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [&](const autograd::variable_list& in) {
        return autograd::variable_list{M::si_snr(in[0], in[1], 1e-8, mask)};
      },
      {est, ref_padded}));
  // PIT: through the max over permutations (the best one is well separated).
  for (const int sources : {2, 3}) {
    const std::string tag = std::to_string(sources) + "src";
    const Tensor e = fixture("estimate_" + tag).narrow(2, 0, 20).contiguous().requires_grad_();
    const Tensor r = fixture("reference_" + tag).narrow(2, 0, 20).contiguous().requires_grad_();
    EXPECT_TRUE(autograd::gradcheck(
        [](const autograd::variable_list& in) { return autograd::variable_list{M::pit_loss(in[0], in[1]).loss}; },
        {e, r}))
        << sources << " sources";
  }
}

TEST(SpeechSeparationMetrics, PitLossTrainsAnEstimate) {
  // A few gradient steps on the estimates raise the PIT SI-SNR: the loss drives learning.
  const Tensor ref = fixture("reference_2src");
  Tensor est = fixture("estimate_2src").clone().requires_grad_();
  const double before = M::pit_loss(est, ref).loss.item<double>();
  for (int step = 0; step < 20; ++step) {
    const Tensor loss = M::pit_loss(est, ref).loss;
    loss.backward();
    {
      NoGradGuard guard;
      est.sub_(est.grad() * 2.0);
      est.mutable_grad().zero_();
    }
  }
  EXPECT_LT(M::pit_loss(est, ref).loss.item<double>(), before - 1.0);
}

TEST(SpeechSeparationMetrics, BadInputIsAnError) {
  const Tensor a = fixture("estimate_2src");
  const Tensor b = fixture("reference_2src");
  EXPECT_THROW(M::si_sdr(a, b.narrow(2, 0, 10)), Error);                         // shape mismatch
  EXPECT_THROW(M::si_sdr(a, b.to(kFloat32)), Error);                             // dtype mismatch
  EXPECT_THROW(M::si_sdr(a.to(kInt64), b.to(kInt64)), Error);                    // not floating
  EXPECT_THROW(M::si_sdr(a.narrow(2, 0, 0), b.narrow(2, 0, 0)), Error);          // no samples
  EXPECT_THROW(M::si_snr(a, b, 1e-8, ember::ones({4, 1, 7}, kFloat64)), Error);  // mask length
  EXPECT_THROW(M::si_snr(a, b, 1e-8, ember::zeros({4, 1, 240}, kFloat64)), Error);  // nothing valid
  EXPECT_THROW(M::pit_loss(a[0], b[0]), Error);                                  // not [B, S, T]
  EXPECT_THROW(M::pit_loss(a.narrow(0, 0, 0), b.narrow(0, 0, 0)), Error);        // empty batch
  EXPECT_THROW(M::pit_loss(ember::zeros({1, 9, 8}, kFloat64), ember::zeros({1, 9, 8}, kFloat64)), Error);
  EXPECT_THROW(M::pit_loss(a, b, {.zero_mean = true, .epsilon = 1e-8, .mask = ember::ones({4, 2, 240}, kFloat64)}),
               Error);  // a PIT mask is per item
  EXPECT_THROW(M::sdr_improvement(a, b, ember::zeros({4, 2, 240}, kFloat64)), Error);  // mix shape
  try {
    M::pit_loss(a, b.narrow(2, 0, 10));
    FAIL() << "expected an ember::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pit_loss"), std::string::npos) << e.what();
  }
}

}  // namespace speech_separation_test
