#pragma once
// Quantized kernels (torch.ao.nn.quantized.functional and torch.ops.quantized,
// PyTorch 1.13 on the onednn engine; docs/quantization.md). Inputs are
// quantized tensors (quint8 activations; qint8 weights, per-tensor or
// per-channel along dim 0); outputs are quantized with the given scale and
// zero_point (or, where PyTorch keeps them, the input's). Each result is
// bit-exact or within one quantum of PyTorch's (Note [Quantized kernels] in
// core/src/ao/nn/quantized/functional.cpp says where rounding differs).
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/pooling.h"

namespace ember::ao::nn::quantized::functional {

// y = requantize(x W^T + b): x quint8 [..., in], weight qint8 [out, in]
// (zero point 0, per-tensor or per-channel on dim 0), bias float32 [out] or
// undefined; relu fuses LinearReLU.
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias, double scale, int64_t zero_point,
              bool relu = false);
// Dynamic linear: float input quantized on the fly to quint8 (choose_qparams
// over its min/max), int8 product, float32 output (torch.ops.quantized.linear_dynamic).
Tensor linear_dynamic(const Tensor& input, const Tensor& weight, const Tensor& bias, bool reduce_range = false,
                      bool relu = false);
// torch's fp16 weight packing (quantized::linear_prepack_fp16): a float
// weight clamped to float16's finite range (+-65504, as
// at::_saturate_weight_to_fp16) and rounded to float16 (nearest even).
Tensor saturate_weight_to_fp16(const Tensor& weight);
// float16 dynamic linear (torch.ops.quantized.linear_dynamic_fp16 /
// linear_relu_dynamic_fp16): weight float16 [out, in] widened to float32,
// input float32 (not rounded), float32 product and bias; linear_fp16.cpp.
Tensor linear_dynamic_fp16(const Tensor& input, const Tensor& weight, const Tensor& bias, bool relu = false);

// The convolutions' options (stride, padding, dilation: one value, or one
// per spatial dim).
struct QConvOptions {
  ember::nn::functional::ExpandingInts stride = 1;
  ember::nn::functional::ExpandingInts padding = 0;
  ember::nn::functional::ExpandingInts dilation = 1;
  int64_t groups = 1;
};
using QConv2dOptions = QConvOptions;
// x quint8 [N, C, H, W], weight qint8 [O, C / groups, kH, kW] (zero point 0,
// per-tensor or per-channel on dim 0), bias float32 [O] or undefined.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const QConvOptions& options,
              double scale, int64_t zero_point, bool relu = false);
// quantized::conv1d: x [N, C, L], weight [O, C / groups, k]; run as torch
// does, as a 2-d convolution over [N, C, 1, L]. The result is [N, O, L'] with
// channels-last strides (torch's).
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, const QConvOptions& options,
              double scale, int64_t zero_point, bool relu = false);
// quantized::conv3d: x [N, C, D, H, W], weight [O, C / groups, kD, kH, kW];
// a channels-last-3d result.
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, const QConvOptions& options,
              double scale, int64_t zero_point, bool relu = false);

struct QConvTransposeOptions {
  ember::nn::functional::ExpandingInts stride = 1;
  ember::nn::functional::ExpandingInts padding = 0;
  ember::nn::functional::ExpandingInts output_padding = 0;
  int64_t groups = 1;
  ember::nn::functional::ExpandingInts dilation = 1;
};
// quantized::conv_transpose1d/2d/3d: weight qint8 [C, O / groups, k...]
// (torch's ConvTranspose layout) quantized per tensor (per-channel weights
// are an error, as torch's "Per Channel Quantization is currently disabled
// for transposed conv"); a non-zero weight zero point takes the float64
// path. The 1-d form runs as 2-d over [N, C, 1, L], as torch. A non-zero
// output_padding (which torch's onednn engine refuses; its qnnpack engine
// takes it) is supported.
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const QConvTransposeOptions& options, double scale, int64_t zero_point);
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const QConvTransposeOptions& options, double scale, int64_t zero_point);
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const QConvTransposeOptions& options, double scale, int64_t zero_point);

// Keep the input's quantization parameters.
Tensor relu(const Tensor& input);
Tensor max_pool2d(const Tensor& input, const ember::nn::functional::ExpandingInts& kernel_size,
                  const ember::nn::functional::MaxPoolFuncOptions& options = {});
Tensor avg_pool2d(const Tensor& input, const ember::nn::functional::ExpandingInts& kernel_size,
                  const ember::nn::functional::AvgPoolFuncOptions& options = {});
Tensor adaptive_avg_pool2d(const Tensor& input, const ember::nn::functional::ExpandingInts& output_size);

// Output parameters given (hardsigmoid: PyTorch's fixed ones, scale 1/256 and
// zero point 0 for quint8, unless given).
Tensor hardswish(const Tensor& input, double scale, int64_t zero_point);
// quantized::leaky_relu and quantized::elu with the output's scale and zero
// point (float32 formulas over the dequantized input, as torch's kernels).
Tensor leaky_relu(const Tensor& input, double negative_slope, double scale, int64_t zero_point);
Tensor elu(const Tensor& input, double scale, int64_t zero_point, double alpha = 1.0);
Tensor hardsigmoid(const Tensor& input);
Tensor batch_norm2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                    const Tensor& running_var, double eps, double scale, int64_t zero_point);

// QFunctional's kernels (torch.ops.quantized.add, add_relu, mul, cat): both
// inputs per-tensor quantized of one dtype; shapes broadcast (add, mul).
Tensor add(const Tensor& a, const Tensor& b, double scale, int64_t zero_point);
Tensor add_relu(const Tensor& a, const Tensor& b, double scale, int64_t zero_point);
Tensor mul(const Tensor& a, const Tensor& b, double scale, int64_t zero_point);
// quantized::mul_relu: mul with the result clamped below at zero_point.
Tensor mul_relu(const Tensor& a, const Tensor& b, double scale, int64_t zero_point);
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim, double scale, int64_t zero_point);

}  // namespace ember::ao::nn::quantized::functional
