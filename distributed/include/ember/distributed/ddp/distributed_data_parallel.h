#pragma once
// DistributedDataParallel: data-parallel training across the ranks of a
// process group (torch.nn.parallel.DistributedDataParallel, PyTorch 1.10
// semantics). It holds the module rather than wrapping its type: Ember's
// modules have no common virtual forward, so the forward pass runs inside
// ddp.forward(callable), which returns what the callable returns:
//
//   auto model = nn::Sequential(...);
//   distributed::DistributedDataParallel ddp(model, {.bucket_cap_mb = 25});
//   optim::SGD opt(model->parameters(), {.lr = 0.1});
//   for (auto& [x, y] : batches) {                      // this rank's share
//     Tensor loss = ddp.forward([&] { return nn::functional::mse_loss(model(x), y); });
//     opt.zero_grad();
//     loss.backward();                                  // gradients averaged over ranks
//     opt.step();
//   }
//
// Construction broadcasts rank 0's parameters and buffers (every rank must
// construct it, with the same model); each synchronized forward pass
// broadcasts rank 0's buffers first when broadcast_buffers. The backward pass
// all-reduces the gradients in buckets while it runs (Note [The reducer] in
// reducer.cpp). docs/distributed.md, "DDP in C++", walks through it.
#include <cstddef>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <ember/distributed/ddp/comm_future.h>
#include <ember/distributed/ddp/grad_bucket.h>
#include <ember/distributed/ddp/join.h>
#include <ember/distributed/ddp/reducer.h>
#include <ember/distributed/process_group.h>
#include <ember/nn/module.h>

namespace ember::distributed {

struct DistributedDataParallelOptions {
  // The group to synchronize over; null: the default group.
  std::shared_ptr<ProcessGroup> process_group = nullptr;
  // Bucket size in MiB (the first bucket holds min(1 MiB, this), as PyTorch's
  // small first bucket).
  double bucket_cap_mb = 25;
  // Walk the graph from the forward pass's outputs each iteration and treat
  // the parameters it does not reach as ready (with no gradient).
  bool find_unused_parameters = false;
  // Broadcast rank 0's buffers before each synchronized forward pass.
  bool broadcast_buffers = true;
  // Parameters' .grad are views into the buckets' flat buffers (no copies;
  // zero_grad(set_to_none = false) keeps them views).
  bool gradient_as_bucket_view = false;
  // The graph is the same every iteration: the unused parameters found in the
  // first iteration stay unused; buckets are rebuilt even with
  // find_unused_parameters.
  bool static_graph = false;
};

// A communication hook: reduces bucket's gradients over the group, returning
// the future of the averaged buffer (ddp_comm_hooks.h has the built-ins).
template <class State>
using CommHook = std::function<std::shared_ptr<CommFuture>(const std::shared_ptr<State>& state, GradBucket& bucket)>;

namespace detail {
// The tensors a forward pass returned (for find_unused_parameters' walk).
template <class T>
void collect_output_tensors(const T&, std::vector<Tensor>&) {}
inline void collect_output_tensors(const Tensor& t, std::vector<Tensor>& out) { out.push_back(t); }
inline void collect_output_tensors(const std::vector<Tensor>& ts, std::vector<Tensor>& out) {
  out.insert(out.end(), ts.begin(), ts.end());
}
template <class A, class B>
void collect_output_tensors(const std::pair<A, B>& p, std::vector<Tensor>& out);
template <class... T>
void collect_output_tensors(const std::tuple<T...>& t, std::vector<Tensor>& out) {
  std::apply([&](const auto&... e) { (collect_output_tensors(e, out), ...); }, t);
}
template <class A, class B>
void collect_output_tensors(const std::pair<A, B>& p, std::vector<Tensor>& out) {
  collect_output_tensors(p.first, out);
  collect_output_tensors(p.second, out);
}
}  // namespace detail

class DistributedDataParallel : public Joinable {
 public:
  // Every rank constructs it with the same model (ember::Error naming the
  // rank and the parameter when the ranks' parameters differ in number,
  // shape or dtype; and when no parameter requires a gradient).
  DistributedDataParallel(std::shared_ptr<nn::Module> module, DistributedDataParallelOptions options = {});
  ~DistributedDataParallel() override;
  DistributedDataParallel(const DistributedDataParallel&) = delete;
  DistributedDataParallel& operator=(const DistributedDataParallel&) = delete;

