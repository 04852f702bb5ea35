#include <ember/distributed/ddp/distributed_data_parallel.h>

#include <algorithm>

#include <ember/autograd/grad_mode.h>
#include <ember/core/error.h>
#include <ember/distributed/ddp/bucket_assignment.h>
#include <ember/distributed/init.h>
#include <ember/ops/factories.h>

#include "coalesced_broadcast.h"

namespace ember::distributed {

namespace {

std::vector<int64_t> gather_int64(ProcessGroup& group, const std::vector<int64_t>& values) {
  Tensor input = tensor(values, TensorOptions(kInt64));
  std::vector<Tensor> outputs;
  for (int64_t r = 0; r < group.size(); ++r) outputs.push_back(zeros({static_cast<int64_t>(values.size())}, kInt64));
  group.all_gather(outputs, input)->wait();
  std::vector<int64_t> all;
  for (const Tensor& t : outputs) {
    const int64_t* p = t.data_ptr<int64_t>();
    all.insert(all.end(), p, p + t.numel());
  }
  return all;
}

std::string describe(const int64_t* meta) {  // [dtype, ndim, sizes...]
  std::string s = "[";
  for (int64_t d = 0; d < meta[1]; ++d) s += (d ? ", " : "") + std::to_string(meta[2 + d]);
  return s + "] (" + std::string(dtype_name(static_cast<DType>(meta[0]))) + ")";
}

}  // namespace

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<nn::Module> module,
                                                 DistributedDataParallelOptions options)
    : module_(std::move(module)), options_(std::move(options)) {
  EMBER_CHECK(module_ != nullptr, "DistributedDataParallel: the module is null");
  EMBER_CHECK(options_.bucket_cap_mb > 0, "DistributedDataParallel: bucket_cap_mb must be positive, got ",
              options_.bucket_cap_mb);
  std::vector<Tensor> params;
  std::vector<std::string> names;
  for (const auto& [name, p] : module_->named_parameters()) {
    parameters_.push_back(p);
    if (!p.requires_grad()) continue;
    params.push_back(p);
    names.push_back(name);
  }
  EMBER_CHECK(!params.empty(), "DistributedDataParallel is not needed when a module doesn't have any parameter that "
              "requires a gradient (module ", module_->name(), ")");
  for (const auto& [name, b] : module_->named_buffers()) buffers_.push_back(b);
  process_group_ = options_.process_group ? options_.process_group : default_process_group();
  verify_parameters_across_ranks(params, names);
  broadcast_tensors(parameters_, 0);
  broadcast_tensors(buffers_, 0);
  const auto bucket_bytes = static_cast<int64_t>(options_.bucket_cap_mb * 1024 * 1024);
  reducer_ = std::make_unique<Reducer>(std::move(params), std::move(names), process_group_,
                                       ReducerOptions{.first_bucket_bytes = std::min(kDefaultFirstBucketBytes,
                                                                                     std::max<int64_t>(bucket_bytes, 1)),
                                                      .bucket_bytes = std::max<int64_t>(bucket_bytes, 1),
                                                      .find_unused_parameters = options_.find_unused_parameters,
                                                      .gradient_as_bucket_view = options_.gradient_as_bucket_view,
                                                      .static_graph = options_.static_graph});
}

DistributedDataParallel::~DistributedDataParallel() = default;

