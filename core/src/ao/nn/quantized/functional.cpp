#include "ember/ao/nn/quantized/functional.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "ember/core/quantizer.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/pooling.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/quantize.h"
#include "ember/ops/shape.h"
#include "ao/nn/quantized/byte_kernels.h"
#include "ao/nn/quantized/packed_calls.h"
#include "kernels/slots/quantized_kernels.h"

namespace ember::ao::nn::quantized {
EMBER_DEFINE_SLOT(qconv_slot, QConvFn, "quantized_conv");
EMBER_DEFINE_SLOT(qlinear_slot, QLinearFn, "quantized_linear");
}  // namespace ember::ao::nn::quantized

namespace ember::ao::nn::quantized::functional {

namespace F = ember::nn::functional;

// Note [Quantized kernels]
// Convolution and linear run on oneDNN's int8 primitives (qconv_slot,
// qlinear_slot; kernels/cpu/dnnl_quantized.cpp, Note [oneDNN int8
// requantization]): u8 (or s8) activations times s8 weights with int32
// sums, requantized in float32 inside the primitive exactly as PyTorch's
// onednn engine does, so the integers are torch's. A weight with a non-zero
// zero point (torch's onednn engine refuses one; oneDNN's convolution takes
// none), an empty weight, or a device without the kernel take the float64
// path: the integers, centred, are multiplied as float64 through the float
// conv2d and matmul (every partial sum of 8-bit products stays far below
// 2^53, so the sums are exact integers whatever the order), then requantized
// once per output: q = clamp(nearbyint(acc * x_scale * w_scale / y_scale +
// bias / y_scale) + y_zp), in float64; that can differ from oneDNN's float32
// by one quantum where acc * multiplier lands within float32 rounding of a
// half. The int8 convolution returns a channels-last tensor, as torch's.
// The elementwise kernels copy PyTorch's vectorized formulas: dequantize as
// fma(scale, q, -zero_point * scale) in float32 (add, hardswish,
// hardsigmoid, batch_norm2d), quantize as nearbyint(y * (1 / scale)) +
// zero_point; mul requantizes the integer product (q_a - z_a)(q_b - z_b)
// with the float32 multiplier s_a * s_b / s_y; the average poolings sum the
// integers and divide through PyTorch's multiplier. max_pool2d and relu work
// on the integers and keep the input's parameters.

namespace {
const Quantizer& per_tensor(const Tensor& t, const char* op, const char* what = "input") {
  EMBER_CHECK(t.defined() && t.is_quantized(), op, ": ", what, " must be a quantized tensor, got ",
              t.defined() ? dtype_name(t.dtype()) : "an undefined tensor");
  const Quantizer& q = *t.impl()->quantizer();
  EMBER_CHECK(!q.is_per_channel(), op, ": ", what, " must be quantized per tensor, got ", q.qscheme());
  EMBER_CHECK(q.dtype() != kQUInt4x2 && q.dtype() != kQInt32, op, ": ", what, " must be quint8 or qint8, got ",
              q.dtype());
  return q;
}

// Stored integers minus zero points, as float64 (exact). Per-channel weights
// subtract each channel's zero point along their axis.
Tensor centered(const Tensor& q) {
  const Quantizer& qz = *q.impl()->quantizer();
  Tensor ints = q.int_repr().to(kFloat64);
  if (!qz.is_per_channel()) return qz.zero_point() ? ints - static_cast<double>(qz.zero_point()) : ints;
  DimVector shape(q.dim(), 1);
  shape[qz.axis()] = q.size(qz.axis());
  return ints - qz.zero_points().to(kFloat64).view(shape);
}

// The weight's scale per output channel (float64 [O]).
Tensor weight_scales(const Tensor& w, const char* op) {
  EMBER_CHECK(w.defined() && w.is_quantized() && w.dtype() == kQInt8, op, ": weight must be a qint8 tensor, got ",
              w.defined() ? dtype_name(w.dtype()) : "an undefined tensor");
  const Quantizer& q = *w.impl()->quantizer();
  if (!q.is_per_channel()) return full({w.size(0)}, q.scale(), kFloat64);
  EMBER_CHECK(q.axis() == 0, op, ": per-channel weights must be quantized along dim 0 (output channels), got axis ",
              q.axis());
  return q.scales();
}

// Exact integer values (float64) clamped to the dtype's range, as a
// quantized tensor with (scale, zero_point).
Tensor make_quantized(const Tensor& values, DType dtype, double scale, int64_t zero_point) {
  Tensor ints = values.clamp(static_cast<double>(quant_min_of(dtype)), static_cast<double>(quant_max_of(dtype)))
                    .to(to_underlying_dtype(dtype));
  return _make_per_tensor_quantized_tensor(ints, scale, zero_point);
}

void check_bias(const Tensor& bias, int64_t channels, const char* op) {
  if (!bias.defined()) return;
  EMBER_CHECK(bias.dim() == 1 && bias.size(0) == channels, op, ": bias must have ", channels,
              " elements (one per output channel), got sizes ", bias.sizes());
  EMBER_CHECK(bias.is_floating_point(), op, ": bias must be a floating point tensor, got ", bias.dtype());
}

// Whether the int8 kernel of `slot` takes x and w: one for x's device and
// dtype, and a non-empty weight whose zero points are all 0 (oneDNN's
// convolution and torch's onednn engine take symmetric weights only).
template <class Fn>
bool int8_kernel_takes(const KernelSlot<Fn>& slot, const Tensor& x, const Tensor& w) {
  if (!slot.supports(x.device(), x.dtype()) || w.numel() == 0) return false;
  const Quantizer& q = *w.impl()->quantizer();
  if (!q.is_per_channel()) return q.zero_point() == 0;
  const int64_t* zp = q.zero_points().data_ptr<int64_t>();
  return std::all_of(zp, zp + q.zero_points().numel(), [](int64_t v) { return v == 0; });
}

// acc [..., O] (channel last) or [N, O, H, W] (channel dim 1) requantized.
Tensor requantize(const Tensor& acc, double x_scale, const Tensor& w_scales, const Tensor& bias, double scale,
                  int64_t zero_point, bool relu, DType dtype, int64_t channel_dim, const char* op) {
  Quantizer::per_tensor_affine(dtype, scale, zero_point, op);  // checks the output parameters
  DimVector shape(acc.dim(), 1);
  shape[channel_dim] = acc.size(channel_dim);
  Tensor y = acc * (w_scales * (x_scale / scale)).view(shape);
  check_bias(bias, acc.size(channel_dim), op);
  if (bias.defined()) y = y + (bias.to(kFloat64) / scale).view(shape);
  y = y.round() + static_cast<double>(zero_point);
  if (relu) y = y.clamp_min(static_cast<double>(zero_point));
  return make_quantized(y, dtype, scale, zero_point);
}

inline int64_t clamp_q(double v, int64_t lo, int64_t hi) {
  if (!(v == v)) return lo;
  return static_cast<int64_t>(std::min<double>(std::max<double>(v, static_cast<double>(lo)), static_cast<double>(hi)));
}

// Applies f(q) -> int64 to every stored integer of a (contiguous copy of) x,
// giving a quantized tensor of x's dtype with (scale, zero_point).
template <class Fn>
Tensor map_ints(const Tensor& x, double scale, int64_t zero_point, Fn f) {
  // Dense 8-bit inputs: the same map through a table of the 256 values.
  if (Tensor fast = detail::map_bytes(x, scale, zero_point, f); fast.defined()) return fast;
  const Tensor src = x.int_repr().to(kInt64).contiguous();
  Tensor out = empty(src.sizes(), kInt64);
  const int64_t* s = src.data_ptr<int64_t>();
  int64_t* d = out.data_ptr<int64_t>();
  const int64_t lo = quant_min_of(x.dtype()), hi = quant_max_of(x.dtype());
  for (int64_t i = 0; i < src.numel(); ++i) d[i] = std::clamp<int64_t>(f(s[i]), lo, hi);
  return _make_per_tensor_quantized_tensor(out.to(to_underlying_dtype(x.dtype())), scale, zero_point);
}

// PyTorch's vectorized dequantize: fma(scale, q, -zero_point * scale) in float32.
struct Dequantizer {
  float scale, premul;
  Dequantizer(const Quantizer& q)
      : scale(static_cast<float>(q.scale())), premul(static_cast<float>(q.scale()) * static_cast<float>(-q.zero_point())) {}
  float operator()(int64_t v) const { return std::fma(scale, static_cast<float>(v), premul); }
};
// PyTorch's vectorized quantize: nearbyint(y * float(1 / scale)) + zero_point.
struct Requantizer {
  float inv;
  int64_t zero_point;
  Requantizer(double scale, int64_t zp) : inv(static_cast<float>(1.0 / scale)), zero_point(zp) {}
  int64_t operator()(float y) const {
    const float r = std::nearbyint(y * inv);
    if (!(r == r)) return INT64_MIN / 2;
    return static_cast<int64_t>(std::clamp(r, -4.0e9f, 4.0e9f)) + zero_point;
  }
};
}  // namespace

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias, double scale, int64_t zero_point,
              bool relu) {
  return detail::linear(input, weight, bias, scale, zero_point, relu, nullptr);
}

