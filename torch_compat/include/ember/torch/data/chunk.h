#pragma once
// torch::data::datasets::ChunkDataReader, ChunkDatasetOptions and ChunkDataset,
// as libtorch's (torch/data/datasets/chunk.h): a dataset too large for memory
// is read one chunk at a time. reset() starts preloader_count threads that
// take chunk indices from the chunk sampler (cross_chunk_shuffle_count at a
// time), read those chunks with the reader, and cut them into batches of
// batch_size examples in the order the example sampler gives (a batch is
// topped up across chunks); get_batch() hands those batches out (the last one
// may be short) and nullopt once every chunk is read. At most cache_size
// examples wait in the buffer. An exception thrown by read_chunk is rethrown
// by get_batch. With one preloader the order is fixed by the samplers; with
// more, chunks arrive in the order they finish loading (as in libtorch).
// save/load checkpoint the chunk sampler (Note [ChunkDataset checkpoints]).
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/torch/arg.h"
#include "ember/torch/data/samplers.h"
#include "ember/torch/data/stateful.h"

namespace torch::data::datasets {

template <class ExampleType_, class ChunkType_ = std::vector<ExampleType_>>
class ChunkDataReader {
 public:
  using ChunkType = ChunkType_;
  using BatchType = ChunkType_;
  using ExampleType = ExampleType_;
  virtual ~ChunkDataReader() = default;
  // The examples of chunk `chunk_index`.
  virtual ChunkType read_chunk(size_t chunk_index) = 0;
  virtual size_t chunk_count() = 0;
  // Called at the start of every epoch.
  virtual void reset() = 0;
};

class ChunkDatasetOptions {
 public:
  ChunkDatasetOptions() = delete;
  ChunkDatasetOptions(size_t preloader_count, size_t batch_size, size_t cache_size = 2048,
                      size_t cross_chunk_shuffle_count = 1)
      : preloader_count_(preloader_count), batch_size_(batch_size), cache_size_(cache_size),
        cross_chunk_shuffle_count_(cross_chunk_shuffle_count) {
    EMBER_CHECK(preloader_count > 0, "ChunkDatasetOptions: preloader_count must be positive");
    EMBER_CHECK(batch_size > 0, "ChunkDatasetOptions: batch_size must be positive");
    EMBER_CHECK(cache_size > 0, "ChunkDatasetOptions: cache_size must be positive");
    EMBER_CHECK(cache_size >= batch_size, "ChunkDatasetOptions: cache_size ", cache_size,
                " must not be less than batch_size ", batch_size);
    EMBER_CHECK(cross_chunk_shuffle_count > 0, "ChunkDatasetOptions: cross_chunk_shuffle_count must be positive");
  }
  EMBER_TORCH_ARG(size_t, preloader_count);
  EMBER_TORCH_ARG(size_t, batch_size);
  EMBER_TORCH_ARG(size_t, cache_size) = 2048;
  EMBER_TORCH_ARG(size_t, cross_chunk_shuffle_count) = 1;
};

template <class ChunkReader, class ChunkSampler = samplers::RandomSampler,
          class ExampleSampler = samplers::RandomSampler>
class ChunkDataset final
    : public StatefulDataset<ChunkDataset<ChunkReader, ChunkSampler, ExampleSampler>, typename ChunkReader::BatchType,
                             size_t> {
 public:
  using BatchType = std::optional<typename ChunkReader::BatchType>;
  using UnwrappedBatchType = typename ChunkReader::BatchType;
  using BatchRequestType = size_t;
  using ChunkSamplerType = ChunkSampler;
  using ExampleSamplerType = ExampleSampler;

  ChunkDataset(ChunkReader chunk_reader, ChunkSampler chunk_sampler, ExampleSampler example_sampler,
               ChunkDatasetOptions options,
               std::function<void(UnwrappedBatchType&)> preprocessing_policy = {})
      : chunk_reader_(std::move(chunk_reader)), chunk_sampler_(std::move(chunk_sampler)),
        example_sampler_(std::move(example_sampler)), options_(std::move(options)),
        preprocessing_policy_(std::move(preprocessing_policy)) {}
  ~ChunkDataset() override { stop(); }
  ChunkDataset(const ChunkDataset&) = delete;
  ChunkDataset& operator=(const ChunkDataset&) = delete;

  // The next batch; batch_size must be the options' (libtorch's check).
  BatchType get_batch(size_t batch_size) override {
    EMBER_CHECK(started_, "ChunkDataset: call reset() before get_batch()");
    EMBER_CHECK(batch_size == options_.batch_size(), "ChunkDataset: the requested batch size ", batch_size,
                " does not match the dataset's batch size ", options_.batch_size());
    std::unique_lock<std::mutex> lock(mutex_);
    // A full batch, or whatever is left once every preloader has finished;
    // a reader's error once the batches loaded before it are handed out.
    auto full = [&] { return batches_.size() > 1 || (batches_.size() == 1 && batches_.front().size() >= batch_size); };
    ready_.wait(lock, [&] { return full() || error_ || running_ == 0; });
    if (!full() && error_) {
      std::exception_ptr e = error_;
      error_ = nullptr;
      std::rethrow_exception(e);
    }
    if (batches_.empty()) return std::nullopt;
    UnwrappedBatchType batch = std::move(batches_.front());
    batches_.pop_front();
    queued_ -= batch.size();
    lock.unlock();
    space_.notify_all();
    return batch;
  }
  BatchType get_batch() { return get_batch(options_.batch_size()); }

  // A new epoch: the reader and the chunk sampler are reset (not after a
  // load: the loaded sampler's epoch goes on), the buffer emptied and the
  // preloaders started.
  void reset() override {
    stop();
    if (!load_checkpoint_) {
      chunk_reader_.reset();
      chunk_sampler_.reset(chunk_reader_.chunk_count());
    }
    load_checkpoint_ = false;
    batches_.clear();
    queued_ = 0;
    error_ = nullptr;
    quit_ = false;
    running_ = options_.preloader_count();
    for (size_t i = 0; i < options_.preloader_count(); ++i) threads_.emplace_back([this] { preload(); });
    started_ = true;
  }

  // Note [ChunkDataset checkpoints]: as libtorch's, save writes the chunk
  // sampler's state (its own archive keys: SequentialSampler's `index`,
  // RandomSampler's `index` and `indices`, ...) and load reads it; the next
  // reset() then keeps the loaded sampler, so the epoch resumes at the first
  // chunk no preloader had taken when it was saved (chunks already taken but
  // not yet handed out are not in the checkpoint, as in libtorch). A
  // SequentialSampler saves only its index, so the loading dataset's chunk
  // sampler must be built with the chunk count (SequentialSampler(n)), as
  // with libtorch; a RandomSampler saves its permutation too. Unlike
  // libtorch 1.13, whose reset() never clears its load_checkpoint_ flag (so
  // every later epoch there continues the exhausted sampler and is empty),
  // only the first reset after a load resumes; the ones after start new epochs.
  void save(serialize::OutputArchive& archive) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    chunk_sampler_.save(archive);
  }
  void load(serialize::InputArchive& archive) override {
    stop();  // no preloader may take chunks from the sampler being replaced
    std::lock_guard<std::mutex> lock(mutex_);
    chunk_sampler_.load(archive);
    load_checkpoint_ = true;
  }

