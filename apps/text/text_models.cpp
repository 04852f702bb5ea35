#include "text_models.h"

#include <cmath>

#include <ember/core/error.h>
#include <ember/nn/init.h>
#include <ember/ops/factories.h>

namespace ember::apps::text_app {
namespace {

int64_t meta_int(const Metadata& meta, const std::string& key, const std::string& path) {
  const std::string* v = meta.find(key);
  EMBER_CHECK(v != nullptr, "ember-text: checkpoint '", path, "' has no '", key, "' entry");
  try {
    size_t used = 0;
    const long long x = std::stoll(*v, &used);
    if (used == v->size()) return x;
  } catch (const std::exception&) {
  }
  EMBER_FAIL("ember-text: checkpoint '", path, "': entry '", key, "' is not an integer: '", *v, "'");
}

nn::TransformerEncoder make_encoder(const ModelSpec& s) {
  nn::TransformerEncoderLayer layer(nn::TransformerLayerOptions{
      .d_model = s.embed_dim, .nhead = s.nhead, .dim_feedforward = s.dim_feedforward, .dropout = s.dropout});
  return nn::TransformerEncoder(layer, s.layers);
}

}  // namespace

void ModelSpec::write(Metadata& meta) const {
  meta["text.model"] = model;
  meta["text.vocab_size"] = std::to_string(vocab_size);
  meta["text.num_classes"] = std::to_string(num_classes);
  meta["text.embed_dim"] = std::to_string(embed_dim);
  meta["text.nhead"] = std::to_string(nhead);
  meta["text.layers"] = std::to_string(layers);
  meta["text.dim_feedforward"] = std::to_string(dim_feedforward);
  char dropout_text[32];
  std::snprintf(dropout_text, sizeof(dropout_text), "%.17g", dropout);
  meta["text.dropout"] = dropout_text;
  meta["text.pad_index"] = std::to_string(pad_index);
  meta["text.max_len"] = std::to_string(max_len);
}

ModelSpec ModelSpec::read(const Metadata& meta, const std::string& path) {
  ModelSpec s;
  const std::string* model_name = meta.find("text.model");
  EMBER_CHECK(model_name != nullptr, "ember-text: checkpoint '", path, "' has no 'text.model' entry");
  s.model = *model_name;
  s.vocab_size = meta_int(meta, "text.vocab_size", path);
  s.num_classes = meta_int(meta, "text.num_classes", path);
  s.embed_dim = meta_int(meta, "text.embed_dim", path);
  s.nhead = meta_int(meta, "text.nhead", path);
  s.layers = meta_int(meta, "text.layers", path);
  s.dim_feedforward = meta_int(meta, "text.dim_feedforward", path);
  const std::string* dropout = meta.find("text.dropout");
  EMBER_CHECK(dropout != nullptr, "ember-text: checkpoint '", path, "' has no 'text.dropout' entry");
  s.dropout = std::strtod(dropout->c_str(), nullptr);
  s.pad_index = meta_int(meta, "text.pad_index", path);
  s.max_len = meta_int(meta, "text.max_len", path);
  return s;
}

ModelSpec with_defaults(ModelSpec s) {
  // The tutorials' sizes: torchtext's text classification (embed 64) and
  // PyTorch's Transformer LM (emsize 200, d_hid 200, 2 layers, 2 heads, dropout 0.2).
  const bool lm = s.model == "transformer_lm";
  if (s.embed_dim <= 0) s.embed_dim = lm ? 200 : 64;
  if (s.nhead <= 0) s.nhead = lm ? 2 : 4;
  if (s.layers <= 0) s.layers = 2;
  if (s.dim_feedforward <= 0) s.dim_feedforward = lm ? 200 : 128;
  if (s.dropout < 0) s.dropout = lm ? 0.2 : 0.1;
  if (s.max_len <= 0) s.max_len = lm ? 5000 : 256;
  return s;
}

PositionalEncodingImpl::PositionalEncodingImpl(int64_t d_model, double dropout, int64_t max_len)
    : Module("PositionalEncoding") {
  drop = register_module("dropout", nn::Dropout(dropout));
  pe = zeros({max_len, 1, d_model});
  float* p = pe.data_ptr<float>();
  for (int64_t pos = 0; pos < max_len; ++pos)
    for (int64_t i = 0; i < d_model; i += 2) {
      // div_term = exp(i * -log(10000) / d), as the tutorial computes it.
      const double angle = static_cast<double>(pos) *
                           std::exp(static_cast<double>(i) * (-std::log(10000.0) / static_cast<double>(d_model)));
      p[pos * d_model + i] = static_cast<float>(std::sin(angle));
      if (i + 1 < d_model) p[pos * d_model + i + 1] = static_cast<float>(std::cos(angle));
    }
}

Tensor PositionalEncodingImpl::forward(const Tensor& x) {
  EMBER_CHECK(x.size(0) <= pe.size(0), "ember-text: a sequence of ", x.size(0), " tokens is longer than the ",
              pe.size(0), " positions the model encodes");
  return drop->forward(x + pe.slice(0, 0, x.size(0)));
}

EmbBagClassifierImpl::EmbBagClassifierImpl(const ModelSpec& s) : Module("EmbBagClassifier") {
  embedding = register_module("embedding", nn::EmbeddingBag(nn::EmbeddingBagOptions{
                                               .num_embeddings = s.vocab_size, .embedding_dim = s.embed_dim,
                                               .mode = "mean"}));
  fc = register_module("fc", nn::Linear(s.embed_dim, s.num_classes));
  // torchtext's tutorial: init_weights with initrange 0.5.
  nn::init::uniform_(embedding->weight, -0.5, 0.5);
  nn::init::uniform_(fc->weight, -0.5, 0.5);
  nn::init::zeros_(fc->bias);
}

Tensor EmbBagClassifierImpl::forward(const Tensor& ids, const Tensor& offsets) {
  return fc->forward(embedding->forward(ids, offsets));
}

TransformerClassifierImpl::TransformerClassifierImpl(const ModelSpec& s) : Module("TransformerClassifier"), spec(s) {
  embedding = register_module("embedding", nn::Embedding(s.vocab_size, s.embed_dim));
  pos = register_module("pos", PositionalEncoding(s.embed_dim, s.dropout, s.max_len));
  encoder = register_module("encoder", make_encoder(s));
  fc = register_module("fc", nn::Linear(s.embed_dim, s.num_classes));
  nn::init::uniform_(embedding->weight, -0.1, 0.1);
  nn::init::uniform_(fc->weight, -0.1, 0.1);
  nn::init::zeros_(fc->bias);
}

Tensor TransformerClassifierImpl::forward(const Tensor& ids) {
  const Tensor pad = ids.eq(spec.pad_index);                      // [S, B], true = padding
  Tensor x = embedding->forward(ids) * std::sqrt(static_cast<double>(spec.embed_dim));
  x = encoder->forward(pos->forward(x), {}, pad.transpose(0, 1));  // key padding mask [B, S]
  // Mean over the real tokens of each text.
  const Tensor keep = pad.logical_not().to(x.dtype()).unsqueeze(2);  // [S, B, 1]
  const Tensor pooled = (x * keep).sum({0}) / keep.sum({0}).clamp_min(1.0);
  return fc->forward(pooled);
}

TransformerLMImpl::TransformerLMImpl(const ModelSpec& s) : Module("TransformerLM"), spec(s) {
  embedding = register_module("embedding", nn::Embedding(s.vocab_size, s.embed_dim));
  pos = register_module("pos", PositionalEncoding(s.embed_dim, s.dropout, s.max_len));
  encoder = register_module("encoder", make_encoder(s));
  decoder = register_module("decoder", nn::Linear(s.embed_dim, s.vocab_size));
  // The tutorial's init_weights, initrange 0.1.
  nn::init::uniform_(embedding->weight, -0.1, 0.1);
  nn::init::zeros_(decoder->bias);
  nn::init::uniform_(decoder->weight, -0.1, 0.1);
}

Tensor TransformerLMImpl::forward(const Tensor& ids) {
  const Tensor mask = nn::TransformerImpl::generate_square_subsequent_mask(ids.size(0));
  Tensor x = embedding->forward(ids) * std::sqrt(static_cast<double>(spec.embed_dim));
  return decoder->forward(encoder->forward(pos->forward(x), mask));
}

nn::Module& TextModel::module() const {
  if (embbag) return *embbag;
  if (classifier) return *classifier;
  return *lm;
}

TextModel create_model(const ModelSpec& spec) {
  TextModel m;
  m.spec = with_defaults(spec);
  const ModelSpec& s = m.spec;
  EMBER_CHECK(s.vocab_size >= 2, "ember-text: a vocabulary of ", s.vocab_size, " tokens is too small");
  if (s.model == "embbag") {
    m.embbag = EmbBagClassifier(s);
  } else if (s.model == "transformer" || s.model == "transformer_lm") {
    EMBER_CHECK(s.embed_dim % s.nhead == 0, "ember-text: --embed-dim ", s.embed_dim, " is not divisible by --nhead ",
                s.nhead);
    if (s.model == "transformer") {
      EMBER_CHECK(s.pad_index >= 0 && s.pad_index < s.vocab_size, "ember-text: the transformer classifier needs a ",
                  "<pad> id in the vocabulary");
      m.classifier = TransformerClassifier(s);
    } else {
      m.lm = TransformerLM(s);
    }
  } else {
    EMBER_FAIL("ember-text: unknown model '", s.model, "' (expected embbag or transformer)");
  }
  return m;
}

}  // namespace ember::apps::text_app
