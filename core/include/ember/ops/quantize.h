#pragma once
// Quantized tensors (docs/quantization.md): quantize, dequantize, int_repr
// and the quantization parameters, with PyTorch's names and rounding. The
// tensor methods (t.dequantize(), t.q_scale(), ...) are in ember/core/tensor.h,
// the Quantizer in ember/core/quantizer.h.
#include "ember/core/quantizer.h"
#include "ember/core/tensor.h"

namespace ember {

// q = clamp(zero_point + nearbyint(x * (1 / float(scale))), quant_min, quant_max)
// for a floating point input (computed in float32, as PyTorch); the result
// keeps the input's memory format. dtype: qint8, quint8, qint32, quint4x2.
Tensor quantize_per_tensor(const Tensor& input, double scale, int64_t zero_point, DType dtype);
// scale and zero_point as one-element tensors.
Tensor quantize_per_tensor(const Tensor& input, const Tensor& scale, const Tensor& zero_point, DType dtype);
// Per channel along `axis` (negative counts from the end): scales (1-d,
// floating) and zero_points (1-d, integer) of length input.size(axis).
Tensor quantize_per_channel(const Tensor& input, const Tensor& scales, const Tensor& zero_points, int64_t axis,
                            DType dtype);
// torch.quantize_per_tensor_dynamic: the scale and zero_point chosen from the
// input's min and max (PyTorch's choose_qparams: range widened to hold 0;
// quint8 or qint8; reduce_range halves the integer range).
Tensor quantize_per_tensor_dynamic(const Tensor& input, DType dtype, bool reduce_range);
// The (scale, zero_point) quantize_per_tensor_dynamic uses for [min, max]
// (PyTorch's quant_utils::ChooseQuantizationParams, preserve_sparsity off).
std::pair<double, int64_t> choose_qparams(float min, float max, int64_t qmin, int64_t qmax);

Tensor dequantize(const Tensor& input);
Tensor int_repr(const Tensor& input);

// The integers of `int_tensor` (int8 -> qint8, uint8 -> quint8, int32 -> qint32)
// taken as a quantized tensor with the given parameters (a copy).
Tensor _make_per_tensor_quantized_tensor(const Tensor& int_tensor, double scale, int64_t zero_point);
Tensor _make_per_channel_quantized_tensor(const Tensor& int_tensor, const Tensor& scales, const Tensor& zero_points,
                                          int64_t axis);

}  // namespace ember
