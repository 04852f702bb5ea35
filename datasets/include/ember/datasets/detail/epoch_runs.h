#pragma once
// One epoch of a DataLoader (Note [DataLoader epochs]): the typed part of the
// loader, included by data_loader.h only. Not a public API.
//
// Note [DataLoader epochs]
// Each begin() makes an EpochRun that the iterator owns; next() hands out the
// batches in order and shutdown() stops the epoch. Four kinds:
//   map-style,  no workers:  MapInlineRun fetches batch k inside next();
//   map-style,  workers:     MapParallelRun keeps up to prefetch_factor *
//                            num_workers batches in flight; any worker takes
//                            the next batch job from the pool's shared queue,
//                            finished batches wait in a map keyed by batch
//                            number, and next() takes batch k from there, so
//                            the order never depends on which worker is faster;
//   iterable,   no workers:  IterableInlineRun reads the stream in next();
//   iterable,   workers:     IterableParallelRun runs one job per worker that
//                            batches its own stream into its own queue (at most
//                            prefetch_factor ahead); next() takes one batch
//                            from each worker in turn, skipping workers whose
//                            stream ended (torch's order).
// Reproducibility: the epoch's order is drawn by the loader under a generator
// seeded from (seed, epoch); sample p of the epoch is fetched under a
// GeneratorScope seeded from (seed, epoch, p), and batch k is collated under
// one seeded from (seed, epoch, k). Nothing depends on which thread runs
// what, so batches are bit-identical for any num_workers. (Iterable datasets:
// worker w's n-th sample is drawn under (seed, epoch, w, n); their content
// depends on num_workers anyway, through the sharding.)
// Shutdown: jobs hold a shared_ptr to their run and check its stop flag
// before each sample; shutdown() sets it, drops finished batches, and returns
// only when no job of the run still executes dataset code: it joins the
// run's own pool, or waits for the run's jobs on a persistent pool. Worker
// errors and timeouts shut the run down before they reach the caller.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/generator.h"
#include "ember/datasets/data_loader_options.h"
#include "ember/datasets/dataset.h"
#include "ember/datasets/detail/worker_pool.h"
#include "ember/datasets/iterable_dataset.h"
#include "ember/datasets/worker_info.h"

