// libFuzzer target: arbitrary bytes as text through every Ember::text tokenizer
// (basic_english, str.split, GPT-2 BPE, CLIP, BERT WordPiece, a SentencePiece
// model), each loaded once from the committed test fixtures. Invalid UTF-8 must
// raise ember::Error naming the tokenizer; valid text must tokenize. Anything
// else (a crash, a sanitizer report, another exception) aborts the run.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <ember/core/error.h>
#include <ember/text/text.h>

namespace {

const std::string kData = EMBER_FUZZ_TEXT_DATA_DIR;

struct Tokenizers {
  ember::text::GPT2BPETokenizer gpt2{kData + "/text_bpe/encoder.json", kData + "/text_bpe/vocab.bpe"};
  ember::text::CLIPTokenizer clip{kData + "/text_bpe/clip_merges.bpe", kData + "/text_bpe/clip_encoder.json"};
  ember::text::BERTTokenizer bert{kData + "/text_bpe/bert_vocab.txt"};
  ember::text::SentencePieceProcessor sp =
      ember::text::SentencePieceProcessor::from_file(kData + "/text_sp/unigram.model");
};

template <typename F>
void expect_tokens_or_error(F&& tokenize) {
  try {
    (void)tokenize();
  } catch (const ember::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Tokenizers tokenizers;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  expect_tokens_or_error([&] { return ember::text::basic_english_normalize(text); });
  expect_tokens_or_error([&] { return ember::text::split_whitespace(text); });
  expect_tokens_or_error([&] { return tokenizers.gpt2.encode(text); });
  expect_tokens_or_error([&] { return tokenizers.clip.encode(text); });
  expect_tokens_or_error([&] { return tokenizers.bert.encode(text); });
  expect_tokens_or_error([&] { return tokenizers.sp.encode_as_ids(text); });
  return 0;
}
