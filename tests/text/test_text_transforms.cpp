// ember::text::transforms: torchtext 0.14's Truncate, AddToken, ToTensor,
// PadTransform, StrToIntTransform, LabelToIndex and Sequential (expected values
// written from torchtext's functional definitions), and their JSON round trips
// through the suite's registry.
#include <gtest/gtest.h>

#include <fstream>

#include <ember/ember.h>
#include <ember/text/transforms.h>

namespace test_text_transforms_test {

using namespace ember;
namespace TT = ember::text::transforms;

IValue ids(std::vector<int64_t> v) { return TT::to_value(v); }
IValue tokens(std::vector<std::string> v) { return TT::to_value(v); }
IValue batch(std::vector<IValue> items) { return IValue::list(std::move(items)); }

template <class Holder>
void expect_round_trip(const Holder& t, const IValue& input) {
  const std::string json = TT::to_json(*t.ptr());
  const TT::TextTransformPtr back = TT::from_json(json);
  EXPECT_EQ(TT::to_json(*back), json);
  EXPECT_EQ(back->forward(input), t.ptr()->forward(input)) << json;
}

TEST(TextTransforms, TruncateSequencesAndBatches) {
  TT::Truncate truncate(2);
  EXPECT_EQ(truncate(ids({1, 2, 3})), ids({1, 2}));
  EXPECT_EQ(truncate(tokens({"a", "b", "c"})), tokens({"a", "b"}));
  EXPECT_EQ(truncate(batch({ids({1, 2, 3}), ids({4})})), batch({ids({1, 2}), ids({4})}));
  EXPECT_EQ(truncate(ids({})), ids({}));
  EXPECT_THROW(TT::Truncate(-1), Error);
  EXPECT_THROW(truncate(IValue(3)), Error);
  expect_round_trip(truncate, ids({5, 6, 7}));
}

TEST(TextTransforms, AddTokenAtEitherEnd) {
  EXPECT_EQ(TT::AddToken(0, true)(ids({5, 6})), ids({0, 5, 6}));
  EXPECT_EQ(TT::AddToken(2, false)(batch({ids({5}), ids({})})), batch({ids({5, 2}), ids({2})}));
  EXPECT_EQ(TT::AddToken(std::string("<bos>"), true)(tokens({"x"})), tokens({"<bos>", "x"}));
  EXPECT_THROW(TT::AddToken(std::string("<bos>"), true)(ids({1})), Error);  // str token, int sequence
  EXPECT_THROW(TT::AddToken(1.5, true), Error);
  expect_round_trip(TT::AddToken(std::string("</s>"), false), tokens({"a"}));
}

TEST(TextTransforms, ToTensorPadsBatches) {
  const IValue one = TT::ToTensor()(ids({3, 1, 4}));
  ASSERT_TRUE(one.is_tensor());
  EXPECT_TRUE(equal(one.to_tensor(), tensor<int64_t>({3, 1, 4})));
  const IValue padded = TT::ToTensor(9)(batch({ids({1, 2, 3}), ids({4})}));
  EXPECT_TRUE(equal(padded.to_tensor(), tensor<int64_t>({{1, 2, 3}, {4, 9, 9}})));
  EXPECT_TRUE(equal(TT::ToTensor()(batch({ids({1, 2}), ids({3, 4})})).to_tensor(), tensor<int64_t>({{1, 2}, {3, 4}})));
  EXPECT_THROW(TT::ToTensor()(batch({ids({1, 2}), ids({3})})), Error);  // ragged without padding_value
  EXPECT_THROW(TT::ToTensor()(tokens({"a"})), Error);
  expect_round_trip(TT::ToTensor(0), batch({ids({1}), ids({2, 3})}));
}

TEST(TextTransforms, PadTransformPadsTheLastDim) {
  const IValue x(tensor<int64_t>({{1, 2}, {3, 4}}));
  EXPECT_TRUE(equal(TT::PadTransform(4, -1)(x).to_tensor(), tensor<int64_t>({{1, 2, -1, -1}, {3, 4, -1, -1}})));
  EXPECT_TRUE(equal(TT::PadTransform(1, 0)(x).to_tensor(), x.to_tensor()));  // longer: kept
  EXPECT_THROW(TT::PadTransform(4, 0)(ids({1})), Error);
  expect_round_trip(TT::PadTransform(3, 7), x);
}

TEST(TextTransforms, StrToIntAndLabelToIndex) {
  EXPECT_EQ(TT::StrToIntTransform()(tokens({"1", " -2 ", "+30"})), ids({1, -2, 30}));
  EXPECT_EQ(TT::StrToIntTransform()(batch({tokens({"4"}), tokens({"5", "6"})})), batch({ids({4}), ids({5, 6})}));
  EXPECT_THROW(TT::StrToIntTransform()(tokens({"1.5"})), Error);
  EXPECT_THROW(TT::StrToIntTransform()(tokens({"99999999999999999999"})), Error);
  TT::LabelToIndex labels(std::vector<std::string>{"world", "sports", "business"});
  EXPECT_EQ(labels(IValue("sports")), IValue(int64_t{1}));
  EXPECT_EQ(labels(tokens({"business", "world"})), ids({2, 0}));
  TT::LabelToIndex sorted(std::vector<std::string>{"world", "sports", "business"}, true);
  EXPECT_EQ(sorted(IValue("world")), IValue(int64_t{2}));
  EXPECT_THROW(labels(IValue("tech")), Error);
  EXPECT_THROW(TT::LabelToIndex(std::vector<std::string>{"a", "a"}), Error);
  expect_round_trip(sorted, tokens({"sports", "business"}));
}

TEST(TextTransforms, VocabTransformLooksTokensUp) {
  TT::VocabTransform lookup(text::Vocab({"<unk>", "the", "cat"}, 0));
  EXPECT_EQ(lookup(tokens({"the", "cat", "dog"})), ids({1, 2, 0}));
  EXPECT_EQ(lookup(batch({tokens({"cat"}), tokens({})})), batch({ids({2}), ids({})}));
  TT::VocabTransform strict(text::Vocab({"a", "b"}));
  EXPECT_THROW(strict(tokens({"c"})), Error);  // no default index
  expect_round_trip(lookup, tokens({"cat", "mouse"}));
  expect_round_trip(strict, tokens({"b", "a"}));
}

std::vector<std::string> lines_of(const std::string& path, size_t n) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; out.size() < n && std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(TextTransforms, SentencePieceTokenizerMatchesPython) {
  // The text_sp fixtures: python3-sentencepiece's pieces (tab-separated) of each line.
  const std::string dir = std::string(EMBER_TEST_DATA_DIR) + "/text/text_sp/";
  const auto lines = lines_of(dir + "lines.txt", 5);
  const auto expected = lines_of(dir + "unigram.pieces.txt", 5);
  ASSERT_EQ(lines.size(), 5u);
  TT::SentencePieceTokenizer tokenizer(dir + "unigram.model");
  std::vector<IValue> want;
  for (const std::string& row : expected) {
    std::vector<std::string> pieces;
    for (size_t b = 0, e; b <= row.size(); b = e + 1) {
      e = row.find('\t', b);
      if (e == std::string::npos) e = row.size();
      pieces.push_back(row.substr(b, e - b));
    }
    want.push_back(tokens(pieces));
  }
  EXPECT_EQ(tokenizer(IValue(lines[0])), want[0]);
  EXPECT_EQ(tokenizer(tokens(lines)), batch(want));
  expect_round_trip(tokenizer, tokens(lines));
  EXPECT_THROW(TT::SentencePieceTokenizer(dir + "no_such.model"), Error);
}

TEST(TextTransforms, SequentialPipelineSavesAndLoads) {
  TT::Sequential pipeline({TT::StrToIntTransform(), TT::Truncate(3), TT::AddToken(0, true), TT::AddToken(2, false),
                           TT::ToTensor(1)});
  const IValue input = batch({tokens({"7", "8", "9", "10"}), tokens({"5"})});
  EXPECT_TRUE(equal(pipeline(input).to_tensor(), tensor<int64_t>({{0, 7, 8, 9, 2}, {0, 5, 2, 1, 1}})));
  expect_round_trip(pipeline, input);
  // Text transforms are not tensor transforms: the tensor loaders refuse them by name.
  EXPECT_THROW(ember::transforms::from_json(TT::to_json(*pipeline.ptr())), Error);
}

}  // namespace test_text_transforms_test
