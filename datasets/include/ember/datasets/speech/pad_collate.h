#pragma once
// Batching speech samples of different lengths: pad_collate pads every
// waveform of a batch with zeros at the end to the batch's longest, then
// collates as default_collate, and returns the lengths before padding (as
// torchaudio's recipes batch LibriSpeech with pad_sequence and keep lengths).
//
//   DataLoader<LibriSpeechSample, PaddedBatch<LibriSpeechSample>> loader(
//       std::make_shared<LIBRISPEECH>(root), {.batch_size = 8}, PadCollate{});
//   for (auto& b : loader) {
//     b.batch.waveform;    // float32 [8, 1, longest]
//     b.lengths;           // int64 [8]: each sample's frames
//     b.batch.transcript;  // std::vector<std::string>
//   }
//
// A sample type takes part by describing its fields for default_collate (a
// static collate_fields()) and giving for_each_waveform(f), which calls f on
// each of its waveform tensors ([channels, frames]); samples of a mixture
// (LibriMix, WSJ0Mix) have several, all of one shape, and their length is the
// mixture's.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <ember/core/error.h>
#include <ember/core/tensor.h>
#include <ember/datasets/collate.h>
#include <ember/ops/factories.h>

namespace ember::datasets {

template <class Sample>
struct PaddedBatch {
  collate_t<Sample> batch;  // default_collate of the padded samples
  Tensor lengths;           // int64 [B]: frames of each sample before padding
};

namespace speech_detail {
// Zeros [..., frames] of w's dtype with w at the start of the last dim.
Tensor pad_frames(const Tensor& w, int64_t frames);
}  // namespace speech_detail

struct PadCollate {
  template <class Sample>
  PaddedBatch<Sample> operator()(std::vector<Sample> samples) const {
    EMBER_CHECK(!samples.empty(), "pad_collate: the batch is empty");
    std::vector<int64_t> lengths(samples.size(), 0);
    int64_t longest = 0;
    for (size_t i = 0; i < samples.size(); ++i) {
      bool first = true;
      samples[i].for_each_waveform([&](Tensor& w) {
        EMBER_CHECK(w.dim() >= 1, "pad_collate: batch element ", i, " has a 0-d waveform");
        if (first) lengths[i] = w.size(-1);
        first = false;
        longest = std::max(longest, w.size(-1));
      });
    }
    for (auto& s : samples)
      s.for_each_waveform([&](Tensor& w) {
        if (w.size(-1) != longest) w = speech_detail::pad_frames(w, longest);
      });
    return {default_collate(std::move(samples)), tensor(lengths, kInt64)};
  }
};

template <class Sample>
PaddedBatch<Sample> pad_collate(std::vector<Sample> samples) {
  return PadCollate{}(std::move(samples));
}

}  // namespace ember::datasets
