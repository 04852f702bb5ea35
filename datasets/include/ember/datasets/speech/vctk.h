#pragma once
// VCTK 0.92 (torchaudio.datasets.VCTK_092) in its official layout:
//
//   root/VCTK-Corpus-0.92/txt/<speaker>/<speaker>_<utterance>.txt
//   root/VCTK-Corpus-0.92/wav48_silence_trimmed/<speaker>/<speaker>_<utterance>_<mic>.flac
//
// The samples follow the text files (speakers sorted, then files sorted), with
// the corpus's two known gaps handled as torchaudio does: speaker p280 has no
// mic2 recordings (skipped for mic2), and p362's utterances whose audio file
// is missing are skipped. Any other missing audio raises from get().
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/datasets/collate.h>
#include <ember/datasets/dataset.h>

namespace ember::datasets {

struct VCTKBatch {
  Tensor waveform;
  Tensor sample_rate;
  std::vector<std::string> transcript, speaker_id, utterance_id;
};

// torchaudio's (waveform, sample_rate, transcript, speaker_id, utterance_id).
// The transcript is the text file's first line with its "\n".
struct VCTKSample {
  Tensor waveform;
  int64_t sample_rate = 0;
  std::string transcript;
  std::string speaker_id;    // "p225"
  std::string utterance_id;  // "001"

  template <class F>
  void for_each_waveform(F&& f) {
    f(waveform);
  }
  static constexpr auto collate_fields() {
    using S = VCTKSample;
    using B = VCTKBatch;
    return std::tuple{collate_field("waveform", &S::waveform, &B::waveform),
                      collate_field("sample_rate", &S::sample_rate, &B::sample_rate),
                      collate_field("transcript", &S::transcript, &B::transcript),
                      collate_field("speaker_id", &S::speaker_id, &B::speaker_id),
                      collate_field("utterance_id", &S::utterance_id, &B::utterance_id)};
  }
};

struct VCTKOptions {
  std::string mic_id = "mic2";  // "mic1" or "mic2"
  std::string audio_ext = ".flac";
};

class VCTK_092 : public Dataset<VCTKSample> {
 public:
  explicit VCTK_092(const std::string& root, VCTKOptions options = {});

  VCTKSample get(int64_t index) override;
  int64_t size() const override { return static_cast<int64_t>(sample_ids_.size()); }
  // (speaker_id, utterance_id) of each sample.
  const std::vector<std::pair<std::string, std::string>>& sample_ids() const { return sample_ids_; }

 private:
  VCTKOptions options_;
  std::string txt_dir_, audio_dir_;
  std::vector<std::pair<std::string, std::string>> sample_ids_;
};

}  // namespace ember::datasets
