#pragma once
// ember::audio::kaldi: torchaudio.compliance.kaldi (0.13), Kaldi's
// compute-spectrogram-feats / compute-fbank-feats / compute-mfcc-feats on
// tensors, with torchaudio's option names, defaults and arithmetic.
//
//   Tensor feats = kaldi::fbank(waveform, {.dither = 0.0, .num_mel_bins = 80});  // [frames, 80]
//   Tensor ceps = kaldi::mfcc(waveform, {.sample_frequency = 8000, .snip_edges = false});
//
// waveform: [channels, time] (float32 or float64); `channel` picks the row
// (-1: the first). Options are aggregates: fields keep torchaudio's keyword
// order (alphabetical), as designated initializers must follow it.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <ember/ember.h>

namespace ember::audio::kaldi {

struct SpectrogramOptions {
  double blackman_coeff = 0.42;          // constant of the generalized Blackman window
  int64_t channel = -1;                  // row of the waveform (-1: mono, the first row)
  double dither = 0.0;                   // Gaussian noise scale from the default generator (0: none)
  double energy_floor = 1.0;             // floor on the log-energy column (0: none)
  double frame_length = 25.0;            // milliseconds
  double frame_shift = 10.0;             // milliseconds
  double min_duration = 0.0;             // seconds; shorter input gives an empty tensor
  double preemphasis_coefficient = 0.97;  // in [0, 1]
  bool raw_energy = true;                // energy before preemphasis and windowing
  bool remove_dc_offset = true;          // subtract each frame's mean
  bool round_to_power_of_two = true;     // zero-pad frames to a power of two for the FFT
  double sample_frequency = 16000.0;     // Hz
  bool snip_edges = true;                // only frames that fit; false: reflect at the ends
  bool subtract_mean = false;            // subtract each feature's mean over frames
  std::string window_type = "povey";     // povey, hanning, hamming, rectangular, blackman
};

struct FbankOptions {
  double blackman_coeff = 0.42;
  int64_t channel = -1;
  double dither = 0.0;
  double energy_floor = 1.0;
  double frame_length = 25.0;
  double frame_shift = 10.0;
  double high_freq = 0.0;                // upper mel cutoff in Hz (<= 0: offset from Nyquist)
  bool htk_compat = false;               // energy last instead of first
  double low_freq = 20.0;                // lower mel cutoff in Hz
  double min_duration = 0.0;
  int64_t num_mel_bins = 23;             // > 3
  double preemphasis_coefficient = 0.97;
  bool raw_energy = true;
  bool remove_dc_offset = true;
  bool round_to_power_of_two = true;
  double sample_frequency = 16000.0;
  bool snip_edges = true;
  bool subtract_mean = false;
  bool use_energy = false;               // add the log-energy column
  bool use_log_fbank = true;             // log of the mel energies
  bool use_power = true;                 // power spectrum (false: magnitude)
  double vtln_high = -500.0;             // upper VTLN inflection in Hz (< 0: offset from Nyquist)
  double vtln_low = 100.0;               // lower VTLN inflection in Hz
  double vtln_warp = 1.0;                // VTLN warp factor
  std::string window_type = "povey";
};

struct MfccOptions {
  double blackman_coeff = 0.42;
  double cepstral_lifter = 22.0;         // lifter constant (0: none)
  int64_t channel = -1;
  double dither = 0.0;
  double energy_floor = 1.0;
  double frame_length = 25.0;
  double frame_shift = 10.0;
  double high_freq = 0.0;
  bool htk_compat = false;               // energy / C0 last, C0 scaled by sqrt(2) without use_energy
  double low_freq = 20.0;
  int64_t num_ceps = 13;                 // cepstra kept, C0 included (<= num_mel_bins)
  double min_duration = 0.0;
  int64_t num_mel_bins = 23;
  double preemphasis_coefficient = 0.97;
  bool raw_energy = true;
  bool remove_dc_offset = true;
  bool round_to_power_of_two = true;
  double sample_frequency = 16000.0;
  bool snip_edges = true;
  bool subtract_mean = false;
  bool use_energy = false;               // C0 replaced by the log energy
  double vtln_high = -500.0;
  double vtln_low = 100.0;
  double vtln_warp = 1.0;
  std::string window_type = "povey";
};

// Log power spectrum [frames, padded_window_size / 2 + 1]; column 0 is the log energy.
Tensor spectrogram(const Tensor& waveform, const SpectrogramOptions& options = {});
// Mel filter bank energies [frames, num_mel_bins (+ 1 with use_energy)].
Tensor fbank(const Tensor& waveform, const FbankOptions& options = {});
// Mel cepstra [frames, num_ceps].
Tensor mfcc(const Tensor& waveform, const MfccOptions& options = {});

// torchaudio <= 0.11's kaldi.resample_waveform (removed in 0.12): an alias of
// functional::resample whose rates are floats holding integers.
Tensor resample_waveform(const Tensor& waveform, double orig_freq, double new_freq, int64_t lowpass_filter_width = 6,
                         double rolloff = 0.99, const std::string& resampling_method = "sinc_interpolation",
                         std::optional<double> beta = std::nullopt);

// Kaldi's mel scale 1127 ln(1 + f / 700) and its inverse (tensors keep their dtype).
double mel_scale_scalar(double freq);
Tensor mel_scale(const Tensor& freq);
double inverse_mel_scale_scalar(double mel_freq);
Tensor inverse_mel_scale(const Tensor& mel_freq);
// Kaldi's piecewise linear VTLN warp of frequencies in Hz (fixed points low_freq, high_freq).
Tensor vtln_warp_freq(double vtln_low_cutoff, double vtln_high_cutoff, double low_freq, double high_freq,
                      double vtln_warp_factor, const Tensor& freq);
// The same warp applied to mel frequencies.
Tensor vtln_warp_mel_freq(double vtln_low_cutoff, double vtln_high_cutoff, double low_freq, double high_freq,
                          double vtln_warp_factor, const Tensor& mel_freq);
// (bins [num_bins, window_length_padded / 2], center_freqs [num_bins, 1]), float32
// as torchaudio builds them.
std::pair<Tensor, Tensor> get_mel_banks(int64_t num_bins, int64_t window_length_padded, double sample_freq,
                                        double low_freq, double high_freq, double vtln_low, double vtln_high,
                                        double vtln_warp_factor);

}  // namespace ember::audio::kaldi
