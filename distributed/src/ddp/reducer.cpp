// Note [The reducer]
// One synchronized iteration (c10d's Reducer, PyTorch 1.10):
//  - prepare_for_backward (after the forward pass) resets the buckets'
//    pending counts; with find_unused_parameters it walks the autograd graph
//    from the outputs and lists the parameters it does not reach.
//  - Every parameter has a post-accumulate-grad hook. The first one to run in
//    the backward pass queues finalize_backward at the end of the pass
//    (autograd::queue_callback) and marks the unused parameters ready. A
//    ready parameter's .grad is copied into its slice of its bucket's flat
//    buffer (divided by the group size unless a comm hook reduces); when a
//    bucket's last parameter is ready, it and every ready bucket after it are
//    launched in order (an async all_reduce, or the comm hook), so the
//    communication of the late layers overlaps the backward pass of the early
//    ones. Buckets hold parameters in reverse registration order, roughly the
//    order the backward pass produces their gradients.
//  - finalize_backward waits for the buckets in order and writes each slice
//    back into its parameter's .grad (with gradient_as_bucket_view, .grad is
//    the slice itself, so nothing is copied). A parameter no rank used keeps
//    its .grad as it was.
//  - A backward pass that leaves a bucket unlaunched (a parameter got no
//    gradient, find_unused_parameters off) cannot reduce; the next forward
//    pass raises PyTorch's "Expected to have finished reduction..." naming
//    those parameters.
// After the first synchronized iteration the buckets are rebuilt in the order
// rank 0's gradients arrived (broadcast, so every rank buckets alike).
#include <ember/distributed/ddp/reducer.h>

#include <algorithm>
#include <sstream>
#include <unordered_set>

#include <ember/autograd/engine_callbacks.h>
#include <ember/autograd/grad_mode.h>
#include <ember/autograd/node.h>
#include <ember/core/error.h>
#include <ember/distributed/ddp/bucket_assignment.h>
#include <ember/ops/factories.h>

namespace ember::distributed {

namespace {

bool is_alias(const Tensor& a, const Tensor& b) {
  return a.defined() && b.defined() && a.data_ptr() == b.data_ptr() && a.dtype() == b.dtype() &&
         a.sizes() == b.sizes() && a.strides() == b.strides();
}

std::vector<size_t> reverse_registration_order(size_t n) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = n - 1 - i;
  return order;
}

}  // namespace

Reducer::Reducer(std::vector<Tensor> params, std::vector<std::string> names,
                 std::shared_ptr<ProcessGroup> process_group, ReducerOptions options)
    : params_(std::move(params)),
      names_(std::move(names)),
      process_group_(std::move(process_group)),
      options_(options) {
  EMBER_CHECK(process_group_ != nullptr, "DistributedDataParallel: the process group is null");
  EMBER_CHECK(!params_.empty(), "DistributedDataParallel: no parameter requires a gradient");
  EMBER_CHECK(names_.size() == params_.size(), "Reducer: ", params_.size(), " parameters but ", names_.size(),
              " names");
  for (size_t i = 0; i < params_.size(); ++i)
    EMBER_CHECK(params_[i].is_leaf() && params_[i].requires_grad() && is_floating_point(params_[i].dtype()),
                "DistributedDataParallel: parameter ", names_[i], " (index ", i,
                ") must be a floating-point leaf that requires grad");
  divide_factor_ = process_group_->size();
  initialize_buckets(compute_bucket_assignment_by_size(params_, reverse_registration_order(params_.size()),
                                                       options_.first_bucket_bytes, options_.bucket_bytes));
  for (size_t i = 0; i < params_.size(); ++i)
    hook_handles_.push_back(params_[i].register_post_accumulate_grad_hook([this, i](Tensor&) { autograd_hook(i); }));
}

Reducer::~Reducer() {
  for (size_t i = 0; i < hook_handles_.size(); ++i) params_[i].remove_hook(hook_handles_[i]);
}

void Reducer::initialize_buckets(const std::vector<std::vector<size_t>>& assignment) {
  bucket_indices_ = assignment;
  buckets_.clear();
  locator_.assign(params_.size(), {0, 0});
  NoGradGuard no_grad;
  for (size_t b = 0; b < assignment.size(); ++b) {
    Bucket bucket;
    int64_t offset = 0;
    for (size_t k = 0; k < assignment[b].size(); ++k) {
      const size_t v = assignment[b][k];
      bucket.variables.push_back(v);
      bucket.offsets.push_back(offset);
      locator_[v] = {b, k};
      offset += params_[v].numel();
    }
    bucket.flat = zeros({offset}, TensorOptions(params_[assignment[b].front()].dtype()));
    buckets_.push_back(std::move(bucket));
  }
  // gradient_as_bucket_view: existing gradients move into the new buffers.
  if (options_.gradient_as_bucket_view)
    for (size_t v = 0; v < params_.size(); ++v) {
      Tensor& grad = params_[v].mutable_grad();
      if (!grad.defined()) continue;
      Tensor view = bucket_view(v);
      view.copy_(grad);
      grad = view;
    }
}

