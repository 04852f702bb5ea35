#pragma once
// LibriMix (torchaudio.datasets.LibriMix) in the layout its generation
// scripts write:
//
//   root/Libri<N>Mix/wav<8k|16k>/<min|max>/<subset>/mix_clean/<id>.wav
//                                                   mix_both/, mix_single/
//                                                   s1/ ... s<N>/<id>.wav
//
// The samples are the .wav files of the task's mixture folder sorted by name;
// the sources are the files of the same name in s1..s<N> (or, for enh_both,
// mix_clean). Tasks: sep_clean (mixture mix_clean), sep_noisy and enh_both
// (mix_both), enh_single (mix_single). Every file must have the requested
// sample rate and the sources the mixture's shape.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/datasets/collate.h>
#include <ember/datasets/dataset.h>

namespace ember::datasets {

// Batches of mixtures: mixture [B, channels, frames], sources[i] likewise.
struct SourceSeparationBatch {
  Tensor sample_rate;
  Tensor mixture;
  std::vector<Tensor> sources;
};

// torchaudio's (sample_rate, mixture, sources) of LibriMix and of the wsj0-mix
// recipe dataset.
struct SourceSeparationSample {
  int64_t sample_rate = 0;
  Tensor mixture;               // float32 [channels, frames]
  std::vector<Tensor> sources;  // each the mixture's shape

  template <class F>
  void for_each_waveform(F&& f) {
    f(mixture);
    for (Tensor& s : sources) f(s);
  }
  static constexpr auto collate_fields() {
    using S = SourceSeparationSample;
    using B = SourceSeparationBatch;
    return std::tuple{collate_field("sample_rate", &S::sample_rate, &B::sample_rate),
                      collate_field("mixture", &S::mixture, &B::mixture),
                      collate_field("sources", &S::sources, &B::sources)};
  }
};

// torchaudio's get_metadata: paths relative to root/Libri<N>Mix.
struct LibriMixMetadata {
  int64_t sample_rate = 0;
  std::string mixture_path;
  std::vector<std::string> source_paths;
};

struct LibriMixOptions {
  std::string subset = "train-360";
  int64_t num_speakers = 2;
  int64_t sample_rate = 8000;  // 8000 or 16000
  std::string task = "sep_clean";
  std::string mode = "min";  // "min" or "max"
};

class LibriMix : public Dataset<SourceSeparationSample> {
 public:
  explicit LibriMix(const std::string& root, LibriMixOptions options = {});

  SourceSeparationSample get(int64_t index) override;
  int64_t size() const override { return static_cast<int64_t>(files_.size()); }
  LibriMixMetadata metadata(int64_t index) const;
  const std::vector<std::string>& files() const { return files_; }

 private:
  std::string root_;     // root/Libri<N>Mix
  std::string mix_dir_;  // relative to root_
  std::vector<std::string> src_dirs_;
  int64_t sample_rate_;
  std::vector<std::string> files_;
};

}  // namespace ember::datasets
