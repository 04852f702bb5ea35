// The workflow's headers first: they name ember::nn as nn:: from inside
// ember::ao, which ember::ao::nn (declared by embedding.h) would shadow.
#include "ember/ao/quantization/qconfig.h"
#include "ember/ao/quantization/qconfig_dynamic.h"
#include "ember/ao/nn/quantized/embedding.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>
#include <ostream>

#include "ember/core/error.h"
#include "ember/core/half.h"
#include "ember/nn/modules/embedding.h"
#include "ember/ops/factories.h"

namespace ember::ao::nn::quantized {

// Note [Quantized embedding arithmetic]
// This file is compiled with -ffp-contract=off (core/CMakeLists.txt): the
// results are bit-exact with PyTorch's only if every multiply and add rounds
// where torch's non-fbgemm kernels round (qembeddingbag.cpp's fallback):
//  - quantize (quantize_val_float_qparams): q = lrintf(x * (1 / scale) + zp),
//    a zero scale replaced by 1, clamped to [0, 2^bits - 1];
//  - prepack keeps per row scale and bias = zp * scale * -1 (float32; for 4-bit
//    rows both rounded to float16);
//  - each looked-up row adds, per element, fma(w * scale, q, out + w * bias)
//    to the bag's float32 output (w the per-sample weight, 1 without).
// The dequantized table ((q - zp) * scale) can differ from a lookup by an ulp;
// mean, max and padding_idx (which torch 1.13's quantized kernels do not
// have: its module always sums) use the lookup's values.

namespace functional {

namespace {
int bits_of(DType dtype, const char* op) {
  EMBER_CHECK(dtype == kQUInt8 || dtype == kQUInt4x2, op, ": dtype must be quint8 or quint4x2, got ",
              dtype_name(dtype));
  return dtype == kQUInt8 ? 8 : 4;
}

int64_t packed_cols(int bits, int64_t dim) { return bits == 8 ? dim : (dim + 1) / 2; }

void check_table(const Tensor& qweight, const Tensor& scales, const Tensor& zero_points, int bits, int64_t dim,
                 const char* op) {
  EMBER_CHECK(qweight.defined() && qweight.dtype() == kUInt8 && qweight.dim() == 2, op,
              ": the quantized table must be a 2-d uint8 tensor, got ",
              qweight.defined() ? dtype_name(qweight.dtype()) : "an undefined tensor",
              qweight.defined() ? " of sizes " : "", qweight.defined() ? qweight.sizes() : IntArrayRef{});
  EMBER_CHECK(qweight.size(1) == packed_cols(bits, dim), op, ": a table of ", bits, "-bit rows of ", dim,
              " values has ", packed_cols(bits, dim), " bytes per row, got sizes ", qweight.sizes());
  for (const Tensor* t : {&scales, &zero_points})
    EMBER_CHECK(t->defined() && t->dtype() == kFloat32 && t->dim() == 1 && t->size(0) == qweight.size(0), op,
                ": row scales and zero points must be float32 [", qweight.size(0), "], got ",
                t->defined() ? dtype_name(t->dtype()) : "an undefined tensor", " ",
                t->defined() ? t->sizes() : IntArrayRef{});
}

// One row's lookup parameters, as torch's prepack stores them.
struct RowParams {
  float scale, bias;
};
RowParams row_params(float scale, float zero_point, int bits) {
  const float bias = zero_point * scale * -1.0f;
  if (bits == 8) return {scale, bias};
  return {static_cast<float>(Half(scale)), static_cast<float>(Half(bias))};
}

// A table ready for lookups: contiguous bytes and per-row parameters.
struct Table {
  const uint8_t* data;
  int64_t rows, cols, dim;
  int bits;
  std::vector<RowParams> params;

