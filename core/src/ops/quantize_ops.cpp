// quantize / dequantize / int_repr, the quantization parameters, and the
// copies of quantized tensors (Note [Quantized tensors] in base/quantizer.cpp).
#include <algorithm>
#include <cmath>

#include "ember/core/parallel.h"
#include "ember/ops/factories.h"
#include "ember/ops/quantize.h"
#include "ember/ops/reduce.h"
#include "ops/op_utils.h"
#include "ops/quantized_tensor.h"

namespace ember {

// Note [Quantize rounding]
// PyTorch's quantize_val (no FBGEMM, as Debian's torch): the value times
// 1 / float(scale) in float32, rounded half to even (std::nearbyint), plus
// the zero point, clamped to the dtype's range. dequantize: float(scale) *
// (q - zero_point). Ember saturates values past the range (+inf and huge
// values to quant_max); PyTorch casts them to int64 first, which on x86 gives
// quant_min for +inf and for values past 2^63 (NaN gives quant_min in both).
// Per-channel dequantize computes scale * (q - zero_point) in float64 and
// rounds it to float32, as PyTorch's per-channel kernel does.
namespace {
inline int64_t quantize_one(float v, float inv_scale, int64_t zero_point, int64_t qmin, int64_t qmax) {
  const float t = static_cast<float>(zero_point) + std::nearbyint(v * inv_scale);
  if (!(t == t)) return qmin;
  const double d = t;
  if (d <= static_cast<double>(qmin)) return qmin;
  if (d >= static_cast<double>(qmax)) return qmax;
  return static_cast<int64_t>(t);
}

template <class Q>
using under_t = typename Q::underlying;

template <class F>
void dispatch_qtype(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::QInt8: return f(int8_t{});
    case DType::QUInt8: return f(uint8_t{});
    case DType::QInt32: return f(int32_t{});
    default: EMBER_FAIL(op, ": dtype ", t, " is not supported");
  }
}

DType quantized_dtype_for(DType t, const char* op) {
  switch (t) {
    case DType::Int8: return DType::QInt8;
    case DType::UInt8: return DType::QUInt8;
    case DType::Int32: return DType::QInt32;
    default: EMBER_FAIL(op, ": expected an int8, uint8 or int32 tensor, got ", t);
  }
}

// The float32 values to quantize, dense in the layout the output takes.
Tensor float_input(const Tensor& input, const char* op, MemoryFormat format) {
  EMBER_CHECK(input.defined(), op, ": input is undefined");
  EMBER_CHECK(input.is_floating_point(), op, ": only floating point tensors can be quantized, got ", input.dtype(),
              input.is_quantized() ? " (already quantized)" : "");
  return input.cpu().to(kFloat32).contiguous(format);
}

MemoryFormat dense_format(const Tensor& t) {
  const MemoryFormat f = t.suggest_memory_format();
  return f;
}

// Packs quint4x2 values (one per byte, low nibble first along the last dim).
Tensor quantize_4bit(const Tensor& x, float inv_scale, int64_t zero_point, std::shared_ptr<const Quantizer> q) {
  const Tensor src = x.contiguous();
  Tensor out = empty_quantized(src.sizes(), std::move(q));
  const int64_t n = src.dim() ? src.size(-1) : 1, rows = n ? src.numel() / n : 0, packed = (n + 1) / 2;
  const float* s = src.data_ptr<float>();
  auto* d = static_cast<uint8_t*>(out.data_ptr());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < packed; ++j) {
      const uint8_t lo = static_cast<uint8_t>(quantize_one(s[r * n + 2 * j], inv_scale, zero_point, 0, 15));
      const uint8_t hi = 2 * j + 1 < n ? static_cast<uint8_t>(quantize_one(s[r * n + 2 * j + 1], inv_scale, zero_point, 0, 15)) : 0;
      d[r * packed + j] = static_cast<uint8_t>(lo | hi << 4);
    }
  return out;
}
}  // namespace