namespace ember::datasets::detail {

// What every epoch of one loader shares (immutable after construction).
template <class Sample, class Batch>
struct LoaderConfig {
  DatasetPtr<Sample> map_dataset;            // one of the two is set
  IterableDatasetPtr<Sample> iterable_dataset;
  std::function<Batch(std::vector<Sample>)> collate;
  BatchSamplerPtr batch_sampler;             // map-style only
  DataLoaderOptions options;
  uint64_t seed = 0;
  int64_t prefetch_factor = 2;
};

template <class Batch>
class EpochRun {
 public:
  virtual ~EpochRun() = default;
  // The next batch, or nullopt after the last. Errors (a worker's exception,
  // a timeout) shut the run down first, then propagate.
  virtual std::optional<Batch> next() = 0;
  // Stops the epoch; returns once no job of it runs dataset code. Idempotent.
  virtual void shutdown() noexcept = 0;
};

// A finished batch or the error that replaced it.
template <class Batch>
struct BatchResult {
  std::optional<Batch> batch;
  std::exception_ptr error;
};

// Fetches the samples of batch `k` of a map-style epoch and collates them.
// `stop` (may be null) is checked before each sample.
template <class Sample, class Batch>
Batch fetch_map_batch(const LoaderConfig<Sample, Batch>& config, int64_t epoch, int64_t k,
                      const std::vector<int64_t>& indices, int64_t first_position,
                      const std::atomic<bool>* stop, const char* where) {
  const uint64_t e = static_cast<uint64_t>(epoch);
  std::vector<Sample> samples;
  samples.reserve(indices.size());
  for (size_t j = 0; j < indices.size(); ++j) {
    if (stop && stop->load(std::memory_order_relaxed)) throw EpochStopped{};
    Generator generator(
        mix_seed({config.seed, kSampleStream, e, static_cast<uint64_t>(first_position) + j}));
    GeneratorScope scope(generator);
    try {
      samples.push_back(config.map_dataset->get(indices[j]));
    } catch (...) {
      rethrow_with_context(std::string("DataLoader") + where + ": dataset.get(" + std::to_string(indices[j]) +
                           ") failed (sample " + std::to_string(j) + " of batch " + std::to_string(k) + ")");
    }
  }
  Generator generator(mix_seed({config.seed, kCollateStream, e, static_cast<uint64_t>(k)}));
  GeneratorScope scope(generator);
  try {
    return config.collate(std::move(samples));
  } catch (...) {
    rethrow_with_context(std::string("DataLoader") + where + ": collating batch " + std::to_string(k) +
                         " (dataset indices " + format_indices(indices) + ") failed");
  }
}

// Reads up to batch_size samples of one worker's stream; `count` is how many
// that worker read before.
template <class Sample, class Batch>
std::vector<Sample> read_stream_batch(const LoaderConfig<Sample, Batch>& config, int64_t epoch,
                                      const WorkerInfo& worker, SampleIterator<Sample>& stream, int64_t& count,
                                      const std::atomic<bool>* stop, const char* where) {
  std::vector<Sample> samples;
  const auto batch_size = static_cast<size_t>(config.options.batch_size);
  samples.reserve(batch_size);
  while (samples.size() < batch_size) {
    if (stop && stop->load(std::memory_order_relaxed)) throw EpochStopped{};
    Generator generator(mix_seed({config.seed, kStreamStream, static_cast<uint64_t>(epoch),
                                  static_cast<uint64_t>(worker.id), static_cast<uint64_t>(count)}));
    GeneratorScope scope(generator);
    std::optional<Sample> sample;
    try {
      sample = stream.next();
    } catch (...) {
      rethrow_with_context(std::string("DataLoader") + where + ": the iterable dataset failed on sample " +
                           std::to_string(count) + " of worker " + std::to_string(worker.id) + "'s stream");
    }
    if (!sample) break;
    samples.push_back(std::move(*sample));
    ++count;
  }
  return samples;
}

template <class Sample, class Batch>
Batch collate_stream_batch(const LoaderConfig<Sample, Batch>& config, int64_t epoch, const WorkerInfo& worker,
                           int64_t batch_in_worker, std::vector<Sample>&& samples, const char* where) {
  Generator generator(mix_seed({config.seed, kCollateStream, static_cast<uint64_t>(epoch),
                                static_cast<uint64_t>(worker.id), static_cast<uint64_t>(batch_in_worker)}));
  GeneratorScope scope(generator);
  try {
    return config.collate(std::move(samples));
  } catch (...) {
    rethrow_with_context(std::string("DataLoader") + where + ": collating batch " +
                         std::to_string(batch_in_worker) + " of worker " + std::to_string(worker.id) + " failed");
  }
}

// A finite wait (0 and infinity mean none; beyond ~30 years as good as none,
// and clear of chrono overflow).
inline bool has_timeout(double seconds) { return seconds > 0 && seconds < 1e9; }

inline std::string worker_label(int64_t id) { return " worker " + std::to_string(id); }

[[noreturn]] void throw_timeout(double timeout, int64_t batch, const std::string& detail);
[[noreturn]] void throw_stopped();

// ---- map-style, in the calling thread ----
template <class Sample, class Batch>
class MapInlineRun final : public EpochRun<Batch> {
 public:
  MapInlineRun(std::shared_ptr<const LoaderConfig<Sample, Batch>> config, int64_t epoch,
               std::vector<std::vector<int64_t>> batches)
      : config_(std::move(config)), epoch_(epoch), batches_(std::move(batches)) {}

  std::optional<Batch> next() override {
    if (stopped_) throw_stopped();
    if (next_ == static_cast<int64_t>(batches_.size())) return std::nullopt;
    const int64_t k = next_++;
    const auto& indices = batches_[static_cast<size_t>(k)];
    std::optional<Batch> batch = fetch_map_batch(*config_, epoch_, k, indices, position_, nullptr, "");
    position_ += static_cast<int64_t>(indices.size());
    return batch;
  }
  void shutdown() noexcept override {
    if (next_ < static_cast<int64_t>(batches_.size())) stopped_ = true;
  }

