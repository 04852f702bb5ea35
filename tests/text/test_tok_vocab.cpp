// Vocab, vocab() and build_vocab_from_iterator against torchtext 0.14's rules
// (scripts/fixtures/text_tok.py) and its C++ Vocab's behaviour and errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <ember/core/error.h>
#include <ember/text/basic_tokenizers.h>
#include <ember/text/vocab.h>

#include "npy.h"

namespace test_tok_vocab_test {

using namespace ember::text;
using Strings = std::vector<std::string>;

Strings read_lines(const std::string& name) {
  std::ifstream f(ember::testing::fixture_path("text/text_tok/" + name), std::ios::binary);
  EXPECT_TRUE(f.good()) << name;
  Strings lines;
  for (std::string line; std::getline(f, line);) lines.push_back(line);
  return lines;
}

std::vector<Strings> fixture_tokens() {
  std::vector<Strings> out;
  for (const auto& line : read_lines("lines.txt")) out.push_back(basic_english_normalize(line));
  return out;
}

void expect_error(const std::function<void()>& fn, const Strings& fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected ember::Error";
  } catch (const ember::Error& e) {
    const std::string what = e.what();
    for (const auto& f : fragments) EXPECT_NE(what.find(f), std::string::npos) << what;
  }
}

TEST(TextTokVocab, BuildFromIteratorMatchesTorchtextOrdering) {
  const auto tokens = fixture_tokens();
  EXPECT_EQ(build_vocab_from_iterator(tokens).get_itos(), read_lines("vocab_default.txt"));
  EXPECT_EQ(build_vocab_from_iterator(tokens, 3, {"<unk>", "<pad>"}).get_itos(),
            read_lines("vocab_min3_specials.txt"));
  // "the" is among the 48 most frequent tokens: removed as a special after the cut, so 49 tokens.
  EXPECT_EQ(build_vocab_from_iterator(tokens, 1, {"<unk>", "the"}, false, 50).get_itos(),
            read_lines("vocab_specials_last_max50.txt"));
  EXPECT_EQ(build_vocab_from_iterator(tokens, 2, {}, true, 30).get_itos(), read_lines("vocab_min2_max30.txt"));
}

TEST(TextTokVocab, TiesBreakLexicographically) {
  const std::vector<Strings> data = {{"b", "a", "c", "b"}, {"\xC3\xA9", "a", "Z", "b"}};
  EXPECT_EQ(build_vocab_from_iterator(data).get_itos(), (Strings{"b", "a", "Z", "c", "\xC3\xA9"}));
}

TEST(TextTokVocab, FactoryKeepsOrderAndPlacesSpecials) {
  const std::vector<std::pair<std::string, int64_t>> od = {{"z", 5}, {"<unk>", 9}, {"a", 1}, {"m", 3}};
  EXPECT_EQ(vocab(od).get_itos(), (Strings{"z", "<unk>", "a", "m"}));
  EXPECT_EQ(vocab(od, 2, {"<unk>", "<pad>"}).get_itos(), (Strings{"<unk>", "<pad>", "z", "m"}));
  EXPECT_EQ(vocab(od, 3, {"<unk>"}, false).get_itos(), (Strings{"z", "m", "<unk>"}));
  expect_error([&] { vocab(od, 1, {"<s>", "<s>"}); }, {"duplicate token '<s>'"});
  expect_error([&] { vocab(od, 0); }, {"min_freq", "0"});
  expect_error([] { build_vocab_from_iterator(std::vector<Strings>{{"a"}}, 1, {"x", "y"}, true, 2); },
               {"max_tokens (2)", "specials (2)"});
}

TEST(TextTokVocab, LookupsAndDefaultIndex) {
  Vocab v({"<unk>", "hello", "world"});
  EXPECT_EQ(v.size(), 3);
  EXPECT_TRUE(v.contains("world"));
  EXPECT_FALSE(v.contains("moon"));
  EXPECT_EQ(v["hello"], 1);
  EXPECT_EQ(v.lookup_indices({"world", "hello"}), (std::vector<int64_t>{2, 1}));
  EXPECT_FALSE(v.get_default_index().has_value());
  expect_error([&] { v["moon"]; }, {"'moon'", "default index is not set"});
  v.set_default_index(v["<unk>"]);
  EXPECT_EQ(v.get_default_index(), 0);
  EXPECT_EQ(v.lookup_indices({"moon", "world"}), (std::vector<int64_t>{0, 2}));
  v.set_default_index(std::nullopt);
  EXPECT_THROW(v.lookup_index("moon"), ember::Error);
  EXPECT_EQ(v.lookup_token(2), "world");
  EXPECT_EQ(v.lookup_tokens({2, 0}), (Strings{"world", "<unk>"}));
  expect_error([&] { v.lookup_token(3); }, {"index 3", "size 3"});
  expect_error([&] { v.lookup_tokens({0, -1}); }, {"index -1"});
  const auto stoi = v.get_stoi();
  EXPECT_EQ(stoi.size(), 3u);
  EXPECT_EQ(stoi.at("world"), 2);
  expect_error([] { Vocab({"a", "b", "a"}); }, {"duplicate token 'a'", "0", "2"});
}

