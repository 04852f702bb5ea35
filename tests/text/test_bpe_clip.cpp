// CLIPTokenizer against a Python port of CLIP's simple_tokenizer with
// torchtext's vocabulary rules (scripts/fixtures/text_bpe.py): merges learned
// from a Botchan excerpt, three vocabularies (all 300 merges built from the
// merges file, the 250 an encoder.json selects, and num_merges = 100).
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <ember/core/error.h>
#include <ember/serialize/json.h>
#include <ember/text/bpe.h>

#include "bpe_testing.h"

namespace test_bpe_clip_test {

using namespace bpe_testing;
using ember::text::CLIPTokenizer;

TEST(TextCLIPTokenizer, MatchesSimpleTokenizerForEveryVocabulary) {
  const std::map<std::string, CLIPTokenizer> tokenizers{
      {"all", CLIPTokenizer(kDir + "clip_merges.bpe")},
      {"json", CLIPTokenizer(kDir + "clip_merges.bpe", kDir + "clip_encoder.json")},
      {"first100", CLIPTokenizer(kDir + "clip_merges.bpe", std::nullopt, 100)},
  };
  const ember::IValue doc = ember::serialize::json::parse(read(kDir + "clip_cases.json"), "clip_cases");
  std::map<std::string, int> counts;
  for (const ember::IValue& c : doc.to_list()) {
    const ember::IDict& d = c.to_dict();
    const std::string vocab = d.find("vocab")->to_string(), text = d.find("text")->to_string();
    std::vector<std::string> pieces, tokens, id_strings;
    for (const auto& v : d.find("pieces")->to_list()) pieces.push_back(v.to_string());
    for (const auto& v : d.find("tokens")->to_list()) tokens.push_back(v.to_string());
    const std::vector<int64_t> ids = d.find("ids")->to_int_list();
    for (int64_t id : ids) id_strings.push_back(std::to_string(id));
    const CLIPTokenizer& tok = tokenizers.at(vocab);
    EXPECT_EQ(tok.tokenize(text), tokens) << vocab << ": " << text;
    EXPECT_EQ(tok.encode(text), ids) << vocab << ": " << text;
    EXPECT_EQ(tok(text), id_strings) << vocab << ": " << text;
    if (vocab == "all") {
      // The pieces are of the lower-cased text: CLIP's pre-tokenizer on them gives them back.
      std::string lowered;
      for (const std::string& p : pieces) lowered += p + " ";
      EXPECT_EQ(ember::text::clip_pre_tokenize(lowered), pieces) << text;
    }
    ++counts[vocab];
  }
  EXPECT_GE(counts["all"], 40);
  EXPECT_EQ(counts["all"], counts["json"]);
  EXPECT_EQ(counts["all"], counts["first100"]);
}

TEST(TextCLIPTokenizer, PreTokenizerAndReturnTokens) {
  using V = std::vector<std::string>;
  EXPECT_EQ(ember::text::clip_pre_tokenize("<|startoftext|>a cat's 42!? <|endoftext|>"),
            (V{"<|startoftext|>", "a", "cat", "'s", "4", "2", "!?", "<|endoftext|>"}));
  EXPECT_EQ(ember::text::clip_pre_tokenize(" \t\n"), V{});
  const CLIPTokenizer tok(kDir + "clip_merges.bpe", std::nullopt, std::nullopt, /*return_tokens=*/true);
  EXPECT_EQ(tok("A A"), (V{"a</w>", "a</w>"}));
  const std::vector<std::vector<std::string>> batch = tok(std::vector<std::string>{"a", "A"});
  EXPECT_EQ(batch, (std::vector<V>{{"a</w>"}, {"a</w>"}}));
}

TEST(TextCLIPTokenizer, BadInputIsAnError) {
  const std::string merges = kDir + "clip_merges.bpe";
  expect_error([&] { CLIPTokenizer(kDir + "missing.bpe"); }, "missing.bpe");
  expect_error([&] { CLIPTokenizer(merges, kDir + "missing.json"); }, "missing.json");
  expect_error([&] { CLIPTokenizer(merges, std::nullopt, 100000); }, "num_merges = 100000");
  expect_error([&] { CLIPTokenizer(merges, std::nullopt, -1); }, "num_merges = -1");
  // An encoder smaller than the 514 byte and special entries.
  const std::string small = ::testing::TempDir() + "/test_bpe_clip_small.json";
  std::ofstream(small) << "{\"a\": 0}";
  expect_error([&] { CLIPTokenizer(merges, small); }, "needs -513 merges");
  const CLIPTokenizer tok(merges);
  expect_error([&] { tok.encode("bad \xE2\x82"); }, "CLIPTokenizer: invalid UTF-8");
}

}  // namespace test_bpe_clip_test
