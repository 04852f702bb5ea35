#pragma once
// One row of torchaudio's resampling kernel, computed on demand: the taps of
// output phase p (row p of _get_sinc_resample_kernel's [new, 1, 2*width + orig])
// that lie inside the lowpass window, in the arithmetic the kernel would use.
//
// Note [On-the-fly sinc taps]: row p, column k of torchaudio's kernel is, for
// m = k - width (the input offset from the output's period start n*orig),
//   t = clamp(base * (m/orig - p/new), -lpw, lpw),  base = min(orig, new) * rolloff
//   tap = sinc(pi t) * window(t) * base/orig
// Outside |m/orig - p/new| < lpw/base the clamp pins t at +-lpw, where the
// sinc sits on a zero and the window on its edge: those taps hold one tiny
// constant (hann: about 1e-49 of the row's peak in float64 and 1e-23 in
// float32; kaiser: sinc(lpw pi) / I0(beta), with beta = 8 about 1e-19 in
// float64 and 1e-10 in float32, where pi is rounded; a smaller beta raises it
// as 1 / I0(beta)). Only the ~2 * lpw * orig / base taps inside the
// window are evaluated and summed; the others are skipped. A whole row of a
// rate pair such as 19027 -> 16000 has 19043 taps, of which 15 are inside.
//
// Each value is computed as torchaudio's tensor expression computes it in the
// kernel's dtype (the waveform's; for the Resample module float64 rounded to
// float32, SincTapSpec::float32_kernel): every scalar is cast to that dtype,
// one rounding per operation, no fused multiply-adds (sinc_taps.cpp is
// compiled with -ffp-contract=off), I0 as ATen's Cephes series.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ember::audio::functional::detail {

struct SincTapSpec {
  int64_t orig = 1, next = 1;  // rates divided by their gcd
  int64_t width = 0;           // torchaudio's padding: ceil(lpw * orig / base)
  int64_t lowpass_filter_width = 6;
  double rolloff = 0.99;
  bool kaiser = false;
  double beta = 14.769656459379492;  // kaiser only
  // torchaudio's dtype None (the Resample module's kernel): float32 phases
  // p/new, float64 arithmetic, taps rounded to float32 (then applied in the
  // waveform's dtype, as the module's buffer once cast). Otherwise the
  // arithmetic is the waveform's dtype, as resample's and PitchShift's.
  bool float32_kernel = false;
};

SincTapSpec make_sinc_tap_spec(int64_t orig, int64_t next, int64_t lowpass_filter_width, double rolloff,
                               const std::string& resampling_method, std::optional<double> beta);

// The offsets m of phase p's taps inside the window (a few more at each end,
// which hold the clamped value as the kernel does): [first, last], clipped
// to the kernel's columns [-width, orig + width).
struct TapRange {
  int64_t first = 0, last = -1;
  int64_t count() const { return last - first + 1; }
};
TapRange sinc_tap_range(const SincTapSpec& spec, int64_t phase);

// An upper bound of sinc_tap_range(spec, p).count() over all phases (as a
// double: it may be absurdly large for absurd rates).
double max_sinc_taps(const SincTapSpec& spec);

// Writes the kernel's values at row `phase`, columns width + m for m in
// `range`, to out[0 .. range.count()). T: float or double, the waveform's.
template <class T>
void sinc_taps(const SincTapSpec& spec, int64_t phase, const TapRange& range, T* out);

}  // namespace ember::audio::functional::detail
