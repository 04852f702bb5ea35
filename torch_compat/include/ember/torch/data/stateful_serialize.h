#pragma once
// <ember/torch.h>, part 5c: torch::save(dataset, path) / torch::load(dataset,
// path) of a stateful dataset (a ChunkDataset checkpoints its chunk sampler,
// Note [ChunkDataset checkpoints] in chunk.h), as libtorch's generic
// torch::save does with `archive << dataset`. Beside samplers_serialize.h so
// that the data headers do not pull in the archive.
#include <string>

#include "ember/torch/archive.h"
#include "ember/torch/data/stateful.h"

namespace torch {
template <class Self, class Batch, class BatchRequest>
void save(const data::datasets::StatefulDataset<Self, Batch, BatchRequest>& dataset, const std::string& path) {
  serialize::OutputArchive archive;
  dataset.save(archive);
  archive.save_to(path);
}
template <class Self, class Batch, class BatchRequest>
void load(data::datasets::StatefulDataset<Self, Batch, BatchRequest>& dataset, const std::string& path) {
  serialize::InputArchive archive;
  archive.load_from(path);
  dataset.load(archive);
}
}  // namespace torch
