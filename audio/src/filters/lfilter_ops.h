#pragma once
// What lfilter's public functions share (audio/src/filters/): the checked
// entry point and the two differentiable halves of the difference equation.
#include <ember/core/tensor.h>

namespace ember::audio::detail {

// lfilter's work with `fn` naming the public function in errors (filtfilt
// calls it twice).
Tensor lfilter_impl(const char* fn, const Tensor& waveform, const Tensor& a_coeffs, const Tensor& b_coeffs,
                    bool clamp, bool batching);

// lfilter_slot on x [B, C, T] with a, b [C, K] (either undefined: that stage
// is skipped; lfilter_kernels.h), returning [B, C, T] in x's dtype. No
// autograd: the callers below and lfilter's inference path.
Tensor run_lfilter_kernel(const char* fn, const Tensor& x, const Tensor& a, const Tensor& b, bool clamp);

// The FIR half: v[b, c, t] = sum_k b_norm[c, k] x[b, c, t-k]; differentiable
// w.r.t. x and b_norm (twice too).
Tensor fir_filter(const char* fn, const Tensor& x, const Tensor& b_norm);
// The recursive half: y[b, c, t] = v[b, c, t] - sum_{k>=1} a_norm[c, k] y[b, c, t-k];
// differentiable w.r.t. v and a_norm (twice too).
Tensor iir_filter(const char* fn, const Tensor& v, const Tensor& a_norm);

}  // namespace ember::audio::detail
