#pragma once
// wsj0-2mix / wsj0-3mix as torchaudio's ConvTasNet recipe reads them
// (examples/source_separation/utils/dataset/wsj0mix.py):
//
//   root/mix/<id>.wav
//   root/s1/<id>.wav ... root/s<N>/<id>.wav
//
// where root is one split of the generated corpus, e.g.
// wsj0-mix/2speakers/wav8k/min/tt. The samples are the mixture files sorted by
// name; each file must have the requested sample rate and the sources the
// mixture's shape. Samples are SourceSeparationSample (librimix.h).
#include <cstdint>
#include <string>
#include <vector>

#include <ember/datasets/dataset.h>
#include <ember/datasets/speech/librimix.h>

namespace ember::datasets {

struct WSJ0MixOptions {
  int64_t num_speakers = 2;
  int64_t sample_rate = 8000;
  std::string audio_ext = ".wav";
};

class WSJ0Mix : public Dataset<SourceSeparationSample> {
 public:
  // No mixture file in root/mix raises, as the recipe.
  explicit WSJ0Mix(const std::string& root, WSJ0MixOptions options = {});

  SourceSeparationSample get(int64_t index) override;
  int64_t size() const override { return static_cast<int64_t>(files_.size()); }
  const std::vector<std::string>& files() const { return files_; }

 private:
  std::string root_;
  WSJ0MixOptions options_;
  std::vector<std::string> files_;
};

}  // namespace ember::datasets