  uint8_t q(int64_t row, int64_t j) const {
    const uint8_t byte = data[row * cols + (bits == 8 ? j : j / 2)];
    return bits == 8 ? byte : ((j % 2) ? byte >> 4 : byte & 0x0F);
  }
  // out[j] = fma(w * scale, q, out[j] + w * bias).
  void accumulate(int64_t row, float w, float* out) const {
    const float scale = w * params[row].scale, bias = w * params[row].bias;
    for (int64_t j = 0; j < dim; ++j) out[j] = std::fma(scale, static_cast<float>(q(row, j)), out[j] + bias);
  }
};

Table make_table(const Tensor& qweight_c, const Tensor& scales, const Tensor& zero_points, int bits, int64_t dim) {
  Table t{qweight_c.data_ptr<uint8_t>(), qweight_c.size(0), qweight_c.size(1), dim, bits, {}};
  const Tensor s = scales.contiguous(), z = zero_points.contiguous();
  const float* sp = s.data_ptr<float>();
  const float* zp = z.data_ptr<float>();
  t.params.reserve(t.rows);
  for (int64_t r = 0; r < t.rows; ++r) t.params.push_back(row_params(sp[r], zp[r], bits));
  return t;
}

std::vector<int64_t> checked_indices(const Tensor& indices, int64_t rows, const char* op) {
  EMBER_CHECK(indices.defined() && (indices.dtype() == kInt64 || indices.dtype() == kInt32), op,
              ": indices must be int64 or int32, got ", indices.defined() ? dtype_name(indices.dtype()) : "undefined");
  const Tensor idx = indices.to(kInt64).contiguous();
  std::vector<int64_t> out(idx.data_ptr<int64_t>(), idx.data_ptr<int64_t>() + idx.numel());
  for (int64_t i : out)
    EMBER_CHECK(i >= 0 && i < rows, op, ": index ", i, " is out of range for a table of ", rows, " rows");
  return out;
}
}  // namespace

Tensor quantize_embedding_rows(const Tensor& weight, const Tensor& scales, const Tensor& zero_points, DType dtype) {
  const char* op = "quantize_embedding_rows";
  const int bits = bits_of(dtype, op);
  EMBER_CHECK(weight.defined() && weight.is_floating_point() && weight.dim() == 2, op,
              ": weight must be a 2-d floating point tensor, got ",
              weight.defined() ? dtype_name(weight.dtype()) : "an undefined tensor");
  const int64_t rows = weight.size(0), dim = weight.size(1);
  EMBER_CHECK(bits == 8 || dim % 2 == 0, op, ": 4-bit rows pack two values per byte; embedding_dim must be even, got ",
              dim);
  const Tensor w = weight.to(kFloat32).contiguous();
  Tensor q = zeros({rows, packed_cols(bits, dim)}, kUInt8);
  check_table(q, scales, zero_points, bits, dim, op);
  const Tensor s = scales.contiguous(), z = zero_points.contiguous();
  const float* wp = w.data_ptr<float>();
  uint8_t* qp = q.data_ptr<uint8_t>();
  const long qmax = (1L << bits) - 1;
  for (int64_t r = 0; r < rows; ++r) {
    const float scale = s.data_ptr<float>()[r], zp = z.data_ptr<float>()[r];
    const float inv = scale == 0 ? 1.0f : 1.0f / scale;
    for (int64_t j = 0; j < dim; ++j) {
      const float y = wp[r * dim + j] * inv;
      const long v = std::max(0L, std::min(qmax, std::lrint(y + zp)));
      if (bits == 8)
        qp[r * dim + j] = static_cast<uint8_t>(v);
      else
        qp[r * (dim / 2) + j / 2] |= static_cast<uint8_t>(v << (4 * (j % 2)));
    }
  }
  return q;
}

Tensor dequantize_embedding_rows(const Tensor& qweight, const Tensor& scales, const Tensor& zero_points, DType dtype,
                                 int64_t dim) {
  const char* op = "dequantize_embedding_rows";
  const int bits = bits_of(dtype, op);
  check_table(qweight, scales, zero_points, bits, dim, op);
  const Tensor qc = qweight.contiguous();
  const Table t = make_table(qc, scales, zero_points, bits, dim);
  const Tensor s = scales.contiguous(), z = zero_points.contiguous();
  Tensor out = empty({t.rows, dim}, kFloat32);
  float* o = out.data_ptr<float>();
  for (int64_t r = 0; r < t.rows; ++r)
    for (int64_t j = 0; j < dim; ++j)
      o[r * dim + j] = (static_cast<float>(t.q(r, j)) - z.data_ptr<float>()[r]) * s.data_ptr<float>()[r];
  return out;
}

Tensor embedding(const Tensor& qweight, const Tensor& scales, const Tensor& zero_points, DType dtype, int64_t dim,
                 const Tensor& indices) {
  const char* op = "quantized::embedding";
  const int bits = bits_of(dtype, op);
  check_table(qweight, scales, zero_points, bits, dim, op);
  const Tensor qc = qweight.contiguous();
  const Table t = make_table(qc, scales, zero_points, bits, dim);
  const std::vector<int64_t> idx = checked_indices(indices, t.rows, op);
  DimVector shape;
  for (int64_t s : indices.sizes()) shape.push_back(s);
  shape.push_back(dim);
  Tensor out = zeros(shape, kFloat32);
  float* o = out.data_ptr<float>();
  for (size_t i = 0; i < idx.size(); ++i) t.accumulate(idx[i], 1.0f, o + static_cast<int64_t>(i) * dim);
  return out;
}

Tensor embedding_bag(const Tensor& qweight, const Tensor& scales, const Tensor& zero_points, DType dtype, int64_t dim,
                     const Tensor& input, const EmbeddingBagArgs& args) {
  const char* op = "quantized::embedding_bag";
  const int bits = bits_of(dtype, op);
  check_table(qweight, scales, zero_points, bits, dim, op);
  EMBER_CHECK(args.mode == "sum" || args.mode == "mean" || args.mode == "max", op,
              ": mode must be \"sum\", \"mean\" or \"max\", got \"", args.mode, "\"");
  EMBER_CHECK(input.defined() && (input.dim() == 1 || input.dim() == 2), op,
              ": input must be 1-d (with offsets) or 2-d (one bag per row), got ",
              input.defined() ? input.dim() : 0, " dims");
  const Tensor qc = qweight.contiguous();
  const Table t = make_table(qc, scales, zero_points, bits, dim);
  const std::vector<int64_t> idx = checked_indices(input, t.rows, op);
  const int64_t n = static_cast<int64_t>(idx.size());

  // Bag boundaries: starts plus the end of the last bag.
  std::vector<int64_t> bounds;
  if (input.dim() == 2) {
    EMBER_CHECK(!args.offsets.defined(), op, ": offsets must be undefined for a 2-d input, got sizes ",
                args.offsets.sizes());
    for (int64_t b = 0; b <= input.size(0); ++b) bounds.push_back(b * input.size(1));
  } else {
    EMBER_CHECK(args.offsets.defined() && args.offsets.dim() == 1, op,
                ": a 1-d input needs 1-d offsets (the start of each bag)");
    bounds = checked_indices(args.offsets, std::numeric_limits<int64_t>::max(), op);
    EMBER_CHECK(bounds.empty() || bounds.front() == 0, op, ": offsets[0] must be 0, got ", bounds.front());
    // Without include_last_offset the last bag runs to the end of the input
    // (no offsets: no bags, as torch).
    if (!args.include_last_offset && !bounds.empty()) bounds.push_back(n);
    for (size_t b = 1; b < bounds.size(); ++b)
      EMBER_CHECK(bounds[b] >= bounds[b - 1] && bounds[b] <= n, op, ": offsets must be non-decreasing and at most "
                  "the number of indices (", n, "), got ", bounds[b], " after ", bounds[b - 1]);
  }
  const int64_t bags = std::max<int64_t>(0, static_cast<int64_t>(bounds.size()) - 1);

  std::vector<float> w(n, 1.0f);
  if (args.per_sample_weights.defined()) {
    EMBER_CHECK(args.mode == "sum", op, ": per_sample_weights are only supported for mode \"sum\", got \"",
                args.mode, "\"");
    EMBER_CHECK(args.per_sample_weights.numel() == n && args.per_sample_weights.sizes() == input.sizes(), op,
                ": per_sample_weights must have the input's sizes ", input.sizes(), ", got ",
                args.per_sample_weights.sizes());
    const Tensor p = args.per_sample_weights.to(kFloat32).contiguous();
    std::copy(p.data_ptr<float>(), p.data_ptr<float>() + n, w.begin());
  }
  std::optional<int64_t> pad = args.padding_idx;
  if (pad) {
    EMBER_CHECK(*pad < t.rows && *pad >= -t.rows, op, ": padding_idx must be within num_embeddings (", t.rows,
                "), got ", *pad);
    if (*pad < 0) *pad += t.rows;
  }

  Tensor out = zeros({bags, dim}, kFloat32);
  std::vector<float> row(dim);
  for (int64_t b = 0; b < bags; ++b) {
    float* o = out.data_ptr<float>() + b * dim;
    int64_t count = 0;
    for (int64_t i = bounds[b]; i < bounds[b + 1]; ++i) {
      if (pad && idx[i] == *pad) continue;
      if (args.mode == "max") {
        std::fill(row.begin(), row.end(), 0.0f);
        t.accumulate(idx[i], 1.0f, row.data());
        for (int64_t j = 0; j < dim; ++j) o[j] = count == 0 ? row[j] : std::max(o[j], row[j]);
      } else {
        t.accumulate(idx[i], w[i], o);
      }
      ++count;
    }
    if (args.mode == "mean" && count > 0)
      for (int64_t j = 0; j < dim; ++j) o[j] /= static_cast<float>(count);
  }
  return out;
}

}  // namespace functional

namespace F = functional;

EmbeddingTableBase::EmbeddingTableBase(std::string name, int64_t num_embeddings, int64_t embedding_dim, DType dtype)
    : Module(std::move(name)), num_embeddings_(num_embeddings), embedding_dim_(embedding_dim), dtype_(dtype) {
  const int bits = F::bits_of(dtype, this->name().c_str());
  EMBER_CHECK(num_embeddings >= 0 && embedding_dim > 0, this->name(),
              ": num_embeddings must be >= 0 and embedding_dim > 0, got ", num_embeddings, " and ", embedding_dim);
  EMBER_CHECK(bits == 8 || embedding_dim % 2 == 0, this->name(),
              ": 4-bit rows pack two values per byte; embedding_dim must be even, got ", embedding_dim);
  register_buffer("weight", zeros({num_embeddings, F::packed_cols(bits, embedding_dim)}, kUInt8), &weight);
  register_buffer("weight_scales", ones({num_embeddings}, kFloat32), &weight_scales);
  register_buffer("weight_zero_points", zeros({num_embeddings}, kFloat32), &weight_zero_points);
}

void EmbeddingTableBase::set_weight(const Tensor& qweight, const Tensor& scales, const Tensor& zero_points) {
  F::check_table(qweight, scales, zero_points, F::bits_of(dtype_, name().c_str()), embedding_dim_, name().c_str());
  EMBER_CHECK(qweight.size(0) == num_embeddings_, name(), ": expected a table of ", num_embeddings_, " rows, got ",
              qweight.size(0));
  // In place: the registered buffers (and so state_dict) see the new table.
  weight.copy_(qweight);
  weight_scales.copy_(scales);
  weight_zero_points.copy_(zero_points);
}

void EmbeddingTableBase::set_float_weight(const Tensor& w, const Tensor& scales, const Tensor& zero_points) {
  set_weight(F::quantize_embedding_rows(w, scales, zero_points, dtype_), scales, zero_points);
}

Tensor EmbeddingTableBase::dequantized_weight() const {
  return F::dequantize_embedding_rows(weight, weight_scales, weight_zero_points, dtype_, embedding_dim_);
}

void EmbeddingTableBase::quantize_from(const Tensor& float_weight, const ao::quantization::QConfig& qconfig) {
  using namespace ao::quantization;
  EMBER_CHECK(qconfig.weight, name(), ".from_float: the qconfig has no weight observer");
  auto observer = qconfig.weight();
  auto* uniform = dynamic_cast<UniformQuantizationObserverBase*>(observer.get());
  EMBER_CHECK(uniform && uniform->qscheme() == QScheme::kPerChannelAffineFloatQParams, name(),
              ".from_float: embedding quantization is only supported with float_qparams_weight_only_qconfig "
              "(a per_channel_affine_float_qparams weight observer), got ", observer->name());
  const QDType want = dtype_ == kQUInt8 ? QDType::kQUInt8 : QDType::kQUInt4x2;
  EMBER_CHECK(observer->dtype() == want, name(), ".from_float: the weight observer's dtype ", observer->dtype(),
              " does not match the module's ", dtype_name(dtype_));
  observer->forward(float_weight.detach());
  auto [scale, zero_point] = observer->calculate_qparams();
  set_float_weight(float_weight.detach(), scale.to(kFloat32), zero_point.to(kFloat32));
}

namespace {
DType dtype_of_qconfig(const ao::quantization::QConfig& qconfig, const char* who) {
  EMBER_CHECK(qconfig.weight, who, ".from_float: the qconfig has no weight observer");
  const auto observer = qconfig.weight();
  const auto* uniform = dynamic_cast<const ao::quantization::UniformQuantizationObserverBase*>(observer.get());
  EMBER_CHECK(uniform && uniform->qscheme() == QScheme::kPerChannelAffineFloatQParams, who,
              ".from_float: embedding quantization is only supported with float_qparams_weight_only_qconfig "
              "(a per_channel_affine_float_qparams weight observer), got ", observer->name());
  const auto d = observer->dtype();
  EMBER_CHECK(d == ao::quantization::QDType::kQUInt8 || d == ao::quantization::QDType::kQUInt4x2, who,
              ".from_float: the weight observer's dtype must be quint8 or quint4x2, got ", d);
  return d == ao::quantization::QDType::kQUInt8 ? kQUInt8 : kQUInt4x2;
}
}  // namespace

EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& o)
    : EmbeddingTableBase("QuantizedEmbedding", o.num_embeddings, o.embedding_dim, o.dtype), options(o) {}

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  return F::embedding(weight, weight_scales, weight_zero_points, dtype_, embedding_dim_, indices);
}

