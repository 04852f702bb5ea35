// get_tokenizer("basic_english") and str.split(), as torchtext/data/utils.py runs
// them in Python: the lower-casing and whitespace rules are Python's, on code points.
#include <algorithm>
#include <array>
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
    if (row != std::end(kLowerTable) && row->code_point == cp) {
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

}  // namespace ember::text
