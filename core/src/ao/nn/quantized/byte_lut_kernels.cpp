// Byte kernels by table lookup (Note [Quantized byte kernels]): an 8-bit
// input has 256 values, so any elementwise map of one input (hardswish,
// hardsigmoid, leaky_relu, elu, cat's requantization, batch norm per channel)
// is a table built once per call with the general path's own arithmetic,
// then one pass over the bytes: the same integers by construction, without
// the int64 copies. mul has two inputs and keeps a loop of its own.
#include <algorithm>
#include <array>
#include <cmath>

#include "ao/nn/quantized/byte_kernels.h"
#include "ember/core/parallel.h"
#include "ember/core/quantizer.h"
#include "ember/ops/factories.h"
#include "ember/ops/quantize.h"
#include "ember/ops/shape.h"
#include "ops/quantized_tensor.h"

namespace ember::ao::nn::quantized::functional::detail {

namespace {

constexpr int64_t kGrain = int64_t{1} << 16;

using Table = std::array<uint8_t, 256>;  // indexed by the byte (int8 values as their uint8 bits)

// table[byte of v] = byte of clamp(f(v)) for every v of dtype's range.
Table make_table(DType dtype, const std::function<int64_t(int64_t)>& f) {
  Table t{};
  const int64_t lo = quant_min_of(dtype), hi = quant_max_of(dtype);
  for (int64_t v = lo; v <= hi; ++v)
    t[static_cast<uint8_t>(v)] = static_cast<uint8_t>(std::clamp<int64_t>(f(v), lo, hi));
  return t;
}

// out[i] = table[in[i]] over n bytes; the table copied into the chunk's
// locals (a byte store may alias a captured table, Note [Quantized byte kernels]).
void lookup(const uint8_t* in, uint8_t* out, int64_t n, const Table& table) {
  parallel_for(0, n, kGrain, [in, out, &table](int64_t b, int64_t e) {
    const Table t = table;
    const uint8_t* __restrict__ src = in;
    uint8_t* __restrict__ dst = out;
    for (int64_t i = b; i < e; ++i) dst[i] = t[src[i]];
  });
}

const uint8_t* bytes(const Tensor& t) { return static_cast<const uint8_t*>(t.data_ptr()); }
uint8_t* mutable_bytes(const Tensor& t) { return static_cast<uint8_t*>(t.data_ptr()); }

// A plain integer tensor of q's bytes mapped through `table`, in q's layout.
Tensor mapped_ints(const Tensor& q, MemoryFormat layout, const Table& table) {
  const Tensor src = int_alias(q);
  Tensor out = empty(src.sizes(), TensorOptions(src.dtype()).memory_format(layout));
  lookup(bytes(src), mutable_bytes(out), src.numel(), table);
  return out;
}

}  // namespace

Tensor map_bytes(const Tensor& q, double scale, int64_t zero_point, const std::function<int64_t(int64_t)>& f) {
  const std::optional<MemoryFormat> layout = dense_layout(q);
  if (!per_tensor_bytes(q) || !layout) return Tensor();
  const DType dtype = q.dtype();
  Tensor out = empty_quantized(q.sizes(), Quantizer::per_tensor_affine(dtype, scale, zero_point), *layout);
  lookup(bytes(q), mutable_bytes(out), q.numel(), make_table(dtype, f));
  return out;
}

Tensor map_bytes_per_channel(const Tensor& q, double scale, int64_t zero_point,
                             const std::function<int64_t(int64_t, int64_t)>& f) {
  const std::optional<MemoryFormat> layout = dense_layout(q);
  if (!per_tensor_bytes(q) || !layout || q.dim() != 4) return Tensor();
  const DType dtype = q.dtype();
  const int64_t N = q.size(0), C = q.size(1), HW = q.size(2) * q.size(3);
  std::vector<Table> tables(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) tables[c] = make_table(dtype, [&](int64_t v) { return f(c, v); });
  Tensor out = empty_quantized(q.sizes(), Quantizer::per_tensor_affine(dtype, scale, zero_point), *layout);
  const uint8_t* in = bytes(q);
  uint8_t* o = mutable_bytes(out);
  const Table* t = tables.data();
  if (*layout == MemoryFormat::Contiguous) {
    // one table per H*W plane
    parallel_for(0, N * C, std::max<int64_t>(1, kGrain / std::max<int64_t>(HW, 1)), [=](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const Table table = t[p % C];
        const uint8_t* __restrict__ src = in + p * HW;
        uint8_t* __restrict__ dst = o + p * HW;
        for (int64_t i = 0; i < HW; ++i) dst[i] = table[src[i]];
      }
    });
  } else {
    // channels innermost: pixel by pixel, the channel's table per byte
    parallel_for(0, N * HW, std::max<int64_t>(1, kGrain / std::max<int64_t>(C, 1)), [=](int64_t b, int64_t e) {
      for (int64_t px = b; px < e; ++px) {
        const uint8_t* __restrict__ src = in + px * C;
        uint8_t* __restrict__ dst = o + px * C;
        for (int64_t c = 0; c < C; ++c) dst[c] = t[c][src[c]];
      }
    });
  }
  return out;
}