Tensor Reducer::bucket_view(size_t variable) const {
  const auto [b, k] = locator_[variable];
  return buckets_[b].flat.narrow(0, buckets_[b].offsets[k], params_[variable].numel()).view(params_[variable].sizes());
}

bool Reducer::detects_unused() const { return options_.find_unused_parameters && !options_.static_graph; }

std::string Reducer::unready_parameters() const {
  std::ostringstream indices, names;
  bool first = true;
  for (size_t v = 0; v < params_.size(); ++v) {
    if (ready_[v]) continue;
    indices << (first ? "" : " ") << v;
    names << (first ? "" : ", ") << names_[v];
    first = false;
  }
  const int64_t rank = process_group_->rank();
  return "Parameter indices which did not receive grad for rank " + std::to_string(rank) + ": " + indices.str() +
         "\nParameters which did not receive grad for rank " + std::to_string(rank) + ": " + names.str();
}

void Reducer::prepare_for_forward() {
  EMBER_CHECK(!unfinished_,
              "Expected to have finished reduction in the prior iteration before starting a new one. This error "
              "indicates that your module has parameters that were not used in producing loss. You can enable unused "
              "parameter detection by passing find_unused_parameters = true to DistributedDataParallel, and by making "
              "sure all outputs of the forward pass participate in calculating loss. If you already have done the "
              "above, then the distributed data parallel module wasn't able to locate the output tensors in the "
              "return value of the forward pass (DistributedDataParallel::forward's callable must return them).\n",
              unready_parameters());
}

void Reducer::prepare_for_backward(const std::vector<Tensor>& outputs) {
  expect_hooks_ = true;
  hooks_fired_ = false;
  next_bucket_ = 0;
  ready_.assign(params_.size(), 0);
  locally_used_.assign(params_.size(), 0);
  for (Bucket& bucket : buckets_) {
    bucket.pending = bucket.variables.size();
    bucket.future = nullptr;
  }
  const bool walk = detects_unused() || (options_.static_graph && !static_unused_known_);
  if (!walk) return;
  // The nodes the outputs reach; a parameter is used when its accumulator is one.
  std::unordered_set<const autograd::Node*> seen;
  std::vector<std::shared_ptr<autograd::Node>> stack;
  for (const Tensor& out : outputs)
    if (out.defined() && out.requires_grad())
      if (autograd::Edge e = autograd::gradient_edge(out); e.is_valid()) stack.push_back(e.function);
  while (!stack.empty()) {
    std::shared_ptr<autograd::Node> node = std::move(stack.back());
    stack.pop_back();
    if (!seen.insert(node.get()).second) continue;
    for (const autograd::Edge& e : node->next_edges())
      if (e.is_valid() && !seen.count(e.function.get())) stack.push_back(e.function);
  }
  unused_.clear();
  for (size_t v = 0; v < params_.size(); ++v)
    if (!seen.count(autograd::gradient_edge(params_[v]).function.get())) unused_.push_back(v);
  if (options_.static_graph) static_unused_known_ = true;
}

void Reducer::skip_backward() { expect_hooks_ = false; }

void Reducer::autograd_hook(size_t variable) {
  if (!expect_hooks_) return;  // no_sync, or a second backward pass of one forward
  if (!hooks_fired_) {
    hooks_fired_ = true;
    autograd::queue_callback([this] { finalize_backward(); });
    for (size_t u : unused_)
      if (!ready_[u]) mark_variable_ready(u);
  }
  EMBER_CHECK(!ready_[variable], "DistributedDataParallel: Expected to mark a variable ready only once. Parameter ",
              names_[variable], " (index ", variable, ") on rank ", process_group_->rank(),
              " got its gradient twice in one iteration, or was listed as unused (static_graph: the graph changed, "
              "or find_unused_parameters missed it)");
  locally_used_[variable] = 1;
  if (synchronized_iterations_ == 0) arrival_order_.push_back(variable);
  mark_variable_ready(variable);
}

void Reducer::mark_variable_ready(size_t variable) {
  ready_[variable] = 1;
  NoGradGuard no_grad;
  Tensor view = bucket_view(variable);
  Tensor& grad = params_[variable].mutable_grad();
  if (grad.defined()) {
    if (!is_alias(grad, view)) {
      view.copy_(grad);
      if (options_.gradient_as_bucket_view) grad = view;
    }
    if (!comm_hook_) view.div_(divide_factor_);
  } else {
    view.zero_();
  }
  Bucket& bucket = buckets_[locator_[variable].first];
  if (--bucket.pending == 0) launch_ready_buckets();
}

void Reducer::launch_ready_buckets() {
  while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0) {
    buckets_[next_bucket_].future = run_comm_hook(next_bucket_, buckets_[next_bucket_].flat);
    ++next_bucket_;
  }
}

std::shared_ptr<CommFuture> Reducer::run_comm_hook(size_t b, const Tensor& flat) {
  if (!comm_hook_) {
    Tensor buffer = flat;
    return CommFuture::from_work(process_group_->all_reduce(buffer));
  }
  std::vector<Tensor> params;
  for (size_t v : buckets_[b].variables) params.push_back(params_[v]);
  GradBucket bucket(static_cast<int64_t>(b), b + 1 == buckets_.size(), flat, std::move(params), buckets_[b].offsets,
                    process_group_);
  std::shared_ptr<CommFuture> future = comm_hook_(bucket);
  EMBER_CHECK(future != nullptr, "DistributedDataParallel: the communication hook returned no future for bucket ", b);
  return future;
}

