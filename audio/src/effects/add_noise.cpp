// add_noise (torchaudio 2.0's functional.py): the noise scaled to the wanted
// signal-to-noise ratio and added; core ops (differentiable, device-generic).
#include <ember/audio/functional/effects.h>
#include <ember/ops/elementwise.h>
#include <ember/ops/factories.h>

#include "effects/effect_checks.h"

namespace ember::audio::functional {

Tensor add_noise(const Tensor& waveform, const Tensor& noise, const Tensor& snr, const std::optional<Tensor>& lengths) {
  const char* op = "add_noise";
  audio::effects::check_waveform(waveform, op);
  audio::effects::check_waveform(noise, op);
  EMBER_CHECK(snr.defined() && snr.is_floating_point(), op, ": snr must be a floating-point tensor");
  const bool has_lengths = lengths && lengths->defined();
  EMBER_CHECK(waveform.dim() == noise.dim() && snr.dim() == waveform.dim() - 1 &&
                  (!has_lengths || lengths->dim() == snr.dim()),
              op, ": leading dims of the inputs don't match: waveform ", waveform.sizes(), ", noise ", noise.sizes(),
              ", snr ", snr.sizes(), has_lengths ? ", lengths " : "", has_lengths ? lengths->sizes() : IntArrayRef{});
  const int64_t length = waveform.size(-1);
  EMBER_CHECK(noise.size(-1) == length, op, ": waveform and noise must have the same length, got ", length, " and ",
              noise.size(-1));
  Tensor masked_waveform = waveform, masked_noise = noise;
  if (has_lengths) {
    EMBER_CHECK(!lengths->is_complex() && lengths->dtype() != kBool, op,
                ": lengths must be a real number tensor, got ", lengths->dtype());
    const Tensor mask =
        arange(length, TensorOptions(kInt64).device(lengths->device())).expand(waveform.sizes()) < lengths->unsqueeze(-1);
    masked_waveform = waveform * mask;
    masked_noise = noise * mask;
  }
  const Tensor energy_signal = (masked_waveform * masked_waveform).sum({-1});
  const Tensor energy_noise = (masked_noise * masked_noise).sum({-1});
  const Tensor original_snr_db = 10 * (energy_signal.log10() - energy_noise.log10());
  const Tensor scale = pow(10.0, (original_snr_db - snr) / 20.0);
  return waveform + scale.unsqueeze(-1) * noise;
}

}  // namespace ember::audio::functional