TEST(TextTokVocab, InsertAndAppendShiftIndices) {
  Vocab v({"a", "b", "c"});
  v.insert_token("x", 1);
  EXPECT_EQ(v.get_itos(), (Strings{"a", "x", "b", "c"}));
  EXPECT_EQ(v["b"], 2);
  EXPECT_EQ(v["c"], 3);
  v.insert_token("end", 4);
  v.append_token("tail");
  EXPECT_EQ(v.get_itos(), (Strings{"a", "x", "b", "c", "end", "tail"}));
  for (int64_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[v.lookup_token(i)], i);
  expect_error([&] { v.insert_token("y", 7); }, {"index 7", "size 6"});
  expect_error([&] { v.insert_token("y", -1); }, {"index -1"});
  expect_error([&] { v.insert_token("b", 0); }, {"'b'", "index 2"});
  expect_error([&] { v.append_token("c"); }, {"'c'", "index 3"});
}

struct TempFile {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("ember_tok_vocab_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                       "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                         .string();
  ~TempFile() { std::remove(path.c_str()); }
  void write(const std::string& content) const { std::ofstream(path, std::ios::binary) << content; }
};

TEST(TextTokVocab, SaveLoadRoundTrips) {
  TempFile file;
  Vocab v({"<unk>", "two words", "line\nbreak", "", "caf\xC3\xA9", "7 x"}, 0);
  v.save(file.path);
  const Vocab back = Vocab::load(file.path);
  EXPECT_EQ(back.get_itos(), v.get_itos());
  EXPECT_EQ(back.get_default_index(), 0);
  EXPECT_EQ(back["line\nbreak"], 2);
  Vocab none({"a"});
  none.set_default_index(-1);
  none.save(file.path);
  EXPECT_EQ(Vocab::load(file.path).get_default_index(), -1);
  Vocab empty;
  empty.save(file.path);
  EXPECT_EQ(Vocab::load(file.path).size(), 0);
  EXPECT_FALSE(Vocab::load(file.path).get_default_index().has_value());
}

TEST(TextTokVocab, LoadRejectsCorruptFiles) {
  TempFile file;
  const std::string good = "ember-text-vocab 1\ndefault_index none\nsize 2\n1 a\n2 bc\n";
  file.write(good);
  EXPECT_EQ(Vocab::load(file.path).get_itos(), (Strings{"a", "bc"}));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "truncated"},
      {"not a vocab\n", "not an Ember vocab file"},
      {"ember-text-vocab 1\ndefault_index seven\nsize 0\n", "default_index"},
      {"ember-text-vocab 1\ndefault_index none\nsize -2\n", "size <n>"},
      {"ember-text-vocab 1\ndefault_index none\nsize 3\n1 a\n2 bc\n", "token 2"},
      {"ember-text-vocab 1\ndefault_index none\nsize 2\n1 a\n5 bc\n", "token 1 of 5 bytes"},
      {"ember-text-vocab 1\ndefault_index none\nsize 2\n1 a\nx bc\n", "token 1 lacks"},
      {"ember-text-vocab 1\ndefault_index none\nsize 1\n1 a\nextra", "data after its 1 tokens"},
      {"ember-text-vocab 1\ndefault_index none\nsize 2\n1 a\n1 a\n", "duplicate token 'a'"},
      {good.substr(0, good.size() - 3), "token 1"},
  };
  for (const auto& [content, fragment] : bad) {
    file.write(content);
    expect_error([&] { Vocab::load(file.path); }, {"Vocab::load", fragment});
  }
  expect_error([] { Vocab::load("/nonexistent/dir/vocab.txt"); }, {"cannot open", "/nonexistent/dir/vocab.txt"});
}

}  // namespace test_tok_vocab_test
