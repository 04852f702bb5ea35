#pragma once
// Quantized Embedding and EmbeddingBag (torch.ao.nn.quantized.Embedding /
// EmbeddingBag, PyTorch 1.13): a table of 8-bit (quint8) or 4-bit (quint4x2)
// rows, each with its own float scale and float zero point
// (per_channel_affine_float_qparams along dim 0; docs/quantization.md).
//
//   nn::Embedding emb(1000, 64);
//   auto q = ao::nn::quantized::Embedding::from_float(*emb);   // float_qparams_weight_only_qconfig
//   Tensor y = q(indices);                                     // float32 [..., 64]
//
// Ember's quantized tensors have no float-zero-point scheme, so the table is
// kept as three tensors (registered buffers, so state_dict / save / load carry
// them): `weight` uint8 [N, D] (8-bit) or [N, ceil(D / 2)] (4-bit, two values
// per byte along the row, low nibble first, as torch's quint4x2), and
// `weight_scales`, `weight_zero_points` float32 [N]: real = (q - zp) * scale.
#include <optional>
#include <string>

#include "ember/core/tensor.h"
#include "ember/nn/module.h"

namespace ember::nn {
class EmbeddingImpl;
class EmbeddingBagImpl;
}  // namespace ember::nn

namespace ember::ao::quantization {
struct QConfig;
}

namespace ember::ao::nn::quantized {

namespace functional {
// Quantizes a float table [N, D] row by row with float qparams (scales,
// zero_points float32 [N]) to quint8 (8-bit) or quint4x2 (4-bit) rows:
// q = clamp(nearbyint(x * (1 / scale) + zero_point), 0, 2^bits - 1) in
// float32 (torch's quantize_val_float_qparams; a zero scale uses 1). Returns
// the stored integers, uint8 [N, D] or [N, ceil(D / 2)].
Tensor quantize_embedding_rows(const Tensor& weight, const Tensor& scales, const Tensor& zero_points, DType dtype);
// The float table of quantized rows: (q - zero_point) * scale, float32 [N, D].
Tensor dequantize_embedding_rows(const Tensor& qweight, const Tensor& scales, const Tensor& zero_points,
                                 DType dtype, int64_t embedding_dim);

struct EmbeddingBagArgs {
  Tensor offsets = {};             // 1-d input: bag starts (int64); 2-d input: none
  Tensor per_sample_weights = {};  // float32, one per index (mode "sum" only)
  std::string mode = "sum";        // "sum", "mean" or "max"
  bool include_last_offset = false;
  std::optional<int64_t> padding_idx = std::nullopt;  // entries of this index are left out
};
// torch.ops.quantized.embedding_byte / embedding_4bit: rows of `indices` (any
// shape) -> float32 [*indices.shape, D].
Tensor embedding(const Tensor& qweight, const Tensor& scales, const Tensor& zero_points, DType dtype,
                 int64_t embedding_dim, const Tensor& indices);
// torch.ops.quantized.embedding_bag_byte / embedding_bag_4bit (mode "sum"),
// and the float EmbeddingBag's mean / max / padding_idx over the same rows.
Tensor embedding_bag(const Tensor& qweight, const Tensor& scales, const Tensor& zero_points, DType dtype,
                     int64_t embedding_dim, const Tensor& input, const EmbeddingBagArgs& args = {});
}  // namespace functional

struct EmbeddingOptions {
  int64_t num_embeddings = 0;
  int64_t embedding_dim = 0;
  std::optional<int64_t> padding_idx = std::nullopt;  // kept for printing; a lookup returns that row as any other
  DType dtype = kQUInt8;                              // kQUInt8 or kQUInt4x2
};

// What the two modules share: the quantized table and its parameters.
class EmbeddingTableBase : public ember::nn::Module {
 public:
  // Sets the table from stored integers (uint8, as quantize_embedding_rows
  // returns) and per-row scales and zero points (float32 [N]).
  void set_weight(const Tensor& qweight, const Tensor& scales, const Tensor& zero_points);
  // Quantizes a float table [N, D] with the given per-row parameters.
  void set_float_weight(const Tensor& weight, const Tensor& scales, const Tensor& zero_points);
  // The dequantized table, float32 [N, D] (torch's weight().dequantize()).
  Tensor dequantized_weight() const;
  int64_t num_embeddings() const { return num_embeddings_; }
  int64_t embedding_dim() const { return embedding_dim_; }
  DType dtype() const { return dtype_; }

  Tensor weight, weight_scales, weight_zero_points;  // buffers (see the file comment)

 protected:
  EmbeddingTableBase(std::string name, int64_t num_embeddings, int64_t embedding_dim, DType dtype);
  // The quantized table of a float module's weight, through qconfig.weight's
  // observer (float qparams per row).
  void quantize_from(const Tensor& float_weight, const ao::quantization::QConfig& qconfig);
  int64_t num_embeddings_, embedding_dim_;
  DType dtype_;
};

class EmbeddingImpl : public EmbeddingTableBase {
 public:
  using Options = EmbeddingOptions;
  // A table of zeros (scale 1, zero point 0), as torch's constructor.
  explicit EmbeddingImpl(const EmbeddingOptions& options);
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions{.num_embeddings = num_embeddings, .embedding_dim = embedding_dim}) {}
  Tensor forward(const Tensor& indices);
  void pretty_print(std::ostream& os) const override;
  // torch's Embedding.from_float: qconfig.weight must observe per-row float
  // qparams (float_qparams_weight_only_qconfig or its 4-bit form); its dtype
  // picks 8 or 4 bits.
  static std::shared_ptr<EmbeddingImpl> from_float(const ember::nn::EmbeddingImpl& module,
                                                   const ao::quantization::QConfig& qconfig);
  static std::shared_ptr<EmbeddingImpl> from_float(const ember::nn::EmbeddingImpl& module);
  EmbeddingOptions options;
};
EMBER_MODULE(Embedding);

struct EmbeddingBagOptions {
  int64_t num_embeddings = 0;
  int64_t embedding_dim = 0;
  std::string mode = "sum";  // "sum", "mean" or "max" (torch 1.13's module always sums; see the docs)
  bool include_last_offset = false;
  std::optional<int64_t> padding_idx = std::nullopt;
  DType dtype = kQUInt8;
};

class EmbeddingBagImpl : public EmbeddingTableBase {
 public:
  using Options = EmbeddingBagOptions;
  explicit EmbeddingBagImpl(const EmbeddingBagOptions& options);
  // input 1-d with offsets, or 2-d [bags, n] without; per_sample_weights for mode "sum".
  Tensor forward(const Tensor& input, const Tensor& offsets = {}, const Tensor& per_sample_weights = {});
  void pretty_print(std::ostream& os) const override;
  static std::shared_ptr<EmbeddingBagImpl> from_float(const ember::nn::EmbeddingBagImpl& module,
                                                      const ao::quantization::QConfig& qconfig);
  static std::shared_ptr<EmbeddingBagImpl> from_float(const ember::nn::EmbeddingBagImpl& module);
  EmbeddingBagOptions options;
};
EMBER_MODULE(EmbeddingBag);

}  // namespace ember::ao::nn::quantized