Tensor empty_quantized(IntArrayRef sizes, std::shared_ptr<const Quantizer> quantizer, MemoryFormat format,
                       Device device) {
  EMBER_CHECK(quantizer != nullptr, "empty_quantized: no quantizer");
  const DType dtype = quantizer->dtype();
  Tensor plain;
  if (dtype == DType::QUInt4x2) {
    // Two values per byte along the last dim (PyTorch's sub-byte layout),
    // packed rows first in the storage. The storage keeps a byte per value
    // so that the tensor's element geometry (element size 1) fits it.
    EMBER_CHECK(format != MemoryFormat::ChannelsLast, "empty_quantized: quint4x2 tensors are contiguous only");
    plain = empty_for("empty_quantized", sizes, TensorOptions(kUInt8).device(device));
    auto impl = make_intrusive<TensorImpl>(plain.storage(), dtype, sizes, strides_for(sizes, MemoryFormat::Contiguous),
                                           0);
    impl->set_quantizer(std::move(quantizer));
    return Tensor(std::move(impl));
  }
  plain = empty_for("empty_quantized", sizes,
                    TensorOptions(to_underlying_dtype(dtype)).device(device).memory_format(format));
  auto impl = make_intrusive<TensorImpl>(plain.storage(), dtype, plain.sizes(), plain.strides(), 0);
  impl->set_quantizer(std::move(quantizer));
  return Tensor(std::move(impl));
}

Tensor int_alias(const Tensor& q) {
  return Tensor(make_intrusive<TensorImpl>(q.storage(), to_underlying_dtype(q.dtype()), q.sizes(), q.strides(),
                                           q.storage_offset()));
}

namespace {
const Quantizer& quantizer_of(const Tensor& t, const char* op) {
  EMBER_CHECK(t.defined(), op, ": tensor is undefined");
  EMBER_CHECK(t.is_quantized() && t.impl()->quantizer(), op, ": expected a quantized tensor, got ", t.dtype());
  return *t.impl()->quantizer();
}

const Quantizer& per_tensor_of(const Tensor& t, const char* op) {
  const Quantizer& q = quantizer_of(t, op);
  EMBER_CHECK(!q.is_per_channel(), op, ": expected a per-tensor quantized tensor, got one quantized with ", q.qscheme());
  return q;
}
const Quantizer& per_channel_of(const Tensor& t, const char* op) {
  const Quantizer& q = quantizer_of(t, op);
  EMBER_CHECK(q.is_per_channel(), op, ": expected a per-channel quantized tensor, got one quantized with ", q.qscheme());
  return q;
}

// Quantizes src (float32, dense) into out (quantized, same strides) with q.
void quantize_into(const Tensor& src, const Tensor& out, const Quantizer& q) {
  const float* s = src.data_ptr<float>();
  const int64_t qmin = quant_min_of(q.dtype()), qmax = quant_max_of(q.dtype()), n = src.numel();
  dispatch_qtype(q.dtype(), "quantize", [&](auto tag) {
    using T = decltype(tag);
    T* d = static_cast<T*>(out.data_ptr());
    if (!q.is_per_channel()) {
      const float inv = 1.0f / static_cast<float>(q.scale());
      const int64_t zp = q.zero_point();
      parallel_for(0, n, 4096, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) d[i] = static_cast<T>(quantize_one(s[i], inv, zp, qmin, qmax));
      });
      return;
    }
    // Dense: the index along dim d of linear position i is (i / stride_d) % size_d.
    const int64_t stride = out.stride(q.axis()), channels = out.size(q.axis());
    const double* sc = q.scales().data_ptr<double>();
    const int64_t* zp = q.zero_points().data_ptr<int64_t>();
    std::vector<float> inv(channels);
    for (int64_t c = 0; c < channels; ++c) inv[c] = 1.0f / static_cast<float>(sc[c]);
    parallel_for(0, n, 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const int64_t c = (i / stride) % channels;
        d[i] = static_cast<T>(quantize_one(s[i], inv[c], zp[c], qmin, qmax));
      }
    });
  });
}
}  // namespace

Tensor quantize_per_tensor(const Tensor& input, double scale, int64_t zero_point, DType dtype) {
  const char* op = "quantize_per_tensor";
  auto q = Quantizer::per_tensor_affine(dtype, scale, zero_point, op);
  EMBER_CHECK(input.defined() && input.is_floating_point(), op,
              ": only floating point tensors can be quantized, got ", input.defined() ? input.dtype() : kFloat32,
              input.defined() && input.is_quantized() ? " (already quantized)" : "");
  if (dtype == DType::QUInt4x2)
    return quantize_4bit(float_input(input, op, MemoryFormat::Contiguous), 1.0f / static_cast<float>(scale),
                         zero_point, std::move(q));
  const MemoryFormat f = dense_format(input);
  const Tensor src = float_input(input, op, f);
  Tensor out = empty_quantized(src.sizes(), q, f);
  quantize_into(src, out, *q);
  return out;
}

