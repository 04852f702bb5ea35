// get_tokenizer("basic_english") and str.split(), as torchtext/data/utils.py runs
// them in Python: the lower-casing and whitespace rules are Python's, on code points.
#include <algorithm>
#include <array>
#include <iterator>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <ember/core/error.h>
#include <ember/text/basic_tokenizers.h>
#include <ember/text/utf8.h>

namespace ember::text {
namespace {

struct LowerRow {
  uint32_t code_point;
  const char* lower;  // UTF-8
};

constexpr LowerRow kLowerTable[] = {
#include "lowercase_table.inc"
};

struct CodePointRange {
  uint32_t first, last;  // inclusive
};

#include "case_properties.inc"

template <size_t N>
bool in_ranges(const CodePointRange (&table)[N], uint32_t cp) {
  const auto* it = std::upper_bound(std::begin(table), std::end(table), cp,
                                    [](uint32_t v, const CodePointRange& r) { return v < r.first; });
  return it != std::begin(table) && cp <= std::prev(it)->last;
}

// Decodes the code point at s[i] (s is valid UTF-8) and returns its byte length.
size_t decode_utf8_at(std::string_view s, size_t i, uint32_t& cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  auto cont = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i + k]) & 0x3F); };
  if (b0 < 0x80) { cp = b0; return 1; }
  if (b0 < 0xE0) { cp = ((b0 & 0x1Fu) << 6) | cont(1); return 2; }
  if (b0 < 0xF0) { cp = ((b0 & 0x0Fu) << 12) | (cont(1) << 6) | cont(2); return 3; }
  cp = ((b0 & 0x07u) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3);
  return 4;
}

// Python's str.isspace() (the characters str.split() and re's \s treat as whitespace).
bool is_python_space(uint32_t cp) {
  if (cp < 0x80) return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20);
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

// The code point that ends just before byte `end` (> 0) of valid UTF-8, and its start.
size_t decode_utf8_before(std::string_view s, size_t end, uint32_t& cp) {
  size_t start = end - 1;
  while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
  decode_utf8_at(s, start, cp);
  return start;
}

// Note [Final sigma]: Python's str.lower() maps U+03A3 to the final form U+03C2
// when it ends a word: preceded by a Cased letter and not followed by one, both
// after skipping Case_Ignorable characters (CPython's handle_capital_sigma, on the
// original text). `at`/`len` locate the sigma in `s`.
bool is_final_sigma(std::string_view s, size_t at, size_t len) {
  uint32_t cp = 0;
  size_t pos = at;
  bool cased_before = false;
  while (pos > 0) {
    pos = decode_utf8_before(s, pos, cp);
    if (!in_ranges(kCaseIgnorable, cp)) {
      cased_before = in_ranges(kCasedNotIgnorable, cp);
      break;
    }
  }
  if (!cased_before) return false;
  for (pos = at + len; pos < s.size();) {
    pos += decode_utf8_at(s, pos, cp);
    if (!in_ranges(kCaseIgnorable, cp)) return !in_ranges(kCasedNotIgnorable, cp);
  }
  return true;
}

std::vector<std::string> split_valid_utf8(std::string_view s) {
  std::vector<std::string> tokens;
  size_t start = 0, i = 0;
  while (i < s.size()) {
    uint32_t cp;
    const size_t len = decode_utf8_at(s, i, cp);
    if (is_python_space(cp)) {
      if (i > start) tokens.emplace_back(s.substr(start, i - start));
      start = i + len;
    }
    i += len;
  }
  if (i > start) tokens.emplace_back(s.substr(start, i - start));
  return tokens;
}

std::string lower_valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) < 0x80) {
      out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
      ++i;
      continue;
    }
    uint32_t cp;
    const size_t len = decode_utf8_at(s, i, cp);
    const auto* row = std::lower_bound(std::begin(kLowerTable), std::end(kLowerTable), cp,
                                       [](const LowerRow& r, uint32_t v) { return r.code_point < v; });
    if (cp == 0x3A3 && is_final_sigma(s, i, len)) {
      out.append("\xCF\x82");  // U+03C2
    } else if (row != std::end(kLowerTable) && row->code_point == cp) {
      out.append(row->lower);
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  return out;
}

}  // namespace

std::string python_lower(std::string_view text) {
  check_utf8(text, "python_lower");
  return lower_valid_utf8(text);
}

std::vector<std::string> split_whitespace(std::string_view text) {
  check_utf8(text, "split_whitespace");
  return split_valid_utf8(text);
}

std::vector<std::string> basic_english_normalize(std::string_view line) {
  check_utf8(line, "basic_english");
  const std::string lowered = lower_valid_utf8(line);
  // torchtext applies its twelve substitutions one after the other. The first
  // three and the five after "<br />" each rewrite single characters into text
  // that none of their group matches, so each group is one pass; "<br />" gets
  // its own pass between them because deleting '"' can create it ("<br "/>").
  std::string first;
  first.reserve(lowered.size() + lowered.size() / 4);
  for (const char c : lowered) {
    switch (c) {
      case '\'': first += " '  "; break;
      case '"': break;
      case '.': first += " . "; break;
      default: first.push_back(c);
    }
  }
  std::string second;
  second.reserve(first.size());
  constexpr std::string_view kBreak = "<br />";
  for (size_t pos = 0;;) {
    const size_t hit = first.find(kBreak, pos);
    if (hit == std::string::npos) {
      second.append(first, pos, std::string::npos);
      break;
    }
    second.append(first, pos, hit - pos);
    second.push_back(' ');
    pos = hit + kBreak.size();
  }
  std::string third;
  third.reserve(second.size() + second.size() / 4);
  for (const char c : second) {
    switch (c) {
      case ',': case '(': case ')': case '!': case '?':
        third.push_back(' ');
        third.push_back(c);
        third.push_back(' ');
        break;
      case ';': case ':': third.push_back(' '); break;
      default: third.push_back(c);
    }
  }
  // The last substitution (\s+ -> " ") cannot change what str.split() returns.
  return split_valid_utf8(third);
}

Tokenizer get_tokenizer(std::string_view name) {
  if (name == "basic_english") return [](std::string_view s) { return basic_english_normalize(s); };
  if (name == "split") return [](std::string_view s) { return split_whitespace(s); };
  EMBER_FAIL("get_tokenizer: unknown tokenizer '", name, "' (supported: \"basic_english\", \"split\")");
}

Tokenizer get_tokenizer(std::nullptr_t) { return get_tokenizer("split"); }

}  // namespace ember::text
