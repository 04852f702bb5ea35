// CLIPTokenizer: CLIP's simple_tokenizer on torchtext's vocabulary rules --
// lower-case (Python's str.lower), split with CLIP's pattern (whitespace only
// separates), byte-level BPE with "</w>" on each word's last symbol.
#include <ember/core/error.h>

#include "bpe_model.h"
#include "ember/text/bpe.h"
#include "ember/text/utf8.h"
#include "unicode/python_lower.h"
#include "unicode/unicode_tables.h"

namespace ember::text {

namespace {
constexpr const char* kCLIPOp = "CLIPTokenizer";
const std::u32string kStartOfText = U"<|startoftext|>", kEndOfText = U"<|endoftext|>";

bool is_other(char32_t c) {
  return !detail::is_white_space(c) && !detail::is_letter(c) && !detail::is_number(c);
}

std::shared_ptr<detail::BPEModel> load(const std::string& merges_path,
                                       const std::optional<std::string>& encoder_json_path,
                                       std::optional<int64_t> num_merges) {
  std::vector<detail::Merge> merges = detail::read_merges(merges_path, /*drop_last_line=*/false, kCLIPOp);
  std::unordered_map<std::string, int64_t> encoder;
  int64_t count = 0;
  if (encoder_json_path) {
    encoder = detail::read_encoder_json(*encoder_json_path, kCLIPOp);
    count = static_cast<int64_t>(encoder.size()) - (256 * 2 + 2);  // bytes, bytes</w>, 2 specials
    EMBER_CHECK(count >= 0 && count <= static_cast<int64_t>(merges.size()), kCLIPOp, ": the encoder '",
                *encoder_json_path, "' has ", encoder.size(), " entries, so it needs ", count,
                " merges, but '", merges_path, "' holds ", merges.size());
  } else {
    count = num_merges.value_or(static_cast<int64_t>(merges.size()));
    EMBER_CHECK(count >= 0 && count <= static_cast<int64_t>(merges.size()), kCLIPOp, ": num_merges = ",
                count, " but '", merges_path, "' holds ", merges.size(), " merges");
    // bytes_to_unicode().values() in its dict order: the printable bytes
    // (Note [GPT-2 byte symbols]) in byte order, then the remapped ones.
    std::vector<std::string> symbols;
    for (int pass = 0; pass < 2; ++pass) {
      for (int b = 0; b < 256; ++b) {
        const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
        if (printable == (pass == 0)) symbols.push_back(detail::byte_symbols()[b]);
      }
    }
    std::vector<std::string> vocab = symbols;
    for (const std::string& s : symbols) vocab.push_back(s + "</w>");
    for (int64_t i = 0; i < count; ++i) vocab.push_back(merges[i].first + merges[i].second);
    vocab.push_back(detail::encode_utf8(kStartOfText));
    vocab.push_back(detail::encode_utf8(kEndOfText));
    // As the Python dict comprehension: a repeated token keeps its last index.
    for (size_t i = 0; i < vocab.size(); ++i) encoder[vocab[i]] = static_cast<int64_t>(i);
  }
  merges.resize(static_cast<size_t>(count));
  return std::make_shared<detail::BPEModel>(
      std::move(encoder), merges, /*end_of_word=*/true,
      std::vector<std::string>{detail::encode_utf8(kStartOfText), detail::encode_utf8(kEndOfText)}, kCLIPOp);
}
}  // namespace

std::vector<std::string> clip_pre_tokenize(std::string_view text) {
  check_utf8(text, kCLIPOp);
  const std::u32string s = detail::decode_utf8(text);
  std::vector<std::string> pieces;
  const size_t n = s.size();
  const auto emit = [&](size_t from, size_t to) {
    pieces.push_back(detail::encode_utf8(std::u32string_view(s).substr(from, to - from)));
  };
  for (size_t i = 0; i < n;) {
    const char32_t c = s[i];
    if (detail::is_white_space(c)) {
      ++i;
      continue;
    }
    bool special = false;
    for (const std::u32string* sp : {&kStartOfText, &kEndOfText}) {
      if (s.compare(i, sp->size(), *sp) == 0) {
        emit(i, i + sp->size());
        i += sp->size();
        special = true;
        break;
      }
    }
    if (special) continue;
    if (c == U'\'' && i + 1 < n) {
      const char32_t a = s[i + 1], b = i + 2 < n ? s[i + 2] : 0;
      size_t len = 0;
      if (a == U's' || a == U't' || a == U'm' || a == U'd') len = 2;
      else if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) len = 3;
      if (len) {
        emit(i, i + len);
        i += len;
        continue;
      }
    }
    size_t k = i + 1;
    if (detail::is_letter(c)) {
      while (k < n && detail::is_letter(s[k])) ++k;
    } else if (!detail::is_number(c)) {  // a number is one code point at a time
      while (k < n && is_other(s[k])) ++k;
    }
    emit(i, k);
    i = k;
  }
  return pieces;
}

CLIPTokenizer::CLIPTokenizer(const std::string& merges_path,
                             const std::optional<std::string>& encoder_json_path,
                             std::optional<int64_t> num_merges, bool return_tokens)
    : model_(load(merges_path, encoder_json_path, num_merges)), return_tokens_(return_tokens) {}

std::vector<std::string> CLIPTokenizer::tokenize(std::string_view text) const {
  check_utf8(text, kCLIPOp);
  std::vector<std::string> tokens;
  for (const std::string& piece : clip_pre_tokenize(detail::python_lower_utf8(text)))
    model_->tokenize_word(piece, tokens);
  return tokens;
}

std::vector<int64_t> CLIPTokenizer::encode(std::string_view text) const {
  std::vector<int64_t> ids;
  for (const std::string& token : tokenize(text)) ids.push_back(model_->id(token));
  return ids;
}

std::vector<std::string> CLIPTokenizer::operator()(std::string_view text) const {
  if (return_tokens_) return tokenize(text);
  std::vector<std::string> out;
  for (int64_t id : encode(text)) out.push_back(std::to_string(id));
  return out;
}

std::vector<std::vector<std::string>> CLIPTokenizer::operator()(const std::vector<std::string>& texts) const {
  std::vector<std::vector<std::string>> out;
  out.reserve(texts.size());
  for (const std::string& t : texts) out.push_back((*this)(t));
  return out;
}

}  // namespace ember::text
