#pragma once
// Embedding and EmbeddingBag (nn/functional/embedding.h).
//
//   nn::Embedding emb(1000, 64);                                   // weight ~ N(0, 1)
//   nn::Embedding emb2({.num_embeddings = 10, .embedding_dim = 3, .padding_idx = 0});
//   auto frozen = nn::Embedding::from_pretrained(vectors);         // freeze = true
//   nn::EmbeddingBag bag({.num_embeddings = 10, .embedding_dim = 3, .mode = "sum"});
//   Tensor y = bag(indices, offsets);
#include <optional>
#include <string>

#include "ember/nn/module.h"

namespace ember::nn {

struct EmbeddingOptions {
  int64_t num_embeddings = 0;
  int64_t embedding_dim = 0;
  std::optional<int64_t> padding_idx = std::nullopt;  // that row starts at zero and gets no gradient
  std::optional<double> max_norm = std::nullopt;
  double norm_type = 2;
  bool scale_grad_by_freq = false;
  bool sparse = false;     // not supported (an error when true)
  Tensor _weight = {};     // initial weight [num_embeddings, embedding_dim] (used as is)
};

class EmbeddingImpl : public Module {
 public:
  using Options = EmbeddingOptions;
  explicit EmbeddingImpl(const EmbeddingOptions& options);
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions{.num_embeddings = num_embeddings, .embedding_dim = embedding_dim}) {}
  // weight ~ N(0, 1), the padding row zeroed.
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;

  EmbeddingOptions options;
  Tensor weight;
};

struct EmbeddingFromPretrainedOptions {
  bool freeze = true;  // weight.requires_grad = !freeze
  std::optional<int64_t> padding_idx = std::nullopt;
  std::optional<double> max_norm = std::nullopt;
  double norm_type = 2;
  bool scale_grad_by_freq = false;
  bool sparse = false;
};

class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  // An Embedding whose weight is `embeddings` (2-d; the data is shared).
  static Embedding from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options = {});
};

struct EmbeddingBagOptions {
  int64_t num_embeddings = 0;
  int64_t embedding_dim = 0;
  std::optional<double> max_norm = std::nullopt;
  double norm_type = 2;
  bool scale_grad_by_freq = false;
  std::string mode = "mean";  // "sum", "mean" or "max"
  bool sparse = false;
  bool include_last_offset = false;
  std::optional<int64_t> padding_idx = std::nullopt;
  Tensor _weight = {};
};

class EmbeddingBagImpl : public Module {
 public:
  using Options = EmbeddingBagOptions;
  explicit EmbeddingBagImpl(const EmbeddingBagOptions& options);
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions{.num_embeddings = num_embeddings, .embedding_dim = embedding_dim}) {}
  void reset_parameters();
  // input 1-d with offsets, or 2-d [bags, n] without; per_sample_weights for mode "sum".
  Tensor forward(const Tensor& input, const Tensor& offsets = {}, const Tensor& per_sample_weights = {});
  void pretty_print(std::ostream& os) const override;

  EmbeddingBagOptions options;
  Tensor weight;
};

struct EmbeddingBagFromPretrainedOptions {
  bool freeze = true;
  std::optional<double> max_norm = std::nullopt;
  double norm_type = 2;
  bool scale_grad_by_freq = false;
  std::string mode = "mean";
  bool sparse = false;
  bool include_last_offset = false;
  std::optional<int64_t> padding_idx = std::nullopt;
};

class EmbeddingBag : public ModuleHolder<EmbeddingBagImpl> {
 public:
  using ModuleHolder<EmbeddingBagImpl>::ModuleHolder;
  static EmbeddingBag from_pretrained(const Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& options = {});
};

}  // namespace ember::nn
