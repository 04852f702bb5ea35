#pragma once
// The byte-level BPE model GPT-2 and CLIP share: GPT-2's bytes_to_unicode
// symbols, merge ranks, the token -> id encoder and a cache of merged words.
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ember::text::detail {

using Merge = std::pair<std::string, std::string>;

// The whole file's bytes; ember::Error naming `op` and the path when it cannot be read.
std::string read_text_file(const std::string& path, const char* op);
// A JSON object of str -> int (an encoder.json); ember::Error naming `op` and the path otherwise.
std::unordered_map<std::string, int64_t> read_encoder_json(const std::string& path, const char* op);
// The merges of a vocab.bpe / merges file: the lines after the header line,
// each exactly two fields separated by whitespace. `drop_last_line`: GPT-2's
// split('\n')[1:-1] (the trailing empty line, or whatever follows the last
// newline); CLIP's split('\n')[1:] keeps it, and an empty last line is no merge.
std::vector<Merge> read_merges(const std::string& path, bool drop_last_line, const char* op);
// GPT-2's bytes_to_unicode(): byte b -> its printable stand-in, as UTF-8.
const std::vector<std::string>& byte_symbols();

class BPEModel {
 public:
  // `end_of_word`: CLIP appends "</w>" to a word's last symbol; `special`
  // tokens (CLIP's <|startoftext|>, <|endoftext|>) skip BPE.
  BPEModel(std::unordered_map<std::string, int64_t> encoder, const std::vector<Merge>& merges,
           bool end_of_word, std::vector<std::string> special, const char* op);
  // Appends the BPE tokens of one pre-token (raw UTF-8 bytes).
  void tokenize_word(std::string_view word, std::vector<std::string>& out) const;
  int64_t id(const std::string& token) const;
  const char* op() const { return op_; }

 private:
  std::vector<std::string> merge_word(std::string_view word) const;

  std::unordered_map<std::string, int64_t> encoder_;
  std::unordered_map<std::string, int64_t> ranks_;  // "first\x01second" -> rank
  bool end_of_word_;
  std::vector<std::string> special_;
  const char* op_;
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<std::string>> cache_;
};

}  // namespace ember::text::detail
