#pragma once
// LJ Speech (torchaudio.datasets.LJSPEECH) in its official layout:
//
//   root/LJSpeech-1.1/metadata.csv      (<id>|<transcript>|<normalized transcript>)
//   root/LJSpeech-1.1/wavs/<id>.wav
//
// metadata.csv is read as Python's csv.reader with delimiter '|' and
// csv.QUOTE_NONE: quotes are ordinary characters of the transcripts.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/datasets/collate.h>
#include <ember/datasets/dataset.h>

namespace ember::datasets {

struct LJSpeechBatch {
  Tensor waveform;
  Tensor sample_rate;
  std::vector<std::string> transcript, normalized_transcript;
};

// torchaudio's (waveform, sample_rate, transcript, normalized_transcript).
struct LJSpeechSample {
  Tensor waveform;
  int64_t sample_rate = 0;
  std::string transcript;
  std::string normalized_transcript;

  template <class F>
  void for_each_waveform(F&& f) {
    f(waveform);
  }
  static constexpr auto collate_fields() {
    using S = LJSpeechSample;
    using B = LJSpeechBatch;
    return std::tuple{collate_field("waveform", &S::waveform, &B::waveform),
                      collate_field("sample_rate", &S::sample_rate, &B::sample_rate),
                      collate_field("transcript", &S::transcript, &B::transcript),
                      collate_field("normalized_transcript", &S::normalized_transcript,
                                    &B::normalized_transcript)};
  }
};

struct LJSpeechRow {
  std::string file_id, transcript, normalized_transcript;
};

struct LJSpeechOptions {
  // Its file name without ".tar.bz2" names the corpus folder, as torchaudio.
  std::string url = "https://data.keithito.com/data/speech/LJSpeech-1.1.tar.bz2";
  std::string folder_in_archive = "wavs";
};

class LJSPEECH : public Dataset<LJSpeechSample> {
 public:
  // Reads metadata.csv; a line without exactly three '|'-separated fields
  // raises naming the file and the line.
  explicit LJSPEECH(const std::string& root, LJSpeechOptions options = {});

  LJSpeechSample get(int64_t index) override;
  int64_t size() const override { return static_cast<int64_t>(rows_.size()); }
  // The metadata row of sample `index`, without decoding.
  const LJSpeechRow& row(int64_t index) const;

 private:
  std::string wavs_, metadata_path_;
  std::vector<LJSpeechRow> rows_;
  std::vector<int64_t> lines_;
};

}  // namespace ember::datasets
