// ember::text::SentencePieceProcessor against python3-sentencepiece 0.1.97
// (scripts/fixtures/text_sp.py): encode / decode / n-best / seeded sampling /
// vocabulary queries of two committed models and, when ../shared/data is
// present, of its two tokenizer models; batched == serial; bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <thread>

#include <ember/core/error.h>
#include <ember/core/parallel.h>
#include <ember/text/sentencepiece.h>

#include "sp_test_util.h"

namespace test_sp_processor_test {

using ember::text::SentencePieceProcessor;
using namespace sp_test_util;

// The model file of a fixture model: committed ones, or ../shared's ("" when absent).
std::string model_path(const std::string& name) {
  if (name == "unigram" || name == "bpe") return fixture(name + ".model");
  return shared_data("tokenizers/" + name + ".model");
}

class SpParity : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    path_ = model_path(GetParam());
    ASSERT_FALSE(path_.empty()) << GetParam();
    lines_ = read_lines(fixture("lines.txt"));
    ASSERT_EQ(lines_.size(), 100u);
  }
  std::string expected(const std::string& kind) { return fixture(GetParam() + "." + kind + ".txt"); }
  std::string path_;
  std::vector<std::string> lines_;
};

TEST_P(SpParity, EncodesAndDecodesLikePython) {
  const auto sp = SentencePieceProcessor::from_file(path_);
  const auto ids = read_lines(expected("ids"));
  const auto pieces = read_lines(expected("pieces"));
  const auto decoded = read_lines(expected("decoded"));
  ASSERT_EQ(ids.size(), lines_.size());
  for (size_t i = 0; i < lines_.size(); ++i) {
    const auto got = sp.encode_as_ids(lines_[i]);
    EXPECT_EQ(got, ints(ids[i])) << "line " << i;
    EXPECT_EQ(sp.encode_as_pieces(lines_[i]), split(pieces[i], '\t')) << "line " << i;
    EXPECT_EQ(sp.decode_ids(got), decoded[i]) << "line " << i;
    // Pieces keep the surface of unknown characters, which ids decode to " \u2047 ".
    if (std::find(got.begin(), got.end(), sp.unk_id()) == got.end()) {
      EXPECT_EQ(sp.decode_pieces(split(pieces[i], '\t')), decoded[i]) << "line " << i;
    }
  }
}

TEST_P(SpParity, NBestLikePython) {
  const auto sp = SentencePieceProcessor::from_file(path_);
  if (GetParam() == "bpe") {  // n-best needs a unigram model: the library's error
    EXPECT_THROW(sp.nbest_encode_as_ids(lines_[0], 4), ember::Error);
    return;
  }
  std::vector<std::vector<std::vector<int>>> want(10);
  for (const std::string& row : read_lines(expected("nbest"))) {
    const auto f = split(row, '\t');
    want[std::stoi(f[0])].push_back(ints(f[2]));
  }
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(sp.nbest_encode_as_ids(lines_[i], 4), want[i]) << "line " << i;
    const auto pieces = sp.nbest_encode_as_pieces(lines_[i], 4);
    ASSERT_EQ(pieces.size(), want[i].size());
    for (size_t r = 0; r < pieces.size(); ++r)
      for (size_t k = 0; k < pieces[r].size(); ++k) EXPECT_EQ(sp.piece_to_id(pieces[r][k]), want[i][r][k]);
  }
}

// Note [Sampling determinism] (text/src/sp/processor.cpp): a fresh thread
// after the seed draws what Python's fresh thread drew.
TEST_P(SpParity, SeededSamplingOnAFreshThreadLikePython) {
  const auto sp = SentencePieceProcessor::from_file(path_);
  const float alpha = GetParam() == "bpe" ? 0.1f : 0.5f;
  std::vector<std::vector<int>> got;
  std::thread([&] {
    ember::text::set_sentencepiece_random_seed(1234);
    for (size_t i = 0; i < 20; ++i) got.push_back(sp.sample_encode_as_ids(lines_[i], -1, alpha));
  }).join();
  const auto want = read_lines(expected("sample"));
  ASSERT_EQ(want.size(), 20u);
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(got[i], ints(want[i])) << "line " << i;
  // Sampling really varies: some sample differs from the best segmentation.
  size_t differing = 0;
  for (size_t i = 0; i < 20; ++i) differing += got[i] != sp.encode_as_ids(lines_[i]);
  EXPECT_GT(differing, 0u);
}

TEST_P(SpParity, VocabularyLikePython) {
  const auto sp = SentencePieceProcessor::from_file(path_);
  const auto info = read_lines(expected("info"));
  const auto head = ints(info[0]);
  EXPECT_EQ(sp.get_piece_size(), head[0]);
  EXPECT_EQ(sp.unk_id(), head[1]);
  EXPECT_EQ(sp.bos_id(), head[2]);
  EXPECT_EQ(sp.eos_id(), head[3]);
  EXPECT_EQ(sp.pad_id(), head[4]);
  for (size_t r = 1; r < info.size(); ++r) {
    const auto f = split(info[r], '\t');
    const int id = std::stoi(f[0]);
    EXPECT_EQ(sp.id_to_piece(id), f[1]);
    EXPECT_EQ(sp.piece_to_id(f[1]), id);
    EXPECT_FLOAT_EQ(sp.get_score(id), std::stof(f[2]));
    EXPECT_EQ(sp.is_unknown(id), f[3] == "1") << id;
    EXPECT_EQ(sp.is_control(id), f[4] == "1") << id;
  }
  EXPECT_EQ(sp.piece_to_id("\xE2\x96\x81no-such-piece-anywhere"), sp.unk_id());
}

