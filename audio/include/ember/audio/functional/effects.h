#pragma once
// ember::audio::functional's SoX-style effects (torchaudio 0.13's
// functional/filtering.py: contrast, dcshift, gain, overdrive, phaser,
// flanger, dither, vad) and the convolutions and noise mixing of torchaudio
// 2.0's functional (fftconvolve, convolve, add_noise). Same names, argument
// order, defaults and float arithmetic; waveforms are float32 or float64
// [..., time] (flanger: [..., channel, time]). docs/audio.md, "Effects and
// convolution", lists each function's tolerance against its reference.
#include <optional>
#include <string>

#include <ember/core/tensor.h>

namespace ember::audio::functional {

// sin(x*pi/2 + (enhancement_amount/750) * sin(x*2*pi)), enhancement_amount in [0, 100].
Tensor contrast(const Tensor& waveform, double enhancement_amount = 75.0);
// waveform + shift clamped to [-1, 1]; with limiter_gain, the peaks past
// 1 - (|shift| - limiter_gain) are compressed by limiter_gain instead of clipped.
Tensor dcshift(const Tensor& waveform, double shift, std::optional<double> limiter_gain = std::nullopt);
// waveform * 10^(gain_db / 20) (waveform itself for gain_db == 0, as torchaudio).
Tensor gain(const Tensor& waveform, double gain_db = 1.0);
// Soft clipping (x - x^3/3 of the boosted input) through SoX's DC-blocking
// recursion, clamped to [-1, 1]; gain and colour in dB / percent.
Tensor overdrive(const Tensor& waveform, double gain = 20, double colour = 20);
// SoX's phaser: a feedback delay line whose length a sine or triangle
// modulates; output clamped to [-1, 1].
Tensor phaser(const Tensor& waveform, int64_t sample_rate, double gain_in = 0.4, double gain_out = 0.74,
              double delay_ms = 3.0, double decay = 0.4, double mod_speed = 0.5, bool sinusoidal = true);
// SoX's flanger on [..., channel, time] (1 to 4 channels, each phase-shifted
// by `phase` percent of the LFO): modulation "sinusoidal" or "triangular",
// interpolation "linear" or "quadratic"; output clamped to [-1, 1].
Tensor flanger(const Tensor& waveform, int64_t sample_rate, double delay = 0.0, double depth = 2.0,
               double regen = 0.0, double width = 71.0, double speed = 0.5, double phase = 25.0,
               const std::string& modulation = "sinusoidal", const std::string& interpolation = "linear");
// Quantizes to 16 bits (round(x * 32766 + d) / 32768) after adding dither d:
// density_function "TPDF" (a Bartlett window over time), "RPDF" (one
// waveform sample - 0.5) or "GPDF" (the sum of 7 waveform samples), the
// samples drawn from the default generator as torchaudio draws them; with
// noise_shaping the previous sample's quantization error is added.
// Note [Dither draws] (audio/src/effects/dither.cpp).
Tensor dither(const Tensor& waveform, const std::string& density_function = "TPDF", bool noise_shaping = false);
// SoX's voice activity detector: trims the waveform [..., time] (all leading
// dims are channels of one recording) before the earliest detected activity.
// Note [vad slicing] (audio/src/effects/vad.cpp).
Tensor vad(const Tensor& waveform, int64_t sample_rate, double trigger_level = 7.0, double trigger_time = 0.25,
           double search_time = 1.0, double allowed_gap = 0.25, double pre_trigger_time = 0.0,
           double boot_time = 0.35, double noise_up_time = 0.1, double noise_down_time = 0.01,
           double noise_reduction_amount = 1.35, double measure_freq = 20.0,
           std::optional<double> measure_duration = std::nullopt, double measure_smooth_time = 0.4,
           double hp_filter_freq = 50.0, double lp_filter_freq = 6000.0, double hp_lifter_freq = 150.0,
           double lp_lifter_freq = 2000.0);

// Convolution along the last dim of x [..., N] and y [..., M] (same number of
// dims, leading dims equal or 1 and broadcast); mode "full" (N + M - 1),
// "valid" (max(N, M) - min(N, M) + 1, centered) or "same" (N, centered).
// fftconvolve through rfft/irfft, convolve by the direct sum.
Tensor fftconvolve(const Tensor& x, const Tensor& y, const std::string& mode = "full");
Tensor convolve(const Tensor& x, const Tensor& y, const std::string& mode = "full");
// waveform + a * noise per signal, a = sqrt(|x|^2 / |n|^2 * 10^(-snr/10)):
// waveform and noise [..., L], snr [...] (dB), lengths [...] (the valid
// samples of each signal counted in the energies; all when nullopt).
Tensor add_noise(const Tensor& waveform, const Tensor& noise, const Tensor& snr,
                 const std::optional<Tensor>& lengths = std::nullopt);

}  // namespace ember::audio::functional
