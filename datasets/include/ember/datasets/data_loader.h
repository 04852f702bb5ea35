#pragma once
// DataLoader (torch.utils.data.DataLoader): batches of a dataset, in a range-for.
//
//   auto train = std::make_shared<MyDataset>(...);            // a Dataset<Sample>
//   DataLoader loader(train, {.batch_size = 64, .shuffle = true, .num_workers = 2, .seed = 0});
//   for (int epoch = 0; epoch < 10; ++epoch)
//     for (auto& batch : loader) { ... }                      // batch: collate_t<Sample>
//
// With a collate function of your own, the batch type is what it returns:
//
//   DataLoader loader(train, {.batch_size = 64}, [](std::vector<Sample> samples) { return MyBatch(...); });
//
// Each range-for (each begin()) is one epoch: epochs are numbered 0, 1, ...
// and the order and random draws of epoch e depend only on the seed and e
// (Note [DataLoader epochs] in detail/epoch_runs.h), so batches are
// bit-identical for any num_workers. Workers are threads: the dataset's get()
// and the collate function run concurrently and must be thread-safe.
//
// Stopping early is safe: leaving the loop (break, return, an exception) or
// destroying the loader stops the epoch's workers before returning, and a
// worker's exception reaches the loop as an ember::Error naming the sample
// (the original exception is nested in it: std::rethrow_if_nested).
//
// A DataLoader is not itself thread-safe: iterate it from one thread at a time.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/generator.h"
#include "ember/datasets/collate.h"
#include "ember/datasets/data_loader_options.h"
#include "ember/datasets/dataset.h"
#include "ember/datasets/detail/epoch_runs.h"
#include "ember/datasets/iterable_dataset.h"
#include "ember/datasets/sampler.h"

namespace ember::datasets {

namespace detail {
// Checks the options against each other (torch's rules and messages);
// `iterable` says which kind of dataset they are for.
void validate_options(const DataLoaderOptions& options, bool iterable);
// The batch sampler a map-style loader uses: options.batch_sampler, else a
// BatchSampler over options.sampler, a RandomSampler (shuffle) or a
// SequentialSampler.
BatchSamplerPtr resolve_batch_sampler(const DataLoaderOptions& options, int64_t dataset_size);
// The epoch's batches, drawn under the generator seeded from (seed, epoch).
std::vector<std::vector<int64_t>> draw_epoch_batches(BatchSamplerBase& sampler, uint64_t seed, int64_t epoch);
// Batches in a pass of an iterable dataset of known size.
int64_t iterable_batch_count(int64_t size, int64_t batch_size, bool drop_last);
}  // namespace detail

template <class Sample, class Batch = collate_t<Sample>>
class DataLoader {
 public:
  using SampleType = Sample;
  using BatchType = Batch;
  using CollateFn = std::function<Batch(std::vector<Sample>)>;

  class Iterator;

  DataLoader(DatasetPtr<Sample> dataset, DataLoaderOptions options = {}, CollateFn collate = DefaultCollate{})
      : config_(make_config(std::move(dataset), nullptr, std::move(options), std::move(collate))) {}
  DataLoader(IterableDatasetPtr<Sample> dataset, DataLoaderOptions options = {},
             CollateFn collate = DefaultCollate{})
      : config_(make_config(nullptr, std::move(dataset), std::move(options), std::move(collate))) {}

  DataLoader(DataLoader&&) noexcept = default;
  DataLoader& operator=(DataLoader&& other) noexcept {
    if (this != &other) {
      stop();
      config_ = std::move(other.config_);
      pool_ = std::move(other.pool_);
      current_ = std::move(other.current_);
      epoch_ = other.epoch_;
    }
    return *this;
  }
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;
  // Stops a running epoch and joins the workers.
  ~DataLoader() { stop(); }

  // Starts the next epoch (stopping an unfinished one: its iterator then
  // throws if advanced) and returns an iterator at its first batch.
  Iterator begin() {
    if (auto previous = current_.lock()) previous->shutdown();
    const int64_t epoch = epoch_++;
    std::shared_ptr<detail::EpochRun<Batch>> run = make_run(epoch);
    current_ = run;
    Iterator it(std::move(run));
    it.advance();  // on error, `it` shuts the run down as it unwinds
    return it;
  }
  std::default_sentinel_t end() const { return {}; }

  // Batches per epoch (torch's len(loader)); for an iterable dataset, from its
  // size() when known, else an ember::Error.
  int64_t size() const {
    if (config_->map_dataset) return config_->batch_sampler->size();
    const std::optional<int64_t> n = config_->iterable_dataset->size();
    EMBER_CHECK(n.has_value(), "DataLoader::size: the iterable dataset does not know its size");
    return detail::iterable_batch_count(*n, config_->options.batch_size, config_->options.drop_last);
  }

  // The number the next begin() gives its epoch (0 for a new loader); set it
  // to resume a run at a given epoch with the same batches.
  int64_t epoch() const { return epoch_; }
  void set_epoch(int64_t epoch) {
    EMBER_CHECK(epoch >= 0, "DataLoader::set_epoch: expected a non-negative epoch, got ", epoch);
    epoch_ = epoch;
  }
  uint64_t seed() const { return config_->seed; }
  const DataLoaderOptions& options() const { return config_->options; }

