#pragma once
// torch::data::datasets::StatefulDataset and SharedBatchDataset, as libtorch's.
// A stateful dataset is asked for a batch by its size only (get_batch(batch_size))
// and says when the epoch is over by returning nullopt; reset() starts the
// next epoch. make_data_loader(dataset, options) of such a dataset gives a
// StatefulDataLoader (loader.h), which uses no sampler.
// make_shared_dataset<D>(args...) wraps a dataset that cannot be copied (a
// ChunkDataset, with its threads) in a SharedBatchDataset, which the loader
// and the program share.
#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/torch/data/datasets.h"

namespace torch::serialize {
class OutputArchive;
class InputArchive;
}  // namespace torch::serialize

namespace torch::data::datasets {

template <class Self, class Batch = std::vector<Example<>>, class BatchRequest = size_t>
class StatefulDataset : public BatchDataset<Self, std::optional<Batch>, BatchRequest> {
 public:
  static constexpr bool is_stateful = true;
  // Starts a new epoch.
  virtual void reset() = 0;
  // Checkpointing (ChunkDataset saves its chunk sampler). Pure in libtorch;
  // here a dataset of one's own needs them only when saved.
  virtual void save(serialize::OutputArchive& /*archive*/) const { not_serializable("save"); }
  virtual void load(serialize::InputArchive& /*archive*/) { not_serializable("load"); }

 private:
  [[noreturn]] static void not_serializable(const char* what) {
    EMBER_FAIL("StatefulDataset::", what, ": this dataset does not override ", what, " (ChunkDataset does)");
  }
};

// libtorch's `archive << dataset` / `archive >> dataset` (torch/data/datasets/stateful.h).
template <class Self, class Batch, class BatchRequest>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive,
                                     const StatefulDataset<Self, Batch, BatchRequest>& dataset) {
  dataset.save(archive);
  return archive;
}
template <class Self, class Batch, class BatchRequest>
serialize::InputArchive& operator>>(serialize::InputArchive& archive, StatefulDataset<Self, Batch, BatchRequest>& dataset) {
  dataset.load(archive);
  return archive;
}

template <class UnderlyingDataset>
class SharedBatchDataset
    : public BatchDataset<SharedBatchDataset<UnderlyingDataset>, typename UnderlyingDataset::BatchType,
                          typename UnderlyingDataset::BatchRequestType> {
 public:
  using BatchType = typename UnderlyingDataset::BatchType;
  using BatchRequestType = typename UnderlyingDataset::BatchRequestType;
  static constexpr bool is_stateful = UnderlyingDataset::is_stateful;

  explicit SharedBatchDataset(std::shared_ptr<UnderlyingDataset> dataset) : dataset_(std::move(dataset)) {}
  BatchType get_batch(BatchRequestType request) override { return dataset_->get_batch(std::move(request)); }
  std::optional<size_t> size() const override { return dataset_->size(); }
  void reset() {
    if constexpr (is_stateful) dataset_->reset();
  }
  UnderlyingDataset& operator*() { return *dataset_; }
  const UnderlyingDataset& operator*() const { return *dataset_; }
  UnderlyingDataset* operator->() { return dataset_.get(); }
  const UnderlyingDataset* operator->() const { return dataset_.get(); }

 private:
  std::shared_ptr<UnderlyingDataset> dataset_;
};

template <class UnderlyingDataset, class... Args>
SharedBatchDataset<UnderlyingDataset> make_shared_dataset(Args&&... args) {
  return SharedBatchDataset<UnderlyingDataset>(std::make_shared<UnderlyingDataset>(std::forward<Args>(args)...));
}

}  // namespace torch::data::datasets
