#pragma once
// ember::text::transforms: torchtext 0.14's text transforms as serializable
// modules. They map plain values, not tensors: a string, a list of strings
// (tokens), a list of ints (ids), lists of those (a batch), or a tensor, all
// carried as an ember::IValue. They derive from the suite's TransformBase, so
// they save and load as JSON through the same registry as vision's and
// audio's transforms (text::transforms::save / load).
//
//   namespace TT = ember::text::transforms;
//   TT::Sequential pipeline({TT::Truncate(254), TT::AddToken(0, true), TT::AddToken(2, false), TT::ToTensor(1)});
//   IValue batch = pipeline(IValue::list({ids_a, ids_b}));   // a [2, L] int64 tensor padded with 1
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ember/core/ivalue.h>
#include <ember/transforms/serialize.h>
#include <ember/transforms/transform.h>

#include "ember/text/sentencepiece.h"
#include "ember/text/vocab.h"

namespace ember::text::transforms {

using ::ember::transforms::Params;

class TextTransformImpl : public ::ember::transforms::TransformBase {
 public:
  explicit TextTransformImpl(std::string type_name) : TransformBase(std::move(type_name)) {}
  virtual IValue forward(const IValue& input) = 0;
  IValue operator()(const IValue& input) { return forward(input); }
};

using TextTransformPtr = std::shared_ptr<TextTransformImpl>;

// The handle users hold, convertible to TextTransformPtr for Sequential's list.
template <class Impl>
class TextTransformHolder : public nn::ModuleHolder<Impl> {
 public:
  using nn::ModuleHolder<Impl>::ModuleHolder;
  operator TextTransformPtr() const { return this->ptr(); }
  IValue operator()(const IValue& input) const { return this->ptr()->forward(input); }
};

#define EMBER_TEXT_TRANSFORM(Name)                                                          \
  class Name : public ::ember::text::transforms::TextTransformHolder<Name##Impl> {          \
   public:                                                                                  \
    using ::ember::text::transforms::TextTransformHolder<Name##Impl>::TextTransformHolder;  \
  }

// IValue lists from C++ containers, and back (an ember::Error naming `op` on a type mismatch).
IValue to_value(const std::vector<std::string>& tokens);
IValue to_value(const std::vector<std::vector<std::string>>& batch);
IValue to_value(const std::vector<int64_t>& ids);
IValue to_value(const std::vector<std::vector<int64_t>>& batch);
std::vector<std::string> to_strings(const IValue& value, const char* op);
std::vector<int64_t> to_ints(const IValue& value, const char* op);

// Keeps the first max_seq_len items of a sequence, or of each sequence of a batch.
class TruncateImpl : public TextTransformImpl {
 public:
  explicit TruncateImpl(int64_t max_seq_len);
  IValue forward(const IValue& input) override;
  Params params() const override { return {{"max_seq_len", max_seq_len_}}; }

 private:
  int64_t max_seq_len_;
};
EMBER_TEXT_TRANSFORM(Truncate);

// Adds `token` (an int id or a str token) at the beginning (begin = true) or
// the end of a sequence, or of each sequence of a batch.
class AddTokenImpl : public TextTransformImpl {
 public:
  AddTokenImpl(IValue token, bool begin = false);
  IValue forward(const IValue& input) override;
  Params params() const override { return {{"token", token_}, {"begin", begin_}}; }

 private:
  IValue token_;
  bool begin_;
};
EMBER_TEXT_TRANSFORM(AddToken);

// Ids to an int64 tensor: a list of ints to [L]; a batch to [B, max L],
// right-padded with padding_value (a ragged batch without one is an error, as
// torch.tensor's).
class ToTensorImpl : public TextTransformImpl {
 public:
  explicit ToTensorImpl(std::optional<int64_t> padding_value = std::nullopt);
  IValue forward(const IValue& input) override;
  Params params() const override;

 private:
  std::optional<int64_t> padding_value_;
};
EMBER_TEXT_TRANSFORM(ToTensor);

// Right-pads the last dim of a tensor to max_length with pad_value (longer tensors are kept).
class PadTransformImpl : public TextTransformImpl {
 public:
  PadTransformImpl(int64_t max_length, int64_t pad_value);
  IValue forward(const IValue& input) override;
  Params params() const override { return {{"max_length", max_length_}, {"pad_value", pad_value_}}; }

 private:
  int64_t max_length_, pad_value_;
};
EMBER_TEXT_TRANSFORM(PadTransform);

// Decimal strings to ints (a sequence or a batch); anything else is an error naming the string.
class StrToIntTransformImpl : public TextTransformImpl {
 public:
  StrToIntTransformImpl() : TextTransformImpl("StrToIntTransform") {}
  IValue forward(const IValue& input) override;
  Params params() const override { return {}; }
};
EMBER_TEXT_TRANSFORM(StrToIntTransform);

// Label names to their indices (a str to an int, a list to a list); the names
// in the given order, or sorted with sort_names. An unknown label is an error.
class LabelToIndexImpl : public TextTransformImpl {
 public:
  explicit LabelToIndexImpl(std::vector<std::string> label_names, bool sort_names = false);
  IValue forward(const IValue& input) override;
  Params params() const override;
  const std::vector<std::string>& label_names() const { return names_; }

 private:
  std::vector<std::string> names_;
  bool sort_names_;
};
EMBER_TEXT_TRANSFORM(LabelToIndex);

// Tokens to their vocabulary ids (a sequence or a batch), through
// Vocab::lookup_indices: a missing token without a default index is an
// error naming it. Saved with the vocabulary's tokens and default index.
class VocabTransformImpl : public TextTransformImpl {
 public:
  explicit VocabTransformImpl(Vocab vocab);
  IValue forward(const IValue& input) override;
  Params params() const override;
  const Vocab& vocab() const { return vocab_; }

 private:
  Vocab vocab_;
};
EMBER_TEXT_TRANSFORM(VocabTransform);

// A string to its SentencePiece pieces, or a list of strings to a batch of
// them (encoded on worker threads). Saved with the model's path, as
// torchtext's SentencePieceTokenizer(sp_model_path).
class SentencePieceTokenizerImpl : public TextTransformImpl {
 public:
  explicit SentencePieceTokenizerImpl(std::string sp_model_path);
  IValue forward(const IValue& input) override;
  Params params() const override { return {{"sp_model_path", path_}}; }

 private:
  std::string path_;
  std::shared_ptr<const SentencePieceProcessor> sp_;
};
EMBER_TEXT_TRANSFORM(SentencePieceTokenizer);

// Applies its transforms in order (torchtext.transforms.Sequential).
class SequentialImpl : public TextTransformImpl {
 public:
  explicit SequentialImpl(std::vector<TextTransformPtr> transforms);
  IValue forward(const IValue& input) override;
  Params params() const override { return {}; }

 private:
  std::vector<TextTransformPtr> transforms_;
};
class Sequential : public TextTransformHolder<SequentialImpl> {
 public:
  using TextTransformHolder<SequentialImpl>::TextTransformHolder;
  Sequential(std::vector<TextTransformPtr> transforms)  // NOLINT: a braced list of holders
      : TextTransformHolder<SequentialImpl>(std::make_shared<SequentialImpl>(std::move(transforms))) {}
};

// Saving and loading: the suite's JSON format; these register text's types first.
using ::ember::transforms::save;
using ::ember::transforms::to_json;
TextTransformPtr from_json(const std::string& text);
TextTransformPtr load(const std::string& path);
void register_text_transforms();

}  // namespace ember::text::transforms
