#pragma once
// Reducer: DistributedDataParallel's gradient synchronization (c10d's
// Reducer). Note [The reducer] in reducer.cpp tells how a backward pass runs.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/distributed/ddp/comm_future.h>
#include <ember/distributed/ddp/grad_bucket.h>
#include <ember/distributed/process_group.h>

namespace ember::distributed {

// A communication hook with its state bound: reduces one bucket.
using BoundCommHook = std::function<std::shared_ptr<CommFuture>(GradBucket& bucket)>;

struct ReducerOptions {
  int64_t first_bucket_bytes = 1024 * 1024;
  int64_t bucket_bytes = 25 * 1024 * 1024;
  bool find_unused_parameters = false;
  bool gradient_as_bucket_view = false;
  bool static_graph = false;
};

class Reducer {
 public:
  // params: the parameters to synchronize (leaves that require grad), names
  // for messages; hooks go on every parameter.
  Reducer(std::vector<Tensor> params, std::vector<std::string> names, std::shared_ptr<ProcessGroup> process_group,
          ReducerOptions options);
  // Removes the parameters' hooks.
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  // Before a forward pass whose backward synchronizes: raises "Expected to
  // have finished reduction in the prior iteration..." (naming the
  // parameters that got no gradient) when the last backward pass did not
  // reduce every bucket.
  void prepare_for_forward();
  // After that forward pass: the next backward pass synchronizes.
  // find_unused_parameters (or static_graph's first iteration) walks the
  // graph from outputs to find the parameters it does not reach.
  void prepare_for_backward(const std::vector<Tensor>& outputs);
  // A forward pass whose backward does not synchronize (no_sync, no grad).
  void skip_backward();

  // Whether buckets are rebuilt now (once, after the first synchronized
  // backward pass, unless find_unused_parameters without static_graph): the
  // same on every rank at the same point.
  bool rebuild_due() const;
  // Rebuilds the buckets in the order rank 0's gradients arrived in its first
  // synchronized backward pass (a broadcast: every rank calls it).
  void rebuild_buckets();
  // Whether rebuild_buckets() ran (from the second iteration's forward pass).
  bool rebuilt() const { return rebuilt_; }

  // What the default reduction divides the summed gradients by (the group
  // size; Join sets the number of ranks that contribute).
  void set_divide_factor(int64_t factor);
  void register_comm_hook(BoundCommHook hook);
  bool has_comm_hook() const { return static_cast<bool>(comm_hook_); }

  // A joined rank's part of one backward pass of the others (Join): every
  // bucket's collectives run on zeros.
  void shadow_backward();

  // Parameter indices per bucket, in launch order.
  const std::vector<std::vector<size_t>>& bucket_indices() const { return bucket_indices_; }
  // Synchronized backward passes finished (shadowed ones included).
  int64_t synchronized_iterations() const { return synchronized_iterations_; }
  const std::vector<Tensor>& parameters() const { return params_; }
  const std::vector<std::string>& parameter_names() const { return names_; }

 private:
  struct Bucket {
    std::vector<size_t> variables;
    std::vector<int64_t> offsets;
    Tensor flat;
    size_t pending = 0;
    std::shared_ptr<CommFuture> future;
  };
  void initialize_buckets(const std::vector<std::vector<size_t>>& assignment);
  Tensor bucket_view(size_t variable) const;
  void autograd_hook(size_t variable);
  void mark_variable_ready(size_t variable);
  void launch_ready_buckets();
  std::shared_ptr<CommFuture> run_comm_hook(size_t bucket, const Tensor& flat);
  void finalize_backward();
  bool detects_unused() const;
  std::string unready_parameters() const;

  std::vector<Tensor> params_;
  std::vector<std::string> names_;
  std::shared_ptr<ProcessGroup> process_group_;
  ReducerOptions options_;
  std::vector<uint64_t> hook_handles_;
  BoundCommHook comm_hook_;
  int64_t divide_factor_;

  std::vector<std::vector<size_t>> bucket_indices_;
  std::vector<Bucket> buckets_;
  // variable -> (bucket, index in the bucket)
  std::vector<std::pair<size_t, size_t>> locator_;

  // Per iteration.
  bool expect_hooks_ = false;
  bool hooks_fired_ = false;
  bool unfinished_ = false;  // the last backward pass left buckets unreduced
  size_t next_bucket_ = 0;
  std::vector<char> ready_;
  std::vector<char> locally_used_;
  std::vector<size_t> unused_;  // found by the graph walk
  bool static_unused_known_ = false;

  // Bucket rebuilding.
  bool rebuilt_ = false;
  std::vector<size_t> arrival_order_;
  int64_t synchronized_iterations_ = 0;
};

}  // namespace ember::distributed
