#pragma once
// ember-vocoder's data: the utterances of a LibriTTS-layout subset, resampled
// to the run's rate with their conditioning features, and torchaudio
// pipeline_wavernn's training batches: random segments of seq_len_factor hops
// with the matching spectrogram frames (kernel_size / 2 frames of context on
// each side), previous samples as input and mu-law classes as targets.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/generator.h>
#include <ember/core/tensor.h>

#include "vocoder_features.h"

namespace ember::apps::vocoder {

struct Utterance {
  std::string id;    // LibriTTS utterance id, e.g. "1001_10_000000_000000"
  int64_t speaker = 0;
  Tensor waveform;   // [L] float32 in [-1, 1] at the run's sample rate
  Tensor mel;        // [n_mels, 1 + L / hop] conditioning features
};

// root/LibriTTS/<subset>, sorted by file name; each file's channels are
// averaged and the result resampled. limit > 0 keeps the first `limit`.
std::vector<Utterance> load_subset(const std::string& root, const std::string& subset, Features& features,
                                   int64_t limit = 0);

// One training (or validation) batch, torchaudio's collate: specgram
// [B, 1, n_mels, seq_len_factor + 2 pad], waveform [B, 1, S] (the samples
// before each target, mu-law coded as the network's input) and target [B, S]
// (mu-law classes), S = seq_len_factor * hop, pad = (kernel_size - 1) / 2.
struct SegmentBatch {
  Tensor specgram, waveform, target;
};

struct SegmentSpec {
  int64_t seq_len_factor = 5;
  int64_t kernel_size = 5;
  int64_t hop_length = 100;
  int64_t bits = 8;
};

// The shortest utterance (in frames) a segment can be cut from.
int64_t min_frames(const SegmentSpec& spec);

// Cuts one random segment from each utterance (offsets from `generator`, or
// the default generator when null).
SegmentBatch make_batch(const std::vector<const Utterance*>& utterances, const SegmentSpec& spec,
                        Generator* generator = nullptr);

}  // namespace ember::apps::vocoder
