#pragma once
// Dataset transforms: map(dataset, fn) is a dataset whose samples are
// fn(sample). It works on map-style and iterable datasets, and chains:
//
//   auto images = map(mnist, [](std::pair<Tensor, int64_t> s) {
//     return std::pair{s.first.to(kFloat32) / 255, s.second};
//   });
//   auto noisy = map(images, [](std::pair<Tensor, int64_t> s) {  // chained
//     return std::pair{s.first + 0.01 * randn(s.first.sizes()), s.second};
//   });
//
// fn is called from the DataLoader's worker threads at the same time: it must
// be safe to call concurrently (it is called through a const reference).
// Random transforms inside fn draw from default_generator(), which the
// DataLoader sets per sample, so results do not depend on num_workers.
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "ember/core/error.h"
#include "ember/datasets/dataset.h"
#include "ember/datasets/iterable_dataset.h"

namespace ember::datasets {

template <class In, class F>
using mapped_sample_t = std::decay_t<std::invoke_result_t<const F&, In>>;

template <class In, class F>
class MapDataset final : public Dataset<mapped_sample_t<In, F>> {
 public:
  using Out = mapped_sample_t<In, F>;
  MapDataset(DatasetPtr<In> source, F fn) : source_(std::move(source)), fn_(std::move(fn)) {
    EMBER_CHECK(source_ != nullptr, "map: the dataset is null");
  }
  Out get(int64_t index) override { return fn_(source_->get(index)); }
  int64_t size() const override { return source_->size(); }
  const DatasetPtr<In>& source() const { return source_; }

 private:
  DatasetPtr<In> source_;
  const F fn_;
};

template <class In, class F>
class MapIterableDataset final : public IterableDataset<mapped_sample_t<In, F>> {
 public:
  using Out = mapped_sample_t<In, F>;
  MapIterableDataset(IterableDatasetPtr<In> source, F fn) : source_(std::move(source)), fn_(std::move(fn)) {
    EMBER_CHECK(source_ != nullptr, "map: the dataset is null");
  }
  std::unique_ptr<SampleIterator<Out>> iter(const WorkerInfo& worker) override {
    return std::make_unique<Iterator>(source_->iter(worker), &fn_);
  }
  std::optional<int64_t> size() const override { return source_->size(); }

 private:
  class Iterator final : public SampleIterator<Out> {
   public:
    Iterator(std::unique_ptr<SampleIterator<In>> source, const F* fn) : source_(std::move(source)), fn_(fn) {}
    std::optional<Out> next() override {
      std::optional<In> sample = source_->next();
      if (!sample) return std::nullopt;
      return (*fn_)(std::move(*sample));
    }

   private:
    std::unique_ptr<SampleIterator<In>> source_;
    const F* fn_;
  };

  IterableDatasetPtr<In> source_;
  const F fn_;
};

// map(dataset, fn): a shared_ptr to the mapped dataset (map-style if `dataset`
// is, else iterable). The source stays shared, not copied.
template <class D, class F>
auto map(std::shared_ptr<D> dataset, F fn) {
  using In = typename D::SampleType;
  if constexpr (std::is_base_of_v<Dataset<In>, D>) {
    return std::make_shared<MapDataset<In, F>>(DatasetPtr<In>(std::move(dataset)), std::move(fn));
  } else {
    static_assert(std::is_base_of_v<IterableDataset<In>, D>,
                  "map(dataset, fn): dataset must derive from Dataset<S> or IterableDataset<S>");
    return std::make_shared<MapIterableDataset<In, F>>(IterableDatasetPtr<In>(std::move(dataset)),
                                                       std::move(fn));
  }
}

}  // namespace ember::datasets