Tensor detail::linear(const Tensor& input, const Tensor& weight, const Tensor& bias, double scale,
                      int64_t zero_point, bool relu, QKernelStatePtr* state) {
  const char* op = "quantized::linear";
  const Quantizer& xq = per_tensor(input, op);
  const Tensor ws = weight_scales(weight, op);
  EMBER_CHECK(weight.dim() == 2, op, ": weight must be 2-d [out, in], got sizes ", weight.sizes());
  EMBER_CHECK(input.dim() >= 1 && input.size(-1) == weight.size(1), op, ": input's last dim (",
              input.dim() ? input.size(-1) : 0, ") must equal the weight's in_features (", weight.size(1), ")");
  if (int8_kernel_takes(qlinear_slot, input, weight)) {
    check_bias(bias, weight.size(0), op);
    const int64_t K = weight.size(1), N = weight.size(0);
    const Tensor x = input.reshape({input.numel() / K, K}).contiguous();
    Tensor y = empty_quantized({x.size(0), N}, Quantizer::per_tensor_affine(xq.dtype(), scale, zero_point, op));
    if (y.numel() > 0) qlinear_slot(x.device())(x, weight, bias, y, relu, state);
    DimVector out_sizes(input.sizes());
    out_sizes.back() = N;
    return y.view(out_sizes);
  }
  Tensor acc = matmul(centered(input), centered(weight).t());
  return requantize(acc, xq.scale(), ws, bias, scale, zero_point, relu, xq.dtype(), acc.dim() - 1, op);
}