namespace {
// (q_a - z_a)(q_b - z_b) requantized: nearbyint(float(c) * multiplier) +
// zero_point saturated (the general path clamps the int64 sum; in float the
// two agree, as both saturate wherever float32 would round).
struct MulParams {
  int32_t za, zb;
  float multiplier, zp, lo, hi;
};

template <class T, bool Relu>
void mul_range(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y, int64_t n, MulParams p) {
  const int32_t za = p.za, zb = p.zb;
  const float m = p.multiplier, zp = p.zp, lo = Relu ? std::max(p.lo, p.zp) : p.lo, hi = p.hi;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t c = (static_cast<int32_t>(a[i]) - za) * (static_cast<int32_t>(b[i]) - zb);
    const float r = std::nearbyint(static_cast<float>(c) * m) + zp;
    y[i] = static_cast<T>(static_cast<int32_t>(std::min(std::max(r, lo), hi)));
  }
}

template <class T, bool Relu>
void mul_loop(const Tensor& a, const Tensor& b, Tensor& y, const MulParams& p) {
  const T* pa = static_cast<const T*>(a.data_ptr());
  const T* pb = static_cast<const T*>(b.data_ptr());
  T* py = static_cast<T*>(y.data_ptr());
  parallel_for(0, a.numel(), kGrain, [=](int64_t begin, int64_t end) {
    mul_range<T, Relu>(pa + begin, pb + begin, py + begin, end - begin, p);
  });
}
}  // namespace

Tensor mul_bytes(const Tensor& a, const Tensor& b, double scale, int64_t zero_point, bool relu, const char* op) {
  if (!per_tensor_bytes(a) || !per_tensor_bytes(b) || a.dtype() != b.dtype() || a.sizes() != b.sizes())
    return Tensor();
  const std::optional<MemoryFormat> layout = dense_layout(a);
  if (!layout || dense_layout(b) != layout || a.strides() != b.strides()) return Tensor();
  Tensor out = empty_quantized(a.sizes(), Quantizer::per_tensor_affine(a.dtype(), scale, zero_point, op), *layout);
  MulParams p;
  p.za = static_cast<int32_t>(a.q_zero_point());
  p.zb = static_cast<int32_t>(b.q_zero_point());
  p.multiplier = static_cast<float>(a.q_scale()) * static_cast<float>(b.q_scale()) * (1.0f / static_cast<float>(scale));
  p.zp = static_cast<float>(zero_point);
  p.lo = static_cast<float>(quant_min_of(a.dtype()));
  p.hi = static_cast<float>(quant_max_of(a.dtype()));
  if (a.dtype() == kQUInt8) {
    relu ? mul_loop<uint8_t, true>(a, b, out, p) : mul_loop<uint8_t, false>(a, b, out, p);
  } else {
    relu ? mul_loop<int8_t, true>(a, b, out, p) : mul_loop<int8_t, false>(a, b, out, p);
  }
  return out;
}

Tensor cat_bytes(const std::vector<Tensor>& tensors, int64_t dim, double scale, int64_t zero_point) {
  for (const Tensor& t : tensors)
    if (!per_tensor_bytes(t) || !dense_layout(t) || t.dtype() != tensors[0].dtype()) return Tensor();
  const DType dtype = tensors[0].dtype();
  Quantizer::per_tensor_affine(dtype, scale, zero_point, "quantized::cat");  // checks the parameters
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) {
    if (t.q_scale() == scale && t.q_zero_point() == zero_point) {
      parts.push_back(int_alias(t));
      continue;
    }
    // The general path's requantization (dequantize, quantize_per_tensor) of every value, as a table.
    const int64_t lo = quant_min_of(dtype), hi = quant_max_of(dtype);
    Tensor values = arange(lo, hi + 1, TensorOptions(kInt64)).to(to_underlying_dtype(dtype));
    const Tensor requantized =
        quantize_per_tensor(_make_per_tensor_quantized_tensor(values, t.q_scale(), t.q_zero_point()).dequantize(),
                            scale, zero_point, dtype)
            .int_repr()
            .to(kInt64)
            .contiguous();
    const int64_t* r = requantized.data_ptr<int64_t>();
    parts.push_back(mapped_ints(t, *dense_layout(t), make_table(dtype, [&](int64_t v) { return r[v - lo]; })));
  }
  return _make_per_tensor_quantized_tensor(ember::cat(parts, dim), scale, zero_point);
}

}  // namespace ember::ao::nn::quantized::functional::detail
