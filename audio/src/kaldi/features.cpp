// kaldi::spectrogram, fbank and mfcc, as torchaudio 0.13's compliance/kaldi.py.
#include <cmath>
#include <numbers>

#include <ember/audio/functional.h>
#include <ember/audio/kaldi.h>

#include "framing.h"
#include "mel_banks.h"

namespace ember::audio::kaldi {
namespace {

template <class Options>
detail::FrameSettings frame_settings(const Options& o) {
  return {.blackman_coeff = o.blackman_coeff,
          .channel = o.channel,
          .dither = o.dither,
          .energy_floor = o.energy_floor,
          .frame_length = o.frame_length,
          .frame_shift = o.frame_shift,
          .min_duration = o.min_duration,
          .preemphasis_coefficient = o.preemphasis_coefficient,
          .raw_energy = o.raw_energy,
          .remove_dc_offset = o.remove_dc_offset,
          .round_to_power_of_two = o.round_to_power_of_two,
          .sample_frequency = o.sample_frequency,
          .snip_edges = o.snip_edges,
          .window_type = o.window_type};
}

// |rfft(frames)|^2 as Kaldi's ComputePowerSpectrum: re^2 + im^2 (torchaudio's
// abs().pow(2) rounds its hypot once more; the two agree to a few ulps).
Tensor power_spectrum(const Tensor& frames) {
  const Tensor parts = view_as_real(fft::rfft(frames));
  const Tensor re = parts.select(-1, 0), im = parts.select(-1, 1);
  return re * re + im * im;
}

Tensor empty_feature(const Tensor& waveform) {
  return empty({0}, TensorOptions(waveform.dtype()).device(waveform.device()));
}

// fbank's body; mfcc calls it with its own name for errors.
Tensor fbank_impl(const char* fn, const Tensor& waveform, const FbankOptions& o) {
  const detail::Frames f = detail::make_frames(fn, waveform, frame_settings(o));
  if (f.too_short) return empty_feature(waveform);
  Tensor spectrum = power_spectrum(f.strided);  // [m, padded / 2 + 1]
  if (!o.use_power) spectrum = spectrum.sqrt();
  // [num_mel_bins, padded / 2], float32 as torchaudio builds it; a zero column for Nyquist.
  Tensor banks = detail::mel_banks(fn, o.num_mel_bins, f.padded_window_size, o.sample_frequency, o.low_freq,
                                   o.high_freq, o.vtln_low, o.vtln_high, o.vtln_warp)
                     .first.to(spectrum.options());
  banks = pad(banks, {0, 1});
  Tensor mel_energies = spectrum.mm(banks.t());
  if (o.use_log_fbank) mel_energies = mel_energies.maximum(detail::epsilon_like(mel_energies)).log();
  if (o.use_energy) {
    const Tensor energy = f.signal_log_energy.unsqueeze(1);
    mel_energies = o.htk_compat ? cat({mel_energies, energy}, 1) : cat({energy, mel_energies}, 1);
  }
  return detail::subtract_column_mean(mel_energies, o.subtract_mean);
}

// Kaldi's DCT [num_mel_bins, num_ceps]: the orthonormal DCT-II with the first
// column sqrt(1 / num_mel_bins), float32 as torchaudio.
Tensor kaldi_dct_matrix(int64_t num_ceps, int64_t num_mel_bins) {
  Tensor dct = functional::create_dct(num_mel_bins, num_mel_bins, "ortho");
  dct.select(1, 0).fill_(std::sqrt(1.0 / static_cast<double>(num_mel_bins)));
  return dct.narrow(1, 0, num_ceps);
}

// 1 + (cepstral_lifter / 2) sin(pi i / cepstral_lifter), float32 as torchaudio.
Tensor lifter_coeffs(int64_t num_ceps, double cepstral_lifter) {
  const Tensor i = arange(num_ceps, kInt64);
  return ((i * std::numbers::pi) / cepstral_lifter).sin() * (0.5 * cepstral_lifter) + 1.0;
}

}  // namespace

Tensor spectrogram(const Tensor& waveform, const SpectrogramOptions& options) {
  const detail::Frames f = detail::make_frames("spectrogram", waveform, frame_settings(options));
  if (f.too_short) return empty_feature(waveform);
  const Tensor power = power_spectrum(f.strided).maximum(detail::epsilon_like(f.strided)).log();
  // Column 0 holds the log energy.
  const Tensor spec = cat({f.signal_log_energy.unsqueeze(1), power.narrow(1, 1, power.size(1) - 1)}, 1);
  return detail::subtract_column_mean(spec, options.subtract_mean);
}

Tensor fbank(const Tensor& waveform, const FbankOptions& options) { return fbank_impl("fbank", waveform, options); }

Tensor mfcc(const Tensor& waveform, const MfccOptions& o) {
  EMBER_CHECK(o.num_ceps >= 1 && o.num_ceps <= o.num_mel_bins, "mfcc: num_ceps must be in [1, num_mel_bins ",
              o.num_mel_bins, "], got ", o.num_ceps);
  EMBER_CHECK(std::isfinite(o.cepstral_lifter), "mfcc: cepstral_lifter must be finite, got ", o.cepstral_lifter);
  // Log power mel energies without mean subtraction.
  const FbankOptions fb{.blackman_coeff = o.blackman_coeff,
                        .channel = o.channel,
                        .dither = o.dither,
                        .energy_floor = o.energy_floor,
                        .frame_length = o.frame_length,
                        .frame_shift = o.frame_shift,
                        .high_freq = o.high_freq,
                        .htk_compat = o.htk_compat,
                        .low_freq = o.low_freq,
                        .min_duration = o.min_duration,
                        .num_mel_bins = o.num_mel_bins,
                        .preemphasis_coefficient = o.preemphasis_coefficient,
                        .raw_energy = o.raw_energy,
                        .remove_dc_offset = o.remove_dc_offset,
                        .round_to_power_of_two = o.round_to_power_of_two,
                        .sample_frequency = o.sample_frequency,
                        .snip_edges = o.snip_edges,
                        .subtract_mean = false,
                        .use_energy = o.use_energy,
                        .use_log_fbank = true,
                        .use_power = true,
                        .vtln_high = o.vtln_high,
                        .vtln_low = o.vtln_low,
                        .vtln_warp = o.vtln_warp,
                        .window_type = o.window_type};
  Tensor feature = fbank_impl("mfcc", waveform, fb);
  if (feature.dim() == 1) return feature;  // shorter than min_duration
  Tensor signal_log_energy;
  if (o.use_energy) {
    signal_log_energy = feature.select(1, o.htk_compat ? o.num_mel_bins : 0);
    feature = feature.narrow(1, o.htk_compat ? 0 : 1, o.num_mel_bins);
  }
  feature = feature.matmul(kaldi_dct_matrix(o.num_ceps, o.num_mel_bins).to(feature.options()));
  if (o.cepstral_lifter != 0.0)
    feature = feature * lifter_coeffs(o.num_ceps, o.cepstral_lifter).unsqueeze(0).to(feature.options());
  if (o.use_energy) feature = cat({signal_log_energy.unsqueeze(1), feature.narrow(1, 1, o.num_ceps - 1)}, 1);
  if (o.htk_compat) {
    Tensor energy = feature.narrow(1, 0, 1);
    // Without use_energy this undoes a scale on C0 of one common DCT definition.
    if (!o.use_energy) energy = energy * std::numbers::sqrt2;
    feature = cat({feature.narrow(1, 1, o.num_ceps - 1), energy}, 1);
  }
  return detail::subtract_column_mean(feature, o.subtract_mean);
}

Tensor resample_waveform(const Tensor& waveform, double orig_freq, double new_freq, int64_t lowpass_filter_width,
                         double rolloff, const std::string& resampling_method, std::optional<double> beta) {
  EMBER_CHECK(std::isfinite(orig_freq) && std::isfinite(new_freq) && std::trunc(orig_freq) == orig_freq &&
                  std::trunc(new_freq) == new_freq && std::fabs(orig_freq) < 9e15 && std::fabs(new_freq) < 9e15,
              "resample_waveform: frequencies must be integers to ensure quality resampling, got ", orig_freq,
              " and ", new_freq, " (to downsample 44100 Hz by 8, pass 8 and 1 rather than 44100 and 5512.5)");
  return functional::resample(waveform, static_cast<int64_t>(orig_freq), static_cast<int64_t>(new_freq),
                              lowpass_filter_width, rolloff, resampling_method, beta);
}

}  // namespace ember::audio::kaldi