Tensor linear_dynamic(const Tensor& input, const Tensor& weight, const Tensor& bias, bool reduce_range, bool relu) {
  const char* op = "quantized::linear_dynamic";
  EMBER_CHECK(input.defined() && input.is_floating_point(), op, ": input must be a floating point tensor, got ",
              input.defined() ? dtype_name(input.dtype()) : "an undefined tensor");
  const Tensor ws = weight_scales(weight, op);
  EMBER_CHECK(weight.dim() == 2 && input.dim() >= 1 && input.size(-1) == weight.size(1), op,
              ": input's last dim must equal the weight's in_features (", weight.size(1), "), got input sizes ",
              input.sizes(), " and weight sizes ", weight.sizes());
  const Tensor xq = quantize_per_tensor_dynamic(input, kQUInt8, reduce_range);
  Tensor acc = matmul(centered(xq), centered(weight).t());
  Tensor y = (acc * (ws * xq.q_scale())).to(kFloat32);
  if (bias.defined()) {
    EMBER_CHECK(bias.dim() == 1 && bias.size(0) == weight.size(0), op, ": bias must have ", weight.size(0),
                " elements, got sizes ", bias.sizes());
    y = y + bias.to(kFloat32);
  }
  return relu ? y.relu() : y;
}

namespace {
// The convolution's geometry over `spatial` dims, checked, and its output sizes.
QConvParams conv_params(const Tensor& x, const Tensor& w, const QConvOptions& o, int spatial, bool relu,
                        DimVector& out, const char* op) {
  QConvParams p;
  p.groups = o.groups;
  p.relu = relu;
  const int64_t C = x.size(1), O = w.size(0);
  EMBER_CHECK(o.groups > 0 && O % o.groups == 0 && w.size(1) * o.groups == C, op, ": a weight of sizes ", w.sizes(),
              " with groups=", o.groups, " does not fit an input of ", C, " channels");
  const std::vector<int64_t> st = o.stride.expand(spatial, op, "stride"),
                             pad = o.padding.expand(spatial, op, "padding"),
                             dil = o.dilation.expand(spatial, op, "dilation");
  out = {x.size(0), O};
  for (int i = 0; i < spatial; ++i) {
    EMBER_CHECK(st[i] > 0 && dil[i] > 0 && pad[i] >= 0, op,
                ": stride and dilation must be positive and padding non-negative, got stride ", st[i],
                ", dilation ", dil[i], ", padding ", pad[i]);
    const int64_t extent = dil[i] * (w.size(2 + i) - 1) + 1, in = x.size(2 + i) + 2 * pad[i];
    EMBER_CHECK(in >= extent, op, ": the kernel (size ", w.size(2 + i), ", dilation ", dil[i],
                ") is larger than the padded input (", x.size(2 + i), " + 2 * ", pad[i], ") in dim ", 2 + i);
    out.push_back((in - extent) / st[i] + 1);
    p.stride.push_back(st[i]);
    p.padding_l.push_back(pad[i]);
    p.padding_r.push_back(pad[i]);
    p.dilation.push_back(dil[i]);
  }
  return p;
}

// The transposed convolution's geometry: weight [C, O / groups, k...],
// out = (in - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1.
QConvParams conv_transpose_params(const Tensor& x, const Tensor& w, const QConvTransposeOptions& o, int spatial,
                                  DimVector& out, const char* op) {
  QConvParams p;
  p.groups = o.groups;
  p.transposed = true;
  const int64_t C = x.size(1);
  EMBER_CHECK(o.groups > 0 && C % o.groups == 0 && w.size(0) == C, op, ": a weight of sizes ", w.sizes(),
              " with groups=", o.groups, " does not fit an input of ", C,
              " channels (a transposed convolution's weight is [in_channels, out_channels / groups, k...])");
  const std::vector<int64_t> st = o.stride.expand(spatial, op, "stride"),
                             pad = o.padding.expand(spatial, op, "padding"),
                             opad = o.output_padding.expand(spatial, op, "output_padding"),
                             dil = o.dilation.expand(spatial, op, "dilation");
  out = {x.size(0), w.size(1) * o.groups};
  for (int i = 0; i < spatial; ++i) {
    EMBER_CHECK(st[i] > 0 && dil[i] > 0 && pad[i] >= 0 && opad[i] >= 0, op,
                ": stride and dilation must be positive, padding and output_padding non-negative, got stride ",
                st[i], ", dilation ", dil[i], ", padding ", pad[i], ", output_padding ", opad[i]);
    EMBER_CHECK(opad[i] < st[i] || opad[i] < dil[i], op, ": output_padding (", opad[i],
                ") must be smaller than either stride (", st[i], ") or dilation (", dil[i], ") in dim ", 2 + i);
    const int64_t size = (x.size(2 + i) - 1) * st[i] - 2 * pad[i] + dil[i] * (w.size(2 + i) - 1) + opad[i] + 1;
    EMBER_CHECK(size > 0, op, ": the output would have size ", size, " in dim ", 2 + i, " (input ", x.size(2 + i),
                ", kernel ", w.size(2 + i), ", stride ", st[i], ", padding ", pad[i], ")");
    out.push_back(size);
    p.stride.push_back(st[i]);
    p.padding_l.push_back(pad[i]);
    p.padding_r.push_back(pad[i] - opad[i]);
    p.dilation.push_back(dil[i]);
  }
  return p;
}

MemoryFormat channels_last_of(int spatial) {
  return spatial == 3 ? MemoryFormat::ChannelsLast3d : MemoryFormat::ChannelsLast;
}

// The int8 kernel's output (channels-last, per-tensor parameters) and call,
// shared by convolutions and transposed convolutions.
Tensor run_int8_conv(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef out,
                     const QConvParams& p, DType dtype, double scale, int64_t zero_point, int spatial,
                     QKernelStatePtr* state, const char* op) {
  Tensor y = empty_quantized(out, Quantizer::per_tensor_affine(dtype, scale, zero_point, op), channels_last_of(spatial));
  if (y.numel() > 0) {
    const Tensor x = input.contiguous(channels_last_of(spatial));
    qconv_slot(x.device())(x, weight, bias, y, p, state);
  }
  return y;
}

const char* conv_op_name(int spatial, bool transposed) {
  static const char* names[2][3] = {{"quantized::conv1d", "quantized::conv2d", "quantized::conv3d"},
                                    {"quantized::conv_transpose1d", "quantized::conv_transpose2d",
                                     "quantized::conv_transpose3d"}};
  return names[transposed ? 1 : 0][spatial - 1];
}

// A 1-d convolution as torch runs it: over [N, C, 1, L] with a [.., 1, k]
// weight (unless the caller unsqueezed it already) and options (1, v).
template <class Options>
Options as_2d(const Options& o, const char* op) {
  Options r = o;
  auto widen = [&](const ember::nn::functional::ExpandingInts& v, int64_t first, const char* what) {
    return ember::nn::functional::ExpandingInts(std::vector<int64_t>{first, v.expand(1, op, what)[0]});
  };
  r.stride = widen(o.stride, 1, "stride");
  r.padding = widen(o.padding, 0, "padding");
  r.dilation = widen(o.dilation, 1, "dilation");
  if constexpr (std::is_same_v<Options, QConvTransposeOptions>) r.output_padding = widen(o.output_padding, 0, "output_padding");
  return r;
}
}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const QConvOptions& options,
              double scale, int64_t zero_point, bool relu) {
  return detail::conv(input, weight, bias, options, 2, scale, zero_point, relu, nullptr);
}
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, const QConvOptions& options,
              double scale, int64_t zero_point, bool relu) {
  return detail::conv(input, weight, bias, options, 1, scale, zero_point, relu, nullptr);
}
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, const QConvOptions& options,
              double scale, int64_t zero_point, bool relu) {
  return detail::conv(input, weight, bias, options, 3, scale, zero_point, relu, nullptr);
}
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const QConvTransposeOptions& options, double scale, int64_t zero_point) {
  return detail::conv_transpose(input, weight, bias, options, 1, scale, zero_point, nullptr);
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const QConvTransposeOptions& options, double scale, int64_t zero_point) {
  return detail::conv_transpose(input, weight, bias, options, 2, scale, zero_point, nullptr);
}
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const QConvTransposeOptions& options, double scale, int64_t zero_point) {
  return detail::conv_transpose(input, weight, bias, options, 3, scale, zero_point, nullptr);
}

