#pragma once
// LibriSpeech (torchaudio.datasets.LIBRISPEECH) in its official layout:
//
//   root/LibriSpeech/<url>/<speaker>/<chapter>/<speaker>-<chapter>-<utterance>.flac
//                                              <speaker>-<chapter>.trans.txt
//
// url is one of dev-clean, dev-other, test-clean, test-other, train-clean-100,
// train-clean-360, train-other-500. The samples are the .flac files found by
// that glob, sorted by name; each transcript file holds one
// "<speaker>-<chapter>-<utterance> TRANSCRIPT" line per utterance.
//
//   LIBRISPEECH ls("data", {.url = "dev-clean"});
//   LibriSpeechSample s = ls.get(0);  // waveform float32 [1, frames], 16000, "HELLO", 84, 121123, 0
//   LibriSpeechMetadata m = ls.metadata(0);  // the same without decoding (m.path instead)
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/datasets/collate.h>
#include <ember/datasets/dataset.h>

namespace ember::datasets {

struct LibriSpeechBatch {
  Tensor waveform;
  Tensor sample_rate;
  std::vector<std::string> transcript;
  Tensor speaker_id, chapter_id, utterance_id;
};

// torchaudio's (waveform, sample_rate, transcript, speaker_id, chapter_id,
// utterance_id).
struct LibriSpeechSample {
  Tensor waveform;  // float32 [channels, frames]
  int64_t sample_rate = 0;
  std::string transcript;
  int64_t speaker_id = 0;
  int64_t chapter_id = 0;
  int64_t utterance_id = 0;

  template <class F>
  void for_each_waveform(F&& f) {
    f(waveform);
  }
  static constexpr auto collate_fields() {
    using S = LibriSpeechSample;
    using B = LibriSpeechBatch;
    return std::tuple{collate_field("waveform", &S::waveform, &B::waveform),
                      collate_field("sample_rate", &S::sample_rate, &B::sample_rate),
                      collate_field("transcript", &S::transcript, &B::transcript),
                      collate_field("speaker_id", &S::speaker_id, &B::speaker_id),
                      collate_field("chapter_id", &S::chapter_id, &B::chapter_id),
                      collate_field("utterance_id", &S::utterance_id, &B::utterance_id)};
  }
};

// torchaudio's get_metadata: the audio path relative to root/LibriSpeech
// ("<url>/<speaker>/<chapter>/<id>.flac") in place of the waveform, and the
// corpus's sample rate (16000).
struct LibriSpeechMetadata {
  std::string path;
  int64_t sample_rate = 0;
  std::string transcript;
  int64_t speaker_id = 0;
  int64_t chapter_id = 0;
  int64_t utterance_id = 0;
};

struct LibriSpeechOptions {
  std::string url = "train-clean-100";
  std::string folder_in_archive = "LibriSpeech";
};

class LIBRISPEECH : public Dataset<LibriSpeechSample> {
 public:
  static constexpr int64_t kSampleRate = 16000;
  explicit LIBRISPEECH(const std::string& root, LibriSpeechOptions options = {});

  // Loads the audio; a rate other than 16000 raises, as torchaudio.
  LibriSpeechSample get(int64_t index) override;
  int64_t size() const override { return static_cast<int64_t>(walker_.size()); }
  // Reads the transcript only. A missing transcript line, or a malformed line
  // before it, raises naming the transcript file and the line.
  LibriSpeechMetadata metadata(int64_t index) const;
  // The utterance ids ("<speaker>-<chapter>-<utterance>"), sorted.
  const std::vector<std::string>& file_ids() const { return walker_; }

 private:
  std::string archive_;  // root/folder_in_archive
  std::string url_;
  std::vector<std::string> walker_;
};

}  // namespace ember::datasets
