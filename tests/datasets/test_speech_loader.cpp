// The speech datasets in the DataLoader with pad_collate, and a run over the
// espeak-ng corpora of ../shared/data/generated/speech (instantiated only
// when that folder is present), checked against its MANIFEST.txt (rate,
// channels and frames of every file, written by sox/ffmpeg) and LibriMix's
// metadata csv.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <ember/datasets/data_loader.h>
#include <ember/datasets/speech.h>
#include <ember/ops/factories.h>

#include "speech_test_util.h"

namespace ember::datasets {
namespace speech_loader_test {

using ember::testing::shared_speech_dir;
using ember::testing::speech_dir;
namespace fs = std::filesystem;

TEST(SpeechLoader, PadCollatePadsToTheLongestAndKeepsLengths) {
  auto ds = std::make_shared<LIBRISPEECH>(speech_dir() + "/librispeech", LibriSpeechOptions{.url = "dev-clean"});
  std::vector<LibriSpeechSample> samples;
  for (int64_t i = 0; i < ds->size(); ++i) samples.push_back(ds->get(i));
  for (int64_t workers : {0, 2}) {
    SCOPED_TRACE(workers);
    DataLoader<LibriSpeechSample, PaddedBatch<LibriSpeechSample>> loader(
        ds, {.batch_size = 3, .num_workers = workers}, PadCollate{});
    int64_t seen = 0;
    for (auto& b : loader) {
      const int64_t n = b.lengths.size(0);
      int64_t longest = 0;
      for (int64_t j = 0; j < n; ++j) longest = std::max(longest, samples[static_cast<size_t>(seen + j)].waveform.size(1));
      ASSERT_EQ(b.batch.waveform.sizes(), (std::vector<int64_t>{n, 1, longest}));
      ASSERT_EQ(b.lengths.dtype(), kInt64);
      for (int64_t j = 0; j < n; ++j) {
        const LibriSpeechSample& s = samples[static_cast<size_t>(seen + j)];
        const int64_t len = s.waveform.size(1);
        EXPECT_EQ(b.lengths.select(0, j).item<int64_t>(), len);
        const Tensor row = b.batch.waveform.select(0, j);
        EXPECT_TRUE(row.narrow(1, 0, len).equal(s.waveform));
        if (len < longest) {
          EXPECT_TRUE(row.narrow(1, len, longest - len).equal(zeros({1, longest - len})));
        }
        EXPECT_EQ(b.batch.transcript[static_cast<size_t>(j)], s.transcript);
        EXPECT_EQ(b.batch.speaker_id.select(0, j).item<int64_t>(), s.speaker_id);
        EXPECT_EQ(b.batch.utterance_id.select(0, j).item<int64_t>(), s.utterance_id);
        EXPECT_EQ(b.batch.sample_rate.select(0, j).item<int64_t>(), 16000);
      }
      seen += n;
    }
    EXPECT_EQ(seen, ds->size());
  }
}

TEST(SpeechLoader, PadCollateOfMixturesPadsMixtureAndSourcesAlike) {
  auto ds = std::make_shared<LibriMix>(speech_dir() + "/librimix", LibriMixOptions{.subset = "test"});
  DataLoader<SourceSeparationSample, PaddedBatch<SourceSeparationSample>> loader(
      ds, {.batch_size = 3, .shuffle = true}, PadCollate{});
  int64_t batches = 0;
  for (auto& b : loader) {
    ++batches;
    const int64_t longest = b.batch.mixture.size(2);
    ASSERT_EQ(b.batch.sources.size(), 2u);
    for (const Tensor& s : b.batch.sources) EXPECT_EQ(s.sizes(), b.batch.mixture.sizes());
    std::set<int64_t> lengths;
    for (int64_t j = 0; j < 3; ++j) lengths.insert(b.lengths.select(0, j).item<int64_t>());
    // The fixture's three mixtures are 480, 520 and 560 frames long.
    EXPECT_EQ(lengths, (std::set<int64_t>{480, 520, 560}));
    EXPECT_EQ(longest, 560);
  }
  EXPECT_EQ(batches, 1);
}

TEST(SpeechLoader, DefaultCollateOfUnequalLengthsNamesTheField) {
  LIBRISPEECH ds(speech_dir() + "/librispeech", {.url = "dev-clean"});
  EXPECT_EMBER_ERROR(default_collate(std::vector<LibriSpeechSample>{ds.get(0), ds.get(1)}), "sample.waveform",
                     "same shape");
  EXPECT_EMBER_ERROR(pad_collate(std::vector<LibriSpeechSample>{}), "pad_collate: the batch is empty");
  // Different channel counts cannot be stacked even after padding.
  LibriSpeechSample a = ds.get(0), b = ds.get(1);
  b.waveform = zeros({2, 10});
  EXPECT_EMBER_ERROR(pad_collate(std::vector<LibriSpeechSample>{a, b}), "sample.waveform", "same shape");
}

// ---- ../shared/data/generated/speech ----

struct ManifestEntry {
  int64_t rate = 0, channels = 0, frames = 0;
};

// "./<path>\trate=R\tch=C\tsamples=N" lines of MANIFEST.txt's speech part.
std::map<std::string, ManifestEntry> manifest(const std::string& speech) {
  std::map<std::string, ManifestEntry> out;
  std::ifstream in(speech + "/../MANIFEST.txt");
  std::string line;
  bool in_speech = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) in_speech = line == "## speech";
    if (!in_speech || line.rfind("./", 0) != 0) continue;
    std::istringstream f(line);
    std::string path, rate, ch, samples;
    std::getline(f, path, '\t');
    std::getline(f, rate, '\t');
    std::getline(f, ch, '\t');
    std::getline(f, samples, '\t');
    out[speech + "/" + path.substr(2)] = {std::stoll(rate.substr(5)), std::stoll(ch.substr(3)),
                                          std::stoll(samples.substr(8))};
  }
  return out;
}