Tensor quantize_per_tensor(const Tensor& input, const Tensor& scale, const Tensor& zero_point, DType dtype) {
  const char* op = "quantize_per_tensor";
  EMBER_CHECK(scale.defined() && scale.numel() == 1 && zero_point.defined() && zero_point.numel() == 1, op,
              ": scale and zero_point must hold one value each");
  EMBER_CHECK(!is_complex(scale.dtype()) && !scale.is_quantized() && !zero_point.is_quantized(), op,
              ": scale must be a real number tensor");
  // As PyTorch: the tensor scale is read as float32.
  const double s = scale.cpu().to(kFloat32).item<float>();
  return quantize_per_tensor(input, s, zero_point.cpu().to(kInt64).item<int64_t>(), dtype);
}

Tensor quantize_per_channel(const Tensor& input, const Tensor& scales, const Tensor& zero_points, int64_t axis,
                            DType dtype) {
  const char* op = "quantize_per_channel";
  EMBER_CHECK(input.defined() && input.is_floating_point(), op,
              ": only floating point tensors can be quantized, got ", input.defined() ? input.dtype() : kFloat32,
              input.defined() && input.is_quantized() ? " (already quantized)" : "");
  EMBER_CHECK(axis >= -input.dim() && axis < input.dim(), op, ": channel axis ", axis,
              " is out of range for a ", input.dim(), "-d input (expected [", -input.dim(), ", ", input.dim(), "))");
  if (axis < 0) axis += input.dim();
  EMBER_CHECK(scales.defined() && scales.dim() == 1 && scales.numel() == input.size(axis), op, ": expected ",
              input.size(axis), " scales (the size of dim ", axis, "), got ",
              scales.defined() ? scales.numel() : 0);
  EMBER_CHECK(zero_points.defined() && zero_points.dim() == 1 && zero_points.numel() == input.size(axis), op,
              ": expected ", input.size(axis), " zero_points (the size of dim ", axis, "), got ",
              zero_points.defined() ? zero_points.numel() : 0);
  auto q = Quantizer::per_channel_affine(dtype, scales, zero_points, axis, op);
  const MemoryFormat f = dense_format(input);
  const Tensor src = float_input(input, op, f);
  Tensor out = empty_quantized(src.sizes(), q, f);
  quantize_into(src, out, *q);
  return out;
}

std::pair<double, int64_t> choose_qparams(float min, float max, int64_t qmin, int64_t qmax) {
  EMBER_CHECK(min <= max, "choose_qparams: min ", min, " is greater than max ", max);
  min = std::min(min, 0.0f);
  max = std::max(max, 0.0f);
  double scale = (static_cast<double>(max) - min) / static_cast<double>(qmax - qmin);
  if (static_cast<float>(scale) == 0.0f || std::isinf(1.0f / static_cast<float>(scale))) scale = 0.1;
  constexpr float kSmallScale = 6.1e-5f;
  if (scale < kSmallScale) {
    const float org = static_cast<float>(scale);
    scale = kSmallScale;
    if (min == 0.0f) max = kSmallScale * static_cast<float>(qmax - qmin);
    else if (max == 0.0f) min = -kSmallScale * static_cast<float>(qmax - qmin);
    else {
      const float amplifier = kSmallScale / org;
      min *= amplifier;
      max *= amplifier;
    }
  }
  const double zp_min = static_cast<double>(qmin) - min / scale;
  const double zp_max = static_cast<double>(qmax) - max / scale;
  const double err_min = std::abs(static_cast<double>(qmin)) - std::abs(min / scale);
  const double err_max = std::abs(static_cast<double>(qmax)) - std::abs(max / scale);
  const double initial = err_min < err_max ? zp_min : zp_max;
  int64_t zp;
  if (initial < qmin) zp = qmin;
  else if (initial > qmax) zp = qmax;
  else zp = static_cast<int64_t>(std::nearbyint(initial));
  return {scale, zp};
}

Tensor quantize_per_tensor_dynamic(const Tensor& input, DType dtype, bool reduce_range) {
  const char* op = "quantize_per_tensor_dynamic";
  EMBER_CHECK(dtype == kQInt8 || dtype == kQUInt8, op, ": dtype must be qint8 or quint8, got ", dtype);
  const Tensor x = float_input(input, op, MemoryFormat::Contiguous);
  float lo = 0, hi = 0;
  if (x.numel() > 0) {
    lo = x.min().item<float>();
    hi = x.max().item<float>();
  }
  int64_t qmin = dtype == kQInt8 ? -128 : 0, qmax = dtype == kQInt8 ? 127 : 255;
  if (reduce_range) {
    qmin /= 2;
    qmax /= 2;
  }
  const auto [scale, zp] = choose_qparams(lo, hi, qmin, qmax);
  return quantize_per_tensor(input, scale, zp, dtype);
}

