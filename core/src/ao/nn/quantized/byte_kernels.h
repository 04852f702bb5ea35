#pragma once
// Fast paths of quantized elementwise ops over the stored bytes of
// per-tensor quint8 / qint8 tensors (Note [Quantized byte kernels]).
#include <cmath>
#include <cstdint>
#include <optional>

#include "ember/core/tensor.h"

namespace ember::ao::nn::quantized::functional::detail {

// The byte kernels' layouts: row-major, or 4-d channels-last (nullopt: another).
std::optional<MemoryFormat> dense_layout(const Tensor& t);
// A CPU per-tensor quint8 / qint8 tensor.
bool per_tensor_bytes(const Tensor& t);

// relu(q): max(q, zero_point) per byte, in q's layout. Undefined when q is
// not a dense (row-major or channels-last) per-tensor 8-bit tensor.
Tensor relu_bytes(const Tensor& q);

// add / add_relu of two tensors of one shape and one dense layout, with
// PyTorch's float arithmetic (bit-exact to the general path). Undefined when
// the shapes or layouts differ (broadcasting takes the general path).
// `op` names the op in errors about the output's scale and zero point.
Tensor add_bytes(const Tensor& a, const Tensor& b, double scale, int64_t zero_point, bool relu, const char* op);

}  // namespace ember::ao::nn::quantized::functional::detail

#include <functional>
#include <optional>
#include <vector>

namespace ember::ao::nn::quantized::functional::detail {

// PyTorch 1.13's average requantizations (avg_pool2d, adaptive_avg_pool2d),
// which differ by layout: a channels-last input (its NHWC kernels) gives
// zp + nearbyint(acc * (1 / (1 / multiplier))), any other (its NCHW loops)
// nearbyint(acc * multiplier + zp), the zero point added before rounding, so
// halves round to even of the sum (one quantum apart for an odd zero point).
// All float32, with no fused multiply-add (byte_pool_kernels.cpp is compiled
// with -ffp-contract=off). multiplier: 1 / divisor (avg_pool2d) or 1 / height
// / width (adaptive).
int64_t average_q(int64_t acc, float multiplier, int64_t zp, bool channels_last);

// Elementwise maps of one 8-bit input through a 256-entry table (byte_lut_kernels.cpp):
// table[v] = clamp(f(v)) for every value v of q's dtype, so the result is the
// general path's by construction. Undefined when q is not a dense (row-major
// or channels-last) per-tensor quint8 / qint8 tensor.
Tensor map_bytes(const Tensor& q, double scale, int64_t zero_point, const std::function<int64_t(int64_t)>& f);
// Per-channel tables (channel = dim 1): table_c[v] = clamp(f(c, v)); 4-d q only.
Tensor map_bytes_per_channel(const Tensor& q, double scale, int64_t zero_point,
                             const std::function<int64_t(int64_t, int64_t)>& f);
// mul / mul_relu of two tensors of one shape and one dense layout: the
// integer product (q_a - z_a)(q_b - z_b) requantized with the float32
// multiplier, as the general path. Undefined otherwise.
Tensor mul_bytes(const Tensor& a, const Tensor& b, double scale, int64_t zero_point, bool relu, const char* op);
// cat: inputs whose parameters differ from (scale, zero_point) are mapped by
// a table of quantize(dequantize(v)) (computed by the general ops), then the
// bytes are joined by ember::cat. Undefined unless every input is a dense
// per-tensor 8-bit tensor.
Tensor cat_bytes(const std::vector<Tensor>& tensors, int64_t dim, double scale, int64_t zero_point);

// Poolings over the stored bytes of a dense 3-d/4-d (row-major, or 4-d
// channels-last) per-tensor 8-bit tensor (byte_pool_kernels.cpp), keeping
// the input's parameters and layout. Undefined where the general path must
// decide (other layouts, or options it rejects: it raises the errors).
Tensor max_pool2d_bytes(const Tensor& q, std::vector<int64_t> kernel, std::vector<int64_t> stride,
                        std::vector<int64_t> padding, std::vector<int64_t> dilation, bool ceil_mode);
Tensor avg_pool2d_bytes(const Tensor& q, std::vector<int64_t> kernel, std::vector<int64_t> stride,
                        std::vector<int64_t> padding, bool ceil_mode, bool count_include_pad,
                        std::optional<int64_t> divisor_override);
Tensor adaptive_avg_pool2d_bytes(const Tensor& q, int64_t out_h, int64_t out_w);

}  // namespace ember::ao::nn::quantized::functional::detail
