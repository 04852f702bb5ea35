#pragma once
// LibriTTS (torchaudio.datasets.LIBRITTS) in its official layout:
//
//   root/LibriTTS/<url>/<speaker>/<chapter>/<speaker>_<chapter>_<segment>_<utterance>.wav
//                                           ... .original.txt    (the book's text)
//                                           ... .normalized.txt  (numbers etc. spelled out)
//
// url is a subset name (dev-clean, ..., train-other-500) or a download URL,
// whose file name up to its first "." names the folder, as torchaudio. The
// samples are the .wav files of that glob, sorted by name.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/datasets/collate.h>
#include <ember/datasets/dataset.h>

namespace ember::datasets {

struct LibriTTSBatch {
  Tensor waveform;
  Tensor sample_rate;
  std::vector<std::string> original_text, normalized_text;
  Tensor speaker_id, chapter_id;
  std::vector<std::string> utterance_id;
};

// torchaudio's (waveform, sample_rate, original_text, normalized_text,
// speaker_id, chapter_id, utterance_id). The texts are the first line of each
// file as Python's readline() gives it: with its "\n" when the file has one.
struct LibriTTSSample {
  Tensor waveform;
  int64_t sample_rate = 0;
  std::string original_text;
  std::string normalized_text;
  int64_t speaker_id = 0;
  int64_t chapter_id = 0;
  std::string utterance_id;  // the whole file id, "84_121123_000007_000001"

  template <class F>
  void for_each_waveform(F&& f) {
    f(waveform);
  }
  static constexpr auto collate_fields() {
    using S = LibriTTSSample;
    using B = LibriTTSBatch;
    return std::tuple{collate_field("waveform", &S::waveform, &B::waveform),
                      collate_field("sample_rate", &S::sample_rate, &B::sample_rate),
                      collate_field("original_text", &S::original_text, &B::original_text),
                      collate_field("normalized_text", &S::normalized_text, &B::normalized_text),
                      collate_field("speaker_id", &S::speaker_id, &B::speaker_id),
                      collate_field("chapter_id", &S::chapter_id, &B::chapter_id),
                      collate_field("utterance_id", &S::utterance_id, &B::utterance_id)};
  }
};

struct LibriTTSOptions {
  std::string url = "train-clean-100";
  std::string folder_in_archive = "LibriTTS";
};

class LIBRITTS : public Dataset<LibriTTSSample> {
 public:
  explicit LIBRITTS(const std::string& root, LibriTTSOptions options = {});

  LibriTTSSample get(int64_t index) override;
  int64_t size() const override { return static_cast<int64_t>(walker_.size()); }
  const std::vector<std::string>& file_ids() const { return walker_; }

 private:
  std::string path_;  // root/LibriTTS/<subset>
  std::vector<std::string> walker_;
};

}  // namespace ember::datasets
