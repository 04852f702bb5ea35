#pragma once
// A LibriSpeech subset read for ember-asr: every utterance's features
// (computed once; the epochs reuse them), its class ids and its transcript.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/tensor.h>

#include "asr_features.h"
#include "char_vocabulary.h"

namespace ember::apps::asr_app {

struct Utterance {
  std::string id;          // <speaker>-<chapter>-<utterance>
  std::string transcript;  // normalised (upper case, single spaces)
  std::vector<int64_t> targets;
  Tensor features;         // float32 [num_features, frames]
  int64_t frames = 0;
};

struct SpeechSplit {
  std::string subset;
  std::vector<Utterance> utterances;
  double seconds = 0;      // audio duration
  int64_t speakers = 0;
};

// root/LibriSpeech/<subset>; limit > 0 keeps the first `limit` utterances (in
// file-id order). A missing or malformed layout is the dataset's error (it
// names the expected layout); an audio rate other than the features' is an
// error naming the file.
SpeechSplit read_librispeech(const std::string& root, const std::string& subset, const FeatureExtractor& features,
                             const CharVocabulary& vocabulary, int64_t limit = 0);

// Batches of `batch_size` utterance indices for epoch `epoch`: a shuffle
// seeded by (seed, epoch) alone (so a resumed run repeats it), utterances of
// similar length grouped within windows of 8 batches (less padding), and the
// batches in shuffled order.
std::vector<std::vector<int64_t>> epoch_batches(const SpeechSplit& split, int64_t batch_size, uint64_t seed,
                                                int64_t epoch);

// Batches in length order, for evaluation.
std::vector<std::vector<int64_t>> sorted_batches(const SpeechSplit& split, int64_t batch_size);

struct FeatureBatch {
  Tensor features;       // float32 [B, num_features, longest], zero-padded (the normalised mean)
  Tensor output_frames;  // int64 [B]: each utterance's valid model output frames
  Tensor targets;        // int64 [B, longest target], zero-padded
  Tensor target_lengths; // int64 [B]
};
FeatureBatch make_batch(const SpeechSplit& split, const std::vector<int64_t>& indices);

}  // namespace ember::apps::asr_app
