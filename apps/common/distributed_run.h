#pragma once
// An app's view of a data-parallel run: when ember-run launched the process
// (RANK, WORLD_SIZE, MASTER_ADDR, ... and TORCHELASTIC_RUN_ID in the
// environment), from_environment() joins the Gloo process group; otherwise the
// run is a single process and every call here is a no-op. Apps keep one code
// path: rank-0-only output goes through is_main(), counters are summed across
// ranks with sum().
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/nn/module.h>

namespace ember::apps {

class DistributedRun {
 public:
  // Joins the default process group (env://) when launched by ember-run.
  static DistributedRun from_environment();
  DistributedRun() = default;
  ~DistributedRun();
  DistributedRun(DistributedRun&& other) noexcept;  // the moved-from run no longer owns the group
  DistributedRun& operator=(DistributedRun&&) = delete;
  DistributedRun(const DistributedRun&) = delete;

  bool launched() const { return launched_; }  // under ember-run (any world size, 1 included)
  int64_t rank() const { return rank_; }
  int64_t world_size() const { return world_size_; }
  bool is_main() const { return rank_ == 0; }
  // ember-run's RESTART_COUNT: > 0 after the group was restarted.
  int64_t restart_count() const { return restart_count_; }

  // Wraps the model for data-parallel training when launched: its batch norms
  // become SyncBatchNorm (with more than one rank: the statistics of the global
  // batch, as one process would compute them) and DistributedDataParallel
  // averages the gradients. Call once, after the model is built.
  void wrap(const std::shared_ptr<nn::Module>& model);
  // Runs a training forward pass: through DistributedDataParallel when wrapped, else fn().
  Tensor forward(const std::function<Tensor()>& fn);

  void barrier() const;
  // Sums the values over the ranks (float64 all_reduce); unchanged when not launched.
  std::vector<double> sum(std::vector<double> values) const;

  // Fault injection for the tests: EMBER_TRAIN_KILL="RANK:EPOCH" makes rank
  // RANK kill itself (SIGKILL) after its first step of 1-based epoch EPOCH, in
  // the first round only (RESTART_COUNT 0).
  void maybe_inject_fault(int64_t epoch) const;

 private:
  std::shared_ptr<void> ddp_;  // distributed::DistributedDataParallel, kept opaque
  bool launched_ = false;
  int64_t rank_ = 0, world_size_ = 1, restart_count_ = 0;
};

}  // namespace ember::apps
