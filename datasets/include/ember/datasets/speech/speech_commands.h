#pragma once
// Speech Commands (torchaudio.datasets.SPEECHCOMMANDS) in its official layout:
//
//   root/SpeechCommands/speech_commands_v0.02/<label>/<speaker>_nohash_<n>.wav
//                                             validation_list.txt, testing_list.txt
//                                             _background_noise_/   (never a sample)
//
// url: "speech_commands_v0.01", "speech_commands_v0.02" or a URL whose file
// name without ".tar.gz" names the folder. subset: "" (every file with
// "_nohash_" outside _background_noise_), "validation" / "testing" (the files
// listed in validation_list.txt / testing_list.txt, in list order) or
// "training" (the rest). Clips must be 16 kHz.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/datasets/collate.h>
#include <ember/datasets/dataset.h>

namespace ember::datasets {

struct SpeechCommandsBatch {
  Tensor waveform;
  Tensor sample_rate;
  std::vector<std::string> label, speaker_id;
  Tensor utterance_number;
};

// torchaudio's (waveform, sample_rate, label, speaker_id, utterance_number).
struct SpeechCommandsSample {
  Tensor waveform;
  int64_t sample_rate = 0;
  std::string label;
  std::string speaker_id;
  int64_t utterance_number = 0;

  template <class F>
  void for_each_waveform(F&& f) {
    f(waveform);
  }
  static constexpr auto collate_fields() {
    using S = SpeechCommandsSample;
    using B = SpeechCommandsBatch;
    return std::tuple{collate_field("waveform", &S::waveform, &B::waveform),
                      collate_field("sample_rate", &S::sample_rate, &B::sample_rate),
                      collate_field("label", &S::label, &B::label),
                      collate_field("speaker_id", &S::speaker_id, &B::speaker_id),
                      collate_field("utterance_number", &S::utterance_number, &B::utterance_number)};
  }
};

// torchaudio's get_metadata: the path relative to root/SpeechCommands
// ("speech_commands_v0.02/<label>/<file>.wav") in place of the waveform.
struct SpeechCommandsMetadata {
  std::string path;
  int64_t sample_rate = 0;
  std::string label;
  std::string speaker_id;
  int64_t utterance_number = 0;
};

struct SpeechCommandsOptions {
  std::string url = "speech_commands_v0.02";
  std::string folder_in_archive = "SpeechCommands";
  std::string subset = "";  // "", "training", "validation" or "testing"
};

class SPEECHCOMMANDS : public Dataset<SpeechCommandsSample> {
 public:
  static constexpr int64_t kSampleRate = 16000;
  explicit SPEECHCOMMANDS(const std::string& root, SpeechCommandsOptions options = {});

  SpeechCommandsSample get(int64_t index) override;
  int64_t size() const override { return static_cast<int64_t>(walker_.size()); }
  SpeechCommandsMetadata metadata(int64_t index) const;

 private:
  std::string archive_;  // root/SpeechCommands
  std::string path_;     // archive_/<version>
  // Paths relative to path_ ("<label>/<file>.wav") and, for listed subsets,
  // where each was listed.
  std::vector<std::string> walker_;
  std::vector<std::string> listed_in_;
};

}  // namespace ember::datasets
