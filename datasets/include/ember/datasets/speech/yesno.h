#pragma once
// YesNo (torchaudio.datasets.YESNO) in its official layout:
//
//   root/waves_yesno/<l0>_<l1>_..._<l7>.wav   (each l is 0 for "no", 1 for "yes")
//
// The samples are the .wav files of the folder sorted by name.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/datasets/collate.h>
#include <ember/datasets/dataset.h>

namespace ember::datasets {

struct YesNoBatch {
  Tensor waveform;
  Tensor sample_rate;
  std::vector<Tensor> labels;  // torch's list rule: labels[j] is int64 [B]
};

// torchaudio's (waveform, sample_rate, labels).
struct YesNoSample {
  Tensor waveform;
  int64_t sample_rate = 0;
  std::vector<int64_t> labels;

  template <class F>
  void for_each_waveform(F&& f) {
    f(waveform);
  }
  static constexpr auto collate_fields() {
    using S = YesNoSample;
    using B = YesNoBatch;
    return std::tuple{collate_field("waveform", &S::waveform, &B::waveform),
                      collate_field("sample_rate", &S::sample_rate, &B::sample_rate),
                      collate_field("labels", &S::labels, &B::labels)};
  }
};

struct YesNoOptions {
  std::string folder_in_archive = "waves_yesno";
};

class YESNO : public Dataset<YesNoSample> {
 public:
  explicit YESNO(const std::string& root, YesNoOptions options = {});

  YesNoSample get(int64_t index) override;
  int64_t size() const override { return static_cast<int64_t>(walker_.size()); }
  const std::vector<std::string>& file_ids() const { return walker_; }

 private:
  std::string path_;
  std::vector<std::string> walker_;
};

}  // namespace ember::datasets
