#pragma once
// The quantized linear and conv2d with a state kept between calls: what the
// modules call (functional.cpp), so that the int8 kernel packs a module's
// weight once (QKernelState in kernels/slots/quantized_kernels.h).
#include "ember/ao/nn/quantized/functional.h"
#include "kernels/slots/quantized_kernels.h"

namespace ember::ao::nn::quantized::functional::detail {

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias, double scale, int64_t zero_point,
              bool relu, QKernelStatePtr* state);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const QConv2dOptions& options,
              double scale, int64_t zero_point, bool relu, QKernelStatePtr* state);

}  // namespace ember::ao::nn::quantized::functional::detail
