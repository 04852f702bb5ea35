// Byte-level BPE (GPT-2's encoder.py `bpe`, CLIP's simple_tokenizer `bpe`):
// repeatedly merge the adjacent pair of lowest rank until none is ranked.
#include "bpe_model.h"

#include <fstream>
#include <sstream>

#include <ember/core/error.h>
#include <ember/serialize/json.h>

#include "ember/text/utf8.h"
#include "unicode/unicode_tables.h"

namespace ember::text::detail {

std::string read_text_file(const std::string& path, const char* op) {
  std::ifstream in(path, std::ios::binary);
  EMBER_CHECK(in.good(), op, ": cannot open '", path, "'");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  EMBER_CHECK(!in.bad(), op, ": cannot read '", path, "'");
  return buffer.str();
}

std::unordered_map<std::string, int64_t> read_encoder_json(const std::string& path, const char* op) {
  const std::string text = read_text_file(path, op);
  const std::string what = std::string(op) + " encoder '" + path + "'";
  const IValue doc = serialize::json::parse(text, what);
  EMBER_CHECK(doc.is_dict(), what, ": expected a JSON object of token -> id");
  std::unordered_map<std::string, int64_t> encoder;
  encoder.reserve(doc.to_dict().size());
  for (const auto& [key, value] : doc.to_dict()) {
    EMBER_CHECK(key.is_string() && value.is_int(), what,
                ": every entry must map a string to an integer id");
    encoder.emplace(key.to_string(), value.to_int());
  }
  return encoder;
}

std::vector<Merge> read_merges(const std::string& path, bool drop_last_line, const char* op) {
  const std::string text = read_text_file(path, op);
  const std::string where = std::string(op) + " merges '" + path + "'";
  EMBER_CHECK(!text.empty(), where, ": the file is empty");
  check_utf8(text, where.c_str());
  std::vector<std::string_view> lines;
  for (size_t start = 0;;) {
    const size_t end = text.find('\n', start);
    lines.emplace_back(std::string_view(text).substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (drop_last_line) lines.pop_back();
  std::vector<Merge> merges;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (i + 1 == lines.size() && line.empty()) break;  // the trailing newline
    std::vector<std::string> fields;
    size_t p = 0;
    while (p < line.size()) {
      while (p < line.size() && (line[p] == ' ' || line[p] == '\t' || line[p] == '\r')) ++p;
      const size_t q = p;
      while (p < line.size() && line[p] != ' ' && line[p] != '\t' && line[p] != '\r') ++p;
      if (p > q) fields.emplace_back(line.substr(q, p - q));
    }
    EMBER_CHECK(fields.size() == 2, where, ": line ", i + 1, " is not a merge of two symbols ('",
                std::string(line.substr(0, 80)), "')");
    merges.emplace_back(std::move(fields[0]), std::move(fields[1]));
  }
  return merges;
}

const std::vector<std::string>& byte_symbols() {
  // Note [GPT-2 byte symbols]: printable Latin-1 bytes stand for themselves,
  // the other 68 bytes (controls, space, 0x7F-0xA0, 0xAD) take U+0100 upwards
  // in byte order, so that every byte is a visible, non-space symbol.
  static const std::vector<std::string> symbols = [] {
    std::vector<std::string> out(256);
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
      append_utf8(printable ? static_cast<char32_t>(b) : next++, out[b]);
    }
    return out;
  }();
  return symbols;
}

BPEModel::BPEModel(std::unordered_map<std::string, int64_t> encoder, const std::vector<Merge>& merges,
                   bool end_of_word, std::vector<std::string> special, const char* op)
    : encoder_(std::move(encoder)), end_of_word_(end_of_word), special_(std::move(special)), op_(op) {
  ranks_.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i) {
    // A repeated merge keeps its last rank, as the Python dict comprehension does.
    ranks_[merges[i].first + '\x01' + merges[i].second] = static_cast<int64_t>(i);
  }
}

int64_t BPEModel::id(const std::string& token) const {
  const auto it = encoder_.find(token);
  EMBER_CHECK(it != encoder_.end(), op_, ": the BPE token '", token,
              "' is not in the encoder (do the encoder and merges files belong together?)");
  return it->second;
}

std::vector<std::string> BPEModel::merge_word(std::string_view word) const {
  std::vector<std::string> symbols;
  const auto& bytes = byte_symbols();
  for (unsigned char b : word) symbols.push_back(bytes[b]);
  if (end_of_word_) symbols.back() += "</w>";
  std::string key;
  while (symbols.size() > 1) {
    int64_t best_rank = -1;
    size_t best = 0;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      key.assign(symbols[i]).append(1, '\x01').append(symbols[i + 1]);
      const auto it = ranks_.find(key);
      if (it != ranks_.end() && (best_rank < 0 || it->second < best_rank)) {
        best_rank = it->second;
        best = i;
      }
    }
    if (best_rank < 0) break;
    // Merge every occurrence of the pair, left to right without overlaps.
    const std::string first = symbols[best], second = symbols[best + 1];
    std::vector<std::string> merged;
    merged.reserve(symbols.size());
    for (size_t i = 0; i < symbols.size();) {
      if (i + 1 < symbols.size() && symbols[i] == first && symbols[i + 1] == second) {
        merged.push_back(first + second);
        i += 2;
      } else {
        merged.push_back(std::move(symbols[i]));
        i += 1;
      }
    }
    symbols = std::move(merged);
  }
  return symbols;
}

void BPEModel::tokenize_word(std::string_view word, std::vector<std::string>& out) const {
  if (word.empty()) return;
  for (const std::string& s : special_) {
    if (word == s) {
      out.push_back(s);
      return;
    }
  }
  const std::string key(word);
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    const auto it = cache_.find(key);
    if (it != cache_.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<std::string> merged = merge_word(word);
  out.insert(out.end(), merged.begin(), merged.end());
  std::lock_guard<std::mutex> lock(cache_mutex_);
  cache_.emplace(key, std::move(merged));
}

}  // namespace ember::text::detail
