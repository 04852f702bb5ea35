#pragma once
// torchtext 0.14's GPT2BPETokenizer (GPT-2's byte-level BPE) and CLIPTokenizer
// (CLIP's lower-cased BPE with </w> word ends), and BERTTokenizer (BERT's
// BasicTokenizer + WordPiece). Each reads its
// vocabulary files once; calling one is const and thread-safe (the BPE cache locks).
//
// As in torchtext, calling a tokenizer returns the token ids written as decimal
// strings, or the tokens themselves when constructed with return_tokens = true;
// encode() gives the ids as integers and tokenize() the tokens. Input must be
// valid UTF-8 and bad files (missing, unreadable, malformed) raise
// ember::Error naming the tokenizer and the file. Unicode properties (letters,
// numbers, punctuation, lower-casing, NFD) are Python's unicodedata 14.0
// tables; "whitespace" is the Unicode White_Space property. docs/text.md.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ember::text {

namespace detail {
class BPEModel;
struct BERTVocab;
}  // namespace detail

class GPT2BPETokenizer {
 public:
  // encoder_json_path: {"token": id, ...}; vocab_bpe_path: "#version" line, then
  // one merge "a b" per line, by rank (as GPT-2, the text after the last
  // newline is not a merge).
  GPT2BPETokenizer(const std::string& encoder_json_path, const std::string& vocab_bpe_path,
                   bool return_tokens = false);
  std::vector<std::string> operator()(std::string_view text) const;
  std::vector<std::vector<std::string>> operator()(const std::vector<std::string>& texts) const;
  std::vector<int64_t> encode(std::string_view text) const;
  std::vector<std::string> tokenize(std::string_view text) const;

 private:
  std::shared_ptr<detail::BPEModel> model_;
  bool return_tokens_;
};

// GPT-2's pre-tokenizer: the pieces of 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+|
// ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ over `text` (valid UTF-8).
std::vector<std::string> gpt2_pre_tokenize(std::string_view text);

class CLIPTokenizer {
 public:
  // merges_path: a header line, then merges "a b". With encoder_json_path the
  // ids come from it and the first len(encoder) - 514 merges are used; without
  // it the vocabulary is the 256 byte symbols, the same with "</w>", the first
  // num_merges merges (all when nullopt) and <|startoftext|>, <|endoftext|>.
  // Text is lower-cased with Python's str.lower (full Unicode mapping).
  CLIPTokenizer(const std::string& merges_path,
                const std::optional<std::string>& encoder_json_path = std::nullopt,
                std::optional<int64_t> num_merges = std::nullopt, bool return_tokens = false);
  std::vector<std::string> operator()(std::string_view text) const;
  std::vector<std::vector<std::string>> operator()(const std::vector<std::string>& texts) const;
  std::vector<int64_t> encode(std::string_view text) const;
  std::vector<std::string> tokenize(std::string_view text) const;

 private:
  std::shared_ptr<detail::BPEModel> model_;
  bool return_tokens_;
};

// CLIP's pre-tokenizer (no lower-casing): <|startoftext|>|<|endoftext|>|'s|'t|
// 're|'ve|'m|'ll|'d|\p{L}+|\p{N}|[^\s\p{L}\p{N}]+ (whitespace only separates).
std::vector<std::string> clip_pre_tokenize(std::string_view text);


class BERTTokenizer {
 public:
  // vocab_path: one WordPiece token per line, the id is the line number; it
  // must hold [UNK] and no token twice. strip_accents: nullopt follows
  // do_lower_case (as BERT's BasicTokenizer).
  explicit BERTTokenizer(const std::string& vocab_path, bool do_lower_case = true,
                         std::optional<bool> strip_accents = std::nullopt, bool return_tokens = false);
  std::vector<std::string> operator()(std::string_view text) const;
  std::vector<std::vector<std::string>> operator()(const std::vector<std::string>& texts) const;
  std::vector<int64_t> encode(std::string_view text) const;
  std::vector<std::string> tokenize(std::string_view text) const;

  // A word longer than this many code points becomes [UNK] (BERT's default).
  static constexpr size_t kMaxInputCharsPerWord = 100;

 private:
  std::shared_ptr<const detail::BERTVocab> vocab_;
  bool do_lower_case_;
  bool strip_accents_;
  bool return_tokens_;
};

}  // namespace ember::text
