#pragma once
// nn::functional::embedding / embedding_bag, as torch.nn.functional's.
#include <optional>
#include <string>

#include "ember/core/tensor.h"

namespace ember::nn::functional {

struct EmbeddingFuncOptions {
  // Entries equal to padding_idx get no gradient (negative: counted from the end).
  std::optional<int64_t> padding_idx = std::nullopt;
  // Rows looked up are first renormalized in place (no grad) to norm <= max_norm.
  std::optional<double> max_norm = std::nullopt;
  double norm_type = 2;
  // Each row's gradient divided by how often its index occurs in input.
  bool scale_grad_by_freq = false;
  // Sparse gradients are not supported (an error when true).
  bool sparse = false;
};

// weight[input]: input of int64/int32 indices of any shape, weight [num, dim]
// -> [*input.shape, dim].
Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options = {});
// In place and without gradient: the rows of weight indexed by input whose
// norm_type-norm exceeds max_norm are scaled to max_norm / (norm + 1e-7).
Tensor& embedding_renorm_(Tensor& weight, const Tensor& input, double max_norm, double norm_type = 2);

struct EmbeddingBagFuncOptions {
  // Start of each bag in a 1-d input (a 2-d input [B, N] is B bags of N).
  Tensor offsets = {};
  std::optional<double> max_norm = std::nullopt;
  double norm_type = 2;
  bool scale_grad_by_freq = false;
  // "sum", "mean" or "max".
  std::string mode = "mean";
  bool sparse = false;
  // Weights of each input entry (mode "sum" only), input's shape.
  Tensor per_sample_weights = {};
  // offsets has one more entry, the end of the last bag.
  bool include_last_offset = false;
  // Entries equal to padding_idx are left out of their bag.
  std::optional<int64_t> padding_idx = std::nullopt;
};

// Reduces the embeddings of each bag: [bags, dim]. Empty bags give zeros.
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& options = {});

}  // namespace ember::nn::functional