Tensor detail::conv(const Tensor& input, const Tensor& weight, const Tensor& bias, const QConvOptions& options,
                    int spatial, double scale, int64_t zero_point, bool relu, QKernelStatePtr* state) {
  const char* op = conv_op_name(spatial, false);
  const Quantizer& xq = per_tensor(input, op);
  const Tensor ws = weight_scales(weight, op);
  const bool w_unsqueezed = spatial == 1 && weight.dim() == 4 && weight.size(2) == 1;
  EMBER_CHECK(input.dim() == spatial + 2 && (weight.dim() == spatial + 2 || w_unsqueezed), op, ": expected a ",
              spatial + 2, "-d input and weight, got sizes ", input.sizes(), " and ", weight.sizes());
  if (spatial == 1) {
    const Tensor w2 = w_unsqueezed ? weight : weight.unsqueeze(2);
    return detail::conv(input.unsqueeze(2), w2, bias, as_2d(options, op), 2, scale, zero_point, relu, state)
        .squeeze(2);
  }
  if (int8_kernel_takes(qconv_slot, input, weight)) {
    check_bias(bias, weight.size(0), op);
    DimVector out;
    const QConvParams p = conv_params(input, weight, options, spatial, relu, out, op);
    return run_int8_conv(input, weight, bias, out, p, xq.dtype(), scale, zero_point, spatial, state, op);
  }
  F::ConvFuncOptions o;
  o.stride = options.stride;
  o.padding = F::ConvPadding(options.padding.values);
  o.dilation = options.dilation;
  o.groups = options.groups;
  // Zero padding of the centred input is padding with the zero point.
  Tensor acc = spatial == 2 ? F::conv2d(centered(input), centered(weight), o)
                            : F::conv3d(centered(input), centered(weight), o);
  return requantize(acc, xq.scale(), ws, bias, scale, zero_point, relu, xq.dtype(), 1, op);
}

