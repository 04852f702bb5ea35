// flanger (torchaudio 0.13's filtering.py): SoX's flanger, a short delay line
// with feedback whose length an LFO sweeps, per channel phase-shifted
// (flanger_slot, a linear map with autograd through Note [Effects as linear
// maps]); the output is clamped to [-1, 1].
#include <cmath>
#include <numbers>

#include <ember/audio/functional/effects.h>
#include <ember/ops/factories.h>

#include "effects/effect_checks.h"
#include "effects/effect_kernels.h"
#include "effects/linear_effects.h"
#include "effects/wave_table.h"

namespace ember::audio {

EMBER_DEFINE_SLOT(flanger_slot, FlangerFn, "audio.flanger");

namespace {

struct FlangerLine {
  using Plan = FlangerPlan;
  static Tensor run(const Tensor& x, const Plan& plan, bool adjoint) {
    if (x.numel() == 0) return x.clone();
    const Tensor items = x.reshape({-1, x.size(-2), x.size(-1)}).contiguous();
    Tensor out = empty(items.sizes(), items.options());
    audio::effects::kernel_for(flanger_slot, items, "flanger")(out, items, plan, adjoint);
    return out.view(x.sizes());
  }
  static void save(autograd::AutogradContext* ctx, const Plan& plan) {
    ctx->saved_data["lfo"] = std::vector<double>(plan.lfo.begin(), plan.lfo.end());
    ctx->saved_data["channel_shift"] = plan.channel_shift;
    ctx->saved_data["buffer_length"] = plan.buffer_length;
    ctx->saved_data["feedback_gain"] = plan.feedback_gain;
    ctx->saved_data["in_gain"] = plan.in_gain;
    ctx->saved_data["delay_gain"] = plan.delay_gain;
    ctx->saved_data["quadratic"] = plan.quadratic;
  }
  static Plan load(autograd::AutogradContext* ctx) {
    Plan plan;
    const IValue& lfo = ctx->saved_data["lfo"];
    for (const IValue& v : lfo.to_list()) plan.lfo.push_back(static_cast<float>(v.toDouble()));
    plan.channel_shift = ctx->saved_data["channel_shift"].toIntVector();
    plan.buffer_length = ctx->saved_data["buffer_length"].toInt();
    plan.feedback_gain = ctx->saved_data["feedback_gain"].toDouble();
    plan.in_gain = ctx->saved_data["in_gain"].toDouble();
    plan.delay_gain = ctx->saved_data["delay_gain"].toDouble();
    plan.quadratic = ctx->saved_data["quadratic"].toBool();
    return plan;
  }
};

}  // namespace

namespace functional {

Tensor flanger(const Tensor& waveform, int64_t sample_rate, double delay, double depth, double regen, double width,
               double speed, double phase, const std::string& modulation, const std::string& interpolation) {
  const char* op = "flanger";
  EMBER_CHECK(modulation == "sinusoidal" || modulation == "triangular", op,
              ": modulation must be \"sinusoidal\" or \"triangular\", got \"", modulation, "\"");
  EMBER_CHECK(interpolation == "linear" || interpolation == "quadratic", op,
              ": interpolation must be \"linear\" or \"quadratic\", got \"", interpolation, "\"");
  audio::effects::check_waveform(waveform, op, 2);
  const int64_t n_channels = waveform.size(-2);
  EMBER_CHECK(n_channels >= 1 && n_channels <= 4, op, ": expected 1 to 4 channels (dim -2), got ", n_channels);
  EMBER_CHECK(sample_rate > 0, op, ": sample_rate must be positive, got ", sample_rate);
  EMBER_CHECK(std::isfinite(delay) && delay >= 0, op, ": delay must be non-negative, got ", delay);
  EMBER_CHECK(std::isfinite(depth) && depth >= 0, op, ": depth must be non-negative, got ", depth);
  audio::effects::check_finite(regen, op, "regen");
  audio::effects::check_finite(phase, op, "phase");
  EMBER_CHECK(std::isfinite(width) && width != -100, op, ": width must be finite and not -100, got ", width);
  audio::effects::check_positive(speed, op, "speed");
  const double sr = static_cast<double>(sample_rate);
  EMBER_CHECK(sr / speed >= 1 && sr / speed < 1e9, op, ": speed = ", speed, " gives an LFO of ", sr / speed,
              " samples at ", sample_rate, " Hz");
  EMBER_CHECK((delay + depth) / 1000 * sr < 1e9, op, ": delay + depth = ", delay + depth,
              " ms is too long a delay line at ", sample_rate, " Hz");

  // torchaudio's scaling, in its order.
  const double feedback_gain = regen / 100;
  double delay_gain = width / 100;
  const double channel_phase = phase / 100;
  const double delay_min = delay / 1000;
  const double delay_depth = depth / 1000;
  const double in_gain = 1.0 / (1 + delay_gain);
  delay_gain = delay_gain / (1 + delay_gain);
  delay_gain = delay_gain * (1 - std::abs(feedback_gain));

  FlangerPlan plan;
  plan.buffer_length = static_cast<int64_t>((delay_min + delay_depth) * sr + 0.5) + 2;
  const auto lfo_length = static_cast<int64_t>(sr / speed);
  const double table_min = std::floor(delay_min * sr + 0.5);
  const double table_max = static_cast<double>(plan.buffer_length) - 2.0;
  plan.lfo = audio::effects::wave_table_float(
      modulation == "sinusoidal" ? audio::effects::WaveType::Sine : audio::effects::WaveType::Triangle, lfo_length,
      table_min, table_max, 3 * std::numbers::pi / 2);
  // (channel_idxs * lfo_length * channel_phase + 0.5).to(int64): an int64
  // tensor times a Python float is float32 in torch.
  for (int64_t c = 0; c < n_channels; ++c) {
    const float shift = static_cast<float>(c * lfo_length) * static_cast<float>(channel_phase) + 0.5f;
    plan.channel_shift.push_back(static_cast<int64_t>(shift));
  }
  plan.feedback_gain = feedback_gain;
  plan.in_gain = in_gain;
  plan.delay_gain = delay_gain;
  plan.quadratic = interpolation == "quadratic";

  return audio::effects::apply_linear_effect<FlangerLine>(waveform, plan).clamp(-1.0, 1.0);
}

}  // namespace functional
}  // namespace ember::audio