TEST_P(SpParity, LoadsFromBytesAndRoundTripsTheModel) {
  const std::string bytes = read_bytes(path_);
  const auto sp = SentencePieceProcessor::from_bytes(bytes);
  EXPECT_EQ(sp.serialized_model(), bytes);
  EXPECT_EQ(sp.encode_as_ids(lines_[0]), ints(read_lines(expected("ids"))[0]));
}

TEST_P(SpParity, BatchedEncodeEqualsSerial) {
  const auto sp = SentencePieceProcessor::from_file(path_);
  std::vector<std::string> texts;
  for (int rep = 0; rep < 20; ++rep) texts.insert(texts.end(), lines_.begin(), lines_.end());
  const int saved = ember::get_num_threads();
  for (int threads : {1, 2, 4}) {
    ember::set_num_threads(threads);
    const auto ids = sp.encode_batch_as_ids(texts);
    const auto pieces = sp.encode_batch_as_pieces(texts);
    ASSERT_EQ(ids.size(), texts.size());
    for (size_t i = 0; i < texts.size(); ++i) {
      ASSERT_EQ(ids[i], sp.encode_as_ids(texts[i])) << "text " << i << ", " << threads << " threads";
      ASSERT_EQ(pieces[i], sp.encode_as_pieces(texts[i])) << "text " << i << ", " << threads << " threads";
    }
  }
  ember::set_num_threads(saved);
}

// The committed models, and ../shared's two when that folder is present
// (they are too large to commit; their expected outputs are committed).
std::vector<std::string> parity_models() {
  std::vector<std::string> models = {"unigram", "bpe"};
  for (const char* shared : {"sentencepiece_test_model", "spm_example"})
    if (!model_path(shared).empty()) models.push_back(shared);
  return models;
}

INSTANTIATE_TEST_SUITE_P(Models, SpParity, ::testing::ValuesIn(parity_models()));

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(SpProcessorErrors, CorruptOrMissingModelsRaise) {
  const std::string good = read_bytes(fixture("unigram.model"));
  EXPECT_TRUE(has(error_of([] { SentencePieceProcessor::from_bytes(""); }), "empty"));
  EXPECT_TRUE(has(error_of([&] { SentencePieceProcessor::from_bytes(good.substr(0, good.size() / 2)); }),
                  "from_bytes"));
  EXPECT_NE(error_of([] { SentencePieceProcessor::from_bytes("this is not a model at all"); }), "");
  std::string flipped = good;
  for (size_t i = 0; i < flipped.size(); i += 7) flipped[i] = static_cast<char>(flipped[i] ^ 0x5A);
  EXPECT_NE(error_of([&] { SentencePieceProcessor::from_bytes(flipped); }), "");
  EXPECT_TRUE(has(error_of([] { SentencePieceProcessor::from_file("/nonexistent/m.model"); }),
                  "/nonexistent/m.model"));
  EXPECT_NE(error_of([] { SentencePieceProcessor::from_file(fixture("lines.txt")); }), "");
}

// A NormalizerSpec appended to a valid model merges into it (protobuf's rule),
// so this forges a model whose normalization trie points outside itself:
// libsentencepiece would follow it out of bounds (Note [Trusted normalizer
// tries] in text/src/sp/model_check.cpp).
std::string with_charsmap(const std::string& model, const std::string& charsmap) {
  auto varint = [](size_t v) {
    std::string out;
    for (; v >= 0x80; v >>= 7) out += static_cast<char>((v & 0x7F) | 0x80);
    return out + static_cast<char>(v);
  };
  const std::string spec = "\x12" + varint(charsmap.size()) + charsmap;  // field 2: precompiled_charsmap
  return model + "\x1A" + varint(spec.size()) + spec;                      // field 3: normalizer_spec
}

std::string charsmap(uint32_t root_unit, const std::string& strings) {
  std::string trie(256 * 4, '\0');  // 256 units, all zero but the root
  std::memcpy(trie.data(), &root_unit, 4);
  const uint32_t bytes = static_cast<uint32_t>(trie.size());
  return std::string(reinterpret_cast<const char*>(&bytes), 4) + trie + strings;
}

