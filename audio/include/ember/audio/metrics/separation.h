#pragma once
// ember::audio::metrics: source-separation metrics and the permutation-invariant
// training loss, as torchaudio's ConvTasNet recipe
// (examples/source_separation/utils/metrics.py and conv_tasnet/train.py).
// Built from core tensor ops: differentiable, on any device, float32 or float64.
#include <cstdint>
#include <optional>

#include <ember/ember.h>

namespace ember::audio::metrics {

struct SdrOptions {
  // Subtract each signal's mean over time first (over the unmasked samples
  // when a mask is given). SI-SDR with zero_mean is SI-SNR.
  bool zero_mean = false;
  // Stabilises the projection's denominator, as the recipe's epsilon.
  double epsilon = 1e-8;
  // 1 for valid samples, 0 for padding; broadcastable to the signals' shape
  // (the recipe's [batch, 1, time]). Padded samples are zeroed in both signals
  // and left out of the powers; with zero-padded references this is the
  // recipe's masked sdr.
  std::optional<Tensor> mask;
};

// Scale-invariant SDR in dB over the last dim: with alpha = <s, r> / (<r, r> + eps)
// (means over time, as the recipe), 10 log10(|alpha r|^2 / |s - alpha r|^2).
// estimate and reference have the same shape [..., time]; the result is [...].
Tensor si_sdr(const Tensor& estimate, const Tensor& reference, const SdrOptions& options = {});

// SI-SNR: si_sdr of the zero-mean signals.
Tensor si_snr(const Tensor& estimate, const Tensor& reference, double epsilon = 1e-8,
              const std::optional<Tensor>& mask = std::nullopt);

struct PitResult {
  // -mean over the batch of best_si_sdr: the recipe's training loss (scalar).
  Tensor loss;
  // [batch]: per item, the mean over sources of si_sdr under its best permutation.
  Tensor best_si_sdr;
  // [batch, sources] int64 (on the inputs' device): estimate[b, permutation[b]] lines up with
  // reference[b] (torchmetrics' pit_permutate convention). Ties go to the
  // first permutation in lexicographic order.
  Tensor permutation;
};

// Utterance-level permutation-invariant training (Kolbaek et al.) over
// estimate and reference [batch, sources, time]: the best assignment of
// estimated to reference sources per batch item, by mean si_sdr. The options
// default to the recipe's training loss (zero-mean: SI-SNR); a mask is
// [batch, 1, time] or [batch, time]. At most 8 sources (8! permutations).
PitResult pit_loss(const Tensor& estimate, const Tensor& reference,
                   const SdrOptions& options = SdrOptions{.zero_mean = true, .epsilon = 1e-8, .mask = std::nullopt});

// The recipe's sdri: the permutation-invariant si_sdr of the estimate minus
// the mean over sources of si_sdr(mix, reference[:, s]), per batch item [batch].
// mix is [batch, 1, time] or [batch, time].
Tensor sdr_improvement(const Tensor& estimate, const Tensor& reference, const Tensor& mix,
                       const SdrOptions& options = {});

// SI-SNRi, as the recipe reports it: sdr_improvement of zero-mean signals.
Tensor si_snr_improvement(const Tensor& estimate, const Tensor& reference, const Tensor& mix,
                          double epsilon = 1e-8, const std::optional<Tensor>& mask = std::nullopt);

}  // namespace ember::audio::metrics
