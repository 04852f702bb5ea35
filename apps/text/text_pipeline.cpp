#include "text_pipeline.h"

#include <ember/core/error.h>

namespace ember::apps::text_app {

TextPipeline::TextPipeline(std::string kind, std::string sp_model, std::vector<std::string> vocab_tokens)
    : kind_(std::move(kind)), sp_model_(std::move(sp_model)) {
  if (kind_ == "basic_english") {
    basic_ = text::get_tokenizer("basic_english");
  } else if (kind_ == "sentencepiece") {
    EMBER_CHECK(!sp_model_.empty(), "ember-text: the sentencepiece tokenizer has no model");
    sp_ = std::make_shared<const text::SentencePieceProcessor>(text::SentencePieceProcessor::from_bytes(sp_model_));
  } else {
    EMBER_FAIL("ember-text: unknown tokenizer '", kind_, "' (expected basic_english or sentencepiece)");
  }
  EMBER_CHECK(!vocab_tokens.empty() && vocab_tokens[0] == kUnk, "ember-text: the vocabulary must start with ", kUnk);
  vocab_ = text::Vocab(std::move(vocab_tokens), /*default_index=*/0);
}

std::vector<std::string> TextPipeline::tokenize(std::string_view line) const {
  return sp_ ? sp_->encode_as_pieces(line) : basic_(line);
}

std::vector<int64_t> TextPipeline::ids(std::string_view line) const { return vocab_.lookup_indices(tokenize(line)); }

std::vector<std::vector<int64_t>> TextPipeline::ids(const std::vector<std::string>& lines) const {
  std::vector<std::vector<int64_t>> out;
  out.reserve(lines.size());
  if (sp_) {
    // SentencePiece encodes a batch on Ember's worker threads.
    for (const auto& pieces : sp_->encode_batch_as_pieces(lines)) out.push_back(vocab_.lookup_indices(pieces));
  } else {
    for (const auto& line : lines) out.push_back(ids(line));
  }
  return out;
}

TextPipeline build_pipeline(const std::vector<std::string>& lines, const PipelineOptions& o) {
  EMBER_CHECK(!o.specials.empty() && o.specials[0] == kUnk, "ember-text: the vocabulary's first special must be ",
              kUnk);
  std::string sp_model;
  if (o.tokenizer == "sentencepiece") {
    EMBER_CHECK(o.sp_vocab_size >= 8, "ember-text: --sp-vocab-size must be at least 8 (got ", o.sp_vocab_size, ")");
    text::SentencePieceTrainOptions so;
    so.vocab_size = o.sp_vocab_size;
    so.model_type = o.sp_model_type;
    // A fixed count (the unigram trainer's sums depend on it in their last
    // bits), whatever the library's default and the machine's cores.
    so.num_threads = 2;
    // A small corpus may hold fewer pieces than asked for: take what it has.
    so.hard_vocab_limit = false;
    std::vector<std::string> nonempty;
    for (const auto& l : lines)
      if (l.find_first_not_of(" \t\r\n") != std::string::npos) nonempty.push_back(l);
    sp_model = text::train_sentencepiece_from_sentences(nonempty, so);
  } else if (o.tokenizer != "basic_english") {
    EMBER_FAIL("ember-text: unknown tokenizer '", o.tokenizer, "' (expected basic_english or sentencepiece)");
  }
  // A pipeline without a vocabulary yet tokenizes the training lines.
  TextPipeline tokenizer(o.tokenizer, sp_model, {kUnk});
  text::TokenCounter counter;
  for (const auto& line : lines) counter.update(tokenizer.tokenize(line));
  const text::Vocab v = text::build_vocab_from_counter(counter, o.min_freq, o.specials);
  return TextPipeline(o.tokenizer, std::move(sp_model), v.get_itos());
}

}  // namespace ember::apps::text_app
