// VocabTransform and SentencePieceTokenizer (torchtext 0.14).
#include <ember/core/error.h>

#include "ember/text/transforms.h"
#include "transforms/sequences.h"

namespace ember::text::transforms {

VocabTransformImpl::VocabTransformImpl(Vocab vocab) : TextTransformImpl("VocabTransform"), vocab_(std::move(vocab)) {}

IValue VocabTransformImpl::forward(const IValue& input) {
  return detail::map_sequences(input, "VocabTransform", [this](const IValue& seq) {
    return to_value(vocab_.lookup_indices(to_strings(seq, "VocabTransform")));
  });
}

Params VocabTransformImpl::params() const {
  const std::optional<int64_t> d = vocab_.get_default_index();
  return {{"tokens", to_value(vocab_.get_itos())}, {"default_index", d ? IValue(*d) : IValue()}};
}

SentencePieceTokenizerImpl::SentencePieceTokenizerImpl(std::string sp_model_path)
    : TextTransformImpl("SentencePieceTokenizer"), path_(std::move(sp_model_path)), sp_(load_sp_model(path_)) {}

IValue SentencePieceTokenizerImpl::forward(const IValue& input) {
  if (input.is_string()) return to_value(sp_->encode_as_pieces(input.to_string()));
  return to_value(sp_->encode_batch_as_pieces(to_strings(input, "SentencePieceTokenizer")));
}

}  // namespace ember::text::transforms
