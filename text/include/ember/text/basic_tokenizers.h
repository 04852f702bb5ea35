#pragma once
// torchtext 0.14's basic tokenizers: get_tokenizer("basic_english") and
// whitespace splitting (torchtext/data/utils.py), RegexTokenizer
// (torchtext/csrc/regex_tokenizer.cpp, on RE2 as torchtext does) and
// ngrams_iterator. Every tokenizer checks that its input is valid UTF-8.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ember::text {

using Tokenizer = std::function<std::vector<std::string>(std::string_view)>;

// Python's str.lower() on UTF-8 text (Python 3.11's Unicode 14.0 tables, with
// its final-sigma rule).
std::string python_lower(std::string_view text);

// Python's str.split() with no argument: splits on runs of Unicode whitespace
// (str.isspace: ASCII \t\n\v\f\r and space, U+001C..U+001F, U+0085, U+00A0,
// U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000) and drops
// empty pieces.
std::vector<std::string> split_whitespace(std::string_view text);

// torchtext's _basic_english_normalize: lower-case, then in order
//   '  -> " '  "     "  -> ""      .  -> " . "   <br />  -> " "
//   ,  -> " , "      (  -> " ( "   )  -> " ) "   !  -> " ! "   ?  -> " ? "
//   ;  -> " "        :  -> " "     \s+ -> " "
// then str.split().
std::vector<std::string> basic_english_normalize(std::string_view line);

// torchtext.data.get_tokenizer for the built-in rules: "basic_english" and
// "split" (what get_tokenizer(None) returns: str.split()). Any other name raises
// ember::Error listing the supported ones.
Tokenizer get_tokenizer(std::string_view name);
// get_tokenizer(None): str.split().
Tokenizer get_tokenizer(std::nullptr_t);

// torchtext.transforms.RegexTokenizer: each (pattern, replacement) pair is applied
// in order with RE2::GlobalReplace (RE2 syntax; \1..\9 in the replacement refer to
// groups, \\ is a backslash), then the text is split on ' ' with empty pieces
// dropped, exactly as torchtext's C++ tokenizer (which does not split on tabs or
// newlines). to_lower lower-cases ASCII letters first (torchtext's C++ to_lower;
// the Python class always passes false). A pattern that RE2 rejects, or a
// replacement naming a group the pattern lacks, raises ember::Error.
class RegexTokenizer {
 public:
  explicit RegexTokenizer(std::vector<std::pair<std::string, std::string>> patterns_list,
                          bool to_lower = false);
  std::vector<std::string> operator()(std::string_view text) const;
  const std::vector<std::pair<std::string, std::string>>& patterns_list() const;
  bool to_lower() const;

 private:
  struct Compiled;
  std::shared_ptr<const Compiled> compiled_;  // shared: RE2 objects are immutable and thread-safe
};

// torchtext.data.utils.ngrams_iterator: the tokens, then every n-gram for
// n = 2..ngrams (joined by single spaces), n by n, left to right. ngrams < 1
// raises ember::Error (torchtext silently returns the tokens).
std::vector<std::string> ngrams_iterator(const std::vector<std::string>& token_list, int64_t ngrams);

}  // namespace ember::text