class SharedSpeech : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    root_ = shared_speech_dir();
    manifest_ = manifest(root_);
  }
  // The file's decoded shape and rate against the manifest; MP3 lengths are
  // the encoder's business (padding), so only rate and channels for them.
  void expect_listed(const std::string& path, const Tensor& w, int64_t rate) {
    SCOPED_TRACE(path);
    auto it = manifest_.find(path);
    ASSERT_NE(it, manifest_.end()) << "not in MANIFEST.txt";
    EXPECT_EQ(rate, it->second.rate);
    EXPECT_EQ(w.size(0), it->second.channels);
    if (path.size() < 4 || path.substr(path.size() - 4) != ".mp3") {
      EXPECT_EQ(w.size(1), it->second.frames);
    }
  }
  std::string root_;
  std::map<std::string, ManifestEntry> manifest_;
};

size_t count_files(const std::string& dir, const std::string& suffix, bool recursive) {
  size_t n = 0;
  auto count = [&](const fs::path& p) {
    const std::string s = p.string();
    if (s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0) ++n;
  };
  if (recursive) {
    for (const auto& e : fs::recursive_directory_iterator(dir)) count(e.path());
  } else {
    for (const auto& e : fs::directory_iterator(dir)) count(e.path());
  }
  return n;
}

TEST_P(SharedSpeech, EverySampleLoadsAsTheManifestSays) {
  const std::string which = GetParam();
  if (which.rfind("LibriSpeech/", 0) == 0) {
    const std::string url = which.substr(12);
    LIBRISPEECH ds(root_, {.url = url});
    ASSERT_EQ(static_cast<size_t>(ds.size()), count_files(root_ + "/LibriSpeech/" + url, ".flac", true));
    for (int64_t i = 0; i < ds.size(); ++i) {
      LibriSpeechSample s = ds.get(i);
      const LibriSpeechMetadata m = ds.metadata(i);
      expect_listed(root_ + "/LibriSpeech/" + m.path, s.waveform, s.sample_rate);
      EXPECT_FALSE(s.transcript.empty());
      EXPECT_EQ(m.path, url + "/" + std::to_string(s.speaker_id) + "/" + std::to_string(s.chapter_id) + "/" +
                            ds.file_ids()[static_cast<size_t>(i)] + ".flac");
    }
  } else if (which == "LibriTTS") {
    LIBRITTS ds(root_, {.url = "dev-clean"});
    ASSERT_EQ(static_cast<size_t>(ds.size()), count_files(root_ + "/LibriTTS/dev-clean", ".wav", true));
    for (int64_t i = 0; i < ds.size(); ++i) {
      LibriTTSSample s = ds.get(i);
      expect_listed(root_ + "/LibriTTS/dev-clean/" + std::to_string(s.speaker_id) + "/" +
                        std::to_string(s.chapter_id) + "/" + s.utterance_id + ".wav",
                    s.waveform, s.sample_rate);
      EXPECT_FALSE(s.original_text.empty());
      EXPECT_FALSE(s.normalized_text.empty());
    }
  } else if (which == "CommonVoice") {
    COMMONVOICE ds(root_ + "/CommonVoice/en", {.tsv = "dev.tsv"});
    ASSERT_GT(ds.size(), 0);
    for (int64_t i = 0; i < ds.size(); ++i) {
      CommonVoiceSample s = ds.get(i);
      expect_listed(ds.clip_path(i), s.waveform, s.sample_rate);
      EXPECT_FALSE(s.metadata.at("sentence").empty());
    }
  } else if (which == "Libri2Mix") {
    for (const char* task : {"sep_clean", "sep_noisy", "enh_single", "enh_both"}) {
      SCOPED_TRACE(task);
      LibriMix ds(root_, {.subset = "test", .num_speakers = 2, .sample_rate = 8000, .task = task});
      // The generator's metadata csv lists each mixture and its length.
      const std::string csv = root_ + "/Libri2Mix/wav8k/min/metadata/mixture_test_" +
                              (std::string(task) == "enh_single" ? "mix_single" :
                               std::string(task) == "sep_clean"  ? "mix_clean" : "mix_both") + ".csv";
      std::map<std::string, int64_t> lengths;
      if (fs::exists(csv)) {
        std::ifstream in(csv);
        std::string line;
        std::getline(in, line);
        while (std::getline(in, line)) {
          const size_t comma = line.find(',');
          lengths[line.substr(0, comma) + ".wav"] = std::stoll(line.substr(line.rfind(',') + 1));
        }
      }
      ASSERT_EQ(static_cast<size_t>(ds.size()),
                count_files(root_ + "/" + "Libri2Mix/" + ds.metadata(0).mixture_path.substr(0, ds.metadata(0).mixture_path.rfind('/')), ".wav", false));
      for (int64_t i = 0; i < ds.size(); ++i) {
        SourceSeparationSample s = ds.get(i);
        expect_listed(root_ + "/Libri2Mix/" + ds.metadata(i).mixture_path, s.mixture, s.sample_rate);
        const std::string& name = ds.files()[static_cast<size_t>(i)];
        if (lengths.count(name)) {
          EXPECT_EQ(s.mixture.size(1), lengths[name]) << name;
        }
        EXPECT_EQ(s.sources.size(), std::string(task) == "enh_both" ? 1u : 2u);
      }
    }
  } else if (which == "wsj0-mix") {
    const std::string tt = root_ + "/wsj0-mix/2speakers/wav8k/min/tt";
    WSJ0Mix ds(tt, {.num_speakers = 2, .sample_rate = 8000});
    ASSERT_EQ(static_cast<size_t>(ds.size()), count_files(tt + "/mix", ".wav", false));
    for (int64_t i = 0; i < ds.size(); ++i) {
      SourceSeparationSample s = ds.get(i);
      expect_listed(tt + "/mix/" + ds.files()[static_cast<size_t>(i)], s.mixture, s.sample_rate);
      ASSERT_EQ(s.sources.size(), 2u);
    }
  } else {
    FAIL() << "unknown corpus " << which;
  }
}

std::vector<std::string> shared_corpora() {
  std::vector<std::string> out;
  const std::string root = shared_speech_dir();
  if (root.empty()) return out;
  if (fs::is_directory(root + "/LibriSpeech"))
    for (const auto& e : fs::directory_iterator(root + "/LibriSpeech"))
      if (e.is_directory()) out.push_back("LibriSpeech/" + e.path().filename().string());
  std::sort(out.begin(), out.end());
  const std::pair<const char*, const char*> others[] = {{"LibriTTS", "/LibriTTS/dev-clean"},
                                                       {"CommonVoice", "/CommonVoice/en/dev.tsv"},
                                                       {"Libri2Mix", "/Libri2Mix/wav8k/min/test"},
                                                       {"wsj0-mix", "/wsj0-mix/2speakers/wav8k/min/tt"}};
  for (const auto& [name, path] : others)
    if (fs::exists(root + path)) out.push_back(name);
  return out;
}

std::string corpus_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SharedSpeech);
INSTANTIATE_TEST_SUITE_P(Corpora, SharedSpeech, ::testing::ValuesIn(shared_corpora()), corpus_name);

}  // namespace speech_loader_test
}  // namespace ember::datasets
