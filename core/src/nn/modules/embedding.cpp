#include "ember/nn/modules/embedding.h"

#include <ostream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/functional/embedding.h"
#include "ember/nn/init.h"
#include "ember/ops/factories.h"
#include "nn/modules/py_repr.h"

namespace ember::nn {

namespace {

std::optional<int64_t> module_padding_idx(std::optional<int64_t> p, int64_t num, const char* name) {
  if (!p) return p;
  EMBER_CHECK(*p < num && *p >= -num, name, ": Padding_idx must be within num_embeddings (got padding_idx=", *p,
              " for ", num, " embeddings)");
  return *p < 0 ? *p + num : *p;
}

Tensor initial_weight(const Tensor& given, int64_t num, int64_t dim, const char* name) {
  EMBER_CHECK(num >= 0 && dim >= 0, name, ": num_embeddings and embedding_dim must be non-negative, got ", num,
              " and ", dim);
  if (!given.defined()) return empty({num, dim});
  EMBER_CHECK(given.dim() == 2 && given.size(0) == num && given.size(1) == dim, name,
              ": Shape of weight does not match num_embeddings and embedding_dim: weight ", given.sizes(), " vs (",
              num, ", ", dim, ")");
  return given;
}

void fill_padding_row(Tensor& weight, std::optional<int64_t> padding_idx) {
  if (!padding_idx) return;
  NoGradGuard no_grad;
  weight.select(0, *padding_idx).fill_(0);
}

void print_common(std::ostream& os, int64_t num, int64_t dim, std::optional<double> max_norm, double norm_type,
                  bool freq) {
  os << num << ", " << dim;
  if (max_norm) os << ", max_norm=" << detail::py_float(*max_norm);
  if (norm_type != 2) os << ", norm_type=" << detail::py_float(norm_type);
  if (freq) os << ", scale_grad_by_freq=True";
}

}  // namespace

// ---- Embedding ----

EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& o) : Module("Embedding"), options(o) {
  options.padding_idx = module_padding_idx(o.padding_idx, o.num_embeddings, "Embedding");
  options._weight = Tensor();
  register_parameter("weight", initial_weight(o._weight, o.num_embeddings, o.embedding_dim, "Embedding"), &weight);
  if (!o._weight.defined()) reset_parameters();
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  fill_padding_row(weight, options.padding_idx);
}

Tensor EmbeddingImpl::forward(const Tensor& input) {
  return functional::embedding(input, weight,
                               {.padding_idx = options.padding_idx,
                                .max_norm = options.max_norm,
                                .norm_type = options.norm_type,
                                .scale_grad_by_freq = options.scale_grad_by_freq,
                                .sparse = options.sparse});
}

void EmbeddingImpl::pretty_print(std::ostream& os) const {
  os << "Embedding(" << options.num_embeddings << ", " << options.embedding_dim;
  if (options.padding_idx) os << ", padding_idx=" << *options.padding_idx;
  if (options.max_norm) os << ", max_norm=" << detail::py_float(*options.max_norm);
  if (options.norm_type != 2) os << ", norm_type=" << detail::py_float(options.norm_type);
  if (options.scale_grad_by_freq) os << ", scale_grad_by_freq=True";
  if (options.sparse) os << ", sparse=True";
  os << ")";
}

Embedding Embedding::from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& o) {
  EMBER_CHECK(embeddings.defined() && embeddings.dim() == 2,
              "Embedding::from_pretrained: Embeddings parameter is expected to be 2-dimensional");
  Embedding emb(EmbeddingOptions{.num_embeddings = embeddings.size(0),
                                 .embedding_dim = embeddings.size(1),
                                 .padding_idx = o.padding_idx,
                                 .max_norm = o.max_norm,
                                 .norm_type = o.norm_type,
                                 .scale_grad_by_freq = o.scale_grad_by_freq,
                                 .sparse = o.sparse,
                                 ._weight = embeddings.detach()});
  emb->weight.requires_grad_(!o.freeze);
  return emb;
}

// ---- EmbeddingBag ----

EmbeddingBagImpl::EmbeddingBagImpl(const EmbeddingBagOptions& o) : Module("EmbeddingBag"), options(o) {
  EMBER_CHECK(o.mode == "sum" || o.mode == "mean" || o.mode == "max",
              "EmbeddingBag: mode has to be one of sum, mean or max, got '", o.mode, "'");
  options.padding_idx = module_padding_idx(o.padding_idx, o.num_embeddings, "EmbeddingBag");
  options._weight = Tensor();
  register_parameter("weight", initial_weight(o._weight, o.num_embeddings, o.embedding_dim, "EmbeddingBag"),
                     &weight);
  if (!o._weight.defined()) reset_parameters();
}

void EmbeddingBagImpl::reset_parameters() {
  init::normal_(weight);
  fill_padding_row(weight, options.padding_idx);
}

Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights) {
  return functional::embedding_bag(input, weight,
                                   {.offsets = offsets,
                                    .max_norm = options.max_norm,
                                    .norm_type = options.norm_type,
                                    .scale_grad_by_freq = options.scale_grad_by_freq,
                                    .mode = options.mode,
                                    .sparse = options.sparse,
                                    .per_sample_weights = per_sample_weights,
                                    .include_last_offset = options.include_last_offset,
                                    .padding_idx = options.padding_idx});
}

void EmbeddingBagImpl::pretty_print(std::ostream& os) const {
  os << "EmbeddingBag(";
  print_common(os, options.num_embeddings, options.embedding_dim, options.max_norm, options.norm_type,
               options.scale_grad_by_freq);
  os << ", mode=" << options.mode;
  if (options.padding_idx) os << ", padding_idx=" << *options.padding_idx;
  os << ")";
}

EmbeddingBag EmbeddingBag::from_pretrained(const Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& o) {
  EMBER_CHECK(embeddings.defined() && embeddings.dim() == 2,
              "EmbeddingBag::from_pretrained: Embeddings parameter is expected to be 2-dimensional");
  EmbeddingBag bag(EmbeddingBagOptions{.num_embeddings = embeddings.size(0),
                                       .embedding_dim = embeddings.size(1),
                                       .max_norm = o.max_norm,
                                       .norm_type = o.norm_type,
                                       .scale_grad_by_freq = o.scale_grad_by_freq,
                                       .mode = o.mode,
                                       .sparse = o.sparse,
                                       .include_last_offset = o.include_last_offset,
                                       .padding_idx = o.padding_idx,
                                       ._weight = embeddings.detach()});
  bag->weight.requires_grad_(!o.freeze);
  return bag;
}

}  // namespace ember::nn
