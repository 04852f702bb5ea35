// BERTTokenizer against a Python port of BERT's tokenization.py
// (scripts/fixtures/text_bpe.py): a small WordPiece vocabulary, four
// lower-casing / accent-stripping settings, accents, CJK, controls, long words.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>

#include <ember/core/error.h>
#include <ember/serialize/json.h>
#include <ember/text/bpe.h>

#include "bpe_testing.h"

namespace test_bpe_bert_test {

using namespace bpe_testing;
using ember::text::BERTTokenizer;

std::string write_temp(const std::string& name, const std::string& contents) {
  return bpe_testing::write_temp("test_bpe_bert_", name, contents);
}

TEST(TextBERTTokenizer, MatchesTokenizationPy) {
  const ember::IValue doc = ember::serialize::json::parse(read(kDir + "bert_cases.json"), "bert_cases");
  int checked = 0;
  for (const ember::IValue& c : doc.to_list()) {
    const ember::IDict& d = c.to_dict();
    const bool lower = d.find("lower")->to_bool();
    const ember::IValue* strip_value = d.find("strip");
    const std::optional<bool> strip =
        strip_value->is_none() ? std::nullopt : std::optional<bool>(strip_value->to_bool());
    const std::string text = d.find("text")->to_string();
    std::vector<std::string> tokens, id_strings;
    for (const auto& v : d.find("tokens")->to_list()) tokens.push_back(v.to_string());
    const std::vector<int64_t> ids = d.find("ids")->to_int_list();
    for (int64_t id : ids) id_strings.push_back(std::to_string(id));
    const BERTTokenizer tok(kDir + "bert_vocab.txt", lower, strip);
    EXPECT_EQ(tok.tokenize(text), tokens) << lower << " " << text;
    EXPECT_EQ(tok.encode(text), ids) << lower << " " << text;
    EXPECT_EQ(tok(text), id_strings) << lower << " " << text;
    ++checked;
  }
  EXPECT_GE(checked, 4 * 40);
}

TEST(TextBERTTokenizer, ReturnTokensAndBatches) {
  const BERTTokenizer tok(kDir + "bert_vocab.txt", true, std::nullopt, /*return_tokens=*/true);
  using V = std::vector<std::string>;
  EXPECT_EQ(tok("The CAFÉ!"), (V{"the", "c", "##a", "##f", "##e", "!"}));
  EXPECT_EQ(tok(std::vector<std::string>{"", " the "}), (std::vector<V>{{}, {"the"}}));
}

TEST(TextBERTTokenizer, BadInputIsAnError) {
  expect_error([&] { BERTTokenizer(kDir + "missing_vocab.txt"); }, "missing_vocab.txt");
  expect_error([&] { BERTTokenizer(write_temp("nounk.txt", "[PAD]\na\n")); }, "no [UNK]");
  expect_error([&] { BERTTokenizer(write_temp("dup.txt", "[UNK]\na\na\n")); }, "line 3 repeats");
  expect_error([&] { BERTTokenizer(write_temp("utf8.txt", "[UNK]\n\xC0\xAF\n")); }, "invalid UTF-8");
  const BERTTokenizer tok(kDir + "bert_vocab.txt");
  expect_error([&] { tok.encode("caf\xC3"); }, "BERTTokenizer: invalid UTF-8 at byte 3");
}

}  // namespace test_bpe_bert_test
