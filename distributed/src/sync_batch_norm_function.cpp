// distributed::sync_batch_norm: the training-mode SyncBatchNorm with its
// backward, as torch/nn/modules/_functions.py's SyncBatchNorm (PyTorch 1.13)
// and the kernels it calls (batch_norm_stats,
// batch_norm_gather_stats_with_counts, batch_norm_elemt,
// batch_norm_backward_reduce, batch_norm_backward_elemt), written with
// Tensor ops so that any floating dtype and device runs them.
#include <ember/distributed/sync_batch_norm.h>

#include <ember/autograd/function.h>
#include <ember/autograd/grad_mode.h>
#include <ember/ops/elementwise.h>
#include <ember/ops/factories.h>
#include <ember/ops/shape.h>

#include "backward_groups.h"

namespace ember::distributed {

namespace {

constexpr const char* kWho = "SyncBatchNorm";

// Every dim but the channels (1).
std::vector<int64_t> reduce_dims(const Tensor& x) {
  std::vector<int64_t> dims = {0};
  for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
  return dims;
}

// A [C] tensor shaped to broadcast against x [N, C, ...].
Tensor per_channel(const Tensor& v, const Tensor& x) {
  std::vector<int64_t> shape(static_cast<size_t>(x.dim()), 1);
  shape[1] = v.numel();
  return v.reshape(IntArrayRef(shape));
}

// Note [Global batch statistics]: each rank sends (mean, invstd, count) of
// its own batch; ranks with count 0 (empty batches) are left out, as torch's
// mask. With var_j = 1 / invstd_j^2 - eps the biased variance of rank j,
// the batch of all N = sum(n_j) values has
//   mean = sum(n_j mean_j) / N,
//   var  = sum(n_j (var_j + (mean_j - mean)^2)) / N       (Chan et al.'s parallel formula,
// the closed form of the kernel's Welford merge), computed in float64. The
// running variance gets var * N / (N - 1), the unbiased one.
struct GlobalStats {
  Tensor mean;         // [C], float64
  Tensor var_biased;   // [C], float64
  double count = 0;    // N
};

GlobalStats combine(const Tensor& gathered, int64_t channels, double eps) {
  Tensor all = gathered.to(kFloat64);
  Tensor means = all.narrow(1, 0, channels);
  Tensor invstds = all.narrow(1, channels, channels);
  Tensor counts = all.narrow(1, 2 * channels, 1);  // [W, 1]
  Tensor present = counts.ge(1);
  Tensor zero = zeros({}, TensorOptions(kFloat64));
  Tensor vars = where(present, invstds.pow(-2).sub(eps), zero);
  means = where(present, means, zero);
  counts = where(present, counts, zero);
  GlobalStats s;
  s.count = counts.sum().item<double>();
  if (s.count <= 0) return s;
  s.mean = means.mul(counts).sum({0}).div(s.count);
  s.var_biased = counts.mul(vars.add(means.sub(s.mean).pow(2))).sum({0}).div(s.count);
  return s;
}

// torch's Function SyncBatchNorm, whose node PyTorch shows as SyncBatchNormBackward.
struct SyncBatchNormBackward : autograd::Function<SyncBatchNormBackward> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const Tensor& running_mean, const Tensor& running_var, double eps, double average_factor,
                        int64_t group_handle) {
    std::shared_ptr<ProcessGroup> group = detail::group_from_handle(group_handle, kWho);
    const int64_t channels = input.size(1);
    const int64_t world = group->size();
    const TensorOptions opts = TensorOptions(input.dtype()).device(input.device());
    // This rank's (mean, invstd, count): torch's batch_norm_stats.
    Tensor local;
    if (input.numel() > 0) {
      const std::vector<int64_t> dims = reduce_dims(input);
      Tensor mean = input.mean(IntArrayRef(dims));
      Tensor var = input.sub(per_channel(mean, input)).pow(2).mean(IntArrayRef(dims));
      Tensor invstd = var.add(eps).rsqrt();
      local = cat({mean, invstd, full({1}, static_cast<double>(input.numel() / channels), opts)});
    } else {
      local = zeros({2 * channels + 1}, opts);  // takes part in the collective, counted out
    }
    Tensor gathered = empty({world * (2 * channels + 1)}, opts);
    group->all_gather_into_tensor(gathered, local)->wait();
    const GlobalStats s = combine(gathered.view({world, 2 * channels + 1}), channels, eps);
    EMBER_CHECK(s.count > 1, kWho, ": expected more than 1 value per channel when training, got ", s.count,
                " over the ", world, " ranks (this rank's input has shape ", input.sizes(), ")");
    if (Tensor rm = running_mean; rm.defined()) rm.mul_(1 - average_factor).add_(s.mean.mul(average_factor).to(rm.dtype()));
    if (Tensor rv = running_var; rv.defined()) {
      Tensor unbiased = s.var_biased.mul(s.count / (s.count - 1));
      rv.mul_(1 - average_factor).add_(unbiased.mul(average_factor).to(rv.dtype()));
    }
    Tensor mean = s.mean.to(input.dtype());
    Tensor invstd = s.var_biased.add(eps).rsqrt().to(input.dtype());
    ctx->save_for_backward({input, weight, mean, invstd});
    ctx->saved_data["count"] = s.count;
    ctx->saved_data["group"] = group_handle;
    if (input.numel() == 0) return empty_like(input);
    // torch's batch_norm_elemt.
    Tensor y = input.sub(per_channel(mean, input)).mul(per_channel(invstd, input));
    if (weight.defined()) y = y.mul(per_channel(weight, input));
    if (bias.defined()) y = y.add(per_channel(bias, input));
    return y;
  }

  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list grads) {
    EMBER_CHECK(!is_grad_enabled(), kWho,
                ": double backward (create_graph) is not supported, as in PyTorch (its backward all-reduces)");
    const autograd::variable_list saved = ctx->get_saved_variables();
    const Tensor& input = saved[0];
    const Tensor& weight = saved[1];
    const Tensor& mean = saved[2];
    const Tensor& invstd = saved[3];
    const double count = ctx->saved_data.at("count").toDouble();
    std::shared_ptr<ProcessGroup> group = detail::group_from_handle(ctx->saved_data.at("group").toInt(), kWho);
    const int64_t channels = input.size(1);
    Tensor grad_input, grad_weight, grad_bias;
    if (input.numel() > 0) {
      const Tensor& dy = grads[0];
      const std::vector<int64_t> dims = reduce_dims(input);
      // torch's batch_norm_backward_reduce.
      Tensor xmu = input.sub(per_channel(mean, input));
      Tensor sum_dy = dy.sum(IntArrayRef(dims));
      Tensor sum_dy_xmu = dy.mul(xmu).sum(IntArrayRef(dims));
      if (weight.defined() && ctx->needs_input_grad(1)) grad_weight = sum_dy_xmu.mul(invstd);
      if (ctx->needs_input_grad(2)) grad_bias = sum_dy;
      if (ctx->needs_input_grad(0)) {
        Tensor combined = cat({sum_dy, sum_dy_xmu});
        group->all_reduce(combined)->wait();
        // torch's batch_norm_backward_elemt over the global count.
        Tensor mean_dy = combined.narrow(0, 0, channels).div(count);
        Tensor mean_dy_xmu = combined.narrow(0, channels, channels).div(count);
        Tensor scale = weight.defined() ? invstd.mul(weight) : invstd;
        grad_input = dy.sub(per_channel(mean_dy, input))
                         .sub(xmu.mul(per_channel(invstd.mul(invstd).mul(mean_dy_xmu), input)))
                         .mul(per_channel(scale, input));
      }
    } else if (ctx->needs_input_grad(0)) {
      // Nothing to compute here, but the peers' all_reduce needs this rank.
      Tensor combined = zeros({2 * channels}, TensorOptions(input.dtype()).device(input.device()));
      group->all_reduce(combined)->wait();
    }
    return {grad_input, grad_weight, grad_bias, Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

void check_channel_tensor(const Tensor& t, const char* what, int64_t channels) {
  if (!t.defined()) return;
  EMBER_CHECK(t.dim() == 1 && t.size(0) == channels, kWho, ": ", what, " has shape ", t.sizes(), ", expected [",
              channels, "] for an input of ", channels, " channels");
}

}  // namespace

Tensor sync_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                       const Tensor& running_var, double eps, double average_factor,
                       const std::shared_ptr<ProcessGroup>& group) {
  EMBER_CHECK(group != nullptr, kWho, ": no process group");
  EMBER_CHECK(input.defined() && input.dim() >= 2, kWho, ": expected at least 2D input (got ",
              input.defined() ? input.dim() : 0, "D input)");
  EMBER_CHECK(input.size(1) > 0, kWho, ": number of input channels should be non-zero");
  EMBER_CHECK(is_floating_point(input.dtype()), kWho, ": expected a floating-point input, got ", input.dtype());
  const int64_t channels = input.size(1);
  check_channel_tensor(weight, "weight", channels);
  check_channel_tensor(bias, "bias", channels);
  check_channel_tensor(running_mean, "running_mean", channels);
  check_channel_tensor(running_var, "running_var", channels);
  return SyncBatchNormBackward::apply(input, weight, bias, running_mean, running_var, eps, average_factor,
                                      detail::group_handle(group));
}

}  // namespace ember::distributed