Tensor detail::conv_transpose(const Tensor& input, const Tensor& weight, const Tensor& bias,
                              const QConvTransposeOptions& options, int spatial, double scale, int64_t zero_point,
                              QKernelStatePtr* state) {
  const char* op = conv_op_name(spatial, true);
  const Quantizer& xq = per_tensor(input, op);
  EMBER_CHECK(weight.defined() && weight.is_quantized() && weight.dtype() == kQInt8, op,
              ": weight must be a qint8 tensor, got ", weight.defined() ? dtype_name(weight.dtype()) : "an undefined tensor");
  EMBER_CHECK(!weight.impl()->quantizer()->is_per_channel(), op,
              ": the weight must be quantized per tensor (per-channel weights are not supported for transposed "
              "convolutions, as in torch), got ", weight.qscheme());
  const bool w_unsqueezed = spatial == 1 && weight.dim() == 4 && weight.size(2) == 1;
  EMBER_CHECK(input.dim() == spatial + 2 && (weight.dim() == spatial + 2 || w_unsqueezed), op, ": expected a ",
              spatial + 2, "-d input and weight, got sizes ", input.sizes(), " and ", weight.sizes());
  if (spatial == 1) {
    const Tensor w2 = w_unsqueezed ? weight : weight.unsqueeze(2);
    return detail::conv_transpose(input.unsqueeze(2), w2, bias, as_2d(options, op), 2, scale, zero_point, state)
        .squeeze(2);
  }
  DimVector out;
  const QConvParams p = conv_transpose_params(input, weight, options, spatial, out, op);
  check_bias(bias, out[1], op);
  if (int8_kernel_takes(qconv_slot, input, weight)) {
    return run_int8_conv(input, weight, bias, out, p, xq.dtype(), scale, zero_point, spatial, state, op);
  }
  F::ConvTransposeFuncOptions o;
  o.stride = options.stride;
  o.padding = options.padding;
  o.output_padding = options.output_padding;
  o.dilation = options.dilation;
  o.groups = options.groups;
  Tensor acc = spatial == 2 ? F::conv_transpose2d(centered(input), centered(weight), o)
                            : F::conv_transpose3d(centered(input), centered(weight), o);
  return requantize(acc, xq.scale(), full({out[1]}, weight.q_scale(), kFloat64), bias, scale, zero_point, false,
                    xq.dtype(), 1, op);
}

namespace {
// Pool options the byte kernels take: one or two values (stride may be empty).
bool two_values(const F::ExpandingInts& v, bool may_be_empty = false) {
  return v.values.size() == 1 || v.values.size() == 2 || (may_be_empty && v.values.empty());
}
std::vector<int64_t> pair_of(const F::ExpandingInts& v) {
  return v.values.size() == 1 ? std::vector<int64_t>{v.values[0], v.values[0]} : v.values;
}
Tensor mul_impl(const Tensor& a, const Tensor& b, double scale, int64_t zero_point, bool relu, const char* op);
}  // namespace

Tensor relu(const Tensor& input) {
  const Quantizer& q = per_tensor(input, "quantized::relu");
  if (Tensor fast = detail::relu_bytes(input); fast.defined()) return fast;
  const int64_t zp = q.zero_point();
  return map_ints(input, q.scale(), zp, [zp](int64_t v) { return std::max(v, zp); });
}

Tensor max_pool2d(const Tensor& input, const F::ExpandingInts& kernel_size, const F::MaxPoolFuncOptions& options) {
  const Quantizer& q = per_tensor(input, "quantized::max_pool2d");
  if (two_values(kernel_size) && two_values(options.stride, true) && two_values(options.padding) &&
      two_values(options.dilation)) {
    const std::vector<int64_t> k = pair_of(kernel_size);
    const std::vector<int64_t> st = options.stride.values.empty() ? k : pair_of(options.stride);
    if (Tensor fast = detail::max_pool2d_bytes(input, k, st, pair_of(options.padding), pair_of(options.dilation),
                                               options.ceil_mode);
        fast.defined())
      return fast;
  }
  // float32 holds every 8-bit value exactly (half the traffic of float64).
  Tensor v = F::max_pool2d(input.int_repr().to(kFloat32), kernel_size, options);
  return make_quantized(v, q.dtype(), q.scale(), q.zero_point());
}

using detail::average_q;