void EmbeddingImpl::pretty_print(std::ostream& os) const {
  os << "QuantizedEmbedding(num_embeddings=" << num_embeddings_ << ", embedding_dim=" << embedding_dim_
     << ", dtype=" << dtype_name(dtype_) << ", qscheme=per_channel_affine_float_qparams)";
}

std::shared_ptr<EmbeddingImpl> EmbeddingImpl::from_float(const ember::nn::EmbeddingImpl& m,
                                                         const ao::quantization::QConfig& qconfig) {
  auto q = std::make_shared<EmbeddingImpl>(EmbeddingOptions{.num_embeddings = m.options.num_embeddings,
                                                            .embedding_dim = m.options.embedding_dim,
                                                            .padding_idx = m.options.padding_idx,
                                                            .dtype = dtype_of_qconfig(qconfig, "Embedding")});
  q->quantize_from(m.weight, qconfig);
  return q;
}

std::shared_ptr<EmbeddingImpl> EmbeddingImpl::from_float(const ember::nn::EmbeddingImpl& m) {
  return from_float(m, ao::quantization::float_qparams_weight_only_qconfig());
}

EmbeddingBagImpl::EmbeddingBagImpl(const EmbeddingBagOptions& o)
    : EmbeddingTableBase("QuantizedEmbeddingBag", o.num_embeddings, o.embedding_dim, o.dtype), options(o) {
  EMBER_CHECK(o.mode == "sum" || o.mode == "mean" || o.mode == "max", name(),
              ": mode must be \"sum\", \"mean\" or \"max\", got \"", o.mode, "\"");
}

Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights) {
  return F::embedding_bag(weight, weight_scales, weight_zero_points, dtype_, embedding_dim_, input,
                          {.offsets = offsets, .per_sample_weights = per_sample_weights, .mode = options.mode,
                           .include_last_offset = options.include_last_offset, .padding_idx = options.padding_idx});
}

