// ember::audio::metrics' edit distance, WER and CER: against
// torchaudio.functional.edit_distance (scripts/fixtures/audio_speech_metrics.py)
// and hand-checked alignments.
#include <gtest/gtest.h>

#include <ember/audio/audio.h>
#include <ember/ember.h>

#include "npy.h"

namespace speech_error_rate_test {

using namespace ember;
namespace M = ember::audio::metrics;

Tensor fixture(const std::string& name) {
  return ember::testing::load_npy(ember::testing::fixture_path("audio/speech_metrics/" + name + ".npy"));
}

std::vector<int64_t> row_tokens(const Tensor& rows, int64_t i) {
  std::vector<int64_t> out;
  for (int64_t j = 0; j < rows.size(1); ++j) {
    const int64_t v = rows[i][j].item<int64_t>();
    if (v >= 0) out.push_back(v);
  }
  return out;
}

TEST(SpeechErrorRate, EditDistanceMatchesTorchaudio) {
  const Tensor refs = fixture("edit_refs");
  const Tensor hyps = fixture("edit_hyps");
  const Tensor dist = fixture("edit_distance");
  for (int64_t i = 0; i < refs.size(0); ++i) {
    const auto r = row_tokens(refs, i);
    const auto h = row_tokens(hyps, i);
    const M::EditCounts counts = M::edit_distance(r, h);
    EXPECT_EQ(counts.errors(), dist[i].item<int64_t>()) << "pair " << i;
    EXPECT_EQ(counts.reference_length(), static_cast<int64_t>(r.size()));
    EXPECT_EQ(counts.hypothesis_length(), static_cast<int64_t>(h.size()));
    // The distance is symmetric; swapping swaps deletions and insertions.
    const M::EditCounts swapped = M::edit_distance(h, r);
    EXPECT_EQ(swapped.errors(), counts.errors());
    EXPECT_EQ(swapped.substitutions, counts.substitutions);
    EXPECT_EQ(swapped.deletions, counts.insertions);
  }
}

TEST(SpeechErrorRate, CharacterDistanceMatchesTorchaudio) {
  const Tensor refs = fixture("char_refs");
  const Tensor hyps = fixture("char_hyps");
  const Tensor lengths = fixture("char_byte_lengths");
  const Tensor dist = fixture("char_distance");
  for (int64_t i = 0; i < refs.size(0); ++i) {
    std::string r, h;
    for (int64_t j = 0; j < lengths[i][0].item<int64_t>(); ++j) r += static_cast<char>(refs[i][j].item<uint8_t>());
    for (int64_t j = 0; j < lengths[i][1].item<int64_t>(); ++j) h += static_cast<char>(hyps[i][j].item<uint8_t>());
    EXPECT_EQ(M::edit_distance(std::string_view(r), std::string_view(h)).errors(), dist[i].item<int64_t>())
        << "\"" << r << "\" vs \"" << h << "\"";
  }
}

TEST(SpeechErrorRate, AlignmentCountsHandChecked) {
  using V = std::vector<int64_t>;
  // kitten -> sitting: k/s substitution, e/i substitution, g inserted.
  const M::EditCounts kitten = M::edit_distance(std::string_view("kitten"), std::string_view("sitting"));
  EXPECT_EQ(kitten, (M::EditCounts{.hits = 4, .substitutions = 2, .deletions = 0, .insertions = 1}));
  // "a b" -> "b c": one deletion, a hit, one insertion beats two substitutions (most hits).
  EXPECT_EQ(M::edit_distance(V{1, 2}, V{2, 3}), (M::EditCounts{.hits = 1, .substitutions = 0, .deletions = 1, .insertions = 1}));
  // "a b c" -> "a c": one deletion.
  EXPECT_EQ(M::edit_distance(V{1, 2, 3}, V{1, 3}), (M::EditCounts{.hits = 2, .substitutions = 0, .deletions = 1, .insertions = 0}));
  // Empty sides.
  EXPECT_EQ(M::edit_distance(V{}, V{4, 4}), (M::EditCounts{.hits = 0, .substitutions = 0, .deletions = 0, .insertions = 2}));
  EXPECT_EQ(M::edit_distance(V{4, 4, 4}, V{}), (M::EditCounts{.hits = 0, .substitutions = 0, .deletions = 3, .insertions = 0}));
  EXPECT_EQ(M::edit_distance(V{}, V{}).errors(), 0);
  const std::vector<std::string> ref_words{"the", "cat", "sat"};
  const std::vector<std::string> hyp_words{"the", "bat", "sat", "down"};
  EXPECT_EQ(M::edit_distance(ref_words, hyp_words),
            (M::EditCounts{.hits = 2, .substitutions = 1, .deletions = 0, .insertions = 1}));
}

TEST(SpeechErrorRate, WordErrorRateOverACorpus) {
  const std::vector<std::string> refs{"the cat sat on the mat", "hello world", "one two three four"};
  const std::vector<std::string> hyps{"the cat sat on mat", "hello  big world ", "one too three four five"};
  // Pair 1: 1 deletion (6 words); pair 2: 1 insertion (2 words); pair 3: 1 substitution, 1 insertion (4 words).
  const M::ErrorRate wer = M::word_error_rate(refs, hyps);
  EXPECT_EQ(wer.counts, (M::EditCounts{.hits = 10, .substitutions = 1, .deletions = 1, .insertions = 2}));
  EXPECT_DOUBLE_EQ(wer.rate, 4.0 / 12.0);  // total errors over total reference words, not a mean of rates
  EXPECT_DOUBLE_EQ(M::word_error_rate("a b c d", "a x c").rate, 2.0 / 4.0);
  // WER can exceed 1 (insertions).
  EXPECT_DOUBLE_EQ(M::word_error_rate("yes", "no no no").rate, 3.0);
  // An empty reference transcript inside a corpus counts its hypothesis words as insertions.
  const std::vector<std::string> refs2{"", "a b"};
  const std::vector<std::string> hyps2{"x", "a b"};
  EXPECT_DOUBLE_EQ(M::word_error_rate(refs2, hyps2).rate, 0.5);
  EXPECT_EQ(M::split_words("  a\tb \n c  "), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(SpeechErrorRate, CharErrorRateOverACorpus) {
  const std::vector<std::string> refs{"abc", "héllo"};
  const std::vector<std::string> hyps{"abd", "hello!"};
  // abc/abd: 1 substitution of 3; héllo/hello!: é->e and ! inserted, of 5 code points.
  const M::ErrorRate cer = M::char_error_rate(refs, hyps);
  EXPECT_EQ(cer.counts, (M::EditCounts{.hits = 6, .substitutions = 2, .deletions = 0, .insertions = 1}));
  EXPECT_DOUBLE_EQ(cer.rate, 3.0 / 8.0);
  // Spaces are characters.
  EXPECT_DOUBLE_EQ(M::char_error_rate("a b", "ab").rate, 1.0 / 3.0);
}

TEST(SpeechErrorRate, BadInputIsAnError) {
  const std::vector<std::string> two{"a", "b"};
  const std::vector<std::string> one{"a"};
  EXPECT_THROW(M::word_error_rate(two, one), Error);  // corpus sizes differ
  EXPECT_THROW(M::char_error_rate(one, two), Error);
  const std::vector<std::string> blank_refs{"", "  "};
  EXPECT_THROW(M::word_error_rate(blank_refs, two), Error);  // no reference words
  EXPECT_THROW(M::char_error_rate("", "abc"), Error);
  EXPECT_THROW(M::char_error_rate("ab\xff", "ab"), Error);       // invalid UTF-8
  EXPECT_THROW(M::char_error_rate("ab\xc3", "ab"), Error);       // truncated
  EXPECT_THROW(M::char_error_rate("\xc0\xaf", "ab"), Error);     // overlong
  EXPECT_THROW(M::char_error_rate("\xed\xa0\x80", "ab"), Error);  // surrogate
  try {
    M::word_error_rate(two, one);
    FAIL() << "expected an ember::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("2 references but 1 hypotheses"), std::string::npos) << e.what();
  }
}

}  // namespace speech_error_rate_test
