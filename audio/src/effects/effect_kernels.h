#pragma once
// Kernel slots of the effects whose loops carry state from sample to sample
// (overdrive, phaser, flanger, vad) and of the direct convolution. Defined in
// the op files (effects/*.cpp), filled by effects/cpu/*.cpp (and by any
// backend that registers for them, docs/architecture.md "Device backends").
//
// Every tensor here is contiguous, float32 or float64, on one device; the op
// files check the arguments, allocate `out` like `in` and own the autograd.
// The recursions are linear in their input, so each slot also computes its
// transpose (`adjoint`): the backward of the forward and, the transpose of the
// transpose being the forward, the backward of the backward
// (Note [Effects as linear maps] in effects/linear_effects.h).
#include <cstdint>
#include <vector>

#include <ember/core/tensor.h>

#include "kernels/slots/kernel_slot.h"

namespace ember::audio {

// overdrive's DC blocker on rows [N, T]: y[i] = (x[i] - x[i-1]) + 0.995 * y[i-1]
// (x[-1] = y[-1] = 0) with torchaudio's C++ loop's arithmetic (the product
// and the sum in double, y stored in the row's dtype each step); adjoint:
// u[i] = x[i] + 0.995 * u[i+1], y[i] = u[i] - u[i+1].
using DcBlockerFn = void(Tensor& out, const Tensor& in, bool adjoint);
extern KernelSlot<DcBlockerFn> overdrive_dc_blocker_slot;

// phaser's feedback delay line on rows [N, T]:
// y[i] = x[i] + y[i - delays[i % P]] * decay (the term is 0 where i < delay),
// in the rows' dtype; delays (P >= 1 entries) are >= 1. adjoint: the transpose.
using DelayFeedbackFn = void(Tensor& out, const Tensor& in, const std::vector<int64_t>& delays, double decay,
                             bool adjoint);
extern KernelSlot<DelayFeedbackFn> phaser_delay_slot;

// What flanger's delay line needs, computed once by the op file.
struct FlangerPlan {
  std::vector<float> lfo;              // delays in samples, torchaudio's float32 wave table
  std::vector<int64_t> channel_shift;  // per channel: added to the LFO position
  int64_t buffer_length = 0;           // the circular delay buffer's length (>= 2)
  double feedback_gain = 0;            // the fed-back share of the last delayed value
  double in_gain = 0;                  // of the dry input in the output
  double delay_gain = 0;               // of the delayed value in the output
  bool quadratic = false;              // quadratic (else linear) interpolation
};
// flanger on [B, C, T] (C = plan.channel_shift.size()), before the clamp;
// adjoint: the transpose.
using FlangerFn = void(Tensor& out, const Tensor& in, const FlangerPlan& plan, bool adjoint);
extern KernelSlot<FlangerFn> flanger_slot;

// What vad's detector needs, computed once by the op file (names as SoX's).
struct VadPlan {
  int64_t measure_len_ws = 0, measure_len_ns = 0, dft_len_ws = 0;
  int64_t measure_period_ns = 0, measures_len = 0, gap_len = 0, samples_len_ns = 0;
  int64_t spectrum_start = 0, spectrum_end = 0, cepstrum_start = 0, cepstrum_end = 0;
  int64_t boot_count_max = 0;
  std::vector<float> spectrum_window;  // measure_len_ws values
  std::vector<float> cepstrum_window;  // spectrum_end - spectrum_start values
  double trigger_level = 0, noise_reduction_amount = 0;
  double noise_up_time_mult = 0, noise_down_time_mult = 0, measure_smooth_time_mult = 0,
         trigger_meas_time_mult = 0;
};
// Runs the detector over the channels of `waveform` [C, T] until one of them
// triggers (or the end) and returns torchaudio's slice start,
// pos - samples_len_ns + flushed_len_ns (negative when it reaches before the
// start; Note [vad slicing] in effects/vad.cpp).
using VadFn = int64_t(const Tensor& waveform, const VadPlan& plan);
extern KernelSlot<VadFn> vad_slot;

// The full convolution of rows: out[n, k] = sum_j x[n, k - j] * y[n, j] for
// x [N, Lx], y [N, Ly] (Lx, Ly >= 1), out [N, Lx + Ly - 1].
using ConvolveFn = void(Tensor& out, const Tensor& x, const Tensor& y);
extern KernelSlot<ConvolveFn> convolve_slot;

}  // namespace ember::audio
