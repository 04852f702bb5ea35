#pragma once
// torch::data::make_data_loader and its loader, as libtorch's
// StatelessDataLoader: iterating `*loader` runs one epoch (the sampler is
// reset at begin()), each step yielding what the dataset's get_batch returns
// for the next request of batch_size indices (an Example<> of stacked tensors
// after .map(transforms::Stack<>())).
//
// Note [Loader workers]: with workers(n) > 0, n threads fetch batches ahead
// (at most max_jobs, 2 * n by default, in flight), each calling get_batch on
// its own copy of the dataset (libtorch copies it per worker too; a dataset
// that cannot be copied is shared). Indices are drawn from the sampler in
// order under a lock and batches are handed out in that order, so a program
// sees the same batches for any number of workers (libtorch's
// enforce_ordering, which is always on here). An exception thrown by
// get_batch in a worker is rethrown by the loop that asks for that batch;
// leaving the loop early stops the workers.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/torch/arg.h"
#include "ember/torch/data/samplers.h"

namespace torch::data {

// libtorch's DataLoaderOptions; `DataLoaderOptions(64)` or a bare batch size.
class DataLoaderOptions {
 public:
  DataLoaderOptions() = default;
  DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}  // NOLINT(google-explicit-constructor)
  EMBER_TORCH_ARG(size_t, batch_size) = 1;
  EMBER_TORCH_ARG(size_t, workers) = 0;
  EMBER_TORCH_ARG(std::optional<size_t>, max_jobs) = std::nullopt;
  EMBER_TORCH_ARG(bool, enforce_ordering) = true;
  EMBER_TORCH_ARG(bool, drop_last) = false;
  // With workers: how long the loop waits for the next batch before raising
  // (libtorch's "Timeout in DataLoader queue while waiting for next batch").
  EMBER_TORCH_ARG(std::optional<std::chrono::milliseconds>, timeout) = std::nullopt;
};

template <class Dataset, class Sampler>
class StatelessDataLoader {
 public:
  using BatchType = typename Dataset::BatchType;
  using BatchRequestType = typename Sampler::BatchRequestType;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : dataset_(std::move(dataset)), sampler_(std::move(sampler)), options_(std::move(options)) {
    EMBER_CHECK(options_.batch_size() > 0, "make_data_loader: batch_size must be positive");
    EMBER_CHECK(!options_.max_jobs() || *options_.max_jobs() > 0, "make_data_loader: max_jobs must be positive");
  }
  ~StatelessDataLoader() { join(); }
  StatelessDataLoader(const StatelessDataLoader&) = delete;
  StatelessDataLoader& operator=(const StatelessDataLoader&) = delete;

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = BatchType;
    using difference_type = std::ptrdiff_t;
    using pointer = BatchType*;
    using reference = BatchType&;
    Iterator() = default;
    explicit Iterator(StatelessDataLoader* loader) : loader_(loader) { advance(); }
    BatchType& operator*() const { return *loader_->current_; }
    BatchType* operator->() const { return &*loader_->current_; }
    Iterator& operator++() {
      advance();
      return *this;
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.loader_ == b.loader_; }
    friend bool operator!=(const Iterator& a, const Iterator& b) { return !(a == b); }

   private:
    void advance() {
      loader_->current_ = loader_->next();
      if (!loader_->current_) loader_ = nullptr;
    }
    StatelessDataLoader* loader_ = nullptr;
  };

  // Starts an epoch (stopping one in progress).
  Iterator begin() {
    join();
    sampler_.reset(std::nullopt);
    if (options_.workers() > 0) start_workers();
    return Iterator(this);
  }
  Iterator end() { return Iterator(); }
  // Stops the workers of the epoch in progress.
  void join() {
    if (!epoch_) return;
    {
      std::lock_guard<std::mutex> lock(epoch_->mutex);
      epoch_->stop = true;
    }
    epoch_->jobs.notify_all();
    for (std::thread& t : epoch_->threads) t.join();
    epoch_.reset();
  }
  const DataLoaderOptions& options() const noexcept { return options_; }

 private:
  struct Result {
    std::optional<BatchType> batch;
    std::exception_ptr error;
  };
  struct Epoch {
    std::mutex mutex;
    std::condition_variable jobs, results;
    size_t handed_out = 0, taken = 0;
    bool sampler_done = false, stop = false;
    std::map<size_t, Result> ready;
    std::vector<std::thread> threads;
  };

  // The next request of the sampler, or nullopt at the end of the epoch.
  std::optional<BatchRequestType> next_request() {
    auto request = sampler_.next(options_.batch_size());
    if (!request || request->empty() || (options_.drop_last() && request->size() < options_.batch_size()))
      return std::nullopt;
    return request;
  }

  std::optional<BatchType> next() {
    if (!epoch_) {
      auto request = next_request();
      if (!request) return std::nullopt;
      return dataset_.get_batch(*request);
    }
    Epoch& e = *epoch_;
    std::unique_lock<std::mutex> lock(e.mutex);
    auto arrived = [&] { return e.ready.count(e.taken) != 0 || (e.sampler_done && e.taken >= e.handed_out); };
    if (options_.timeout()) {
      EMBER_CHECK(e.results.wait_for(lock, *options_.timeout(), arrived),
                  "Timeout in DataLoader queue while waiting for next batch (timeout was ",
                  options_.timeout()->count(), " ms)");
    } else {
      e.results.wait(lock, arrived);
    }
    auto it = e.ready.find(e.taken);
    if (it == e.ready.end()) return std::nullopt;
    Result result = std::move(it->second);
    e.ready.erase(it);
    ++e.taken;
    lock.unlock();
    e.jobs.notify_all();
    if (result.error) std::rethrow_exception(result.error);
    return std::move(result.batch);
  }

  void start_workers() {
    epoch_ = std::make_unique<Epoch>();
    const size_t max_jobs = options_.max_jobs().value_or(2 * options_.workers());
    for (size_t w = 0; w < options_.workers(); ++w) {
      if constexpr (std::is_copy_constructible_v<Dataset>)
        epoch_->threads.emplace_back([this, max_jobs, dataset = dataset_]() mutable { work(dataset, max_jobs); });
      else
        epoch_->threads.emplace_back([this, max_jobs] { work(dataset_, max_jobs); });
    }
  }

  void work(Dataset& dataset, size_t max_jobs) {
    Epoch& e = *epoch_;
    while (true) {
      std::unique_lock<std::mutex> lock(e.mutex);
      e.jobs.wait(lock, [&] { return e.stop || e.sampler_done || e.handed_out < e.taken + max_jobs; });
      if (e.stop || e.sampler_done) return;
      std::optional<BatchRequestType> request = next_request();
      if (!request) {
        e.sampler_done = true;
        lock.unlock();
        e.results.notify_all();
        e.jobs.notify_all();
        return;
      }
      const size_t sequence = e.handed_out++;
      lock.unlock();
      Result result;
      try {
        result.batch.emplace(dataset.get_batch(*request));
      } catch (...) {
        result.error = std::current_exception();
      }
      lock.lock();
      e.ready.emplace(sequence, std::move(result));
      lock.unlock();
      e.results.notify_all();
    }
  }

  Dataset dataset_;
  Sampler sampler_;
  DataLoaderOptions options_;
  std::unique_ptr<Epoch> epoch_;
  std::optional<BatchType> current_;
};

