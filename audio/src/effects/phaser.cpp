// phaser (torchaudio 0.13's filtering.py): the input scaled by gain_in runs
// through a feedback delay line whose read position a sine or triangle table
// modulates (phaser_delay_slot, a linear map with autograd through Note
// [Effects as linear maps]), then scaled by gain_out and clamped.
#include <cmath>
#include <numbers>

#include <ember/audio/functional/effects.h>
#include <ember/ops/factories.h>

#include "effects/effect_checks.h"
#include "effects/effect_kernels.h"
#include "effects/linear_effects.h"
#include "effects/wave_table.h"

namespace ember::audio {

EMBER_DEFINE_SLOT(phaser_delay_slot, DelayFeedbackFn, "audio.phaser_delay");

namespace {

struct PhaserDelay {
  struct Plan {
    std::vector<int64_t> delays;
    double decay = 0;
  };
  static Tensor run(const Tensor& x, const Plan& plan, bool adjoint) {
    if (x.numel() == 0) return x.clone();
    const Tensor rows = x.reshape({-1, x.size(-1)}).contiguous();
    Tensor out = empty(rows.sizes(), rows.options());
    audio::effects::kernel_for(phaser_delay_slot, rows, "phaser")(out, rows, plan.delays, plan.decay, adjoint);
    return out.view(x.sizes());
  }
  static void save(autograd::AutogradContext* ctx, const Plan& plan) {
    ctx->saved_data["delays"] = plan.delays;
    ctx->saved_data["decay"] = plan.decay;
  }
  static Plan load(autograd::AutogradContext* ctx) {
    return {ctx->saved_data["delays"].toIntVector(), ctx->saved_data["decay"].toDouble()};
  }
};

}  // namespace

namespace functional {

// torchaudio keeps a circular buffer of delay_buf_len values and, at sample i,
// reads slot (i + mod[i % mod_buf_len]) % delay_buf_len, then writes
// temp * decay into slot (i + 1) % delay_buf_len. That slot was last written
// at sample i - (delay_buf_len + 1 - mod[...]) (mod is in [1, delay_buf_len]),
// so the loop is y[i] = x[i] + y[i - delay] * decay with that delay.
Tensor phaser(const Tensor& waveform, int64_t sample_rate, double gain_in, double gain_out, double delay_ms,
              double decay, double mod_speed, bool sinusoidal) {
  const char* op = "phaser";
  audio::effects::check_waveform(waveform, op);
  EMBER_CHECK(sample_rate > 0, op, ": sample_rate must be positive, got ", sample_rate);
  audio::effects::check_finite(gain_in, op, "gain_in");
  audio::effects::check_finite(gain_out, op, "gain_out");
  audio::effects::check_finite(decay, op, "decay");
  audio::effects::check_positive(delay_ms, op, "delay_ms");
  audio::effects::check_positive(mod_speed, op, "mod_speed");
  const double delay_len = delay_ms * 0.001 * static_cast<double>(sample_rate) + 0.5;
  EMBER_CHECK(delay_len < 1e9, op, ": delay_ms = ", delay_ms, " is too long a delay line at ", sample_rate, " Hz");
  const auto delay_buf_len = static_cast<int64_t>(delay_len);
  EMBER_CHECK(delay_buf_len >= 1, op, ": delay_ms = ", delay_ms, " is shorter than half a sample at ", sample_rate,
              " Hz");
  const double mod_len = static_cast<double>(sample_rate) / mod_speed + 0.5;
  EMBER_CHECK(mod_len >= 1 && mod_len < 1e9, op, ": mod_speed = ", mod_speed, " gives a modulation table of ",
              mod_len, " samples at ", sample_rate, " Hz");
  const auto mod_buf_len = static_cast<int64_t>(mod_len);

  const std::vector<int64_t> mod = audio::effects::wave_table_int(
      sinusoidal ? audio::effects::WaveType::Sine : audio::effects::WaveType::Triangle, mod_buf_len, 1.0,
      static_cast<double>(delay_buf_len), std::numbers::pi / 2);
  std::vector<int64_t> delays(mod.size());
  for (size_t i = 0; i < mod.size(); ++i) delays[i] = delay_buf_len + 1 - mod[i];

  const Tensor looped = audio::effects::apply_linear_effect<PhaserDelay>(waveform * gain_in, {delays, decay});
  return (looped * gain_out).clamp(-1.0, 1.0);
}

}  // namespace functional
}  // namespace ember::audio
