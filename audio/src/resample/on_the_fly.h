#pragma once
// Resampling without a kernel: each output's taps are computed when needed
// (Note [On-the-fly sinc taps], sinc_taps.h) for rates whose reduced kernel
// would be large, such as 19027 -> 16000 (PitchShift(16000, 3), a 16000 x 19043
// kernel) or 44100 -> 44099 (44099 x 44114).
//
// Note [On-the-fly resampling]: output i = n*new + p (n full periods, phase p)
// is sum_m tap_p(m) * x[n*orig + m] over the taps of phase p inside the
// lowpass window, summed in double; the backward pass is the transpose, each
// output's gradient scattered over the same taps (outputs split into fixed
// chunks whose input spans are accumulated separately, then added in order, so
// the result does not depend on the thread count). Both are custom autograd
// functions that are each other's derivative, so higher derivatives work too.
// The work is outputs x taps: about 2 * lpw * orig / (min(orig, new) * rolloff)
// taps per output, 15 for 19027 -> 16000, against torchaudio's 19043.
#include <cstdint>

#include <ember/ember.h>

#include "sinc_taps.h"

namespace ember::audio::functional::detail {

// Reduced kernels of more elements than this (new * (2*width + orig); 16 MiB
// in float32) are not built by resample or PitchShift: building one costs
// more than resampling seconds of audio on the fly, and the rates that give
// them (a gcd of a few units) are those of pitch shifting and odd hardware.
// Usual rates stay far below (44.1 kHz -> 16 kHz: 160 x 455).
inline constexpr int64_t kMaxBuiltKernelElements = int64_t{1} << 22;
bool resample_kernel_is_large(int64_t orig, int64_t next, int64_t width);

// More multiply-adds than this are refused (days of work: absurd rates).
inline constexpr double kMaxOnTheFlyWork = 1125899906842624.0;  // 2^50

// rows [N, L] (float32 or float64, any device) -> [N, target], resampled
// from spec.orig to spec.next; differentiable with respect to rows. Raises
// when N * target * taps exceeds kMaxOnTheFlyWork, naming fn and the values.
Tensor resample_on_the_fly(const char* fn, const Tensor& rows, const SincTapSpec& spec, int64_t target);

// waveform [..., time] -> [..., ceil(new * time / orig)], through
// resample_on_the_fly; raises (naming fn) for outputs of 2^62 samples or more.
Tensor resample_waveform_on_the_fly(const char* fn, const Tensor& waveform, const SincTapSpec& spec);

}  // namespace ember::audio::functional::detail