  // An input iterator over one epoch's batches; move-only. Destroying it stops
  // the epoch.
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using iterator_concept = std::input_iterator_tag;
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;
    using reference = Batch&;
    using pointer = Batch*;

    Iterator() = default;
    Iterator(Iterator&&) noexcept = default;
    Iterator& operator=(Iterator&& other) noexcept {
      if (this != &other) {
        if (run_) run_->shutdown();
        run_ = std::move(other.run_);
        current_ = std::move(other.current_);
      }
      return *this;
    }
    ~Iterator() {
      if (run_) run_->shutdown();
    }

    Batch& operator*() const { return *current_; }
    Batch* operator->() const { return current_.get(); }
    Iterator& operator++() {
      advance();
      return *this;
    }
    void operator++(int) { advance(); }
    friend bool operator==(const Iterator& it, std::default_sentinel_t) { return it.current_ == nullptr; }

   private:
    friend class DataLoader;
    explicit Iterator(std::shared_ptr<detail::EpochRun<Batch>> run) : run_(std::move(run)) {}

    void advance() {
      current_.reset();
      std::optional<Batch> next;
      try {
        next = run_->next();
      } catch (...) {
        run_->shutdown();
        throw;
      }
      if (next) current_ = std::make_unique<Batch>(std::move(*next));
      else run_->shutdown();
    }

    std::shared_ptr<detail::EpochRun<Batch>> run_;
    // On the heap rather than in a std::optional: GCC 12 reports false
    // -Wmaybe-uninitialized warnings through optional<Tensor> in range-for loops.
    std::unique_ptr<Batch> current_;
  };

 private:
  using Config = detail::LoaderConfig<Sample, Batch>;

  static std::shared_ptr<const Config> make_config(DatasetPtr<Sample> map_dataset,
                                                   IterableDatasetPtr<Sample> iterable_dataset,
                                                   DataLoaderOptions options, CollateFn collate) {
    const bool iterable = iterable_dataset != nullptr;
    EMBER_CHECK(map_dataset != nullptr || iterable, "DataLoader: the dataset is null");
    EMBER_CHECK(collate != nullptr, "DataLoader: the collate function is empty");
    detail::validate_options(options, iterable);
    auto config = std::make_shared<Config>();
    config->map_dataset = std::move(map_dataset);
    config->iterable_dataset = std::move(iterable_dataset);
    config->collate = std::move(collate);
    if (!iterable) config->batch_sampler = detail::resolve_batch_sampler(options, config->map_dataset->size());
    config->seed = options.seed ? *options.seed : detail::draw_seed();
    config->prefetch_factor = options.prefetch_factor.value_or(2);
    config->options = std::move(options);
    return config;
  }

  std::shared_ptr<detail::EpochRun<Batch>> make_run(int64_t epoch) {
    const DataLoaderOptions& o = config_->options;
    std::shared_ptr<detail::WorkerPool> owned;
    detail::WorkerPool* pool = nullptr;
    if (o.num_workers > 0) {
      if (o.persistent_workers) {
        if (!pool_)
          pool_ = std::make_shared<detail::WorkerPool>(o.num_workers, detail::threads_per_worker(o.num_workers),
                                                       o.worker_init_fn, config_->seed, epoch);
        pool = pool_.get();
      } else {
        owned = std::make_shared<detail::WorkerPool>(o.num_workers, detail::threads_per_worker(o.num_workers),
                                                     o.worker_init_fn, config_->seed, epoch);
        pool = owned.get();
      }
    }
    if (config_->map_dataset) {
      auto batches = detail::draw_epoch_batches(*config_->batch_sampler, config_->seed, epoch);
      if (!pool) return std::make_shared<detail::MapInlineRun<Sample, Batch>>(config_, epoch, std::move(batches));
      return std::make_shared<detail::MapParallelRun<Sample, Batch>>(config_, epoch, std::move(batches),
                                                                     std::move(owned), pool);
    }
    if (!pool) return std::make_shared<detail::IterableInlineRun<Sample, Batch>>(config_, epoch);
    auto run = std::make_shared<detail::IterableParallelRun<Sample, Batch>>(config_, epoch, std::move(owned), pool);
    run->start();
    return run;
  }

  void stop() noexcept {
    if (auto current = current_.lock()) current->shutdown();
    current_.reset();
    pool_.reset();  // joins persistent workers
  }

  std::shared_ptr<const Config> config_;
  std::shared_ptr<detail::WorkerPool> pool_;  // persistent workers
  std::weak_ptr<detail::EpochRun<Batch>> current_;
  int64_t epoch_ = 0;
};

// DataLoader loader(dataset_ptr, options[, collate]) deduces the sample type
// from the dataset and the batch type from the collate function.
template <class D>
DataLoader(std::shared_ptr<D>) -> DataLoader<typename D::SampleType>;
template <class D>
DataLoader(std::shared_ptr<D>, DataLoaderOptions) -> DataLoader<typename D::SampleType>;
template <class D, class F>
DataLoader(std::shared_ptr<D>, DataLoaderOptions, F)
    -> DataLoader<typename D::SampleType,
                  std::decay_t<std::invoke_result_t<F&, std::vector<typename D::SampleType>>>>;

}  // namespace ember::datasets