Tensor dequantize(const Tensor& input) {
  EMBER_CHECK(input.defined(), "dequantize: input is undefined");
  if (!input.is_quantized()) return input;
  const Quantizer& q = quantizer_of(input, "dequantize");
  if (q.dtype() == DType::QUInt4x2) {
    const Tensor src = input.contiguous();
    Tensor out = empty(src.sizes(), kFloat32);
    const int64_t n = src.dim() ? src.size(-1) : 1, rows = n ? src.numel() / n : 0, packed = (n + 1) / 2;
    const auto* s = static_cast<const uint8_t*>(src.data_ptr());
    float* d = out.data_ptr<float>();
    const float scale = static_cast<float>(q.scale());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j) {
        const int64_t v = (s[r * packed + j / 2] >> (j % 2 ? 4 : 0)) & 15;
        d[r * n + j] = scale * static_cast<float>(v - q.zero_point());
      }
    return out;
  }
  const MemoryFormat f = dense_format(input);
  const Tensor src = input.is_non_overlapping_and_dense() ? input : quantized_clone(input, f, "dequantize");
  Tensor out = empty_strided(src.sizes(), src.strides(), TensorOptions(kFloat32));
  const int64_t n = src.numel();
  dispatch_qtype(q.dtype(), "dequantize", [&](auto tag) {
    using T = decltype(tag);
    const T* s = static_cast<const T*>(src.data_ptr());
    float* d = out.data_ptr<float>();
    if (!q.is_per_channel()) {
      const float scale = static_cast<float>(q.scale());
      const int64_t zp = q.zero_point();
      parallel_for(0, n, 4096, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) d[i] = scale * static_cast<float>(static_cast<int64_t>(s[i]) - zp);
      });
      return;
    }
    // Dense, possibly permuted strides: position i's storage offset is i in
    // the order of the strides, so walk the storage and find the channel.
    const int64_t stride = src.stride(q.axis()), channels = src.size(q.axis());
    const double* sc = q.scales().data_ptr<double>();
    const int64_t* zp = q.zero_points().data_ptr<int64_t>();
    parallel_for(0, n, 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const int64_t c = (i / stride) % channels;
        // In float64, then rounded (PyTorch's per-channel dequantize; per-tensor is float32).
        d[i] = static_cast<float>(sc[c] * static_cast<double>(static_cast<int64_t>(s[i]) - zp[c]));
      }
    });
  });
  return out;
}

Tensor int_repr(const Tensor& input) {
  const Quantizer& q = quantizer_of(input, "int_repr");
  if (q.dtype() == DType::QUInt4x2) {
    DimVector bytes(input.sizes());
    if (!bytes.empty()) bytes.back() = (bytes.back() + 1) / 2;
    Tensor out = empty(bytes, kUInt8);
    const Tensor src = input.contiguous();
    std::copy_n(static_cast<const uint8_t*>(src.data_ptr()), out.numel(), out.data_ptr<uint8_t>());
    return out;
  }
  return int_alias(input).clone();
}

Tensor _make_per_tensor_quantized_tensor(const Tensor& int_tensor, double scale, int64_t zero_point) {
  const char* op = "_make_per_tensor_quantized_tensor";
  EMBER_CHECK(int_tensor.defined(), op, ": input is undefined");
  auto q = Quantizer::per_tensor_affine(quantized_dtype_for(int_tensor.dtype(), op), scale, zero_point, op);
  const MemoryFormat f = dense_format(int_tensor);
  Tensor out = empty_quantized(int_tensor.sizes(), std::move(q), f, int_tensor.device());
  int_alias(out).copy_(int_tensor);
  return out;
}

