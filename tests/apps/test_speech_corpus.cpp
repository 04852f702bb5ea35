// The speech apps' default corpus: where default_speech_corpus() looks, and
// (when the build rendered it with scripts/make_speech.sh) that the corpus
// reads through the datasets it is made for, with held-out speakers and
// mixtures that are exact sums of their sources.
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include <ember/core/error.h>
#include <ember/datasets/speech/librimix.h>
#include <ember/datasets/speech/librispeech.h>
#include <ember/datasets/speech/libritts.h>
#include <ember/datasets/speech/wsj0mix.h>
#include <ember/ops/elementwise.h>
#include <ember/ops/reduce.h>

#include "apps_test_util.h"
#include "common/speech_corpus.h"

namespace test_speech_corpus_test {

using ember::apps::default_speech_corpus;

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_.empty()) ::unsetenv(name_);
    else ::setenv(name_, old_.c_str(), 1);
  }

 private:
  const char* name_;
  std::string old_;
};

TEST(SpeechCorpus, TheEnvironmentVariableNamesTheCorpus) {
  const std::string dir = ember::apps::testing::fresh_dir("speech_corpus_env");
  ScopedEnv env("EMBER_SPEECH_CORPUS", dir);
  EXPECT_EQ(default_speech_corpus(), dir);
}

TEST(SpeechCorpus, AMissingCorpusSaysHowToMakeOne) {
  const std::string missing = ember::apps::testing::fresh_dir("speech_corpus_missing") + "/nothing";
  ScopedEnv env("EMBER_SPEECH_CORPUS", missing);
  try {
    default_speech_corpus();
    FAIL() << "expected an error";
  } catch (const ember::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(missing), std::string::npos) << what;
    EXPECT_NE(what.find("scripts/make_speech.sh"), std::string::npos) << what;
    EXPECT_NE(what.find("--data"), std::string::npos) << what;
  }
}

#ifdef EMBER_HAVE_SPEECH_CORPUS

std::set<int64_t> speakers_of(ember::datasets::LIBRISPEECH& ds) {
  std::set<int64_t> speakers;
  for (int64_t i = 0; i < ds.size(); ++i) speakers.insert(ds.metadata(i).speaker_id);
  return speakers;
}

TEST(SpeechCorpus, LibriSpeechSplitsHaveDisjointSpeakers) {
  const std::string root = default_speech_corpus();
  ember::datasets::LIBRISPEECH train(root, {.url = "train-clean-100"});
  ember::datasets::LIBRISPEECH dev(root, {.url = "dev-clean"});
  ember::datasets::LIBRISPEECH test(root, {.url = "test-clean"});
  EXPECT_EQ(train.size(), 500);
  EXPECT_EQ(dev.size(), 60);
  EXPECT_EQ(test.size(), 60);
  EXPECT_EQ(speakers_of(train), (std::set<int64_t>{1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010}));
  EXPECT_EQ(speakers_of(dev), (std::set<int64_t>{2001, 2002, 2003}));
  EXPECT_EQ(speakers_of(test), (std::set<int64_t>{3001, 3002, 3003}));

  const auto sample = test.get(0);
  EXPECT_EQ(sample.sample_rate, 16000);
  EXPECT_EQ(sample.waveform.size(0), 1);
  EXPECT_GT(sample.waveform.size(1), 8000);  // at least half a second of speech
  // Transcripts are 3 to 7 upper-case digit words.
  const std::set<std::string> digits{"ZERO", "ONE", "TWO", "THREE", "FOUR",
                                     "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"};
  for (int64_t i = 0; i < test.size(); ++i) {
    std::istringstream words(test.metadata(i).transcript);
    int n = 0;
    for (std::string w; words >> w; ++n) EXPECT_TRUE(digits.count(w)) << w;
    EXPECT_GE(n, 3);
    EXPECT_LE(n, 7);
  }
}

TEST(SpeechCorpus, LibriTTSHoldsTheSameUtterancesAt24kHz) {
  ember::datasets::LIBRITTS tts(default_speech_corpus(), {.url = "test-clean"});
  ASSERT_EQ(tts.size(), 60);
  const auto sample = tts.get(0);
  EXPECT_EQ(sample.sample_rate, 24000);
  EXPECT_EQ(sample.speaker_id, 3001);
  // The original text has numerals, the normalized text the words.
  EXPECT_NE(sample.original_text.find_first_of("0123456789"), std::string::npos) << sample.original_text;
  EXPECT_EQ(sample.normalized_text.find_first_of("0123456789"), std::string::npos) << sample.normalized_text;
}

TEST(SpeechCorpus, MixturesAreTheSumsOfTheirSources) {
  const std::string root = default_speech_corpus();
  for (const auto& [subset, count] : {std::pair{"train-100", 300}, {"dev", 40}, {"test", 40}}) {
    ember::datasets::LibriMix clean(root, {.subset = subset, .sample_rate = 8000, .task = "sep_clean"});
    ASSERT_EQ(clean.size(), count) << subset;
  }
  ember::datasets::LibriMix clean(root, {.subset = "test", .sample_rate = 8000, .task = "sep_clean"});
  ember::datasets::LibriMix noisy(root, {.subset = "test", .sample_rate = 8000, .task = "sep_noisy"});
  for (int64_t i : {int64_t{0}, int64_t{17}, int64_t{39}}) {
    const auto s = clean.get(i);
    ASSERT_EQ(s.sources.size(), 2u);
    // 16-bit sums without dither: exact in float32.
    EXPECT_EQ(ember::max(ember::abs(s.mixture - s.sources[0] - s.sources[1])).item<float>(), 0.f);
    // The noisy mixture adds low-level noise to the same sum.
    const auto n = noisy.get(i);
    const float noise_peak = ember::max(ember::abs(n.mixture - s.mixture)).item<float>();
    EXPECT_GT(noise_peak, 0.f);
    EXPECT_LT(noise_peak, 0.05f);
  }
  ember::datasets::WSJ0Mix wsj(root + "/wsj0-mix/2speakers/wav8k/min/tt", {.num_speakers = 2, .sample_rate = 8000});
  EXPECT_EQ(wsj.size(), 40);
}

#endif  // EMBER_HAVE_SPEECH_CORPUS

}  // namespace test_speech_corpus_test
