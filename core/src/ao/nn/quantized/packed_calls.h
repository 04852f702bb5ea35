#pragma once
// The quantized linear and conv2d with a state kept between calls: what the
// modules call (functional.cpp), so that the int8 kernel packs a module's
// weight once (QKernelState in kernels/slots/quantized_kernels.h).
#include "ember/ao/nn/quantized/functional.h"
#include "kernels/slots/quantized_kernels.h"

namespace ember::ao::nn::quantized::functional::detail {

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias, double scale, int64_t zero_point,
              bool relu, QKernelStatePtr* state);
// spatial: 1, 2 or 3; for 1 the weight may be given already unsqueezed to
// [O, C / groups, 1, k] (what the modules keep, so that the kernel's state
// sees one weight tensor).
Tensor conv(const Tensor& input, const Tensor& weight, const Tensor& bias, const QConvOptions& options,
            int spatial, double scale, int64_t zero_point, bool relu, QKernelStatePtr* state);
Tensor conv_transpose(const Tensor& input, const Tensor& weight, const Tensor& bias,
                      const QConvTransposeOptions& options, int spatial, double scale, int64_t zero_point,
                      QKernelStatePtr* state);

}  // namespace ember::ao::nn::quantized::functional::detail