void EmbeddingBagImpl::pretty_print(std::ostream& os) const {
  os << "QuantizedEmbeddingBag(num_embeddings=" << num_embeddings_ << ", embedding_dim=" << embedding_dim_
     << ", mode=" << options.mode << ", dtype=" << dtype_name(dtype_) << ", qscheme=per_channel_affine_float_qparams)";
}

std::shared_ptr<EmbeddingBagImpl> EmbeddingBagImpl::from_float(const ember::nn::EmbeddingBagImpl& m,
                                                               const ao::quantization::QConfig& qconfig) {
  auto q = std::make_shared<EmbeddingBagImpl>(
      EmbeddingBagOptions{.num_embeddings = m.options.num_embeddings, .embedding_dim = m.options.embedding_dim,
                          .mode = m.options.mode, .include_last_offset = m.options.include_last_offset,
                          .padding_idx = m.options.padding_idx, .dtype = dtype_of_qconfig(qconfig, "EmbeddingBag")});
  q->quantize_from(m.weight, qconfig);
  return q;
}

std::shared_ptr<EmbeddingBagImpl> EmbeddingBagImpl::from_float(const ember::nn::EmbeddingBagImpl& m) {
  return from_float(m, ao::quantization::float_qparams_weight_only_qconfig());
}

}  // namespace ember::ao::nn::quantized