Tensor avg_pool2d(const Tensor& input, const F::ExpandingInts& kernel_size, const F::AvgPoolFuncOptions& options) {
  const char* op = "quantized::avg_pool2d";
  const Quantizer& q = per_tensor(input, op);
  if (two_values(kernel_size) && two_values(options.stride, true) && two_values(options.padding)) {
    const std::vector<int64_t> k = pair_of(kernel_size);
    const std::vector<int64_t> st = options.stride.values.empty() ? k : pair_of(options.stride);
    if (Tensor fast = detail::avg_pool2d_bytes(input, k, st, pair_of(options.padding), options.ceil_mode,
                                               options.count_include_pad, options.divisor_override);
        fast.defined())
      return fast;
  }
  F::AvgPoolFuncOptions sum_opts = options;
  sum_opts.divisor_override = 1;
  sum_opts.count_include_pad = true;
  const Tensor x = input.int_repr().to(kFloat64);
  const Tensor ones = ember::ones(x.sizes(), kFloat64);
  // Window sums (padding adds nothing) and element counts.
  const Tensor sums = F::avg_pool2d(x, kernel_size, sum_opts).contiguous();
  const Tensor counts = F::avg_pool2d(ones, kernel_size, sum_opts).contiguous();
  Tensor divisors;
  if (options.divisor_override) {
    EMBER_CHECK(*options.divisor_override != 0, op, ": divisor_override must be non-zero");
    divisors = full(sums.sizes(), static_cast<double>(*options.divisor_override), kFloat64);
  } else if (options.count_include_pad) {
    F::AvgPoolFuncOptions pad_opts = options;
    pad_opts.count_include_pad = true;
    divisors = (counts / F::avg_pool2d(ones, kernel_size, pad_opts)).round().contiguous();
  } else {
    divisors = counts;
  }
  const int64_t zp = q.zero_point(), lo = quant_min_of(q.dtype()), hi = quant_max_of(q.dtype());
  const bool cl = input.dim() == 4 && input.is_contiguous(MemoryFormat::ChannelsLast);  // torch's formula choice
  Tensor out = empty(sums.sizes(), kInt64);
  const double* s = sums.data_ptr<double>();
  const double* c = counts.data_ptr<double>();
  const double* dv = divisors.data_ptr<double>();
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t i = 0; i < out.numel(); ++i) {
    const int64_t acc = static_cast<int64_t>(s[i]) - zp * static_cast<int64_t>(c[i]);
    const float multiplier = 1.0f / static_cast<float>(dv[i]);
    o[i] = std::clamp<int64_t>(average_q(acc, multiplier, zp, cl), lo, hi);
  }
  return _make_per_tensor_quantized_tensor(out.to(to_underlying_dtype(q.dtype())), q.scale(), zp);
}

Tensor adaptive_avg_pool2d(const Tensor& input, const F::ExpandingInts& output_size) {
  const char* op = "quantized::adaptive_avg_pool2d";
  const Quantizer& q = per_tensor(input, op);
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, op, ": expected a 3-d or 4-d input, got sizes ", input.sizes());
  const std::vector<int64_t> os = output_size.expand(2, op, "output_size");
  const int64_t H = input.size(-2), W = input.size(-1), OH = os[0], OW = os[1];
  EMBER_CHECK(OH >= 0 && OW >= 0, op, ": output_size must be non-negative, got ", OH, "x", OW);
  if (Tensor fast = detail::adaptive_avg_pool2d_bytes(input, OH, OW); fast.defined()) return fast;
  const Tensor x = input.int_repr().to(kInt64).contiguous();
  const int64_t planes = x.numel() / std::max<int64_t>(H * W, 1);
  DimVector sizes(input.sizes());
  sizes[sizes.size() - 2] = OH;
  sizes[sizes.size() - 1] = OW;
  Tensor out = empty(sizes, kInt64);
  const int64_t* s = x.data_ptr<int64_t>();
  int64_t* o = out.data_ptr<int64_t>();
  const int64_t zp = q.zero_point(), lo = quant_min_of(q.dtype()), hi = quant_max_of(q.dtype());
  const bool cl = input.dim() == 4 && input.is_contiguous(MemoryFormat::ChannelsLast);  // torch's formula choice
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oh = 0; oh < OH; ++oh) {
      const int64_t h0 = oh * H / OH, h1 = ((oh + 1) * H + OH - 1) / OH;
      for (int64_t ow = 0; ow < OW; ++ow) {
        const int64_t w0 = ow * W / OW, w1 = ((ow + 1) * W + OW - 1) / OW;
        int64_t acc = -zp * (h1 - h0) * (w1 - w0);
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w) acc += s[(p * H + h) * W + w];
        const float multiplier = 1.0f / static_cast<float>(h1 - h0) / static_cast<float>(w1 - w0);
        o[(p * OH + oh) * OW + ow] = std::clamp<int64_t>(average_q(acc, multiplier, zp, cl), lo, hi);
      }
    }
  return _make_per_tensor_quantized_tensor(out.to(to_underlying_dtype(q.dtype())), q.scale(), zp);
}

Tensor hardswish(const Tensor& input, double scale, int64_t zero_point) {
  const Quantizer& q = per_tensor(input, "quantized::hardswish");
  Quantizer::per_tensor_affine(q.dtype(), scale, zero_point, "quantized::hardswish");
  const Dequantizer dq(q);
  const Requantizer rq(scale, zero_point);
  return map_ints(input, scale, zero_point, [&](int64_t v) {
    const float x = dq(v);
    return rq(x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f);
  });
}

// torch's leaky_qrelu_out_kernel: dequantize (fma), x >= 0 ? x : x * slope
// in float32, requantize with the output's parameters.
Tensor leaky_relu(const Tensor& input, double negative_slope, double scale, int64_t zero_point) {
  const Quantizer& q = per_tensor(input, "quantized::leaky_relu");
  Quantizer::per_tensor_affine(q.dtype(), scale, zero_point, "quantized::leaky_relu");
  const Dequantizer dq(q);
  const Requantizer rq(scale, zero_point);
  const float slope = static_cast<float>(negative_slope);
  return map_ints(input, scale, zero_point, [&](int64_t v) {
    const float x = dq(v);
    return rq(x > 0.0f ? x : x * slope);
  });
}

