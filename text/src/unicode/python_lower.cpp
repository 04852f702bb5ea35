#include "unicode/python_lower.h"

#include <cstddef>
#include <cstdint>

#include "unicode/unicode_tables.h"

namespace ember::text::detail {
namespace {

constexpr char32_t kCapitalSigma = 0x3A3, kFinalSigma = 0x3C2;

// Code point access to the two string kinds, so that the Final_Sigma scan is
// written once. next(s, i, c) decodes the code point at i and returns its
// length; previous(s, end, c) decodes the one ending at `end` and returns its start.
struct CodePoints {
  static size_t next(std::u32string_view s, size_t i, char32_t& c) {
    c = s[i];
    return 1;
  }
  static size_t previous(std::u32string_view s, size_t end, char32_t& c) {
    c = s[end - 1];
    return end - 1;
  }
};

struct Utf8 {
  static size_t next(std::string_view s, size_t i, char32_t& c) { return decode_utf8_at(s, i, c); }
  static size_t previous(std::string_view s, size_t end, char32_t& c) {
    size_t start = end - 1;
    while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
    next(s, start, c);
    return start;
  }
};

// Note [Final sigma]: Python's str.lower() maps U+03A3 to the final form U+03C2
// when it ends a word: preceded by a Cased letter and not followed by one, both
// after skipping Case_Ignorable characters (CPython's handle_capital_sigma, on the
// original text; the Unicode Final_Sigma condition). The sigma is s[at, at + len).
template <typename Access, typename View>
bool is_final_sigma(View s, size_t at, size_t len) {
  char32_t c = 0;
  bool cased_before = false;
  for (size_t pos = at; pos > 0;) {
    pos = Access::previous(s, pos, c);
    if (!is_case_ignorable(c)) {
      cased_before = is_cased_not_ignorable(c);
      break;
    }
  }
  if (!cased_before) return false;
  for (size_t pos = at + len; pos < s.size();) {
    pos += Access::next(s, pos, c);
    if (!is_case_ignorable(c)) return !is_cased_not_ignorable(c);
  }
  return true;
}

}  // namespace

std::u32string python_lower(std::u32string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const char32_t c = s[i];
    if (c < 0x80) {
      out.push_back(c >= 'A' && c <= 'Z' ? c + 32 : c);
    } else if (c == kCapitalSigma && is_final_sigma<CodePoints>(s, i, 1)) {
      out.push_back(kFinalSigma);
    } else if (const auto* m = lower_case_mapping(c)) {
      out.append(m->to, m->to + m->length);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string python_lower_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const char b = s[i];
    if (static_cast<unsigned char>(b) < 0x80) {
      out.push_back(b >= 'A' && b <= 'Z' ? static_cast<char>(b - 'A' + 'a') : b);
      ++i;
      continue;
    }
    char32_t c;
    const size_t len = decode_utf8_at(s, i, c);
    if (c == kCapitalSigma && is_final_sigma<Utf8>(s, i, len)) {
      append_utf8(kFinalSigma, out);
    } else if (const auto* m = lower_case_mapping(c)) {
      for (uint8_t k = 0; k < m->length; ++k) append_utf8(m->to[k], out);
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  return out;
}

}  // namespace ember::text::detail
