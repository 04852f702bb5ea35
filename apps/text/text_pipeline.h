#pragma once
// ember-text's text -> ids pipeline: a tokenizer (basic_english, or a
// SentencePiece model trained on the training split) and the vocabulary built
// from the training split's tokens. Everything a checkpoint needs to rebuild
// it is held here (the tokenizer kind, the SentencePiece model bytes, the
// vocabulary's tokens).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <ember/text/basic_tokenizers.h>
#include <ember/text/sentencepiece.h>
#include <ember/text/vocab.h>

namespace ember::apps::text_app {

constexpr const char* kUnk = "<unk>";

class TextPipeline {
 public:
  // kind: "basic_english" or "sentencepiece" (then sp_model holds the serialized model).
  TextPipeline(std::string kind, std::string sp_model, std::vector<std::string> vocab_tokens);

  const std::string& kind() const { return kind_; }
  const std::string& sp_model() const { return sp_model_; }
  const text::Vocab& vocab() const { return vocab_; }

  std::vector<std::string> tokenize(std::string_view line) const;
  // Tokens not in the vocabulary map to <unk>.
  std::vector<int64_t> ids(std::string_view line) const;
  std::vector<std::vector<int64_t>> ids(const std::vector<std::string>& lines) const;

 private:
  std::string kind_, sp_model_;
  text::Tokenizer basic_;
  std::shared_ptr<const text::SentencePieceProcessor> sp_;
  text::Vocab vocab_;
};

struct PipelineOptions {
  std::string tokenizer = "basic_english";
  int64_t sp_vocab_size = 2000;
  std::string sp_model_type = "unigram";
  int64_t min_freq = 1;
  std::vector<std::string> specials;  // first in the vocabulary; the first one must be <unk>
};

// Trains the tokenizer (SentencePiece) and builds the vocabulary on `lines`
// (the training split). An unknown tokenizer name is an ember::Error.
TextPipeline build_pipeline(const std::vector<std::string>& lines, const PipelineOptions& options);

}  // namespace ember::apps::text_app