TEST(SpProcessorErrors, ForgedNormalizationTablesRaise) {
  const std::string good = read_bytes(fixture("unigram.model"));
  // A sane table (the root has no children) loads and encodes.
  const auto sane = SentencePieceProcessor::from_bytes(with_charsmap(good, charsmap(0, std::string("x\0", 2))));
  EXPECT_FALSE(sane.encode_as_ids("Botchan").empty());
  // The root's children at 300 ^ byte: outside 256 units.
  EXPECT_TRUE(has(error_of([&] { SentencePieceProcessor::from_bytes(with_charsmap(good, charsmap(300u << 10, std::string("x\0", 2)))); }),
                  "normalization trie node 0"));
  // A leaf whose value indexes past the strings: root has_leaf, its value unit
  // (at 0 ^ 0) holds the root's own bits, value 0x100 > 2 bytes.
  EXPECT_TRUE(has(error_of([&] { SentencePieceProcessor::from_bytes(with_charsmap(good, charsmap(1u << 8, std::string("x\0", 2)))); }),
                  "normalization trie value"));
  EXPECT_TRUE(has(error_of([&] { SentencePieceProcessor::from_bytes(with_charsmap(good, charsmap(0, "no NUL"))); }),
                  "NUL"));
  std::string oversized = charsmap(0, std::string("x\0", 2));
  oversized[1] = '\x7F';  // the trie claims more bytes than the table holds
  EXPECT_TRUE(has(error_of([&] { SentencePieceProcessor::from_bytes(with_charsmap(good, oversized)); }), "corrupt"));
}

// Truncated and byte-flipped models either load (and then encode) or raise
// ember::Error: never a crash, whatever the library would do with them.
TEST(SpProcessorErrors, CorruptedModelsNeverCrash) {
  std::vector<std::string> paths = {fixture("unigram.model"), fixture("bpe.model")};
  if (const std::string shared = shared_data("tokenizers/spm_example.model"); !shared.empty()) paths.push_back(shared);
  std::mt19937 rng(5);
  for (const std::string& path : paths) {
    const std::string good = read_bytes(path);
    int loaded = 0, raised = 0;
    auto attempt = [&](const std::string& bytes) {
      try {
        const auto sp = SentencePieceProcessor::from_bytes(bytes);
        sp.encode_as_ids(std::string("The quick \0 brown fox \xC3\xA9\xEF\xBC\xA1", 28));
        ++loaded;
      } catch (const ember::Error&) {
        ++raised;
      }
    };
    for (size_t n = 0; n < good.size(); n += good.size() / 40 + 1) attempt(good.substr(0, n));
    for (int i = 0; i < 300; ++i) {
      std::string bytes = good;
      for (int k = 0; k <= i % 3; ++k) bytes[rng() % bytes.size()] = static_cast<char>(rng());
      attempt(bytes);
    }
    EXPECT_GT(loaded, 0) << path;
    EXPECT_GT(raised, 0) << path;
  }
}

TEST(SpProcessorErrors, InvalidUtf8AndBadIdsRaise) {
  const auto sp = SentencePieceProcessor::from_file(fixture("unigram.model"));
  const std::string e = error_of([&] { sp.encode_as_ids("ok \xC3\x28"); });
  EXPECT_TRUE(has(e, "SentencePieceProcessor::encode") && has(e, "byte 3")) << e;
  EXPECT_NE(error_of([&] { sp.encode_as_pieces("\xFF"); }), "");
  EXPECT_NE(error_of([&] { sp.sample_encode_as_ids("\xED\xA0\x80", -1, 0.1f); }), "");
  EXPECT_NE(error_of([&] { sp.nbest_encode_as_ids("\xC0\xAF", 2); }), "");
  EXPECT_TRUE(has(error_of([&] { sp.encode_batch_as_ids({"fine", "bad \xE2\x82"}); }), "encode_batch"));
  EXPECT_TRUE(has(error_of([&] { sp.decode_ids({5, 300}); }), "id 300"));
  EXPECT_TRUE(has(error_of([&] { sp.decode_ids({-1}); }), "id -1"));
  EXPECT_NE(error_of([&] { sp.decode_pieces({"\x80"}); }), "");
  EXPECT_TRUE(has(error_of([&] { sp.id_to_piece(300); }), "id 300"));
  EXPECT_NE(error_of([&] { sp.is_control(-5); }), "");
  EXPECT_NE(error_of([&] { ember::text::set_sentencepiece_random_seed(static_cast<unsigned>(-1)); }), "");
}

TEST(SpFunctional, TokenizerAndNumericalizerMapLines) {
  const auto sp = ember::text::load_sp_model(fixture("unigram.model"));
  const auto lines = read_lines(fixture("lines.txt"));
  const std::vector<std::string> some(lines.begin(), lines.begin() + 5);
  const auto pieces = ember::text::sentencepiece_tokenizer(sp)(some);
  const auto ids = ember::text::sentencepiece_numericalizer(sp)(some);
  const auto want_ids = read_lines(fixture("unigram.ids.txt"));
  const auto want_pieces = read_lines(fixture("unigram.pieces.txt"));
  ASSERT_EQ(ids.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(ids[i], ints(want_ids[i]));
    EXPECT_EQ(pieces[i], split(want_pieces[i], '\t'));
  }
  EXPECT_NE(error_of([] { ember::text::sentencepiece_tokenizer(nullptr); }), "");
  EXPECT_NE(error_of([] { ember::text::load_sp_model("/nonexistent.model"); }), "");
}

}  // namespace test_sp_processor_test
