#pragma once
// The CPU polyphase loop behind resample and apply_sinc_resample_kernel: the
// strided convolution of torchaudio's _apply_sinc_resample_kernel computed
// without its leading and trailing near-zero taps, vectorized across outputs.
//
// Note [Polyphase resampling]: output y[j*new + p] (p < new) is
//   sum_k kernel[p, k] * xpad[j*orig + k],  k < 2*width + orig,
// xpad the waveform with `width` zeros on the left. Splitting xpad into the
// `orig` streams s_r[i] = xpad[i*orig + r] turns every tap k = m*orig + r into
// a unit-stride product s_r[j + m]: for a run of consecutive j, each tap is one
// broadcast multiply-add over contiguous memory, with no horizontal sums.
//
// Note [Resampling tap trimming]: torchaudio clamps the sinc argument to
// +-lowpass_filter_width, so each phase's kernel row begins and ends in long
// runs of taps that hold a sinc zero times the window's edge (1e-17 and
// smaller relative to the row's peak). For 44.1 kHz -> 16 kHz they are 441
// of the 475 taps. A row's leading and trailing taps are skipped while their
// magnitudes sum to at most 2^-10 * eps(dtype) of the row's L1 norm, so the
// skipped contribution stays below a thousandth of a unit in the last place
// of the largest possible output.
#include <cstdint>
#include <vector>

#include <ember/ember.h>

namespace ember::audio::functional::detail {

struct PolyphasePlan {
  DType dtype = kFloat32;
  int64_t orig = 1;          // input samples per output period (divided by gcd)
  int64_t next = 1;          // output samples (phases) per period
  int64_t width = 0;         // zeros padded on the left
  int64_t max_offset = 0;    // the largest m over the kept taps
  std::vector<int64_t> phase_begin;  // phase p's taps: [phase_begin[p], phase_begin[p + 1])
  std::vector<int64_t> stream;       // r of each kept tap
  std::vector<int64_t> offset;       // m of each kept tap
  std::vector<double> coeff64;       // tap values (float64 plans)
  std::vector<float> coeff32;        // tap values (float32 plans)
};

// From a contiguous CPU kernel [next, 1, 2*width + orig] of float32 or float64.
PolyphasePlan make_polyphase_plan(const Tensor& kernel, int64_t orig, int64_t width);

// waveform [N, L] contiguous CPU of the plan's dtype -> [N, target].
Tensor polyphase_resample(const Tensor& waveform, const PolyphasePlan& plan, int64_t target);

}  // namespace ember::audio::functional::detail
