// torchtext's C++ RegexTokenizer (torchtext/csrc/regex_tokenizer.cpp) on RE2.
// Note [RE2 over std::regex]: the patterns run through RE2, as torchtext's do,
// so that they mean what they mean there (RE2 syntax, \1 replacements, linear
// time on any input). std::regex was measured on basic_english's rule list over
// 100k lines (docs/text.md) and was about 3.5 times slower.
#include <memory>
#include <string>
#include <vector>

#include <re2/re2.h>

#include <ember/core/error.h>
#include <ember/text/basic_tokenizers.h>
#include <ember/text/utf8.h>

namespace ember::text {

struct RegexTokenizer::Compiled {
  std::vector<std::pair<std::string, std::string>> patterns_list;
  std::vector<std::unique_ptr<re2::RE2>> patterns;
  bool to_lower = false;
};

RegexTokenizer::RegexTokenizer(std::vector<std::pair<std::string, std::string>> patterns_list, bool to_lower) {
  auto compiled = std::make_shared<Compiled>();
  compiled->to_lower = to_lower;
  for (size_t i = 0; i < patterns_list.size(); ++i) {
    const auto& [pattern, replacement] = patterns_list[i];
    check_utf8(pattern, "RegexTokenizer pattern");
    check_utf8(replacement, "RegexTokenizer replacement");
    re2::RE2::Options options;
    options.set_log_errors(false);
    auto re = std::make_unique<re2::RE2>(pattern, options);
    EMBER_CHECK(re->ok(), "RegexTokenizer: pattern ", i, " '", pattern, "' is not valid RE2 syntax: ", re->error());
    std::string why;
    EMBER_CHECK(re->CheckRewriteString(replacement, &why), "RegexTokenizer: replacement ", i, " '", replacement,
                "' for pattern '", pattern, "' is invalid: ", why);
    compiled->patterns.push_back(std::move(re));
  }
  compiled->patterns_list = std::move(patterns_list);
  compiled_ = std::move(compiled);
}

std::vector<std::string> RegexTokenizer::operator()(std::string_view text) const {
  check_utf8(text, "RegexTokenizer");
  std::string s(text);
  if (compiled_->to_lower) {
    for (char& c : s) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
  }
  for (size_t i = 0; i < compiled_->patterns.size(); ++i) {
    re2::RE2::GlobalReplace(&s, *compiled_->patterns[i], compiled_->patterns_list[i].second);
  }
  // torchtext splits with std::getline(stream, token, ' ') and drops empty tokens.
  std::vector<std::string> tokens;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(' ', start);
    if (end == std::string::npos) end = s.size();
    if (end > start) tokens.emplace_back(s, start, end - start);
    start = end + 1;
  }
  return tokens;
}

const std::vector<std::pair<std::string, std::string>>& RegexTokenizer::patterns_list() const {
  return compiled_->patterns_list;
}

bool RegexTokenizer::to_lower() const { return compiled_->to_lower; }

}  // namespace ember::text
