#pragma once
// torch::data::datasets: libtorch's dataset interfaces over Ember tensors.
// Dataset<Self> is what programs derive from (get(index) and size()); .map()
// chains transforms into a MapDataset; MNIST and TensorDataset are the
// ready-made ones. These are libtorch's batch-request datasets (a batch is
// asked for by its indices), not Ember's Dataset<Sample> (ember/datasets/),
// whose DataLoader works per sample.
#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/array_ref.h"
#include "ember/core/error.h"
#include "ember/core/tensor.h"
#include "ember/datasets/idx.h"
#include "ember/ops/shape.h"
#include "ember/torch/data/example.h"

namespace torch::data::datasets {

template <class SourceDataset, class AppliedTransform>
class MapDataset;

template <class Self, class Batch = std::vector<Example<>>, class BatchRequest = ember::ArrayRef<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  static constexpr bool is_stateful = false;

  virtual ~BatchDataset() = default;
  virtual Batch get_batch(BatchRequest request) = 0;
  // The number of examples (libtorch's; nullopt for a dataset of unknown size).
  virtual std::optional<size_t> size() const = 0;

  // This dataset with `transform` applied to each batch it returns.
  template <class TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) & {
    return MapDataset<Self, TransformType>(static_cast<Self&>(*this), std::move(transform));
  }
  template <class TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) && {
    return MapDataset<Self, TransformType>(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

// libtorch's StreamDataset: a dataset asked for a number of examples rather
// than for indices (get_batch(size_t batch_size)), for sources that can only
// be read in order; loaded with a samplers::StreamSampler, which says how many.
template <class Self, class Batch = std::vector<Example<>>>
using StreamDataset = BatchDataset<Self, Batch, size_t>;

// A dataset of single examples: derive from Dataset<YourDataset> and define
// `ExampleType get(size_t index)` and `std::optional<size_t> size() const`.
template <class Self, class SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;
  virtual ExampleType get(size_t index) = 0;
  std::vector<ExampleType> get_batch(ember::ArrayRef<size_t> indices) override {
    std::vector<ExampleType> batch;
    batch.reserve(indices.size());
    for (size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

namespace detail {
// What a MapDataset returns: the transform's batch, or for a stateful source
// (whose batches are optional) an optional of it.
template <class Source, class Transform, bool Stateful = Source::is_stateful>
struct MappedBatch {
  using type = decltype(std::declval<Transform&>().apply_batch(std::declval<typename Source::BatchType>()));
};
template <class Source, class Transform>
struct MappedBatch<Source, Transform, true> {
  using type = std::optional<decltype(std::declval<Transform&>().apply_batch(
      std::declval<typename Source::BatchType::value_type>()))>;
};
}  // namespace detail

template <class SourceDataset, class AppliedTransform>
class MapDataset
    : public BatchDataset<MapDataset<SourceDataset, AppliedTransform>,
                          typename detail::MappedBatch<SourceDataset, AppliedTransform>::type,
                          typename SourceDataset::BatchRequestType> {
 public:
  using DatasetType = SourceDataset;
  using TransformType = AppliedTransform;
  using BatchRequestType = typename SourceDataset::BatchRequestType;
  using OutputBatchType = typename detail::MappedBatch<SourceDataset, AppliedTransform>::type;
  static constexpr bool is_stateful = SourceDataset::is_stateful;

  MapDataset(SourceDataset dataset, AppliedTransform transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}
  OutputBatchType get_batch(BatchRequestType indices) override {
    if constexpr (is_stateful) {
      auto batch = dataset_.get_batch(std::move(indices));
      if (!batch) return std::nullopt;
      return transform_.apply_batch(std::move(*batch));
    } else {
      return transform_.apply_batch(dataset_.get_batch(std::move(indices)));
    }
  }
  std::optional<size_t> size() const override { return dataset_.size(); }
  // A stateful source's new epoch.
  void reset() {
    if constexpr (is_stateful) dataset_.reset();
  }
  const SourceDataset& dataset() const { return dataset_; }
  const AppliedTransform& transform() const { return transform_; }

 private:
  SourceDataset dataset_;
  AppliedTransform transform_;
};

// libtorch's MNIST: the four IDX files straight in `root`
// (train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte,
// t10k-labels-idx1-ubyte; each may also be gzipped, "<name>.gz", which
// libtorch does not read). Images are float32 [N, 1, H, W] in [0, 1], targets
// int64 [N]; get(i) is {images[i], targets[i]}. Missing or malformed files
// raise an ember::Error naming the file.
class MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };

  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain) : train_(mode == Mode::kTrain) {
    const std::string prefix = root + "/" + (train_ ? "train" : "t10k");
    ember::Tensor images = ember::datasets::read_idx_ubyte(find(prefix + "-images-idx3-ubyte"), 3, "MNIST");
    ember::Tensor labels = ember::datasets::read_idx_ubyte(find(prefix + "-labels-idx1-ubyte"), 1, "MNIST");
    EMBER_CHECK(images.size(0) == labels.size(0), "MNIST: ", prefix, "-images-idx3-ubyte holds ", images.size(0),
                " images but ", prefix, "-labels-idx1-ubyte holds ", labels.size(0), " labels");
    images_ = images.unsqueeze(1).to(ember::kFloat32).div(255);
    targets_ = labels.to(ember::kInt64);
  }

  Example<> get(size_t index) override {
    EMBER_CHECK(index < static_cast<size_t>(images_.size(0)), "MNIST: index ", index, " is out of range for ",
                images_.size(0), " examples");
    const auto i = static_cast<int64_t>(index);
    return {images_[i], targets_[i]};
  }
  std::optional<size_t> size() const override { return static_cast<size_t>(images_.size(0)); }
  bool is_train() const noexcept { return train_; }
  const ember::Tensor& images() const { return images_; }
  const ember::Tensor& targets() const { return targets_; }

 private:
  // The plain file, else its gzipped form; the plain name (for the error) when neither exists.
  static std::string find(const std::string& path) {
    if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
      std::fclose(f);
      return path;
    }
    if (std::FILE* f = std::fopen((path + ".gz").c_str(), "rb")) {
      std::fclose(f);
      return path + ".gz";
    }
    return path;
  }

  bool train_;
  ember::Tensor images_, targets_;
};

// Examples that are the rows of one tensor (libtorch's TensorDataset).
class TensorDataset : public Dataset<TensorDataset, TensorExample> {
 public:
  explicit TensorDataset(const std::vector<ember::Tensor>& tensors) : TensorDataset(ember::stack(tensors)) {}
  explicit TensorDataset(ember::Tensor tensor) : tensor(std::move(tensor)) {}
  TensorExample get(size_t index) override { return tensor[static_cast<int64_t>(index)]; }
  std::optional<size_t> size() const override { return static_cast<size_t>(tensor.size(0)); }
  ember::Tensor tensor;
};

}  // namespace torch::data::datasets
