#pragma once
// Fake quantization (PyTorch 1.13's torch.fake_quantize_per_tensor_affine and
// torch.fake_quantize_per_channel_affine): quantize to integers and straight
// back to floating point, so that a float model sees the rounding and clamping
// an int8 model will apply.
//
//   q   = nearbyint(x * (1 / scale)) + zero_point     (1/scale in float32, round half to even)
//   out = (clamp(q, quant_min, quant_max) - zero_point) * scale
//
// The gradient is the straight-through estimator: grad_out where
// quant_min <= q <= quant_max, zero elsewhere; scale and zero_point get none.
// Float32 and float64 inputs; the result has the input's dtype and shape.
// Note [Fake quantization arithmetic] in fake_quantize_ops.cpp says which
// steps run in float32 and why the results are bit-identical to PyTorch's.
#include <cstdint>

#include "ember/core/tensor.h"

namespace ember::ao::quantization {

// scale > 0 (used as float32), quant_min <= zero_point <= quant_max.
Tensor fake_quantize_per_tensor_affine(const Tensor& input, double scale, int64_t zero_point, int64_t quant_min,
                                       int64_t quant_max);
// The same with one-element tensors (scale float, zero_point integer), as
// FakeQuantize's buffers hold them.
Tensor fake_quantize_per_tensor_affine(const Tensor& input, const Tensor& scale, const Tensor& zero_point,
                                       int64_t quant_min, int64_t quant_max);

// Per channel along `axis` (0 <= axis < input.dim()): scale is a 1-d float32
// tensor and zero_point a 1-d tensor, both of input.size(axis) elements.
// Integer zero points (int32/int64) use the formula above; floating zero
// points (per_channel_affine_float_qparams) use PyTorch's other one,
// q = nearbyint(zero_point + x * (1 / scale)), and may lie outside the range.
Tensor fake_quantize_per_channel_affine(const Tensor& input, const Tensor& scale, const Tensor& zero_point,
                                        int64_t axis, int64_t quant_min, int64_t quant_max);

// torch._fake_quantize_learnable_per_tensor_affine (LSQ): the forward of
// fake_quantize_per_tensor_affine with zero_point = clamp(nearbyint(zero_point),
// quant_min, quant_max), differentiable in input, scale and zero_point (each a
// one-element float tensor). PyTorch's gradients, per element, with
// q = nearbyint(zp' + x / scale) and zp' = int(clamp(zero_point + 0.5, quant_min, quant_max)):
//   dx     = dy                                  inside the range, 0 outside
//   dscale = dy * ((clamp(q) - zp') * scale - x) / scale   inside,
//            dy * (quant_min - zp') below, dy * (quant_max - zp') above
//   dzp    = 0 inside, -dy * scale outside
// dscale and dzp are summed over elements and multiplied by grad_factor.
Tensor fake_quantize_learnable_per_tensor_affine(const Tensor& input, const Tensor& scale, const Tensor& zero_point,
                                                 int64_t quant_min, int64_t quant_max, double grad_factor = 1.0);

}  // namespace ember::ao::quantization
