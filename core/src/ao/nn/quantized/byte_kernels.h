#pragma once
// Fast paths of quantized elementwise ops over the stored bytes of
// per-tensor quint8 / qint8 tensors (Note [Quantized byte kernels]).
#include <cstdint>

#include "ember/core/tensor.h"

namespace ember::ao::nn::quantized::functional::detail {

// relu(q): max(q, zero_point) per byte, in q's layout. Undefined when q is
// not a dense (row-major or channels-last) per-tensor 8-bit tensor.
Tensor relu_bytes(const Tensor& q);

// add / add_relu of two tensors of one shape and one dense layout, with
// PyTorch's float arithmetic (bit-exact to the general path). Undefined when
// the shapes or layouts differ (broadcasting takes the general path).
// `op` names the op in errors about the output's scale and zero point.
Tensor add_bytes(const Tensor& a, const Tensor& b, double scale, int64_t zero_point, bool relu, const char* op);

}  // namespace ember::ao::nn::quantized::functional::detail