 private:
  std::shared_ptr<const LoaderConfig<Sample, Batch>> config_;
  int64_t epoch_;
  std::vector<std::vector<int64_t>> batches_;
  int64_t next_ = 0;
  int64_t position_ = 0;
  bool stopped_ = false;
};

// ---- map-style, worker threads ----
template <class Sample, class Batch>
class MapParallelRun final : public EpochRun<Batch>,
                             public std::enable_shared_from_this<MapParallelRun<Sample, Batch>> {
 public:
  // `owned_pool` is the epoch's own pool (joined at shutdown); otherwise
  // `pool` is the loader's persistent one.
  MapParallelRun(std::shared_ptr<const LoaderConfig<Sample, Batch>> config, int64_t epoch,
                 std::vector<std::vector<int64_t>> batches, std::shared_ptr<WorkerPool> owned_pool,
                 WorkerPool* pool)
      : config_(std::move(config)),
        epoch_(epoch),
        batches_(std::move(batches)),
        owned_pool_(std::move(owned_pool)),
        pool_(pool),
        num_workers_(pool->size()),
        max_in_flight_(config_->prefetch_factor * pool->size()) {
    first_position_.reserve(batches_.size());
    int64_t position = 0;
    for (const auto& b : batches_) {
      first_position_.push_back(position);
      position += static_cast<int64_t>(b.size());
    }
  }
  ~MapParallelRun() override { shutdown(); }

  std::optional<Batch> next() override {
    if (stop_.load()) throw_stopped();
    const auto total = static_cast<int64_t>(batches_.size());
    if (delivered_ == total) return std::nullopt;
    top_up();
    BatchResult<Batch> result;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      auto ready = [&] { return results_.count(delivered_) > 0 || stop_.load(); };
      if (has_timeout(config_->options.timeout)) {
        const auto limit = std::chrono::duration<double>(config_->options.timeout);
        if (!cv_.wait_for(lock, limit, ready)) {
          lock.unlock();
          shutdown();
          throw_timeout(config_->options.timeout, delivered_,
                        "dataset indices " + format_indices(batches_[static_cast<size_t>(delivered_)]));
        }
      } else {
        cv_.wait(lock, ready);
      }
      if (stop_.load()) {
        lock.unlock();
        throw_stopped();
      }
      auto node = results_.extract(delivered_);
      result = std::move(node.mapped());
    }
    ++delivered_;
    if (result.error) {
      shutdown();
      std::rethrow_exception(result.error);
    }
    top_up();
    return std::move(result.batch);
  }

  void shutdown() noexcept override {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (shut_) return;
      shut_ = true;
      stop_.store(true);
      results_.clear();
    }
    cv_.notify_all();
    if (owned_pool_) {
      owned_pool_.reset();  // drops queued jobs, joins the threads
    } else {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return running_ == 0; });
    }
  }

 private:
  // Keeps max_in_flight_ batches dispatched and not yet delivered.
  void top_up() {
    const auto total = static_cast<int64_t>(batches_.size());
    while (dispatched_ < total && dispatched_ - delivered_ < max_in_flight_) {
      const int64_t k = dispatched_++;
      pool_->submit([self = this->shared_from_this(), k](const WorkerContext& worker) { self->run_job(k, worker); });
    }
  }

  void run_job(int64_t k, const WorkerContext& worker) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_.load()) return;
      ++running_;
    }
    BatchResult<Batch> result;
    {
      WorkerInfoScope info(worker_info_for(config_->seed, epoch_, worker.id, num_workers_));
      const std::string where = worker_label(worker.id);
      try {
        if (worker.init_error) {
          try {
            std::rethrow_exception(worker.init_error);
          } catch (...) {
            rethrow_with_context("DataLoader" + where + ": worker_init_fn failed");
          }
        }
        result.batch.emplace(fetch_map_batch(*config_, epoch_, k, batches_[static_cast<size_t>(k)],
                                             first_position_[static_cast<size_t>(k)], &stop_, where.c_str()));
      } catch (const EpochStopped&) {
      } catch (...) {
        result.error = std::current_exception();
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --running_;
      if (!stop_.load()) results_.emplace(k, std::move(result));
    }
    cv_.notify_all();
  }

  std::shared_ptr<const LoaderConfig<Sample, Batch>> config_;
  int64_t epoch_;
  std::vector<std::vector<int64_t>> batches_;
  std::vector<int64_t> first_position_;
  std::shared_ptr<WorkerPool> owned_pool_;
  WorkerPool* pool_;
  int64_t num_workers_;
  int64_t max_in_flight_;
  // Touched by the consuming thread only.
  int64_t dispatched_ = 0;
  int64_t delivered_ = 0;
  // Shared with the jobs, under mutex_.
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<int64_t, BatchResult<Batch>> results_;
  int64_t running_ = 0;
  bool shut_ = false;
  std::atomic<bool> stop_{false};
};

