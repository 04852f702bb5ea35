// SyncBatchNorm as a module (torch.nn.SyncBatchNorm.forward) and
// convert_sync_batchnorm. See ember/distributed/sync_batch_norm.h.
#include <ember/distributed/sync_batch_norm.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <ember/autograd/grad_mode.h>
#include <ember/distributed/init.h>
#include <ember/nn/functional/normalization.h>
#include <ember/nn/init.h>
#include <ember/ops/factories.h>

namespace ember::distributed {

namespace {

// The tensors and flags of a batch norm module, whichever class holds them.
struct BatchNormState {
  const nn::BatchNormOptions& options;
  bool training;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
};

// torch.nn.SyncBatchNorm.forward after its input checks.
Tensor synchronized_forward(const Tensor& input, const BatchNormState& m,
                            const std::shared_ptr<ProcessGroup>& configured_group) {
  const nn::BatchNormOptions& o = m.options;
  double factor = o.momentum.value_or(0.0);
  if (m.training && o.track_running_stats) {
    NoGradGuard no_grad;
    Tensor counter = m.num_batches_tracked;
    counter.add_(1);
    if (!o.momentum) factor = 1.0 / static_cast<double>(m.num_batches_tracked.item<int64_t>());
  }
  // Batch statistics in training, and in eval without running statistics.
  const bool bn_training = m.training || (!m.running_mean.defined() && !m.running_var.defined());
  const bool pass_stats = !m.training || o.track_running_stats;
  const Tensor running_mean = pass_stats ? m.running_mean : Tensor();
  const Tensor running_var = pass_stats ? m.running_var : Tensor();
  // Only training synchronizes (eval mode is plain batch norm, even without
  // running statistics), and only over more than one rank.
  if (bn_training && m.training) {
    std::shared_ptr<ProcessGroup> group = configured_group ? configured_group : default_process_group();
    if (group->size() > 1)
      return sync_batch_norm(input, m.weight, m.bias, running_mean, running_var, o.eps, factor, group);
  }
  return nn::functional::batch_norm(
      input, running_mean, running_var,
      {.weight = m.weight, .bias = m.bias, .training = bn_training, .momentum = factor, .eps = o.eps});
}

// Python's repr of a float: the shortest round-trip digits, "1e-05", "0.1", "1.0".
std::string py_float(double v) {
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  if (std::isfinite(v) && s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

const char* py_bool(bool b) { return b ? "True" : "False"; }

// Note [Converting batch norms in place]: PyTorch's convert_sync_batchnorm
// builds new SyncBatchNorm modules and assigns them to the parents'
// attributes. A C++ parent holds its children as typed members
// (nn::BatchNorm2d bn1, or an AnyModule bound to the object) that no
// registry swap can redirect, so Ember converts each BatchNorm1d/2d/3d
// object itself: its training-mode forward becomes SyncBatchNorm's
// (NormImpl::training_forward, called after the module's own input checks)
// and it is renamed "SyncBatchNorm". Its parameters, buffers, names, options,
// hooks and place in the tree are untouched, every holder of the object
// calls the synchronized forward, and eval mode stays the module's own (code
// that recognizes a BatchNorm2dImpl, such as ConvBnFoldCache, still does).
template <size_t D>
bool convert_if_batch_norm(nn::Module& module, const std::shared_ptr<ProcessGroup>& group) {
  using Impl = nn::NormImpl<nn::NormKind::Batch, D>;
  auto* bn = dynamic_cast<Impl*>(&module);
  if (bn == nullptr) return false;
  bn->training_forward = [bn, group](const Tensor& input) {
    return synchronized_forward(
        input, {bn->options, bn->is_training(), bn->weight, bn->bias, bn->running_mean, bn->running_var,
                bn->num_batches_tracked},
        group);
  };
  bn->set_name("SyncBatchNorm");
  return true;
}

template <size_t D>
bool is_converted_batch_norm(const nn::Module& module) {
  auto* bn = dynamic_cast<const nn::NormImpl<nn::NormKind::Batch, D>*>(&module);
  return bn != nullptr && bn->training_forward != nullptr && bn->name() == "SyncBatchNorm";
}

}  // namespace

SyncBatchNormImpl::SyncBatchNormImpl(const nn::BatchNormOptions& o, std::shared_ptr<ProcessGroup> group)
    : Module("SyncBatchNorm"), options(o), group_(std::move(group)) {
  EMBER_CHECK(o.num_features >= 0, "SyncBatchNorm: num_features must be non-negative, got ", o.num_features);
  if (o.affine) {
    register_parameter("weight", empty({o.num_features}), &weight);
    register_parameter("bias", empty({o.num_features}), &bias);
  }
  if (o.track_running_stats) {
    register_buffer("running_mean", zeros({o.num_features}), &running_mean);
    register_buffer("running_var", ones({o.num_features}), &running_var);
    register_buffer("num_batches_tracked", zeros({}, TensorOptions(kInt64)), &num_batches_tracked);
  }
  reset_parameters();
}

void SyncBatchNormImpl::reset_running_stats() {
  if (!options.track_running_stats) return;
  NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

void SyncBatchNormImpl::reset_parameters() {
  reset_running_stats();
  if (options.affine) {
    nn::init::ones_(weight);
    nn::init::zeros_(bias);
  }
}

Tensor SyncBatchNormImpl::forward(const Tensor& input) {
  const int64_t dim = input.defined() ? input.dim() : 0;
  EMBER_CHECK(dim >= 2, "SyncBatchNorm: expected at least 2D input (got ", dim, "D input)");
  EMBER_CHECK(input.size(1) != 0, "SyncBatchNorm: number of input channels should be non-zero");
  return synchronized_forward(
      input, {options, is_training(), weight, bias, running_mean, running_var, num_batches_tracked}, group_);
}

void SyncBatchNormImpl::pretty_print(std::ostream& os) const {
  os << "SyncBatchNorm(" << options.num_features << ", eps=" << py_float(options.eps)
     << ", momentum=" << (options.momentum ? py_float(*options.momentum) : std::string("None"))
     << ", affine=" << py_bool(options.affine) << ", track_running_stats=" << py_bool(options.track_running_stats)
     << ")";
}

std::shared_ptr<nn::Module> convert_sync_batchnorm(std::shared_ptr<nn::Module> module,
                                                   std::shared_ptr<ProcessGroup> group) {
  EMBER_CHECK(module != nullptr, "convert_sync_batchnorm: the module is null");
  for (const auto& m : module->modules())
    convert_if_batch_norm<1>(*m, group) || convert_if_batch_norm<2>(*m, group) || convert_if_batch_norm<3>(*m, group);
  return module;
}

bool is_sync_batchnorm(const nn::Module& module) {
  return dynamic_cast<const SyncBatchNormImpl*>(&module) != nullptr || is_converted_batch_norm<1>(module) ||
         is_converted_batch_norm<2>(module) || is_converted_batch_norm<3>(module);
}

}  // namespace ember::distributed
