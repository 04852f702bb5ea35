#pragma once
// ember-separate's data: the training, validation and test splits of a
// Libri2Mix layout (train-100 or train-360 / dev / test, through
// datasets::LibriMix) or of the wsj0-mix recipe layout (tr / cv / tt, through
// datasets::WSJ0Mix), and the training batches of torchaudio's ConvTasNet
// recipe: each mixture cropped to a fixed-length segment at a random offset
// (zero-padded, with a mask, when it is shorter).
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/datasets/dataset.h>
#include <ember/datasets/speech/librimix.h>

#include "separate_config.h"

namespace ember::apps::separate_app {

using MixtureDataset = datasets::DatasetPtr<datasets::SourceSeparationSample>;

struct SeparationSplits {
  MixtureDataset train, dev, test;
  std::vector<std::string> test_ids;  // the test mixtures' file names without ".wav"
  std::string description;            // e.g. "Libri2Mix sep_clean (mix_clean) in ROOT: train-100/dev/test"
};

// Opens the three splits under `root` as the configuration's layout, task,
// speakers and sample rate say; a missing split is an ember::Error naming the
// folder the layout expects.
SeparationSplits open_splits(const SeparateConfig& config, const std::string& root);

// One training example: mixture [1, frames], sources [num_sources, frames],
// mask [1, frames] (1 for samples of the recording, 0 for padding).
struct Segment {
  Tensor mixture, sources, mask;
};

// `frames` samples of a mixture and its sources from an offset drawn
// uniformly from default_generator() (the DataLoader seeds it per sample, so
// the crops do not depend on the number of workers); a shorter mixture is
// padded with zeros at the end instead. Multi-channel files are refused.
Segment random_segment(const datasets::SourceSeparationSample& sample, int64_t frames);

// A batch: mixture [B, 1, frames], sources [B, num_sources, frames], mask [B, 1, frames].
struct SegmentBatch {
  Tensor mixture, sources, mask;
};
SegmentBatch collate_segments(std::vector<Segment> segments);

// A whole held-out example: mixture [1, 1, frames], sources [1, num_sources, frames].
SegmentBatch whole_mixture(const datasets::SourceSeparationSample& sample);

}  // namespace ember::apps::separate_app