// torch's qelu_kernel (quantized::elu: scale and input_scale 1): x >= 0 ? x
// : (exp(x) - 1) * alpha in float32. torch's vectorized exp (Sleef, 1 ulp) and
// std::exp can round apart, so an output may differ by one quantum.
Tensor elu(const Tensor& input, double scale, int64_t zero_point, double alpha) {
  const Quantizer& q = per_tensor(input, "quantized::elu");
  Quantizer::per_tensor_affine(q.dtype(), scale, zero_point, "quantized::elu");
  const Dequantizer dq(q);
  const Requantizer rq(scale, zero_point);
  const float a = static_cast<float>(alpha);
  return map_ints(input, scale, zero_point, [&](int64_t v) {
    const float x = dq(v);
    return rq(x >= 0.0f ? x : (std::exp(x) - 1.0f) * a);
  });
}

Tensor hardsigmoid(const Tensor& input) {
  const Quantizer& q = per_tensor(input, "quantized::hardsigmoid");
  // PyTorch's fixed output parameters: [0, 1] over the whole integer range.
  const double scale = 1.0 / 256.0;
  const int64_t zp = q.dtype() == kQInt8 ? -128 : 0;
  const Dequantizer dq(q);
  const Requantizer rq(scale, zp);
  return map_ints(input, scale, zp, [&](int64_t v) {
    const float x = dq(v);
    return rq(std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f);
  });
}

Tensor batch_norm2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                    const Tensor& running_var, double eps, double scale, int64_t zero_point) {
  const char* op = "quantized::batch_norm2d";
  const Quantizer& q = per_tensor(input, op);
  Quantizer::per_tensor_affine(q.dtype(), scale, zero_point, op);
  EMBER_CHECK(input.dim() == 4, op, ": expected a 4-d input, got sizes ", input.sizes());
  const int64_t C = input.size(1);
  EMBER_CHECK(running_mean.defined() && running_var.defined() && running_mean.numel() == C &&
                  running_var.numel() == C,
              op, ": running_mean and running_var must have ", C, " elements");
  const Tensor mean = running_mean.to(kFloat32).contiguous(), var = running_var.to(kFloat32).contiguous();
  const Tensor w = weight.defined() ? weight.to(kFloat32).contiguous() : ember::ones({C}, kFloat32);
  const Tensor b = bias.defined() ? bias.to(kFloat32).contiguous() : zeros({C}, kFloat32);
  EMBER_CHECK(w.numel() == C && b.numel() == C, op, ": weight and bias must have ", C, " elements");
  // PyTorch's compute_fused_params, in float32.
  const float in_scale = static_cast<float>(q.scale()), out_scale = static_cast<float>(scale);
  std::vector<float> alpha(C), beta(C);
  for (int64_t c = 0; c < C; ++c) {
    const float inv_sigma = 1.0f / std::sqrt(var.data_ptr<float>()[c] + static_cast<float>(eps));
    const float wv = w.data_ptr<float>()[c];
    alpha[c] = inv_sigma * wv * (in_scale / out_scale);
    beta[c] = (b.data_ptr<float>()[c] - mean.data_ptr<float>()[c] * inv_sigma * wv) / out_scale;
  }
  const float in_zp_f = static_cast<float>(q.zero_point());
  const int64_t lo_q = quant_min_of(q.dtype()), hi_q = quant_max_of(q.dtype());
  if (Tensor fast = detail::map_bytes_per_channel(input, scale, zero_point,
                                                  [&](int64_t c, int64_t v) {
                                                    const float y = std::fma(alpha[c], static_cast<float>(v),
                                                                             -alpha[c] * in_zp_f) + beta[c];
                                                    return clamp_q(static_cast<double>(std::nearbyint(y)) +
                                                                       static_cast<double>(zero_point),
                                                                   lo_q, hi_q);
                                                  });
      fast.defined())
    return fast;
  const Tensor x = input.int_repr().to(kInt64).contiguous();
  Tensor out = empty(x.sizes(), kInt64);
  const int64_t plane = input.size(2) * input.size(3), lo = quant_min_of(q.dtype()), hi = quant_max_of(q.dtype());
  const int64_t* s = x.data_ptr<int64_t>();
  int64_t* o = out.data_ptr<int64_t>();
  const float in_zp = static_cast<float>(q.zero_point());
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t c = (i / plane) % C;
    const float y = std::fma(alpha[c], static_cast<float>(s[i]), -alpha[c] * in_zp) + beta[c];
    o[i] = clamp_q(static_cast<double>(std::nearbyint(y)) + static_cast<double>(zero_point), lo, hi);
  }
  return _make_per_tensor_quantized_tensor(out.to(to_underlying_dtype(q.dtype())), scale, zero_point);
}

