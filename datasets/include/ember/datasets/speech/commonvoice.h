#pragma once
// Common Voice (torchaudio.datasets.COMMONVOICE) in its official layout:
//
//   root/<tsv>            (train.tsv, dev.tsv, test.tsv, validated.tsv, ...)
//   root/clips/<path>     (MP3; ".mp3" is appended when the path lacks it)
//
// The tsv is read as Python's csv.reader with a tab delimiter (quoting as
// csv's default: a field that starts with '"' is quoted). The first row is
// the header; its second column must be "path". The clips decode through
// ember::audio::load (MP3 by the selected backend).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/datasets/collate.h>
#include <ember/datasets/dataset.h>

namespace ember::datasets {

struct CommonVoiceBatch {
  Tensor waveform;
  Tensor sample_rate;
  std::map<std::string, std::vector<std::string>> metadata;
};

// torchaudio's (waveform, sample_rate, dictionary): the row's columns by
// header name (client_id, path, sentence, up_votes, down_votes, age, gender,
// accent(s), locale, segment in the official files).
struct CommonVoiceSample {
  Tensor waveform;
  int64_t sample_rate = 0;
  std::map<std::string, std::string> metadata;

  template <class F>
  void for_each_waveform(F&& f) {
    f(waveform);
  }
  static constexpr auto collate_fields() {
    using S = CommonVoiceSample;
    using B = CommonVoiceBatch;
    return std::tuple{collate_field("waveform", &S::waveform, &B::waveform),
                      collate_field("sample_rate", &S::sample_rate, &B::sample_rate),
                      collate_field("metadata", &S::metadata, &B::metadata)};
  }
};

struct CommonVoiceOptions {
  std::string tsv = "train.tsv";
};

class COMMONVOICE : public Dataset<CommonVoiceSample> {
 public:
  // Reads the whole tsv. A row whose number of fields differs from the
  // header's, or a quoted field left open, raises naming the file and line.
  explicit COMMONVOICE(const std::string& root, CommonVoiceOptions options = {});

  CommonVoiceSample get(int64_t index) override;
  int64_t size() const override { return static_cast<int64_t>(rows_.size()); }
  // The row's columns by name, without decoding the clip.
  std::map<std::string, std::string> metadata(int64_t index) const;
  const std::vector<std::string>& header() const { return header_; }
  // root/clips/<path>[.mp3]
  std::string clip_path(int64_t index) const;

 private:
  std::string root_, tsv_path_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int64_t> lines_;
};

}  // namespace ember::datasets