void Reducer::finalize_backward() {
  expect_hooks_ = false;
  if (next_bucket_ < buckets_.size()) {
    // Some parameter got no gradient: the remaining buckets cannot be
    // reduced. Let the launched ones finish; the next forward pass raises.
    unfinished_ = true;
    for (size_t b = 0; b < next_bucket_; ++b) buckets_[b].future->wait();
    return;
  }
  Tensor global_used;
  std::shared_ptr<Work> used_work;
  if (detects_unused()) {
    std::vector<int64_t> used(locally_used_.begin(), locally_used_.end());
    global_used = tensor(used, TensorOptions(kInt64));
    used_work = process_group_->all_reduce(global_used);
  }
  NoGradGuard no_grad;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    Bucket& bucket = buckets_[b];
    Tensor result = bucket.future->wait();
    bucket.future = nullptr;
    if (!is_alias(result, bucket.flat)) {
      EMBER_CHECK(result.defined() && result.numel() == bucket.flat.numel(), "DistributedDataParallel: the "
                  "communication hook's result for bucket ", b, " has ", result.defined() ? result.numel() : 0,
                  " elements, expected ", bucket.flat.numel());
      bucket.flat.copy_(result.reshape({-1}));
    }
  }
  if (used_work) used_work->wait();
  std::vector<char> skip(params_.size(), 0);
  if (global_used.defined()) {
    const int64_t* used = global_used.data_ptr<int64_t>();
    for (size_t v = 0; v < params_.size(); ++v) skip[v] = used[v] == 0;
  } else if (options_.static_graph) {
    for (size_t u : unused_) skip[u] = 1;
  }
  for (size_t v = 0; v < params_.size(); ++v) {
    if (skip[v]) continue;  // no rank used it: its .grad stays as it was
    Tensor view = bucket_view(v);
    Tensor& grad = params_[v].mutable_grad();
    if (options_.gradient_as_bucket_view) {
      if (!is_alias(grad, view)) grad = view;
    } else if (grad.defined()) {
      grad.copy_(view);
    } else {
      grad = view.clone();
    }
  }
  ++synchronized_iterations_;
}

bool Reducer::rebuild_due() const {
  return !rebuilt_ && synchronized_iterations_ >= 1 && (options_.static_graph || !options_.find_unused_parameters);
}

void Reducer::rebuild_buckets() {
  EMBER_CHECK(rebuild_due(), "Reducer::rebuild_buckets: the buckets are rebuilt once, after the first iteration");
  std::vector<int64_t> order;
  std::vector<char> listed(params_.size(), 0);
  for (size_t v : arrival_order_)
    if (!listed[v]) {
      listed[v] = 1;
      order.push_back(static_cast<int64_t>(v));
    }
  for (size_t v : reverse_registration_order(params_.size()))
    if (!listed[v]) order.push_back(static_cast<int64_t>(v));
  Tensor shared = tensor(order, TensorOptions(kInt64));
  process_group_->broadcast(shared, {.root_rank = 0})->wait();
  const int64_t* got = shared.data_ptr<int64_t>();
  std::vector<size_t> rank0_order(got, got + params_.size());
  initialize_buckets(compute_bucket_assignment_by_size(params_, rank0_order, options_.first_bucket_bytes,
                                                       options_.bucket_bytes));
  rebuilt_ = true;
  arrival_order_.clear();
}

void Reducer::set_divide_factor(int64_t factor) {
  EMBER_CHECK(factor > 0, "DistributedDataParallel: the gradient divide factor must be positive, got ", factor);
  divide_factor_ = factor;
}

void Reducer::register_comm_hook(BoundCommHook hook) {
  EMBER_CHECK(static_cast<bool>(hook), "DistributedDataParallel::register_comm_hook: the hook is empty");
  EMBER_CHECK(!comm_hook_, "DistributedDataParallel::register_comm_hook: a communication hook is registered "
              "already (register_comm_hook may only be called once)");
  EMBER_CHECK(synchronized_iterations_ == 0 && !expect_hooks_, "DistributedDataParallel::register_comm_hook: "
              "register the hook before the first forward pass");
  comm_hook_ = std::move(hook);
}

void Reducer::shadow_backward() {
  std::vector<std::shared_ptr<CommFuture>> futures;
  for (size_t b = 0; b < buckets_.size(); ++b) futures.push_back(run_comm_hook(b, zeros_like(buckets_[b].flat)));
  std::shared_ptr<Work> used_work;
  if (detects_unused()) {
    Tensor unused = zeros({static_cast<int64_t>(params_.size())}, TensorOptions(kInt64));
    used_work = process_group_->all_reduce(unused);
  }
  for (auto& future : futures) future->wait();
  if (used_work) used_work->wait();
  ++synchronized_iterations_;
}

}  // namespace ember::distributed