void DistributedDataParallel::verify_parameters_across_ranks(const std::vector<Tensor>& params,
                                                             const std::vector<std::string>& names) {
  ProcessGroup& group = *process_group_;
  const std::vector<int64_t> counts = gather_int64(group, {static_cast<int64_t>(params.size())});
  for (int64_t r = 1; r < group.size(); ++r)
    EMBER_CHECK(counts[r] == counts[0], "DistributedDataParallel: rank ", r, " has ", counts[r],
                " parameters that require grad but rank 0 has ", counts[0], " (rank ", group.rank(),
                " has ", params.size(), "): every rank must build the same model");
  int64_t max_dim = 0;
  for (const Tensor& p : params) max_dim = std::max<int64_t>(max_dim, p.dim());
  Tensor dims = tensor(std::vector<int64_t>{max_dim}, TensorOptions(kInt64));
  group.all_reduce(dims, {.reduce_op = ReduceOp::MAX})->wait();
  const int64_t width = 2 + dims.item<int64_t>();
  std::vector<int64_t> meta(params.size() * width, -1);
  for (size_t i = 0; i < params.size(); ++i) {
    meta[i * width] = static_cast<int64_t>(params[i].dtype());
    meta[i * width + 1] = params[i].dim();
    for (int64_t d = 0; d < params[i].dim(); ++d) meta[i * width + 2 + d] = params[i].size(d);
  }
  const std::vector<int64_t> all = gather_int64(group, meta);
  const size_t per_rank = meta.size();
  for (int64_t r = 1; r < group.size(); ++r)
    for (size_t i = 0; i < params.size(); ++i) {
      const int64_t* mine = &all[r * per_rank + i * width];
      const int64_t* root = &all[i * width];
      EMBER_CHECK(std::equal(mine, mine + width, root), "DistributedDataParallel: parameter ", names[i], " (index ",
                  i, ") has shape ", describe(mine), " on rank ", r, " but ", describe(root),
                  " on rank 0: every rank must build the same model");
    }
}

void DistributedDataParallel::broadcast_tensors(const std::vector<Tensor>& tensors, int64_t root) {
  // PyTorch's broadcast bucket for module states (Note [Coalesced broadcasts]).
  constexpr size_t kBroadcastBucketBytes = size_t{250} << 20;
  detail::broadcast_coalesced(*process_group_, tensors, root, kBroadcastBucketBytes);
}

int64_t DistributedDataParallel::find_common_rank(bool participates) {
  Tensor rank = tensor(std::vector<int64_t>{participates ? process_group_->rank() : -1}, TensorOptions(kInt64));
  process_group_->all_reduce(rank, {.reduce_op = ReduceOp::MAX})->wait();
  const int64_t common = rank.item<int64_t>();
  EMBER_CHECK(common >= 0, "DistributedDataParallel: no rank could be the authoritative rank");
  return common;
}

bool DistributedDataParallel::global_requires_backward_grad_sync(bool local) {
  Tensor flag = tensor(std::vector<int64_t>{local ? 1 : 0}, TensorOptions(kInt64));
  process_group_->all_reduce(flag)->wait();
  return flag.item<int64_t>() > 0;
}

bool DistributedDataParallel::has_rebuilt_buckets() const { return reducer_->rebuilt(); }

void DistributedDataParallel::pre_forward() {
  sync_this_backward_ = is_grad_enabled() && require_backward_grad_sync_;
  if (sync_this_backward_) reducer_->prepare_for_forward();
  const JoinConfig& join = join_config();
  if (join.enabled) {
    const int64_t training = notify_join_context();
    reducer_->set_divide_factor(training > 0 && !join.divide_by_initial_world_size ? training
                                                                                    : process_group_->size());
  }
  if (reducer_->rebuild_due()) reducer_->rebuild_buckets();
  if (options_.broadcast_buffers && !buffers_.empty())
    broadcast_tensors(buffers_, join.enabled ? find_common_rank(true) : 0);
  if (join.enabled) global_requires_backward_grad_sync(sync_this_backward_);
}

void DistributedDataParallel::post_forward(const std::vector<Tensor>& outputs) {
  if (sync_this_backward_) reducer_->prepare_for_backward(outputs);
  else reducer_->skip_backward();
}

// Note [Join protocol] in join.cpp: the same collectives as pre_forward and
// the backward pass of a training rank.
void DistributedDataParallel::join_main_hook() {
  if (reducer_->rebuild_due()) reducer_->rebuild_buckets();
  if (options_.broadcast_buffers && !buffers_.empty()) broadcast_tensors(buffers_, find_common_rank(false));
  if (global_requires_backward_grad_sync(false)) reducer_->shadow_backward();
}

void DistributedDataParallel::join_post_hook(bool is_last_joiner) {
  // The ranks that joined early missed the last optimizer steps: take the
  // model of a rank that trained to the end.
  const int64_t root = find_common_rank(is_last_joiner);
  broadcast_tensors(parameters_, root);
  broadcast_tensors(buffers_, root);
  reducer_->set_divide_factor(process_group_->size());
}

}  // namespace ember::distributed