// libtorch's StatefulDataLoader: for a stateful dataset (StatefulDataset,
// ChunkDataset through make_shared_dataset), which decides the batches
// itself. Iterating `*loader` resets the dataset (a new epoch) and asks it
// for batches of batch_size until it returns nullopt; each step yields the
// batch itself (not the optional); drop_last drops a short last batch of
// examples. The dataset's own threads (a ChunkDataset's
// preloaders) do the parallel work: workers(n) is accepted and the batches
// are fetched on the iterating thread.
template <class Dataset>
class StatefulDataLoader {
 public:
  using BatchType = typename Dataset::BatchType::value_type;

  StatefulDataLoader(Dataset dataset, DataLoaderOptions options)
      : dataset_(std::move(dataset)), options_(std::move(options)) {
    EMBER_CHECK(options_.batch_size() > 0, "make_data_loader: batch_size must be positive");
  }

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = BatchType;
    using difference_type = std::ptrdiff_t;
    using pointer = BatchType*;
    using reference = BatchType&;
    Iterator() = default;
    explicit Iterator(StatefulDataLoader* loader) : loader_(loader) { advance(); }
    BatchType& operator*() const { return *loader_->current_; }
    BatchType* operator->() const { return &*loader_->current_; }
    Iterator& operator++() {
      advance();
      return *this;
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.loader_ == b.loader_; }
    friend bool operator!=(const Iterator& a, const Iterator& b) { return !(a == b); }

   private:
    void advance() {
      loader_->current_ = loader_->dataset_.get_batch(loader_->options_.batch_size());
      // drop_last on batches that have a size (vectors of examples; a stacked Example has none).
      if constexpr (requires(const BatchType& b) { b.size(); }) {
        if (loader_->current_ && loader_->options_.drop_last() &&
            loader_->current_->size() < loader_->options_.batch_size())
          loader_->current_.reset();
      }
      if (!loader_->current_) loader_ = nullptr;
    }
    StatefulDataLoader* loader_ = nullptr;
  };

  // Starts an epoch: resets the dataset.
  Iterator begin() {
    dataset_.reset();
    return Iterator(this);
  }
  Iterator end() { return Iterator(); }
  const DataLoaderOptions& options() const noexcept { return options_; }

 private:
  Dataset dataset_;
  DataLoaderOptions options_;
  typename Dataset::BatchType current_;
};

// A loader over a stateful dataset (no sampler), as libtorch's.
template <class Dataset>
  requires(Dataset::is_stateful)
std::unique_ptr<StatefulDataLoader<Dataset>> make_data_loader(Dataset dataset, DataLoaderOptions options = {}) {
  return std::make_unique<StatefulDataLoader<Dataset>>(std::move(dataset), std::move(options));
}

// A loader over `dataset` (which must know its size) with a Sampler made for
// that size: RandomSampler unless given, e.g.
// make_data_loader<samplers::SequentialSampler>(std::move(dataset), 64).
template <class Sampler = samplers::RandomSampler, class Dataset>
  requires(!Dataset::is_stateful)
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset,
                                                                        DataLoaderOptions options = {}) {
  const std::optional<size_t> size = dataset.size();
  EMBER_CHECK(size.has_value(), "make_data_loader: the dataset has no size(); pass a sampler");
  Sampler sampler(*size);
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler),
                                                                 std::move(options));
}
template <class Dataset, class Sampler>
  requires(!Dataset::is_stateful && std::is_base_of_v<samplers::Sampler<typename Sampler::BatchRequestType>, Sampler>)
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, Sampler sampler,
                                                                        DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler),
                                                                 std::move(options));
}

}  // namespace torch::data
