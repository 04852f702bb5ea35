#pragma once
// ember-text's models:
// - EmbBagClassifier: torchtext's text-classification tutorial model,
//   EmbeddingBag(vocab, embed_dim, mode mean) over offsets, then Linear.
// - TransformerClassifier: token embedding * sqrt(d) + sinusoidal positions,
//   a TransformerEncoder, mean over the non-pad tokens, Linear.
// - TransformerLM: PyTorch's word-language-model tutorial model, embedding *
//   sqrt(d) + positions, a TransformerEncoder with a causal mask, Linear to
//   the vocabulary.
#include <cstdint>
#include <memory>
#include <string>

#include <ember/core/ordered_dict.h>
#include <ember/nn/modules/dropout.h>
#include <ember/nn/modules/embedding.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/transformer.h>

namespace ember::apps::text_app {

// The hyperparameters a checkpoint records to rebuild the model.
struct ModelSpec {
  std::string model;        // embbag, transformer (classify) or transformer_lm
  int64_t vocab_size = 0;
  int64_t num_classes = 0;  // classifiers
  int64_t embed_dim = 0;
  int64_t nhead = 0, layers = 0, dim_feedforward = 0;
  double dropout = 0;
  int64_t pad_index = -1;   // transformer classifier: the <pad> id
  int64_t max_len = 0;      // positions the encoding covers

  void write(Metadata& meta) const;
  static ModelSpec read(const Metadata& meta, const std::string& path);
};

// Fills the zero / negative fields of `spec` with the model's defaults.
ModelSpec with_defaults(ModelSpec spec);

// PyTorch tutorials' PositionalEncoding: adds pe[:S] ([max_len, 1, d], sin on
// even columns, cos on odd ones) to x [S, N, d], then dropout.
class PositionalEncodingImpl : public nn::Module {
 public:
  PositionalEncodingImpl(int64_t d_model, double dropout, int64_t max_len);
  Tensor forward(const Tensor& x);
  nn::Dropout drop{nullptr};
  Tensor pe;  // not a parameter, not saved: a function of the spec
};
EMBER_MODULE(PositionalEncoding);

class EmbBagClassifierImpl : public nn::Module {
 public:
  explicit EmbBagClassifierImpl(const ModelSpec& spec);
  // ids: all texts' ids concatenated [T]; offsets [B]: where each text starts.
  Tensor forward(const Tensor& ids, const Tensor& offsets);
  nn::EmbeddingBag embedding{nullptr};
  nn::Linear fc{nullptr};
};
EMBER_MODULE(EmbBagClassifier);

class TransformerClassifierImpl : public nn::Module {
 public:
  explicit TransformerClassifierImpl(const ModelSpec& spec);
  // ids [S, B] padded with spec.pad_index -> logits [B, num_classes].
  Tensor forward(const Tensor& ids);
  ModelSpec spec;
  nn::Embedding embedding{nullptr};
  PositionalEncoding pos{nullptr};
  nn::TransformerEncoder encoder{nullptr};
  nn::Linear fc{nullptr};
};
EMBER_MODULE(TransformerClassifier);

class TransformerLMImpl : public nn::Module {
 public:
  explicit TransformerLMImpl(const ModelSpec& spec);
  // ids [S, B] -> logits [S, B, vocab] (position s sees positions <= s).
  Tensor forward(const Tensor& ids);
  ModelSpec spec;
  nn::Embedding embedding{nullptr};
  PositionalEncoding pos{nullptr};
  nn::TransformerEncoder encoder{nullptr};
  nn::Linear decoder{nullptr};
};
EMBER_MODULE(TransformerLM);

// One of the three, behind one interface for the training loops.
struct TextModel {
  ModelSpec spec;
  EmbBagClassifier embbag{nullptr};
  TransformerClassifier classifier{nullptr};
  TransformerLM lm{nullptr};
  nn::Module& module() const;
};

// Builds the model of a (defaulted) spec; an unknown model name is an ember::Error.
TextModel create_model(const ModelSpec& spec);

}  // namespace ember::apps::text_app
