// GPT2BPETokenizer: GPT-2's pre-tokenizer (Note [GPT-2 whitespace lookahead])
// then byte-level BPE per piece.
#include <ember/core/error.h>

#include "bpe_model.h"
#include "ember/text/bpe.h"
#include "ember/text/utf8.h"
#include "unicode/unicode_tables.h"

namespace ember::text {

namespace {
constexpr const char* kGPT2Op = "GPT2BPETokenizer";

bool is_other(char32_t c) {
  return !detail::is_white_space(c) && !detail::is_letter(c) && !detail::is_number(c);
}

// The length of a contraction ('s 't 're 've 'm 'll 'd) at s[i], or 0.
size_t contraction_length(const std::u32string& s, size_t i) {
  if (s[i] != U'\'' || i + 1 >= s.size()) return 0;
  const char32_t a = s[i + 1];
  if (a == U's' || a == U't' || a == U'm' || a == U'd') return 2;
  if (i + 2 < s.size()) {
    const char32_t b = s[i + 2];
    if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) return 3;
  }
  return 0;
}
}  // namespace

// Note [GPT-2 whitespace lookahead]
// GPT-2 splits with 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+
// |\s+(?!\S)|\s+, tried in that order at each position. RE2 has no lookahead,
// so this is a hand-written scanner. For a run of n whitespace characters
// that no earlier alternative took: at the end of the text \s+(?!\S) takes
// all n; before a non-space it backtracks to n - 1 (when n > 1), leaving the
// last whitespace character to start the next piece (" word" when it is a
// space before a letter); a single whitespace character before a non-space
// is the \s+ alternative on its own.
std::vector<std::string> gpt2_pre_tokenize(std::string_view text) {
  check_utf8(text, kGPT2Op);
  const std::u32string s = detail::decode_utf8(text);
  std::vector<size_t> offset(s.size() + 1, 0);  // byte offset of each code point
  for (size_t i = 0, b = 0; i < s.size(); ++i) {
    offset[i] = b;
    b += s[i] < 0x80 ? 1 : s[i] < 0x800 ? 2 : s[i] < 0x10000 ? 3 : 4;
    offset[i + 1] = b;
  }
  std::vector<std::string> pieces;
  const auto emit = [&](size_t from, size_t to) {
    pieces.emplace_back(text.substr(offset[from], offset[to] - offset[from]));
  };
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    if (const size_t c = contraction_length(s, i)) {
      emit(i, i + c);
      i += c;
      continue;
    }
    const size_t j = i + (s[i] == U' ' ? 1 : 0);
    if (j < n) {
      bool (*cls)(char32_t) = detail::is_letter(s[j])   ? &detail::is_letter
                              : detail::is_number(s[j]) ? &detail::is_number
                              : is_other(s[j])          ? &is_other
                                                        : nullptr;
      if (cls) {
        size_t k = j;
        while (k < n && cls(s[k])) ++k;
        emit(i, k);
        i = k;
        continue;
      }
    }
    size_t k = i;  // s[i] is whitespace here
    while (k < n && detail::is_white_space(s[k])) ++k;
    if (k < n && k - i > 1) --k;
    emit(i, k);
    i = k;
  }
  return pieces;
}

GPT2BPETokenizer::GPT2BPETokenizer(const std::string& encoder_json_path,
                                   const std::string& vocab_bpe_path, bool return_tokens)
    : model_(std::make_shared<detail::BPEModel>(
          detail::read_encoder_json(encoder_json_path, kGPT2Op),
          detail::read_merges(vocab_bpe_path, /*drop_last_line=*/true, kGPT2Op),
          /*end_of_word=*/false, std::vector<std::string>{}, kGPT2Op)),
      return_tokens_(return_tokens) {}

std::vector<std::string> GPT2BPETokenizer::tokenize(std::string_view text) const {
  std::vector<std::string> tokens;
  for (const std::string& piece : gpt2_pre_tokenize(text)) model_->tokenize_word(piece, tokens);
  return tokens;
}

std::vector<int64_t> GPT2BPETokenizer::encode(std::string_view text) const {
  std::vector<int64_t> ids;
  for (const std::string& token : tokenize(text)) ids.push_back(model_->id(token));
  return ids;
}

std::vector<std::string> GPT2BPETokenizer::operator()(std::string_view text) const {
  if (return_tokens_) return tokenize(text);
  std::vector<std::string> out;
  for (int64_t id : encode(text)) out.push_back(std::to_string(id));
  return out;
}

std::vector<std::vector<std::string>> GPT2BPETokenizer::operator()(const std::vector<std::string>& texts) const {
  std::vector<std::vector<std::string>> out;
  out.reserve(texts.size());
  for (const std::string& t : texts) out.push_back((*this)(t));
  return out;
}

}  // namespace ember::text
