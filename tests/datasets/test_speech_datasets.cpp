// The speech datasets against torchaudio 0.13's dataset classes on the
// committed tiny corpora: every field of every sample, and get_metadata.
#include <ember/datasets/speech.h>

#include "speech_test_util.h"

namespace ember::datasets {
namespace speech_datasets_test {

using ember::testing::as_list;
using ember::testing::at;
using ember::testing::expect_waveform;
using ember::testing::speech_dir;
using ember::testing::speech_expected;

const std::vector<IValue>& expected(const char* dataset, const char* key) {
  return as_list(at(at(speech_expected(), dataset), key));
}

TEST(SpeechDatasets, LibriSpeechMatchesTorchaudio) {
  LIBRISPEECH ds(speech_dir() + "/librispeech", {.url = "dev-clean"});
  const auto& want = expected("librispeech", "dev-clean");
  const auto& meta = expected("librispeech", "dev-clean-metadata");
  ASSERT_EQ(ds.size(), static_cast<int64_t>(want.size()));
  for (int64_t i = 0; i < ds.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& w = as_list(want[static_cast<size_t>(i)]);
    LibriSpeechSample s = ds.get(i);
    expect_waveform(s.waveform, w[0]);
    EXPECT_EQ(s.sample_rate, w[1].to_int());
    EXPECT_EQ(s.transcript, w[2].to_string());
    EXPECT_EQ(s.speaker_id, w[3].to_int());
    EXPECT_EQ(s.chapter_id, w[4].to_int());
    EXPECT_EQ(s.utterance_id, w[5].to_int());
    const auto& m = as_list(meta[static_cast<size_t>(i)]);
    LibriSpeechMetadata md = ds.metadata(i);
    EXPECT_EQ(md.path, m[0].to_string());
    EXPECT_EQ(md.sample_rate, m[1].to_int());
    EXPECT_EQ(md.transcript, m[2].to_string());
    EXPECT_EQ(md.speaker_id, m[3].to_int());
    EXPECT_EQ(md.chapter_id, m[4].to_int());
    EXPECT_EQ(md.utterance_id, m[5].to_int());
  }
}

TEST(SpeechDatasets, LibriTTSMatchesTorchaudio) {
  LIBRITTS ds(speech_dir() + "/libritts", {.url = "dev-clean"});
  const auto& want = expected("libritts", "dev-clean");
  ASSERT_EQ(ds.size(), static_cast<int64_t>(want.size()));
  for (int64_t i = 0; i < ds.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& w = as_list(want[static_cast<size_t>(i)]);
    LibriTTSSample s = ds.get(i);
    expect_waveform(s.waveform, w[0]);
    EXPECT_EQ(s.sample_rate, w[1].to_int());
    EXPECT_EQ(s.original_text, w[2].to_string());
    EXPECT_EQ(s.normalized_text, w[3].to_string());
    EXPECT_EQ(s.speaker_id, w[4].to_int());
    EXPECT_EQ(s.chapter_id, w[5].to_int());
    EXPECT_EQ(s.utterance_id, w[6].to_string());
  }
  // A URL names the folder by its file name, as torchaudio.
  EXPECT_EQ(LIBRITTS(speech_dir() + "/libritts", {.url = "http://x/60/dev-clean.tar.gz"}).size(), ds.size());
}

TEST(SpeechDatasets, CommonVoiceMatchesTorchaudio) {
  COMMONVOICE ds(speech_dir() + "/commonvoice", {.tsv = "dev.tsv"});
  const auto& want = expected("commonvoice", "dev");
  ASSERT_EQ(ds.size(), static_cast<int64_t>(want.size()));
  for (int64_t i = 0; i < ds.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& w = as_list(want[static_cast<size_t>(i)]);
    CommonVoiceSample s = ds.get(i);
    expect_waveform(s.waveform, w[0]);
    EXPECT_EQ(s.sample_rate, w[1].to_int());
    ASSERT_EQ(s.metadata.size(), w[2].to_dict().size());
    for (const auto& [key, value] : s.metadata) EXPECT_EQ(value, at(w[2], key).to_string()) << key;
    EXPECT_EQ(ds.metadata(i), s.metadata);
  }
  EXPECT_EQ(ds.header().size(), 10u);
}

TEST(SpeechDatasets, YesNoMatchesTorchaudio) {
  YESNO ds(speech_dir() + "/yesno");
  const auto& want = expected("yesno", "all");
  ASSERT_EQ(ds.size(), static_cast<int64_t>(want.size()));
  for (int64_t i = 0; i < ds.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& w = as_list(want[static_cast<size_t>(i)]);
    YesNoSample s = ds.get(i);
    expect_waveform(s.waveform, w[0]);
    EXPECT_EQ(s.sample_rate, w[1].to_int());
    std::vector<int64_t> labels;
    for (const IValue& l : as_list(w[2])) labels.push_back(l.to_int());
    EXPECT_EQ(s.labels, labels);
  }
}

TEST(SpeechDatasets, SpeechCommandsMatchesTorchaudioInEverySubset) {
  for (const char* subset : {"", "training", "validation", "testing"}) {
    SCOPED_TRACE(subset);
    SPEECHCOMMANDS ds(speech_dir() + "/speechcommands", {.subset = subset});
    const std::string key = *subset ? subset : "all";
    const auto& want = expected("speechcommands", key.c_str());
    const auto& meta = expected("speechcommands", (key + "-metadata").c_str());
    ASSERT_EQ(ds.size(), static_cast<int64_t>(want.size()));
    for (int64_t i = 0; i < ds.size(); ++i) {
      SCOPED_TRACE(i);
      const auto& w = as_list(want[static_cast<size_t>(i)]);
      SpeechCommandsSample s = ds.get(i);
      expect_waveform(s.waveform, w[0]);
      EXPECT_EQ(s.sample_rate, w[1].to_int());
      EXPECT_EQ(s.label, w[2].to_string());
      EXPECT_EQ(s.speaker_id, w[3].to_string());
      EXPECT_EQ(s.utterance_number, w[4].to_int());
      const auto& m = as_list(meta[static_cast<size_t>(i)]);
      SpeechCommandsMetadata md = ds.metadata(i);
      EXPECT_EQ(md.path, m[0].to_string());
      EXPECT_EQ(md.sample_rate, m[1].to_int());
      EXPECT_EQ(md.label, m[2].to_string());
      EXPECT_EQ(md.speaker_id, m[3].to_string());
      EXPECT_EQ(md.utterance_number, m[4].to_int());
    }
  }
}

TEST(SpeechDatasets, LJSpeechMatchesTorchaudio) {
  LJSPEECH ds(speech_dir() + "/ljspeech");
  const auto& want = expected("ljspeech", "all");
  ASSERT_EQ(ds.size(), static_cast<int64_t>(want.size()));
  for (int64_t i = 0; i < ds.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& w = as_list(want[static_cast<size_t>(i)]);
    LJSpeechSample s = ds.get(i);
    expect_waveform(s.waveform, w[0]);
    EXPECT_EQ(s.sample_rate, w[1].to_int());
    EXPECT_EQ(s.transcript, w[2].to_string());
    EXPECT_EQ(s.normalized_transcript, w[3].to_string());
  }
}

TEST(SpeechDatasets, VCTKMatchesTorchaudioForBothMicrophones) {
  for (const char* mic : {"mic1", "mic2"}) {
    SCOPED_TRACE(mic);
    VCTK_092 ds(speech_dir() + "/vctk", {.mic_id = mic});
    const auto& want = expected("vctk", mic);
    ASSERT_EQ(ds.size(), static_cast<int64_t>(want.size()));
    for (int64_t i = 0; i < ds.size(); ++i) {
      SCOPED_TRACE(i);
      const auto& w = as_list(want[static_cast<size_t>(i)]);
      VCTKSample s = ds.get(i);
      expect_waveform(s.waveform, w[0]);
      EXPECT_EQ(s.sample_rate, w[1].to_int());
      EXPECT_EQ(s.transcript, w[2].to_string());
      EXPECT_EQ(s.speaker_id, w[3].to_string());
      EXPECT_EQ(s.utterance_id, w[4].to_string());
    }
  }
}

void expect_mixture(const SourceSeparationSample& s, const std::vector<IValue>& w) {
  EXPECT_EQ(s.sample_rate, w[0].to_int());
  expect_waveform(s.mixture, w[1]);
  const auto& sources = as_list(w[2]);
  ASSERT_EQ(s.sources.size(), sources.size());
  for (size_t k = 0; k < sources.size(); ++k) expect_waveform(s.sources[k], sources[k]);
}

TEST(SpeechDatasets, LibriMixMatchesTorchaudioForEveryTask) {
  for (const char* task : {"sep_clean", "sep_noisy", "enh_single", "enh_both"}) {
    SCOPED_TRACE(task);
    LibriMix ds(speech_dir() + "/librimix",
                {.subset = "test", .num_speakers = 2, .sample_rate = 8000, .task = task, .mode = "min"});
    const auto& want = expected("librimix", task);
    const auto& meta = expected("librimix", (std::string(task) + "-metadata").c_str());
    ASSERT_EQ(ds.size(), static_cast<int64_t>(want.size()));
    for (int64_t i = 0; i < ds.size(); ++i) {
      SCOPED_TRACE(i);
      expect_mixture(ds.get(i), as_list(want[static_cast<size_t>(i)]));
      const auto& m = as_list(meta[static_cast<size_t>(i)]);
      LibriMixMetadata md = ds.metadata(i);
      EXPECT_EQ(md.sample_rate, m[0].to_int());
      EXPECT_EQ(md.mixture_path, m[1].to_string());
      const auto& srcs = as_list(m[2]);
      ASSERT_EQ(md.source_paths.size(), srcs.size());
      for (size_t k = 0; k < srcs.size(); ++k) EXPECT_EQ(md.source_paths[k], srcs[k].to_string());
    }
  }
  LibriMix three(speech_dir() + "/librimix",
                 {.subset = "dev", .num_speakers = 3, .sample_rate = 16000, .task = "sep_clean", .mode = "max"});
  const auto& want = expected("librimix", "3mix");
  ASSERT_EQ(three.size(), static_cast<int64_t>(want.size()));
  for (int64_t i = 0; i < three.size(); ++i) expect_mixture(three.get(i), as_list(want[static_cast<size_t>(i)]));
}

TEST(SpeechDatasets, WSJ0MixMatchesTheConvTasNetRecipe) {
  WSJ0Mix ds(speech_dir() + "/wsj0mix/2speakers/wav8k/min/tt", {.num_speakers = 2, .sample_rate = 8000});
  const auto& want = expected("wsj0mix", "tt");
  ASSERT_EQ(ds.size(), static_cast<int64_t>(want.size()));
  for (int64_t i = 0; i < ds.size(); ++i) {
    SCOPED_TRACE(i);
    expect_mixture(ds.get(i), as_list(want[static_cast<size_t>(i)]));
  }
}

}  // namespace speech_datasets_test
}  // namespace ember::datasets
