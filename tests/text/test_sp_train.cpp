// ember::text::train_sentencepiece against python3-sentencepiece 0.1.97: the
// same options on the same sentences give a byte-identical model
// (scripts/fixtures/text_sp.py trains unigram.model and bpe.model); file
// input, generate_sp_model, and the library's and Ember's errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <ember/core/error.h>
#include <ember/text/sentencepiece.h>

#include "sp_test_util.h"
#include "temp_dir.h"

namespace test_sp_train_test {

using ember::text::SentencePieceProcessor;
using ember::text::SentencePieceTrainOptions;
using namespace sp_test_util;

// scripts/fixtures/text_sp.py's UNIGRAM and BPE.
SentencePieceTrainOptions unigram_options() {
  SentencePieceTrainOptions o;
  o.vocab_size = 300;
  o.character_coverage = 1.0;
  o.user_defined_symbols = {"<sep>", "a,b"};
  o.normalization_rule_name = "identity";
  return o;
}

SentencePieceTrainOptions bpe_options() {
  SentencePieceTrainOptions o;
  o.vocab_size = 300;
  o.model_type = "bpe";
  o.num_threads = 2;
  o.normalization_rule_name = "identity";
  return o;
}

using ember::testing::TempDir;  // temp_dir.h

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(SpTrain, UnigramFromSentencesIsByteIdenticalToPython) {
  const auto corpus = read_lines(fixture("corpus.txt"));
  const std::string model = ember::text::train_sentencepiece_from_sentences(corpus, unigram_options());
  EXPECT_EQ(model, read_bytes(fixture("unigram.model")));
  const auto sp = SentencePieceProcessor::from_bytes(model);
  EXPECT_EQ(sp.get_piece_size(), 300);
  EXPECT_EQ(sp.id_to_piece(3), "<sep>");  // user-defined symbols follow unk, bos, eos
  EXPECT_EQ(sp.id_to_piece(4), "a,b");    // a comma survives the CSV list flag
}

TEST(SpTrain, BpeFromAnIteratorIsByteIdenticalToPython) {
  const auto corpus = read_lines(fixture("corpus.txt"));
  size_t i = 0;
  const std::string model = ember::text::train_sentencepiece_from_iterator(
      [&](std::string& s) {
        if (i == corpus.size()) return false;
        s = corpus[i++];
        return true;
      },
      bpe_options());
  EXPECT_EQ(model, read_bytes(fixture("bpe.model")));
}

// The EM sums run in another order with another thread count: the scores move
// in their last bits (so pieces of near-equal score may swap ids), the set of
// pieces does not (on this corpus).
TEST(SpTrain, ThreadCountMovesOnlyTheScoresLastBits) {
  const auto corpus = read_lines(fixture("corpus.txt"));
  auto one = unigram_options();
  one.num_threads = 1;
  auto four = unigram_options();
  four.num_threads = 4;
  const auto a = SentencePieceProcessor::from_bytes(ember::text::train_sentencepiece_from_sentences(corpus, one));
  const auto b = SentencePieceProcessor::from_bytes(ember::text::train_sentencepiece_from_sentences(corpus, four));
  ASSERT_EQ(a.get_piece_size(), b.get_piece_size());
  // Pieces of (nearly) equal score may swap ids: compare piece by piece.
  for (int id = 0; id < a.get_piece_size(); ++id) {
    const int other = b.piece_to_id(a.id_to_piece(id));
    ASSERT_EQ(b.id_to_piece(other), a.id_to_piece(id)) << "piece " << a.id_to_piece(id) << " only with 1 thread";
    EXPECT_NEAR(a.get_score(id), b.get_score(other), 1e-5 * std::abs(a.get_score(id)) + 1e-6) << id;
  }
}

TEST(SpTrain, FromFilesWritesModelAndVocab) {
  TempDir dir;
  auto options = unigram_options();
  options.model_prefix = (dir.path() / "m").string();
  const std::string model = ember::text::train_sentencepiece({fixture("corpus.txt")}, options);
  EXPECT_EQ(read_bytes(options.model_prefix + ".model"), model);
  const auto vocab = read_lines(options.model_prefix + ".vocab");
  ASSERT_EQ(vocab.size(), 300u);
  EXPECT_EQ(vocab[0], "<unk>\t0");
  // The same sentences as the Python-trained model: the same segmentation
  // (the model differs only in its recorded input and prefix).
  const auto sp = SentencePieceProcessor::from_bytes(model);
  const auto python = SentencePieceProcessor::from_file(fixture("unigram.model"));
  for (const std::string& line : read_lines(fixture("lines.txt")))
    EXPECT_EQ(sp.encode_as_ids(line), python.encode_as_ids(line));
  for (int id = 0; id < sp.get_piece_size(); ++id) EXPECT_EQ(split(vocab[id], '\t')[0], sp.id_to_piece(id));
}

TEST(SpTrain, GenerateSpModelUsesTorchtextsDefaultsAndReportsTheLibrarysError) {
  TempDir dir;
  const std::string prefix = (dir.path() / "m_user").string();
  // torchtext's default vocab_size (20000) is too large for a 600-line corpus:
  // the library's message comes through.
  const std::string e = error_of([&] { ember::text::generate_sp_model(fixture("corpus.txt"), 20000, "unigram", prefix); });
  EXPECT_TRUE(has(e, "train_sentencepiece") && has(e, "Vocabulary size")) << e;
  ember::text::generate_sp_model(fixture("corpus.txt"), 250, "bpe", prefix);
  const auto sp = ember::text::load_sp_model(prefix + ".model");
  EXPECT_EQ(sp->get_piece_size(), 250);
  EXPECT_TRUE(std::filesystem::exists(prefix + ".vocab"));
}

// input_sentence_size samples 200 of the 600 sentences with the library's own
// fixed seed: the same model as Python's, run after run.
TEST(SpTrain, SampledInputIsDeterministicAndLikePython) {
  const auto corpus = read_lines(fixture("corpus.txt"));
  auto options = unigram_options();
  options.input_sentence_size = 200;
  const std::string a = ember::text::train_sentencepiece_from_sentences(corpus, options);
  EXPECT_EQ(a, read_bytes(fixture("sampled.model")));
  EXPECT_EQ(ember::text::train_sentencepiece_from_sentences(corpus, options), a);
  EXPECT_NE(a, read_bytes(fixture("unigram.model")));  // the sample mattered
}

TEST(SpTrain, BadOptionsAndInputRaise) {
  const std::vector<std::string> corpus = read_lines(fixture("corpus.txt"));
  auto with = [&](auto edit) {
    auto o = unigram_options();
    edit(o);
    return error_of([&] { ember::text::train_sentencepiece_from_sentences(corpus, o); });
  };
  EXPECT_TRUE(has(with([](auto& o) { o.vocab_size = 0; }), "vocab_size"));
  EXPECT_TRUE(has(with([](auto& o) { o.model_type = "wordpiece"; }), "wordpiece"));
  EXPECT_TRUE(has(with([](auto& o) { o.character_coverage = 1.5; }), "character_coverage"));
  EXPECT_TRUE(has(with([](auto& o) { o.num_threads = 0; }), "num_threads"));
  EXPECT_TRUE(has(with([](auto& o) { o.extra["vocab_size"] = "10"; }), "repeats"));
  EXPECT_TRUE(has(with([](auto& o) { o.extra["no_such_flag"] = "1"; }), "no_such_flag"));
  EXPECT_TRUE(has(with([](auto& o) { o.extra["max_sentencepiece_length"] = "many"; }), "train_sentencepiece"));
  const std::string utf8 = error_of([] {
    ember::text::train_sentencepiece_from_sentences({"fine", "not \xC3\x28 fine"}, unigram_options());
  });
  EXPECT_TRUE(has(utf8, "sentence 1") && has(utf8, "UTF-8")) << utf8;
  const std::string thrown = error_of([] {
    ember::text::train_sentencepiece_from_iterator(
        [](std::string&) -> bool { throw std::runtime_error("reader broke"); }, unigram_options());
  });
  EXPECT_TRUE(has(thrown, "reader broke")) << thrown;
  EXPECT_TRUE(has(error_of([] { ember::text::train_sentencepiece({"/nonexistent.txt"}, unigram_options()); }),
                  "/nonexistent.txt"));
  EXPECT_TRUE(has(error_of([] { ember::text::train_sentencepiece({}, unigram_options()); }), "no input"));
  EXPECT_NE(error_of([] { ember::text::train_sentencepiece_from_sentences({}, unigram_options()); }), "");
}

}  // namespace test_sp_train_test
