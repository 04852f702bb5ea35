// basic_english, str.split(), RegexTokenizer and ngrams_iterator against the
// Python rules of torchtext 0.14 (scripts/fixtures/text_tok.py).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <ember/core/error.h>
#include <ember/text/basic_tokenizers.h>

#include "npy.h"

namespace test_tok_tokenizers_test {

using namespace ember::text;
using Patterns = std::vector<std::pair<std::string, std::string>>;

std::vector<std::string> read_lines(const std::string& name) {
  const std::string path = ember::testing::fixture_path("text/text_tok/" + name);
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << path;
  std::vector<std::string> lines;
  for (std::string line; std::getline(f, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> split_on(const std::string& s, char sep) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t start = 0;
  for (;;) {
    const size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

// The same list as REGEX_PATTERNS in scripts/fixtures/text_tok.py.
const std::vector<std::pair<std::string, std::string>> kRegexPatterns = {
    {"[0-9]+", "<num>"}, {"([.,;:!?])", " \\1 "}, {"\"", ""}, {"([a-zA-Z]+)'s", "\\1 's"}, {"\\t", " "}};

void expect_matches_fixture(const Tokenizer& tokenize, const std::string& fixture) {
  const auto lines = read_lines("lines.txt");
  const auto expected = read_lines(fixture);
  ASSERT_EQ(lines.size(), expected.size());
  ASSERT_GT(lines.size(), 400u);
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(tokenize(lines[i]), split_on(expected[i], ' ')) << fixture << " line " << i << ": " << lines[i];
  }
}

TEST(TextTokTokenizers, BasicEnglishMatchesTorchtextRules) {
  expect_matches_fixture(get_tokenizer("basic_english"), "basic_english.txt");
}

TEST(TextTokTokenizers, SplitMatchesPythonStrSplit) {
  expect_matches_fixture(get_tokenizer("split"), "split.txt");
  expect_matches_fixture(get_tokenizer(nullptr), "split.txt");
}

TEST(TextTokTokenizers, RegexTokenizerMatchesTorchtextRules) {
  const RegexTokenizer tokenizer(kRegexPatterns);
  expect_matches_fixture([&](std::string_view s) { return tokenizer(s); }, "regex.txt");
}

TEST(TextTokTokenizers, BasicEnglishSpotChecks) {
  using V = std::vector<std::string>;
  EXPECT_EQ(basic_english_normalize("Don't STOP, \"me\" now!"),
            (V{"don", "'", "t", "stop", ",", "me", "now", "!"}));
  // Deleting '"' can create "<br />", which the later rule then removes.
  EXPECT_EQ(basic_english_normalize("a<br \"/>b"), (V{"a", "b"}));
  EXPECT_EQ(basic_english_normalize("\xC3\x89t\xC3\xA9 \xCE\xA3\xCE\x99"), (V{"\xC3\xA9t\xC3\xA9", "\xCF\x83\xCE\xB9"}));
  EXPECT_TRUE(basic_english_normalize(" \t\n ").empty());
  EXPECT_EQ(python_lower("\xC4\xB0"), "i\xCC\x87");  // U+0130 lowers to two code points
}

TEST(TextTokTokenizers, LowerMatchesPythonStrLower) {
  // Every code point str.lower() changes, run together and spaced, and final-sigma contexts.
  const auto in = read_lines("lower_in.txt");
  const auto out = read_lines("lower_out.txt");
  ASSERT_EQ(in.size(), out.size());
  ASSERT_GE(in.size(), 10u);
  for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(python_lower(in[i]), out[i]) << "case " << i << ": " << in[i];
}

TEST(TextTokTokenizers, RegexTokenizerSplitsOnSpacesOnly) {
  // torchtext's C++ tokenizer splits on ' ' alone: tabs and newlines stay inside tokens.
  const RegexTokenizer identity({});
  EXPECT_EQ(identity("a\tb  c\n"), (std::vector<std::string>{"a\tb", "c\n"}));
  const RegexTokenizer lower({{"x", "y"}}, /*to_lower=*/true);
  EXPECT_EQ(lower("XaX \xC3\x89"), (std::vector<std::string>{"yay", "\xC3\x89"}));  // ASCII only
  EXPECT_TRUE(lower.to_lower());
  EXPECT_EQ(lower.patterns_list().size(), 1u);
}

TEST(TextTokTokenizers, NgramsMatchTorchtext) {
  const auto lines = read_lines("lines.txt");
  const auto expected = read_lines("ngrams3.txt");
  ASSERT_EQ(expected.size(), 40u);
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(ngrams_iterator(basic_english_normalize(lines[i]), 3), split_on(expected[i], '\t')) << i;
  }
  const std::vector<std::string> t = {"a", "b", "c"};
  EXPECT_EQ(ngrams_iterator(t, 1), t);
  EXPECT_EQ(ngrams_iterator(t, 5), (std::vector<std::string>{"a", "b", "c", "a b", "b c", "a b c"}));
  EXPECT_THROW(ngrams_iterator(t, 0), ember::Error);
}

void expect_error(const std::function<void()>& fn, const std::vector<std::string>& fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected ember::Error";
  } catch (const ember::Error& e) {
    const std::string what = e.what();
    for (const auto& f : fragments) EXPECT_NE(what.find(f), std::string::npos) << what;
  }
}

TEST(TextTokTokenizers, BadInputRaises) {
  expect_error([] { basic_english_normalize("ok \xC3\x28"); }, {"basic_english", "byte 3"});
  expect_error([] { split_whitespace("\xFF"); }, {"split_whitespace", "byte 0"});
  expect_error([] { RegexTokenizer({})("ab\xED\xA0\x80"); }, {"RegexTokenizer", "byte 2"});
  expect_error([] { get_tokenizer("spacy"); }, {"get_tokenizer", "spacy", "basic_english"});
  expect_error([] { RegexTokenizer(Patterns{{"(unclosed", ""}}); }, {"RegexTokenizer", "(unclosed", "RE2"});
  expect_error([] { RegexTokenizer(Patterns{{"(a)", "\\2"}}); }, {"RegexTokenizer", "\\2"});
}

}  // namespace test_tok_tokenizers_test
