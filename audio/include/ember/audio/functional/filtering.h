#pragma once
// IIR filtering of ember::audio::functional: torchaudio 0.13's lfilter,
// filtfilt, biquad and the biquad designs (torchaudio/functional/filtering.py),
// with the same names, arguments, defaults and float arithmetic
// (docs/audio.md, "Filtering").
#include <cstdint>

#include <ember/ember.h>

namespace ember::audio::functional {

// A design parameter given as a number or as a one-element floating tensor,
// like torchaudio's "float or torch.Tensor" arguments. Either way it becomes a
// 0-dim tensor of the waveform's dtype before the design arithmetic (as
// torch.as_tensor(value, dtype=waveform.dtype) does), so float32 designs are
// computed in float32; a tensor that requires grad makes the filtered output
// differentiable w.r.t. it.
class FilterParam {
 public:
  FilterParam(double value) : value_(value) {}  // NOLINT: implicit, as a Python float
  FilterParam(const Tensor& value) : tensor_(value) {}  // NOLINT
  // The 0-dim tensor of `dtype` on `device`; `fn` and `name` label errors
  // (a tensor of more than one element or of an integral dtype).
  Tensor as_tensor(DType dtype, Device device, const char* fn, const char* name) const;
  // The value on the host (the tensor's single element), for argument checks.
  double value(const char* fn, const char* name) const;

 private:
  double value_ = 0.0;
  Tensor tensor_;
};

// The IIR filter a_0 y[n] = sum_k b_k x[n-k] - sum_{k>=1} a_k y[n-k] along the
// last dim, with zero initial state, computed as torchaudio 0.13 does: b and a
// divided by a_0, the FIR part x -> v first (fused multiply-adds, oldest tap
// first: torch's conv1d), then the recursion y[n] = v[n] - a_K y[n-K] - ... -
// a_1 y[n-1] (a multiply and a subtraction each, oldest first), in the
// waveform's dtype; float32 results are torchaudio's bit for bit
// (Note [lfilter arithmetic] in audio/src/filters/lfilter_kernels.h).
//
// waveform: [..., time], float32 or float64. a_coeffs, b_coeffs: of the
// waveform's dtype and device, the same shape, 1-D [order + 1] or 2-D
// [num_filters, order + 1] (pad the shorter with zeros); a_0 must be non-zero
// and every coefficient finite. With 2-D coefficients and `batching`, the
// waveform is [..., num_filters, time] and filter i applies to channel i;
// without `batching`, every filter applies to the whole waveform and the
// output is [..., num_filters, time]. `clamp` clamps the output to [-1, 1].
// Differentiable w.r.t. waveform, a_coeffs and b_coeffs (twice too).
Tensor lfilter(const Tensor& waveform, const Tensor& a_coeffs, const Tensor& b_coeffs, bool clamp = true,
               bool batching = true);

// lfilter forward, then backward over the time-reversed result (zero initial
// state both ways, no padding: torchaudio's convention, not scipy.signal.filtfilt's
// lfilter_zi start); `clamp` applies to the final pass only. 2-D coefficients
// batch as lfilter's `batching`.
Tensor filtfilt(const Tensor& waveform, const Tensor& a_coeffs, const Tensor& b_coeffs, bool clamp = true);

// lfilter with a = [a0, a1, a2], b = [b0, b1, b2] (clamped).
Tensor biquad(const Tensor& waveform, const FilterParam& b0, const FilterParam& b1, const FilterParam& b2,
              const FilterParam& a0, const FilterParam& a1, const FilterParam& a2);

// The designs (SoX's, after the Audio EQ Cookbook), each a biquad of the
// waveform. sample_rate and the frequencies must be positive, Q positive.
Tensor lowpass_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& cutoff_freq,
                      const FilterParam& Q = 0.707);
Tensor highpass_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& cutoff_freq,
                       const FilterParam& Q = 0.707);
// const_skirt_gain: peak gain Q instead of 0 dB.
Tensor bandpass_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& central_freq,
                       const FilterParam& Q = 0.707, bool const_skirt_gain = false);
Tensor bandreject_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& central_freq,
                         const FilterParam& Q = 0.707);
Tensor allpass_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& central_freq,
                      const FilterParam& Q = 0.707);
// noise: SoX's mode for unpitched audio.
Tensor band_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& central_freq,
                   const FilterParam& Q = 0.707, bool noise = false);
// Shelving tone controls; gain in dB.
Tensor bass_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& gain,
                   const FilterParam& central_freq = 100.0, const FilterParam& Q = 0.707);
Tensor treble_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& gain,
                     const FilterParam& central_freq = 3000.0, const FilterParam& Q = 0.707);
// Peaking equalizer; gain in dB.
Tensor equalizer_biquad(const Tensor& waveform, int64_t sample_rate, const FilterParam& center_freq, const FilterParam& gain,
                        const FilterParam& Q = 0.707);
// ISO 908 CD de-emphasis; sample_rate 44100 or 48000.
Tensor deemph_biquad(const Tensor& waveform, int64_t sample_rate);
// RIAA vinyl playback equalization; sample_rate 44100, 48000, 88200 or 96000.
Tensor riaa_biquad(const Tensor& waveform, int64_t sample_rate);

}  // namespace ember::audio::functional
