#pragma once
// I0 of a float32 value exactly as torch's CPU kernel computes it (ATen's
// calc_i0<float>: Cephes Chebyshev series evaluated in float arithmetic).
//
// Note [Kaiser window denominator]: torchaudio 0.13 divides the kaiser window
// by torch.i0(torch.tensor(float(beta))), a float32 0-dim tensor, even when
// the kernel is float64. The float32 value of that denominator (and of beta
// itself) therefore enters float64 kernels; reproducing it bit for bit keeps
// float64 results within 1e-10 of torchaudio instead of float32's 1e-7.
namespace ember::audio::functional::detail {

float torch_float_i0(float x);
// The same series in double (ATen's calc_i0<double>), for float64 kaiser taps
// computed one at a time (Note [On-the-fly sinc taps], sinc_taps.h).
double torch_double_i0(double x);

}  // namespace ember::audio::functional::detail