Tensor _make_per_channel_quantized_tensor(const Tensor& int_tensor, const Tensor& scales, const Tensor& zero_points,
                                          int64_t axis) {
  const char* op = "_make_per_channel_quantized_tensor";
  EMBER_CHECK(int_tensor.defined(), op, ": input is undefined");
  EMBER_CHECK(axis >= -int_tensor.dim() && axis < int_tensor.dim(), op, ": channel axis ", axis,
              " is out of range for a ", int_tensor.dim(), "-d input");
  if (axis < 0) axis += int_tensor.dim();
  EMBER_CHECK(scales.defined() && scales.numel() == int_tensor.size(axis), op, ": expected ", int_tensor.size(axis),
              " scales, got ", scales.defined() ? scales.numel() : 0);
  auto q = Quantizer::per_channel_affine(quantized_dtype_for(int_tensor.dtype(), op), scales, zero_points, axis, op);
  Tensor out = empty_quantized(int_tensor.sizes(), std::move(q), dense_format(int_tensor), int_tensor.device());
  int_alias(out).copy_(int_tensor);
  return out;
}

// ---- Tensor methods ----
Tensor Tensor::dequantize() const { return ember::dequantize(*this); }
Tensor Tensor::int_repr() const { return ember::int_repr(*this); }
QScheme Tensor::qscheme() const { return quantizer_of(*this, "qscheme").qscheme(); }
double Tensor::q_scale() const { return per_tensor_of(*this, "q_scale").scale(); }
int64_t Tensor::q_zero_point() const { return per_tensor_of(*this, "q_zero_point").zero_point(); }
Tensor Tensor::q_per_channel_scales() const { return per_channel_of(*this, "q_per_channel_scales").scales().clone(); }
Tensor Tensor::q_per_channel_zero_points() const {
  return per_channel_of(*this, "q_per_channel_zero_points").zero_points().clone();
}
int64_t Tensor::q_per_channel_axis() const { return per_channel_of(*this, "q_per_channel_axis").axis(); }

// ---- copies ----
Tensor quantized_clone(const Tensor& self, MemoryFormat format, const char* op) {
  const auto& q = self.impl()->quantizer();
  EMBER_CHECK(q != nullptr, op, ": quantized tensor without quantization parameters");
  if (self.dtype() == DType::QUInt4x2) {
    EMBER_CHECK(self.is_contiguous(), op, ": quint4x2 tensors must be contiguous");
    Tensor out = empty_quantized(self.sizes(), q);
    std::copy_n(static_cast<const uint8_t*>(self.data_ptr()), out.storage()->nbytes(),
                static_cast<uint8_t*>(out.data_ptr()));
    return out;
  }
  Tensor out;
  if (format == MemoryFormat::Preserve && self.is_non_overlapping_and_dense()) {
    Tensor plain = empty_strided_for(op, self.sizes(), self.strides(), TensorOptions(to_underlying_dtype(self.dtype())));
    auto impl = make_intrusive<TensorImpl>(plain.storage(), self.dtype(), self.sizes(), self.strides(), 0);
    impl->set_quantizer(q);
    out = Tensor(std::move(impl));
  } else {
    const MemoryFormat f = format == MemoryFormat::Preserve ? self.suggest_memory_format() : format;
    out = empty_quantized(self.sizes(), q, f, self.device());
  }
  int_alias(out).copy_(int_alias(self));
  return out;
}

void quantized_copy_(const Tensor& dst, const Tensor& src) {
  const char* op = "copy_";
  EMBER_CHECK(dst.is_quantized(), op, ": copying a quantized tensor (", src.dtype(),
              ") into a non-quantized one (", dst.dtype(), ") is not supported; use dequantize()");
  EMBER_CHECK(dst.dtype() != DType::QUInt4x2 && src.dtype() != DType::QUInt4x2, op,
              ": quint4x2 tensors cannot be copied into");
  if (src.is_quantized()) {
    EMBER_CHECK(src.dtype() == dst.dtype(), op, ": quantized copy needs the same dtype, got ", src.dtype(), " into ",
                dst.dtype());
    EMBER_CHECK(src.qscheme() == dst.qscheme(), op, ": quantized copy needs the same qscheme, got ", src.qscheme(),
                " into ", dst.qscheme());
    // As PyTorch: the destination takes the source's parameters.
    int_alias(dst).copy_(int_alias(src));
    dst.impl()->set_quantizer(src.impl()->quantizer());
    return;
  }
  const Quantizer& q = *dst.impl()->quantizer();
  Tensor qv = q.is_per_channel()
                  ? quantize_per_channel(src.expand(dst.sizes()), q.scales(), q.zero_points(), q.axis(), q.dtype())
                  : quantize_per_tensor(src.expand(dst.sizes()), q.scale(), q.zero_point(), q.dtype());
  int_alias(dst).copy_(int_alias(qv));
}

}  // namespace ember