// ---- iterable, in the calling thread ----
template <class Sample, class Batch>
class IterableInlineRun final : public EpochRun<Batch> {
 public:
  IterableInlineRun(std::shared_ptr<const LoaderConfig<Sample, Batch>> config, int64_t epoch)
      : config_(std::move(config)), epoch_(epoch), worker_(worker_info_for(config_->seed, epoch, 0, 1)) {}

  std::optional<Batch> next() override {
    if (stopped_) throw_stopped();
    if (ended_) return std::nullopt;
    if (!stream_) {
      Generator generator(mix_seed({config_->seed, kStreamStream, static_cast<uint64_t>(epoch_), 0, ~0ULL}));
      GeneratorScope scope(generator);
      stream_ = config_->iterable_dataset->iter(worker_);
    }
    std::vector<Sample> samples = read_stream_batch(*config_, epoch_, worker_, *stream_, count_, nullptr, "");
    const bool last = static_cast<int64_t>(samples.size()) < config_->options.batch_size;
    if (last) {
      ended_ = true;
      stream_.reset();
      if (samples.empty() || config_->options.drop_last) return std::nullopt;
    }
    return collate_stream_batch(*config_, epoch_, worker_, batches_++, std::move(samples), "");
  }
  void shutdown() noexcept override {
    if (!ended_) stopped_ = true;
    stream_.reset();
  }

 private:
  std::shared_ptr<const LoaderConfig<Sample, Batch>> config_;
  int64_t epoch_;
  WorkerInfo worker_;
  std::unique_ptr<SampleIterator<Sample>> stream_;
  int64_t count_ = 0;
  int64_t batches_ = 0;
  bool ended_ = false;
  bool stopped_ = false;
};

