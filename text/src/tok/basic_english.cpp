// get_tokenizer("basic_english") and str.split(), as torchtext/data/utils.py runs
// them in Python: the lower-casing and whitespace rules are Python's, on code points.
#include <string>
#include <string_view>
#include <vector>

#include <ember/core/error.h>
#include <ember/text/basic_tokenizers.h>
#include <ember/text/utf8.h>

#include "unicode/python_lower.h"
#include "unicode/unicode_tables.h"

namespace ember::text {
namespace {

// Python's str.isspace() (the characters str.split() and re's \s treat as whitespace).
bool is_python_space(char32_t cp) {
  if (cp < 0x80) return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20);
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

std::vector<std::string> split_valid_utf8(std::string_view s) {
  std::vector<std::string> tokens;
  size_t start = 0, i = 0;
  while (i < s.size()) {
    char32_t cp;
    const size_t len = detail::decode_utf8_at(s, i, cp);
    if (is_python_space(cp)) {
      if (i > start) tokens.emplace_back(s.substr(start, i - start));
      start = i + len;
    }
    i += len;
  }
  if (i > start) tokens.emplace_back(s.substr(start, i - start));
  return tokens;
}

}  // namespace

std::string python_lower(std::string_view text) {
  check_utf8(text, "python_lower");
  return detail::python_lower_utf8(text);
}

std::vector<std::string> split_whitespace(std::string_view text) {
  check_utf8(text, "split_whitespace");
  return split_valid_utf8(text);
}

std::vector<std::string> basic_english_normalize(std::string_view line) {
  check_utf8(line, "basic_english");
  const std::string lowered = detail::python_lower_utf8(line);
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
