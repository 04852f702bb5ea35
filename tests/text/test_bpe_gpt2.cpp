// GPT2BPETokenizer against a Python port of GPT-2's encoder.py
// (scripts/fixtures/text_bpe.py: a 400-merge vocabulary learned from a Botchan
// excerpt, the reference pre-tokenizer being GPT-2's regex with its lookahead).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include <ember/core/error.h>
#include <ember/serialize/json.h>
#include <ember/text/bpe.h>

#include "bpe_testing.h"

namespace test_bpe_gpt2_test {

using namespace bpe_testing;
using ember::text::GPT2BPETokenizer;

struct Case {
  std::string text;
  std::vector<std::string> pieces, tokens;
  std::vector<int64_t> ids;
};

std::vector<Case> cases() {
  const ember::IValue doc = ember::serialize::json::parse(read(kDir + "cases.json"), "cases.json");
  std::vector<Case> out;
  for (const ember::IValue& c : doc.to_list()) {
    const ember::IDict& d = c.to_dict();
    Case k;
    k.text = d.find("text")->to_string();
    for (const auto& v : d.find("pieces")->to_list()) k.pieces.push_back(v.to_string());
    for (const auto& v : d.find("tokens")->to_list()) k.tokens.push_back(v.to_string());
    k.ids = d.find("ids")->to_int_list();
    out.push_back(std::move(k));
  }
  return out;
}

GPT2BPETokenizer tokenizer(bool return_tokens = false) {
  return GPT2BPETokenizer(kDir + "encoder.json", kDir + "vocab.bpe", return_tokens);
}

TEST(TextGPT2BPE, PreTokenizerMatchesGPT2Regex) {
  const auto all = cases();
  ASSERT_GE(all.size(), 50u);
  for (const Case& c : all) EXPECT_EQ(ember::text::gpt2_pre_tokenize(c.text), c.pieces) << c.text;
}

TEST(TextGPT2BPE, TokensAndIdsMatchEncoderPy) {
  const GPT2BPETokenizer tok = tokenizer();
  const GPT2BPETokenizer tok_tokens = tokenizer(/*return_tokens=*/true);
  for (const Case& c : cases()) {
    EXPECT_EQ(tok.tokenize(c.text), c.tokens) << c.text;
    EXPECT_EQ(tok.encode(c.text), c.ids) << c.text;
    std::vector<std::string> id_strings;
    for (int64_t id : c.ids) id_strings.push_back(std::to_string(id));
    EXPECT_EQ(tok(c.text), id_strings) << c.text;  // torchtext: ids as strings
    EXPECT_EQ(tok_tokens(c.text), c.tokens) << c.text;
  }
}

TEST(TextGPT2BPE, CachedAndBatchedCallsAgree) {
  const GPT2BPETokenizer tok = tokenizer();
  const auto all = cases();
  std::vector<std::string> texts;
  for (const Case& c : all) texts.push_back(c.text);
  const auto first = tok(texts), second = tok(texts);  // the second pass reads the cache
  ASSERT_EQ(first.size(), all.size());
  EXPECT_EQ(first, second);
  std::vector<std::vector<std::string>> from_threads(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] { from_threads[t] = tok(texts[10 + t]); });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(from_threads[t], first[10 + t]);
}

TEST(TextGPT2BPE, HandWrittenLookaheadCases) {
  using ember::text::gpt2_pre_tokenize;
  using V = std::vector<std::string>;
  EXPECT_EQ(gpt2_pre_tokenize("a  b"), (V{"a", " ", " b"}));
  EXPECT_EQ(gpt2_pre_tokenize("a \n b"), (V{"a", " \n", " b"}));
  EXPECT_EQ(gpt2_pre_tokenize("a\nb"), (V{"a", "\n", "b"}));
  EXPECT_EQ(gpt2_pre_tokenize("a\n\nb"), (V{"a", "\n", "\n", "b"}));
  EXPECT_EQ(gpt2_pre_tokenize("end  "), (V{"end", "  "}));
  EXPECT_EQ(gpt2_pre_tokenize("x 'll'd"), (V{"x", " '", "ll", "'d"}));
  EXPECT_EQ(gpt2_pre_tokenize(""), V{});
}

TEST(TextGPT2BPE, InvalidUtf8IsAnError) {
  const GPT2BPETokenizer tok = tokenizer();
  try {
    tok.encode("ok \xC3\x28 no");
    FAIL() << "invalid UTF-8 must raise";
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("GPT2BPETokenizer"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("byte 3"), std::string::npos) << e.what();
  }
}

std::string write_temp(const std::string& name, const std::string& contents) {
  return bpe_testing::write_temp("test_bpe_gpt2_", name, contents);
}

TEST(TextGPT2BPE, BadFilesAreErrors) {
  const std::string enc = kDir + "encoder.json", merges = kDir + "vocab.bpe";
  expect_error([&] { GPT2BPETokenizer(kDir + "missing.json", merges); }, "missing.json");
  expect_error([&] { GPT2BPETokenizer(enc, kDir + "missing.bpe"); }, "missing.bpe");
  const std::string truncated = write_temp("truncated.json", read(enc).substr(0, 100));
  expect_error([&] { GPT2BPETokenizer(truncated, merges); }, "truncated.json");
  const std::string not_object = write_temp("list.json", "[1, 2]");
  expect_error([&] { GPT2BPETokenizer(not_object, merges); }, "JSON object");
  const std::string bad_value = write_temp("badvalue.json", "{\"a\": \"b\"}");
  expect_error([&] { GPT2BPETokenizer(bad_value, merges); }, "integer id");
  const std::string bad_merge = write_temp("bad.bpe", "#version: 0.2\na b\nc d e\n");
  expect_error([&] { GPT2BPETokenizer(enc, bad_merge); }, "line 3");
  const std::string empty = write_temp("empty.bpe", "");
  expect_error([&] { GPT2BPETokenizer(enc, empty); }, "empty");
  const std::string bad_utf8 = write_temp("badutf8.bpe", "#version\na \xFF\n");
  expect_error([&] { GPT2BPETokenizer(enc, bad_utf8); }, "invalid UTF-8");
  // An encoder that lacks a token the merges produce: an error at encode time.
  const std::string small = write_temp("small.json", "{\"a\": 0}");
  const GPT2BPETokenizer tok(small, merges);
  expect_error([&] { tok.encode("the"); }, "not in the encoder");
}

}  // namespace test_bpe_gpt2_test
