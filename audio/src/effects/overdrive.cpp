// overdrive (torchaudio 0.13's filtering.py): soft clipping of the boosted
// input, then SoX's DC blocker (overdrive_dc_blocker_slot, a linear map with
// autograd through Note [Effects as linear maps]).
#include <cmath>

#include <ember/audio/functional/effects.h>
#include <ember/ops/elementwise.h>
#include <ember/ops/factories.h>

#include "effects/effect_checks.h"
#include "effects/effect_kernels.h"
#include "effects/linear_effects.h"

namespace ember::audio {

EMBER_DEFINE_SLOT(overdrive_dc_blocker_slot, DcBlockerFn, "audio.overdrive_dc_blocker");

namespace {

struct DcBlocker {
  struct Plan {};
  static Tensor run(const Tensor& x, const Plan&, bool adjoint) {
    if (x.numel() == 0) return x.clone();
    const Tensor rows = x.reshape({-1, x.size(-1)}).contiguous();
    Tensor out = empty(rows.sizes(), rows.options());
    audio::effects::kernel_for(overdrive_dc_blocker_slot, rows, "overdrive")(out, rows, adjoint);
    return out.view(x.sizes());
  }
  static void save(autograd::AutogradContext*, const Plan&) {}
  static Plan load(autograd::AutogradContext*) { return {}; }
};

}  // namespace

namespace functional {

Tensor overdrive(const Tensor& waveform, double gain, double colour) {
  audio::effects::check_waveform(waveform, "overdrive");
  audio::effects::check_finite(gain, "overdrive", "gain");
  audio::effects::check_finite(colour, "overdrive", "colour");
  const double linear_gain = std::exp(gain * std::log(10.0) / 20.0);
  Tensor temp = waveform * linear_gain + colour / 200;
  // torchaudio assigns through masks: -2/3 below -1, 2/3 above 1, else
  // temp - temp^3 / 3 (torch's pow(3) is temp * temp * temp).
  const Tensor cubic = temp - temp * temp * temp * (1.0 / 3);
  temp = where(temp < -1, -2.0 / 3.0, where(temp > 1, 2.0 / 3.0, cubic));
  const Tensor blocked = audio::effects::apply_linear_effect<DcBlocker>(temp, {});
  return (waveform * 0.5 + blocked * 0.75).clamp(-1.0, 1.0);
}

}  // namespace functional
}  // namespace ember::audio