  // Runs the forward pass fn() (which uses the module) as a DDP forward pass
  // and returns its result: Tensors, vectors, pairs and tuples of them are
  // the outputs find_unused_parameters walks from.
  template <class Fn>
  std::invoke_result_t<Fn> forward(Fn&& fn) {
    pre_forward();
    auto output = std::forward<Fn>(fn)();
    std::vector<Tensor> tensors;
    detail::collect_output_tensors(output, tensors);
    post_forward(tensors);
    return output;
  }

  // Whether the buckets were rebuilt in gradient-arrival order (at the
  // second iteration's forward pass; torch's _has_rebuilt_buckets).
  bool has_rebuilt_buckets() const;

  nn::Module& module() const { return *module_; }
  const std::shared_ptr<nn::Module>& module_ptr() const { return module_; }
  const std::shared_ptr<ProcessGroup>& process_group() const { return process_group_; }
  const DistributedDataParallelOptions& options() const { return options_; }

  // no_sync(): while the guard lives, forward passes run without gradient
  // synchronization (gradients accumulate locally); the first forward pass
  // after it synchronizes the accumulated gradients.
  class NoSyncGuard {
   public:
    explicit NoSyncGuard(DistributedDataParallel& ddp) : ddp_(&ddp), previous_(ddp.require_backward_grad_sync_) {
      ddp.require_backward_grad_sync_ = false;
    }
    ~NoSyncGuard() {
      if (ddp_) ddp_->require_backward_grad_sync_ = previous_;
    }
    NoSyncGuard(NoSyncGuard&& other) noexcept : ddp_(other.ddp_), previous_(other.previous_) { other.ddp_ = nullptr; }
    NoSyncGuard(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(NoSyncGuard&&) = delete;

   private:
    DistributedDataParallel* ddp_;
    bool previous_;
  };
  [[nodiscard]] NoSyncGuard no_sync() { return NoSyncGuard(*this); }

  // Replaces the default reduction (all_reduce of the gradients divided by
  // the group size) by hook(state, bucket) for every bucket; once, before
  // the first forward pass. The hook averages itself.
  template <class State>
  void register_comm_hook(std::shared_ptr<State> state, std::type_identity_t<CommHook<State>> hook) {
    EMBER_CHECK(static_cast<bool>(hook), "DistributedDataParallel::register_comm_hook: the hook is empty");
    reducer_->register_comm_hook(
        [state = std::move(state), hook = std::move(hook)](GradBucket& bucket) { return hook(state, bucket); });
  }
  // The built-in hooks whose state is a process group (null: this DDP's).
  void register_comm_hook(std::nullptr_t, CommHook<ProcessGroup> hook) {
    register_comm_hook(std::shared_ptr<ProcessGroup>(), std::move(hook));
  }

  // Parameter indices (into the parameters that require grad, in
  // registration order) per bucket, in launch order.
  const std::vector<std::vector<size_t>>& bucket_indices() const { return reducer_->bucket_indices(); }
  // Names of the parameters that require grad, in registration order.
  const std::vector<std::string>& parameter_names() const { return reducer_->parameter_names(); }

  // Joinable (join.h).
  void join_main_hook() override;
  void join_post_hook(bool is_last_joiner) override;
  std::shared_ptr<ProcessGroup> join_process_group() const override { return process_group_; }

 private:
  void pre_forward();
  void post_forward(const std::vector<Tensor>& outputs);
  void verify_parameters_across_ranks(const std::vector<Tensor>& params, const std::vector<std::string>& names);
  void broadcast_tensors(const std::vector<Tensor>& tensors, int64_t root);
  // The highest rank that passes participates (join: the authoritative rank).
  int64_t find_common_rank(bool participates);
  // Join: whether the training ranks synchronize this iteration's gradients.
  bool global_requires_backward_grad_sync(bool local);

  std::shared_ptr<nn::Module> module_;
  DistributedDataParallelOptions options_;
  std::shared_ptr<ProcessGroup> process_group_;
  std::vector<Tensor> buffers_;
  std::vector<Tensor> parameters_;  // all of them, for the final sync after join
  std::unique_ptr<Reducer> reducer_;
  bool require_backward_grad_sync_ = true;
  bool sync_this_backward_ = false;
};

}  // namespace ember::distributed
