// Kaldi's mel scale, VTLN warp and mel filter banks, as torchaudio 0.13's
// compliance/kaldi.py. The banks are float32 arithmetic as torchaudio's
// (its arange is float32), whatever the features' dtype.
#include <cmath>

#include <ember/audio/kaldi.h>

#include "mel_banks.h"

namespace ember::audio::kaldi {

double mel_scale_scalar(double freq) { return 1127.0 * std::log(1.0 + freq / 700.0); }

Tensor mel_scale(const Tensor& freq) { return (freq / 700.0 + 1.0).log() * 1127.0; }

double inverse_mel_scale_scalar(double mel_freq) { return 700.0 * (std::exp(mel_freq / 1127.0) - 1.0); }

Tensor inverse_mel_scale(const Tensor& mel_freq) { return ((mel_freq / 1127.0).exp() - 1.0) * 700.0; }

Tensor vtln_warp_freq(double vtln_low_cutoff, double vtln_high_cutoff, double low_freq, double high_freq,
                      double vtln_warp_factor, const Tensor& freq) {
  EMBER_CHECK(vtln_low_cutoff > low_freq, "vtln_warp_freq: vtln_low_cutoff ", vtln_low_cutoff,
              " must be above low_freq ", low_freq);
  EMBER_CHECK(vtln_high_cutoff < high_freq, "vtln_warp_freq: vtln_high_cutoff ", vtln_high_cutoff,
              " must be below high_freq ", high_freq);
  EMBER_CHECK(std::isfinite(vtln_warp_factor) && vtln_warp_factor > 0, "vtln_warp_freq: vtln_warp_factor must be ",
              "positive, got ", vtln_warp_factor);
  // Inflection points l, h of the three-piece linear warp F with F(l) = l / warp, F(h) = h / warp.
  const double l = vtln_low_cutoff * std::max(1.0, vtln_warp_factor);
  const double h = vtln_high_cutoff * std::min(1.0, vtln_warp_factor);
  const double scale = 1.0 / vtln_warp_factor;
  const double fl = scale * l;
  const double fh = scale * h;
  EMBER_CHECK(l > low_freq && h < high_freq, "vtln_warp_freq: the inflection points ", l, " and ", h,
              " must lie within (", low_freq, ", ", high_freq, ")");
  const double scale_left = (fl - low_freq) / (l - low_freq);
  const double scale_right = (high_freq - fh) / (high_freq - h);

  // Later assignments win where the regions overlap, as torchaudio's order.
  Tensor res = (freq - high_freq) * scale_right + high_freq;            // freq >= h
  res = where(freq < h, freq * scale, res);                             // freq < h
  res = where(freq < l, (freq - low_freq) * scale_left + low_freq, res);  // freq < l
  return where((freq < low_freq) | (freq > high_freq), freq, res);      // outside [low, high]
}

Tensor vtln_warp_mel_freq(double vtln_low_cutoff, double vtln_high_cutoff, double low_freq, double high_freq,
                          double vtln_warp_factor, const Tensor& mel_freq) {
  return mel_scale(vtln_warp_freq(vtln_low_cutoff, vtln_high_cutoff, low_freq, high_freq, vtln_warp_factor,
                                  inverse_mel_scale(mel_freq)));
}

namespace detail {

std::pair<Tensor, Tensor> mel_banks(const char* fn, int64_t num_bins, int64_t window_length_padded,
                                    double sample_freq, double low_freq, double high_freq, double vtln_low,
                                    double vtln_high, double vtln_warp_factor) {
  EMBER_CHECK(num_bins > 3, fn, ": must have more than 3 mel bins, got num_mel_bins ", num_bins);
  EMBER_CHECK(window_length_padded > 0 && window_length_padded % 2 == 0,
              fn, ": window_length_padded must be positive and even, got ", window_length_padded);
  EMBER_CHECK(std::isfinite(sample_freq) && sample_freq > 0, fn, ": sample_freq must be positive, got ",
              sample_freq);
  const int64_t num_fft_bins = window_length_padded / 2;
  const double nyquist = 0.5 * sample_freq;
  if (high_freq <= 0.0) high_freq += nyquist;
  EMBER_CHECK(0.0 <= low_freq && low_freq < nyquist && 0.0 < high_freq && high_freq <= nyquist && low_freq < high_freq,
              fn, ": bad values in options: low_freq ", low_freq, " and high_freq ", high_freq,
              " vs. nyquist ", nyquist);
  const double fft_bin_width = sample_freq / static_cast<double>(window_length_padded);
  const double mel_low_freq = mel_scale_scalar(low_freq);
  const double mel_high_freq = mel_scale_scalar(high_freq);
  // num_bins + 1: the outer bins spread out to the sides.
  const double mel_freq_delta = (mel_high_freq - mel_low_freq) / static_cast<double>(num_bins + 1);
  if (vtln_high < 0.0) vtln_high += nyquist;
  EMBER_CHECK(std::isfinite(vtln_warp_factor) && vtln_warp_factor > 0, fn, ": vtln_warp must be positive, got ",
              vtln_warp_factor);
  EMBER_CHECK(vtln_warp_factor == 1.0 || (low_freq < vtln_low && vtln_low < high_freq && 0.0 < vtln_high &&
                                          vtln_high < high_freq && vtln_low < vtln_high),
              fn, ": bad values in options: vtln_low ", vtln_low, " and vtln_high ", vtln_high,
              ", versus low_freq ", low_freq, " and high_freq ", high_freq);

  const Tensor bin = arange(num_bins, kInt64).unsqueeze(1);
  Tensor left_mel = bin * mel_freq_delta + mel_low_freq;  // [num_bins, 1], float32
  Tensor center_mel = (bin + 1.0) * mel_freq_delta + mel_low_freq;
  Tensor right_mel = (bin + 2.0) * mel_freq_delta + mel_low_freq;
  if (vtln_warp_factor != 1.0) {
    left_mel = vtln_warp_mel_freq(vtln_low, vtln_high, low_freq, high_freq, vtln_warp_factor, left_mel);
    center_mel = vtln_warp_mel_freq(vtln_low, vtln_high, low_freq, high_freq, vtln_warp_factor, center_mel);
    right_mel = vtln_warp_mel_freq(vtln_low, vtln_high, low_freq, high_freq, vtln_warp_factor, right_mel);
  }
  const Tensor center_freqs = inverse_mel_scale(center_mel);  // [num_bins, 1], as torchaudio returns it
  const Tensor mel = mel_scale(arange(num_fft_bins, kFloat32) * fft_bin_width).unsqueeze(0);  // [1, num_fft_bins]
  const Tensor up_slope = (mel - left_mel) / (center_mel - left_mel);
  const Tensor down_slope = (right_mel - mel) / (right_mel - center_mel);
  Tensor bins;
  if (vtln_warp_factor == 1.0) {
    // left_mel < center_mel < right_mel: the smaller slope, clamped at zero.
    bins = zeros({1}, kFloat32).maximum(up_slope.minimum(down_slope));
  } else {
    // Warping can reorder left, center and right.
    const Tensor zero = zeros_like(up_slope);
    bins = where((mel > left_mel) & (mel <= center_mel), up_slope,
                 where((mel > center_mel) & (mel < right_mel), down_slope, zero));
  }
  return {bins, center_freqs};
}

}  // namespace detail

std::pair<Tensor, Tensor> get_mel_banks(int64_t num_bins, int64_t window_length_padded, double sample_freq,
                                        double low_freq, double high_freq, double vtln_low, double vtln_high,
                                        double vtln_warp_factor) {
  return detail::mel_banks("get_mel_banks", num_bins, window_length_padded, sample_freq, low_freq, high_freq,
                           vtln_low, vtln_high, vtln_warp_factor);
}

}  // namespace ember::audio::kaldi