// ---- iterable, worker threads ----
template <class Sample, class Batch>
class IterableParallelRun final : public EpochRun<Batch>,
                                  public std::enable_shared_from_this<IterableParallelRun<Sample, Batch>> {
 public:
  IterableParallelRun(std::shared_ptr<const LoaderConfig<Sample, Batch>> config, int64_t epoch,
                      std::shared_ptr<WorkerPool> owned_pool, WorkerPool* pool)
      : config_(std::move(config)),
        epoch_(epoch),
        owned_pool_(std::move(owned_pool)),
        pool_(pool),
        lanes_(static_cast<size_t>(pool->size())) {
    for (int64_t w = 0; w < pool->size(); ++w) active_.push_back(w);
  }
  ~IterableParallelRun() override { shutdown(); }

  // Submits one job per worker; separate from the constructor because the
  // jobs need shared_from_this().
  void start() {
    for (int64_t w = 0; w < pool_->size(); ++w)
      pool_->submit_to(w, [self = this->shared_from_this()](const WorkerContext& worker) { self->run_job(worker); });
  }

  std::optional<Batch> next() override {
    if (stop_.load()) throw_stopped();
    while (!active_.empty()) {
      cursor_ %= active_.size();
      const int64_t w = active_[cursor_];
      Lane& lane = lanes_[static_cast<size_t>(w)];
      BatchResult<Batch> result;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        auto ready = [&] { return !lane.queue.empty() || lane.done || stop_.load(); };
        if (has_timeout(config_->options.timeout)) {
          if (!cv_.wait_for(lock, std::chrono::duration<double>(config_->options.timeout), ready)) {
            lock.unlock();
            shutdown();
            throw_timeout(config_->options.timeout, delivered_, "from worker " + std::to_string(w));
          }
        } else {
          cv_.wait(lock, ready);
        }
        if (stop_.load()) {
          lock.unlock();
          throw_stopped();
        }
        if (lane.queue.empty()) {  // this worker's stream ended
          active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(cursor_));
          continue;
        }
        result = std::move(lane.queue.front());
        lane.queue.pop_front();
      }
      space_cv_.notify_all();
      if (result.error) {
        shutdown();
        std::rethrow_exception(result.error);
      }
      ++cursor_;
      ++delivered_;
      return std::move(result.batch);
    }
    return std::nullopt;
  }

  void shutdown() noexcept override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (shut_) return;
      shut_ = true;
      stop_.store(true);
      for (auto& lane : lanes_) lane.queue.clear();
    }
    cv_.notify_all();
    space_cv_.notify_all();
    if (owned_pool_) {
      owned_pool_.reset();
    } else {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return running_ == 0; });
    }
  }

 private:
  struct Lane {
    std::deque<BatchResult<Batch>> queue;
    bool done = false;
  };

  // Waits for room in the worker's queue, then appends (errors skip the wait).
  void push(int64_t w, BatchResult<Batch> result) {
    std::unique_lock<std::mutex> lock(mutex_);
    Lane& lane = lanes_[static_cast<size_t>(w)];
    if (!result.error) {
      space_cv_.wait(lock, [&] {
        return static_cast<int64_t>(lane.queue.size()) < config_->prefetch_factor || stop_.load();
      });
    }
    if (stop_.load()) throw EpochStopped{};
    lane.queue.push_back(std::move(result));
    lock.unlock();
    cv_.notify_all();
  }

  void run_job(const WorkerContext& context) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_.load()) return;
      ++running_;
    }
    const int64_t w = context.id;
    const WorkerInfo worker = worker_info_for(config_->seed, epoch_, w, pool_->size());
    {
      WorkerInfoScope info(worker);
      const std::string where = worker_label(w);
      try {
        if (context.init_error) {
          try {
            std::rethrow_exception(context.init_error);
          } catch (...) {
            rethrow_with_context("DataLoader" + where + ": worker_init_fn failed");
          }
        }
        std::unique_ptr<SampleIterator<Sample>> stream;
        {
          Generator generator(mix_seed({config_->seed, kStreamStream, static_cast<uint64_t>(epoch_),
                                        static_cast<uint64_t>(w), ~0ULL}));
          GeneratorScope scope(generator);
          try {
            stream = config_->iterable_dataset->iter(worker);
          } catch (...) {
            rethrow_with_context("DataLoader" + where + ": the iterable dataset's iter() failed");
          }
        }
        int64_t count = 0;
        for (int64_t b = 0;; ++b) {
          std::vector<Sample> samples = read_stream_batch(*config_, epoch_, worker, *stream, count, &stop_,
                                                          where.c_str());
          const bool last = static_cast<int64_t>(samples.size()) < config_->options.batch_size;
          if (samples.empty() || (last && config_->options.drop_last)) break;
          BatchResult<Batch> result;
          result.batch.emplace(collate_stream_batch(*config_, epoch_, worker, b, std::move(samples), where.c_str()));
          push(w, std::move(result));
          if (last) break;
        }
      } catch (const EpochStopped&) {
      } catch (...) {
        BatchResult<Batch> result;
        result.error = std::current_exception();
        try {
          push(w, std::move(result));
        } catch (const EpochStopped&) {
        }
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      lanes_[static_cast<size_t>(w)].done = true;
      --running_;
    }
    cv_.notify_all();
  }

  std::shared_ptr<const LoaderConfig<Sample, Batch>> config_;
  int64_t epoch_;
  std::shared_ptr<WorkerPool> owned_pool_;
  WorkerPool* pool_;
  // Touched by the consuming thread only.
  std::vector<int64_t> active_;  // workers whose stream has not ended, in turn order
  size_t cursor_ = 0;
  int64_t delivered_ = 0;
  // Shared with the jobs, under mutex_.
  std::mutex mutex_;
  std::condition_variable cv_;        // a lane got a batch or finished
  std::condition_variable space_cv_;  // a lane has room
  std::vector<Lane> lanes_;
  int64_t running_ = 0;
  bool shut_ = false;
  std::atomic<bool> stop_{false};
};

}  // namespace ember::datasets::detail
