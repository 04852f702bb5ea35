// Random bytes through the basic tokenizers and random damage to Vocab files:
// every outcome is tokens or an ember::Error, never a crash (run under ASan/UBSan
// in the sanitizer build).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <ember/core/error.h>
#include <ember/text/basic_tokenizers.h>
#include <ember/text/utf8.h>
#include <ember/text/vocab.h>

namespace test_tok_robustness_test {

using namespace ember::text;

std::string random_text(std::mt19937& rng) {
  // Mostly the characters the rules care about, some UTF-8 (Greek capitals for the
  // final-sigma rule) and some arbitrary bytes.
  static const std::string kPieces[] = {"a", "Z", " ", "'", "\"", ".", "<br />", ",", "(", "!", ";", ":", "\t",
                                        "\xCE\xA3", "\xCE\x91", "\xCC\x88", "\xC2\xA0", "\xE3\x80\x80", "\xC4\xB0"};
  std::uniform_int_distribution<int> len(0, 40), pick(0, 20), byte(0, 255);
  std::string s;
  for (int i = len(rng); i > 0; --i) {
    const int p = pick(rng);
    if (p < 19) {
      s += kPieces[p];
    } else {
      s.push_back(static_cast<char>(byte(rng)));
    }
  }
  return s;
}

TEST(TextTokRobustness, RandomBytesGiveTokensOrErrors) {
  std::mt19937 rng(21);
  const RegexTokenizer regex({{"([.,!])", " \\1 "}, {"a+", "b"}}, true);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::string s = random_text(rng);
    const bool valid = is_valid_utf8(s);
    for (const auto& tokenize : {get_tokenizer("basic_english"), get_tokenizer("split"), Tokenizer(regex)}) {
      try {
        const auto tokens = tokenize(s);
        EXPECT_TRUE(valid) << "accepted invalid UTF-8 in trial " << trial;
        for (const auto& t : tokens) EXPECT_FALSE(t.empty());
      } catch (const ember::Error&) {
        EXPECT_FALSE(valid) << "rejected valid UTF-8 in trial " << trial;
      }
    }
    if (valid) {
      // Python's lower() never splits or merges whitespace runs.
      EXPECT_EQ(split_whitespace(python_lower(s)).size(), split_whitespace(s).size()) << trial;
    }
  }
}

TEST(TextTokRobustness, DamagedVocabFilesLoadOrRaise) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "ember_tok_robustness_vocab").string();
  Vocab({"<unk>", "a b", "line\nbreak", "caf\xC3\xA9", ""}, 0).save(path);
  std::ifstream in(path, std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::mt19937 rng(7);
  std::uniform_int_distribution<size_t> where(0, good.size() - 1);
  std::uniform_int_distribution<int> byte(0, 255), kind(0, 2);
  int loaded = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::string bad = good;
    const size_t at = where(rng);
    switch (kind(rng)) {
      case 0: bad[at] = static_cast<char>(byte(rng)); break;
      case 1: bad.erase(at, 1); break;
      default: bad.insert(at, 1, static_cast<char>(byte(rng)));
    }
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bad;
    try {
      const Vocab v = Vocab::load(path);
      ++loaded;
      for (int64_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[v.lookup_token(i)], i);
    } catch (const ember::Error&) {
    }
  }
  std::remove(path.c_str());
  EXPECT_LT(loaded, 2000);
}

}  // namespace test_tok_robustness_test
