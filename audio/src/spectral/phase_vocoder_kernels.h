#pragma once
// The kernel slot of phase_vocoder's no-gradient path (spectral/phase_vocoder.cpp
// defines it and routes to it; spectral/cpu/phase_vocoder_kernels.cpp fills it
// for the CPU). With gradients recorded, or on a device without a kernel, the
// op runs its composite of core ops instead (autograd, any backend).
//
// Note [phase_vocoder arithmetic]
// torchaudio 0.13's phase_vocoder (functional.py) on a spectrogram of real
// dtype T (float32 for complex64), per row (one frequency of one batch item)
// and output step s, with t = time_steps[s] (torch.arange(0, frames, rate,
// dtype=T)), i0 = long(t), i1 = long(T(t + 1)), frames past the end zero:
//   alpha  = t - floor(t)                                 (t % 1.0)
//   mag    = alpha * |X[i1]| + (1 - alpha) * |X[i0]|      (each product and sum rounded in T)
//   d      = (angle(X[i1]) - angle(X[i0])) - advance
//   p[s]   = (d - T(2 pi) * round(d / T(2 pi))) + advance (round: half to even)
//   phase  = cumsum([angle(X[0]), p[0], ..., p[n-2]])
//   out[s] = polar(mag, phase[s]) = (mag * cos(phase), mag * sin(phase))
// torch's CPU cumsum accumulates float32 in float64 (at::acc_type) and rounds
// each partial sum to float32, so the kernel does the same: no rounding error
// builds up along time, and each phase equals torch's but for the rare partial
// sum that lands within a few float64 ulp of a float32 tie. The accumulated
// phase grows by up to pi * hop_length per frame (~1e6 rad after 60 s at hop
// 160), where a float32 ulp is 0.06 rad: a different summation (in float32, or
// pairwise) would differ from torchaudio by that much. The kernel's angle,
// |X| and sincos are correctly rounded in float32 (simd_math.h, Note [Vocoder
// transcendentals]) and within ~2 ulp in float64, where torch's are within 1
// ulp; all the other operations round exactly as torch's (the kernel file is
// compiled with -ffp-contract=off).
#include <ember/core/tensor.h>

#include "kernels/slots/kernel_slot.h"

namespace ember::audio {

// specs [rows, frames] (complex64 or complex128, contiguous), time_steps [steps]
// (the real dtype, contiguous: torch.arange(0, frames, rate)), phase_advance
// [freqs] (the real dtype, contiguous; row r advances by phase_advance[r %
// freqs]); out [rows, steps] (specs' dtype, contiguous) = Note [phase_vocoder
// arithmetic]. Raises if a time step falls outside [0, frames].
using PhaseVocoderFn = void(Tensor& out, const Tensor& specs, const Tensor& time_steps,
                            const Tensor& phase_advance);
extern KernelSlot<PhaseVocoderFn> phase_vocoder_slot;

}  // namespace ember::audio
