#pragma once
// Iterable-style datasets (torch.utils.data.IterableDataset): a stream of
// samples rather than random access, for data that arrives in order (records
// in large files, generated data, network feeds).
//
// The DataLoader asks for a fresh iterator per epoch. With workers, every
// worker gets its own iterator and its WorkerInfo: without sharding by
// worker.id / worker.num_workers each worker would yield the whole stream, and
// samples would repeat num_workers times (as in PyTorch):
//
//   class Numbers : public IterableDataset<int64_t> {
//    public:
//     std::unique_ptr<SampleIterator<int64_t>> iter(const WorkerInfo& worker) override {
//       WorkerRange r = worker_range(0, 1000, worker);  // this worker's share
//       return make_iterator<int64_t>([i = r.begin, end = r.end]() mutable -> std::optional<int64_t> {
//         if (i == end) return std::nullopt;
//         return i++;
//       });
//     }
//   };
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "ember/datasets/worker_info.h"

namespace ember::datasets {

// One pass over a stream: next() returns the next sample, or nullopt at the end.
template <class Sample>
class SampleIterator {
 public:
  virtual ~SampleIterator() = default;
  virtual std::optional<Sample> next() = 0;
};

template <class Sample>
class IterableDataset {
 public:
  using SampleType = Sample;
  virtual ~IterableDataset() = default;
  // A new iterator over this worker's part of the stream. Without workers the
  // loader passes {id = 0, num_workers = 1}. Called concurrently from the
  // worker threads; each iterator is then used by one thread only.
  virtual std::unique_ptr<SampleIterator<Sample>> iter(const WorkerInfo& worker) = 0;
  // The number of samples of a whole pass when known (torch's optional
  // __len__); DataLoader::size() uses it.
  virtual std::optional<int64_t> size() const { return std::nullopt; }
};

template <class Sample>
using IterableDatasetPtr = std::shared_ptr<IterableDataset<Sample>>;

// A SampleIterator around a callable returning std::optional<Sample>
// (nullopt ends the stream).
template <class Sample, class F>
class FunctionIterator final : public SampleIterator<Sample> {
 public:
  explicit FunctionIterator(F next) : next_(std::move(next)) {}
  std::optional<Sample> next() override { return next_(); }

 private:
  F next_;
};

template <class Sample, class F>
std::unique_ptr<SampleIterator<Sample>> make_iterator(F next) {
  static_assert(std::is_convertible_v<std::invoke_result_t<F&>, std::optional<Sample>>,
                "make_iterator<Sample>(f): f() must return std::optional<Sample>");
  return std::make_unique<FunctionIterator<Sample, F>>(std::move(next));
}

}  // namespace ember::datasets
