// BERTTokenizer: BERT's BasicTokenizer (clean-up, CJK splitting, lower-casing,
// NFD accent stripping, punctuation splitting) then WordPiece (greedy
// longest-match-first with "##" continuations), as BERT's tokenization.py.
#include <unordered_map>

#include <ember/core/error.h>

#include "bpe_model.h"
#include "ember/text/bpe.h"
#include "ember/text/utf8.h"
#include "unicode/python_lower.h"
#include "unicode/unicode_tables.h"

namespace ember::text {

namespace detail {
struct BERTVocab {
  std::unordered_map<std::string, int64_t> ids;
};
}  // namespace detail

namespace {
constexpr const char* kBERTOp = "BERTTokenizer";
const std::string kUnk = "[UNK]";

using detail::Category;

bool is_bert_whitespace(char32_t c) {
  return c == U' ' || c == U'\t' || c == U'\n' || c == U'\r' || detail::category(c) == Category::Zs;
}
bool is_bert_control(char32_t c) {
  if (c == U'\t' || c == U'\n' || c == U'\r') return false;
  return detail::category(c) >= Category::Cc;  // Cc, Cf, Cs, Co, Cn
}
bool is_bert_punctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126))
    return true;
  return detail::category(c) >= Category::Pc && detail::category(c) <= Category::Po;
}
bool is_cjk(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}
// Python's str.isspace (what str.split() splits on).
bool is_python_space(char32_t c) { return detail::is_white_space(c) || (c >= 0x1C && c <= 0x1F); }

std::vector<std::u32string> split_python_whitespace(const std::u32string& s) {
  std::vector<std::u32string> out;
  for (size_t i = 0; i < s.size();) {
    while (i < s.size() && is_python_space(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !is_python_space(s[j])) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::shared_ptr<const detail::BERTVocab> load_vocab(const std::string& path) {
  const std::string text = detail::read_text_file(path, kBERTOp);
  const std::string where = std::string(kBERTOp) + " vocab '" + path + "'";
  check_utf8(text, where.c_str());
  auto vocab = std::make_shared<detail::BERTVocab>();
  size_t line_no = 0;
  for (size_t start = 0; start < text.size(); ++line_no) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string token = text.substr(start, end - start);
    if (!token.empty() && token.back() == '\r') token.pop_back();
    start = end + 1;
    if (token.empty()) continue;  // an empty line keeps its index but names no token
    const bool inserted = vocab->ids.emplace(token, static_cast<int64_t>(line_no)).second;
    EMBER_CHECK(inserted, where, ": line ", line_no + 1, " repeats the token '", token, "'");
  }
  EMBER_CHECK(vocab->ids.count(kUnk) == 1, where, ": the vocabulary has no ", kUnk, " token");
  return vocab;
}
}  // namespace

BERTTokenizer::BERTTokenizer(const std::string& vocab_path, bool do_lower_case,
                             std::optional<bool> strip_accents, bool return_tokens)
    : vocab_(load_vocab(vocab_path)),
      do_lower_case_(do_lower_case),
      strip_accents_(strip_accents.value_or(do_lower_case)),
      return_tokens_(return_tokens) {}

std::vector<std::string> BERTTokenizer::tokenize(std::string_view text) const {
  check_utf8(text, kBERTOp);
  // Clean-up and CJK splitting.
  std::u32string cleaned;
  for (char32_t c : detail::decode_utf8(text)) {
    if (c == 0 || c == 0xFFFD || is_bert_control(c)) continue;
    if (is_bert_whitespace(c)) {
      cleaned.push_back(U' ');
    } else if (is_cjk(c)) {
      cleaned.append({U' ', c, U' '});
    } else {
      cleaned.push_back(c);
    }
  }
  // Lower-casing, accent stripping and punctuation splitting, word by word.
  std::vector<std::u32string> words;
  for (std::u32string& token : split_python_whitespace(cleaned)) {
    if (do_lower_case_) token = detail::python_lower(token);
    if (strip_accents_) {
      std::u32string stripped;
      for (char32_t c : detail::nfd(token))
        if (detail::category(c) != Category::Mn) stripped.push_back(c);
      token = std::move(stripped);
    }
    std::u32string current;
    for (char32_t c : token) {
      if (is_bert_punctuation(c)) {
        if (!current.empty()) words.push_back(std::move(current));
        current.clear();
        words.emplace_back(1, c);
      } else {
        current.push_back(c);
      }
    }
    if (!current.empty()) words.push_back(std::move(current));
  }
  // WordPiece.
  std::vector<std::string> out;
  for (const std::u32string& word : words) {
    if (word.size() > kMaxInputCharsPerWord) {
      out.push_back(kUnk);
      continue;
    }
    std::vector<std::string> pieces;
    bool bad = false;
    for (size_t start = 0; start < word.size();) {
      size_t end = word.size();
      std::string found;
      while (start < end) {
        std::string candidate = (start > 0 ? "##" : "") + detail::encode_utf8(word.substr(start, end - start));
        if (vocab_->ids.count(candidate)) {
          found = std::move(candidate);
          break;
        }
        --end;
      }
      if (found.empty()) {
        bad = true;
        break;
      }
      pieces.push_back(std::move(found));
      start = end;
    }
    if (bad) {
      out.push_back(kUnk);
    } else {
      out.insert(out.end(), pieces.begin(), pieces.end());
    }
  }
  return out;
}

std::vector<int64_t> BERTTokenizer::encode(std::string_view text) const {
  std::vector<int64_t> ids;
  for (const std::string& token : tokenize(text)) ids.push_back(vocab_->ids.at(token));
  return ids;
}

std::vector<std::string> BERTTokenizer::operator()(std::string_view text) const {
  if (return_tokens_) return tokenize(text);
  std::vector<std::string> out;
  for (int64_t id : encode(text)) out.push_back(std::to_string(id));
  return out;
}

std::vector<std::vector<std::string>> BERTTokenizer::operator()(const std::vector<std::string>& texts) const {
  std::vector<std::vector<std::string>> out;
  out.reserve(texts.size());
  for (const std::string& t : texts) out.push_back((*this)(t));
  return out;
}

}  // namespace ember::text
