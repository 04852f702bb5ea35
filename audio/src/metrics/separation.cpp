// si_sdr / si_snr and the SDR improvements, as torchaudio's ConvTasNet recipe
// (examples/source_separation/utils/metrics.py): Tensor ops only, so autograd
// and devices come with them.
#include <ember/audio/metrics/separation.h>

#include <string>

#include "metrics/separation_internal.h"

namespace ember::audio::metrics {
namespace detail {

void check_signal_pair(const char* op, const Tensor& estimate, const Tensor& reference) {
  EMBER_CHECK(estimate.defined() && reference.defined(), op, ": estimate and reference must be defined tensors");
  EMBER_CHECK(estimate.is_floating_point() && reference.is_floating_point(), op,
              ": expected floating-point signals, got estimate ", estimate.dtype(), " and reference ",
              reference.dtype());
  EMBER_CHECK(estimate.dtype() == reference.dtype(), op, ": estimate (", estimate.dtype(), ") and reference (",
              reference.dtype(), ") must have the same dtype");
  EMBER_CHECK(estimate.device() == reference.device(), op, ": estimate (", estimate.device(),
              ") and reference (", reference.device(), ") must be on the same device");
  EMBER_CHECK(estimate.dim() >= 1, op, ": expected signals of shape [..., time], got a 0-dim tensor");
  EMBER_CHECK(estimate.sizes() == reference.sizes(), op, ": estimate ", estimate.sizes(), " and reference ",
              reference.sizes(), " must have the same shape");
  EMBER_CHECK(estimate.size(-1) > 0, op, ": the signals have no samples (shape ", estimate.sizes(), ")");
}

Tensor prepare_mask(const char* op, const Tensor& mask, IntArrayRef signal_shape, const Tensor& like) {
  EMBER_CHECK(mask.defined(), op, ": the mask must be a defined tensor");
  EMBER_CHECK(mask.device() == like.device(), op, ": the mask (", mask.device(), ") must be on the signals' device (",
              like.device(), ")");
  EMBER_CHECK(mask.dim() >= 1 && mask.dim() <= static_cast<int64_t>(signal_shape.size()), op, ": mask ",
              mask.sizes(), " is not broadcastable to the signals' shape ", signal_shape);
  const int64_t offset = static_cast<int64_t>(signal_shape.size()) - mask.dim();
  for (int64_t d = 0; d < mask.dim(); ++d) {
    EMBER_CHECK(mask.size(d) == 1 || mask.size(d) == signal_shape[offset + d], op, ": mask ", mask.sizes(),
                " is not broadcastable to the signals' shape ", signal_shape);
  }
  EMBER_CHECK(mask.size(-1) == signal_shape.back(), op, ": mask ", mask.sizes(), " must cover all ",
              signal_shape.back(), " time samples");
  Tensor m = mask.to(like.dtype());
  // Every signal needs a valid sample, else its powers are 0/0.
  EMBER_CHECK((m.sum({-1}) > 0).all().item<bool>(), op, ": the mask leaves a signal without valid samples");
  return m;
}

Tensor si_sdr_prepared(Tensor estimate, Tensor reference, bool zero_mean, double epsilon,
                       const std::optional<Tensor>& mask) {
  std::optional<Tensor> valid_count;
  if (mask) {
    estimate = estimate * *mask;
    reference = reference * *mask;
    valid_count = mask->sum({-1}, /*keepdim=*/true);
  }
  if (zero_mean) {
    // The mean over the valid samples; padding goes back to zero.
    if (mask) {
      estimate = (estimate - estimate.sum({-1}, true) / *valid_count) * *mask;
      reference = (reference - reference.sum({-1}, true) / *valid_count) * *mask;
    } else {
      estimate = estimate - estimate.mean({-1}, true);
      reference = reference - reference.mean({-1}, true);
    }
  }
  // The recipe's projection: means over all samples, epsilon on the reference power.
  const Tensor reference_pow = reference.pow(2).mean({-1}, true);
  const Tensor mix_pow = (estimate * reference).mean({-1}, true);
  const Tensor scaled = mix_pow / (reference_pow + epsilon) * reference;
  const Tensor error = estimate - scaled;
  Tensor target_power;
  Tensor error_power;
  if (mask) {
    // Padded samples are zero in both, so the sums run over the valid ones.
    target_power = scaled.pow(2).sum({-1}, true) / *valid_count;
    error_power = error.pow(2).sum({-1}, true) / *valid_count;
  } else {
    target_power = scaled.pow(2).mean({-1}, true);
    error_power = error.pow(2).mean({-1}, true);
  }
  return (10.0 * target_power.log10() - 10.0 * error_power.log10()).squeeze(-1);
}

}  // namespace detail

Tensor si_sdr(const Tensor& estimate, const Tensor& reference, const SdrOptions& options) {
  detail::check_signal_pair("si_sdr", estimate, reference);
  EMBER_CHECK(options.epsilon >= 0, "si_sdr: epsilon must be non-negative, got ", options.epsilon);
  std::optional<Tensor> mask;
  if (options.mask) mask = detail::prepare_mask("si_sdr", *options.mask, estimate.sizes(), estimate);
  return detail::si_sdr_prepared(estimate, reference, options.zero_mean, options.epsilon, mask);
}

Tensor si_snr(const Tensor& estimate, const Tensor& reference, double epsilon, const std::optional<Tensor>& mask) {
  return si_sdr(estimate, reference, SdrOptions{.zero_mean = true, .epsilon = epsilon, .mask = mask});
}

Tensor sdr_improvement(const Tensor& estimate, const Tensor& reference, const Tensor& mix,
                       const SdrOptions& options) {
  const PitResult best = pit_loss(estimate, reference, options);
  EMBER_CHECK(mix.defined() && mix.dtype() == estimate.dtype() && mix.device() == estimate.device(),
              "sdr_improvement: mix must be a tensor of the estimate's dtype and device");
  const int64_t batch = estimate.size(0);
  const int64_t time = estimate.size(2);
  const bool mix_shape_ok = (mix.dim() == 3 && mix.size(0) == batch && mix.size(1) == 1 && mix.size(2) == time) ||
                            (mix.dim() == 2 && mix.size(0) == batch && mix.size(1) == time);
  EMBER_CHECK(mix_shape_ok, "sdr_improvement: mix must be [", batch, ", 1, ", time, "] or [", batch, ", ", time,
              "], got ", mix.sizes());
  const Tensor mix_per_source = mix.reshape({batch, 1, time}).expand(reference.sizes());
  std::optional<Tensor> mask;
  if (options.mask) mask = detail::prepare_pit_mask("sdr_improvement", *options.mask, batch, time, estimate);
  const Tensor base = detail::si_sdr_prepared(mix_per_source, reference, options.zero_mean, options.epsilon, mask);
  return best.best_si_sdr - base.mean({1});
}

Tensor si_snr_improvement(const Tensor& estimate, const Tensor& reference, const Tensor& mix, double epsilon,
                          const std::optional<Tensor>& mask) {
  return sdr_improvement(estimate, reference, mix, SdrOptions{.zero_mean = true, .epsilon = epsilon, .mask = mask});
}

}  // namespace ember::audio::metrics