  // libtorch's ChunkDataset has no size.
  std::optional<size_t> size() const override { return std::nullopt; }
  ChunkSamplerType& chunk_sampler() { return chunk_sampler_; }
  const ChunkDatasetOptions& options() const { return options_; }

 private:
  void preload() {
    while (true) {
      std::vector<size_t> chunks;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (quit_) break;
        auto next = chunk_sampler_.next(options_.cross_chunk_shuffle_count());
        if (!next || next->empty()) break;
        chunks = std::move(*next);
      }
      try {
        UnwrappedBatchType data;
        for (size_t c : chunks) {
          UnwrappedBatchType chunk = chunk_reader_.read_chunk(c);
          data.insert(data.end(), std::make_move_iterator(chunk.begin()), std::make_move_iterator(chunk.end()));
        }
        if (preprocessing_policy_) preprocessing_policy_(data);
        if (!add(std::move(data))) break;
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        error_ = std::current_exception();
        break;
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --running_;
    }
    ready_.notify_all();
  }

  // Cuts `data` into batches in the example sampler's order (the last batch
  // of the buffer is topped up first); false when the dataset is stopping.
  bool add(UnwrappedBatchType data) {
    std::unique_lock<std::mutex> lock(mutex_);
    space_.wait(lock, [&] { return quit_ || queued_ < options_.cache_size(); });
    if (quit_) return false;
    example_sampler_.reset(data.size());
    while (auto indices = example_sampler_.next(data.size())) {
      if (indices->empty()) break;
      for (size_t i : *indices) {
        EMBER_CHECK(i < data.size(), "ChunkDataset: the example sampler gave index ", i, " for a chunk of ",
                    data.size(), " examples");
        if (batches_.empty() || batches_.back().size() >= options_.batch_size()) batches_.emplace_back();
        batches_.back().push_back(std::move(data[i]));
        ++queued_;
      }
    }
    lock.unlock();
    ready_.notify_all();
    return true;
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    space_.notify_all();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    running_ = 0;
  }

  ChunkReader chunk_reader_;
  ChunkSampler chunk_sampler_;
  ExampleSampler example_sampler_;
  ChunkDatasetOptions options_;
  std::function<void(UnwrappedBatchType&)> preprocessing_policy_;

  mutable std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<UnwrappedBatchType> batches_;
  size_t queued_ = 0, running_ = 0;
  bool quit_ = false, started_ = false, load_checkpoint_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace torch::data::datasets