namespace {
// (a, b) broadcast, as contiguous int64 tensors of their stored integers.
std::pair<Tensor, Tensor> broadcast_ints(const Tensor& a, const Tensor& b, const char* op) {
  const Quantizer& qa = per_tensor(a, op, "first input");
  const Quantizer& qb = per_tensor(b, op, "second input");
  EMBER_CHECK(qa.dtype() == qb.dtype(), op, ": both inputs must have one quantized dtype, got ", qa.dtype(), " and ",
              qb.dtype());
  const Tensor ia = a.int_repr().to(kInt64), ib = b.int_repr().to(kInt64);
  const DimVector shape((ia + ib).sizes());  // broadcasting's shape (and its error, naming both sizes)
  return {ia.expand(shape).contiguous(), ib.expand(shape).contiguous()};
}

Tensor add_impl(const Tensor& a, const Tensor& b, double scale, int64_t zero_point, bool relu, const char* op) {
  if (Tensor fast = detail::add_bytes(a, b, scale, zero_point, relu, op); fast.defined()) return fast;
  auto [ia, ib] = broadcast_ints(a, b, op);
  const DType dtype = a.dtype();
  Quantizer::per_tensor_affine(dtype, scale, zero_point, op);
  const Dequantizer da(*a.impl()->quantizer()), db(*b.impl()->quantizer());
  const Requantizer rq(scale, zero_point);
  Tensor out = empty(ia.sizes(), kInt64);
  const int64_t *pa = ia.data_ptr<int64_t>(), *pb = ib.data_ptr<int64_t>();
  int64_t* o = out.data_ptr<int64_t>();
  const int64_t lo = quant_min_of(dtype), hi = quant_max_of(dtype);
  for (int64_t i = 0; i < out.numel(); ++i) {
    float c = da(pa[i]) + db(pb[i]);
    if (relu) c = std::max(c, 0.0f);
    o[i] = std::clamp<int64_t>(rq(c), lo, hi);
  }
  return _make_per_tensor_quantized_tensor(out.to(to_underlying_dtype(dtype)), scale, zero_point);
}
}  // namespace

Tensor add(const Tensor& a, const Tensor& b, double scale, int64_t zero_point) {
  return add_impl(a, b, scale, zero_point, false, "quantized::add");
}
Tensor add_relu(const Tensor& a, const Tensor& b, double scale, int64_t zero_point) {
  return add_impl(a, b, scale, zero_point, true, "quantized::add_relu");
}

Tensor mul(const Tensor& a, const Tensor& b, double scale, int64_t zero_point) {
  return mul_impl(a, b, scale, zero_point, false, "quantized::mul");
}
Tensor mul_relu(const Tensor& a, const Tensor& b, double scale, int64_t zero_point) {
  return mul_impl(a, b, scale, zero_point, true, "quantized::mul_relu");
}

namespace {
Tensor mul_impl(const Tensor& a, const Tensor& b, double scale, int64_t zero_point, bool relu, const char* op) {
  if (Tensor fast = detail::mul_bytes(a, b, scale, zero_point, relu, op); fast.defined()) return fast;
  auto [ia, ib] = broadcast_ints(a, b, op);
  const DType dtype = a.dtype();
  Quantizer::per_tensor_affine(dtype, scale, zero_point, op);
  const float multiplier = static_cast<float>(a.q_scale()) * static_cast<float>(b.q_scale()) *
                           (1.0f / static_cast<float>(scale));
  const int64_t za = a.q_zero_point(), zb = b.q_zero_point();
  Tensor out = empty(ia.sizes(), kInt64);
  const int64_t *pa = ia.data_ptr<int64_t>(), *pb = ib.data_ptr<int64_t>();
  int64_t* o = out.data_ptr<int64_t>();
  const int64_t lo = relu ? std::max(zero_point, quant_min_of(dtype)) : quant_min_of(dtype), hi = quant_max_of(dtype);
  for (int64_t i = 0; i < out.numel(); ++i) {
    const int64_t c = (pa[i] - za) * (pb[i] - zb);
    o[i] = clamp_q(static_cast<double>(std::nearbyint(static_cast<float>(c) * multiplier)) +
                       static_cast<double>(zero_point),
                   lo, hi);
  }
  return _make_per_tensor_quantized_tensor(out.to(to_underlying_dtype(dtype)), scale, zero_point);
}
}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim, double scale, int64_t zero_point) {
  const char* op = "quantized::cat";
  EMBER_CHECK(!tensors.empty(), op, ": expected at least one tensor");
  const DType dtype = tensors[0].defined() ? tensors[0].dtype() : kFloat32;
  std::vector<Tensor> parts;
  bool same = true;
  for (const Tensor& t : tensors) {
    const Quantizer& q = per_tensor(t, op, "every input");
    EMBER_CHECK(q.dtype() == dtype, op, ": every input must be ", dtype, ", got ", q.dtype());
    same = same && q.scale() == scale && q.zero_point() == zero_point;
  }
  if (Tensor fast = detail::cat_bytes(tensors, dim, scale, zero_point); fast.defined()) return fast;
  for (const Tensor& t : tensors) parts.push_back(same ? t.int_repr() : t.dequantize());
  Tensor joined = ember::cat(parts, dim);
  if (same) return _make_per_tensor_quantized_tensor(joined, scale, zero_point);
  return quantize_per_tensor(joined, scale, zero_point, dtype);
}

}  // namespace ember::ao::nn::quantized::functional
