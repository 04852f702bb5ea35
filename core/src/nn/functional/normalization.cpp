// Normalizations. batch_norm and layer_norm (float32) are oneDNN kernels
// recorded as single nodes (NativeBatchNormBackward0 / NativeLayerNormBackward0)
// whose backward runs oneDNN's backward primitive, or, when the backward is
// itself recorded (create_graph), the same formula written with Tensor ops so
// that it can be differentiated again. float64 composes the forward from
// Tensor ops. group_norm is layer_norm over [N, G, C/G * spatial] plus the
// per-channel affine; instance_norm is batch_norm over [1, N * C, ...], as
// PyTorch; local_response_norm composes avg_pool (as PyTorch).
#include "ember/nn/functional/normalization.h"

#include "autograd/record.h"
#include "ember/autograd/grad_mode.h"
#include "ember/nn/functional/pooling.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "kernels/slots/norm_kernels.h"

namespace ember::nn::functional {

EMBER_DEFINE_SLOT(batch_norm_forward_slot, BatchNormForwardFn, "batch_norm_forward");
EMBER_DEFINE_SLOT(batch_norm_backward_slot, BatchNormBackwardFn, "batch_norm_backward");
EMBER_DEFINE_SLOT(layer_norm_forward_slot, LayerNormForwardFn, "layer_norm_forward");
EMBER_DEFINE_SLOT(layer_norm_backward_slot, LayerNormBackwardFn, "layer_norm_backward");
EMBER_DEFINE_SLOT(group_norm_forward_slot, GroupNormForwardFn, "group_norm_forward");
EMBER_DEFINE_SLOT(group_norm_backward_slot, GroupNormBackwardFn, "group_norm_backward");

namespace {

std::string sizes_str(IntArrayRef s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

void check_float(const char* op, const Tensor& t) {
  EMBER_CHECK(t.dtype() == kFloat32 || t.dtype() == kFloat64, op, ": expected a float32 or float64 input, but got ",
              t.dtype());
}

void check_param(const char* op, const char* what, const Tensor& t, IntArrayRef sizes, DType dtype) {
  if (!t.defined()) return;
  EMBER_CHECK(t.sizes() == sizes, op, ": expected ", what, " of size ", sizes_str(sizes), ", but got ",
              sizes_str(t.sizes()));
  EMBER_CHECK(t.dtype() == dtype, op, ": expected ", what, " of dtype ", dtype, " (the input's), but got ", t.dtype());
}

// [C] -> [C, 1, ...] broadcasting over x's dims after 1.
Tensor channel_view(const Tensor& t, int64_t dim) {
  DimVector s{t.numel()};
  for (int64_t i = 2; i < dim; ++i) s.push_back(1);
  return t.reshape(s);
}

DimVector all_but_1(int64_t dim) {
  DimVector d{0};
  for (int64_t i = 2; i < dim; ++i) d.push_back(i);
  return d;
}

MemoryFormat cl_format(int64_t dim) { return dim == 5 ? MemoryFormat::ChannelsLast3d : MemoryFormat::ChannelsLast; }
bool is_channels_last(const Tensor& x) {
  return (x.dim() == 4 || x.dim() == 5) && x.suggest_memory_format() == cl_format(x.dim());
}

// ---- batch norm ----

// The batch-statistics backward as Tensor ops (differentiable again).
autograd::variable_list batch_norm_backward_ops(const Tensor& x, const Tensor& w, const Tensor& gy, double eps) {
  const DimVector dims = all_but_1(x.dim());
  Tensor mean = x.mean(dims, true);
  Tensor xc = x - mean;
  Tensor invstd = ((xc * xc).mean(dims, true) + eps).rsqrt();
  Tensor xhat = xc * invstd;
  Tensor gyw = w.defined() ? gy * channel_view(w, x.dim()) : gy;
  Tensor gx = (gyw - gyw.mean(dims, true) - xhat * (gyw * xhat).mean(dims, true)) * invstd;
  return {gx, (gy * xhat).sum(dims), gy.sum(dims)};
}

Tensor batch_norm_f32(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& rmean,
                      const Tensor& rvar, bool use_input_stats, double eps, Tensor& batch_mean, Tensor& batch_var) {
  autograd::OpRecorder rec("native_batch_norm", {input, weight, bias});
  const int64_t c = input.size(1);
  const bool cl = is_channels_last(input);
  Tensor x = cl ? input.contiguous(cl_format(input.dim())) : input.contiguous();
  const bool affine = weight.defined() || bias.defined();
  const TensorOptions stats = x.options();  // float32, on x's device
  Tensor w = affine ? (weight.defined() ? weight.contiguous() : ones({c}, stats)) : Tensor();
  Tensor b = affine ? (bias.defined() ? bias.contiguous() : zeros({c}, stats)) : Tensor();
  Tensor y = empty_like(x);
  Tensor mean = use_input_stats ? empty({c}, stats) : rmean.to(kFloat32).contiguous();
  Tensor var = use_input_stats ? empty({c}, stats) : rvar.to(kFloat32).contiguous();
  if (x.numel() > 0) batch_norm_forward_slot(x.device())(x, w, b, mean, var, y, eps, use_input_stats, cl);
  batch_mean = mean;
  batch_var = var;
  if (rec) {
    if (!use_input_stats) {  // eval: an affine map with saved constants
      mean = mean.clone();
      var = var.clone();
    }
    rec.record(y, [sx = rec.save(input), sw = rec.save_if(weight.defined(), weight), w_defined = weight.defined(), mean,
                   var, eps, use_input_stats, cl](autograd::BackwardContext& ctx) {
      const Tensor& gy = ctx.grads[0];
      Tensor x = ctx.unpack(sx);
      Tensor wt = w_defined ? ctx.unpack(sw) : Tensor();
      const DimVector dims = all_but_1(x.dim());
      autograd::variable_list out(3);
      if (!use_input_stats) {
        Tensor invstd = (var + eps).rsqrt();
        Tensor scale = w_defined ? wt * invstd : invstd;
        if (ctx.needs(0)) out[0] = gy * channel_view(scale, x.dim());
        if (ctx.needs(1))
          out[1] = (gy * ((x - channel_view(mean, x.dim())) * channel_view(invstd, x.dim()))).sum(dims);
        if (ctx.needs(2)) out[2] = gy.sum(dims);
        return out;
      }
      if (autograd::is_recording() || x.numel() == 0) {
        autograd::variable_list g = batch_norm_backward_ops(x, wt, gy, eps);
        for (size_t i = 0; i < 3; ++i)
          if (ctx.needs(i)) out[i] = g[i];
        return out;
      }
      const int64_t c = x.size(1);
      if (cl) {
        x = x.contiguous(cl_format(x.dim()));
      } else {
        x = x.contiguous();
      }
      Tensor g = cl ? gy.contiguous(cl_format(x.dim())) : gy.contiguous();
      Tensor gx = empty_like(x);
      const TensorOptions stats = x.options();
      Tensor gw = w_defined ? empty({c}, stats) : Tensor(), gb = w_defined ? empty({c}, stats) : Tensor();
      Tensor w_or_ones = w_defined ? wt.contiguous() : Tensor();
      if (!w_defined && (ctx.needs(1) || ctx.needs(2))) {  // bias only: affine with ones
        w_or_ones = ones({c}, stats);
        gw = empty({c}, stats);
        gb = empty({c}, stats);
      }
      batch_norm_backward_slot(x.device())(x, g, w_or_ones, mean, var, gx, gw, gb, eps, cl);
      if (ctx.needs(0)) out[0] = gx;
      if (ctx.needs(1)) out[1] = gw;
      if (ctx.needs(2)) out[2] = gb;
      return out;
    });
  }
  return y;
}

Tensor batch_norm_ops(const Tensor& input, const Tensor& w, const Tensor& b, const Tensor& rmean, const Tensor& rvar,
                      bool use_input_stats, double eps, Tensor& batch_mean, Tensor& batch_var) {
  // The output is channels-last for a channels-last input and contiguous
  // otherwise, as PyTorch's (and the float32 kernel's): computing on x in that
  // layout makes every elementwise step below produce it.
  const Tensor x = is_channels_last(input) ? input.contiguous(cl_format(input.dim())) : input.contiguous();
  const DimVector dims = all_but_1(x.dim());
  Tensor mean, var;
  if (use_input_stats) {
    mean = x.mean(dims, true);
    var = x.var(dims, 0, true);
    batch_mean = mean.detach().reshape({x.size(1)});
    batch_var = var.detach().reshape({x.size(1)});
  } else {
    mean = channel_view(rmean.to(x.dtype()), x.dim());
    var = channel_view(rvar.to(x.dtype()), x.dim());
  }
  Tensor y = (x - mean) * (var + eps).rsqrt();
  if (w.defined()) y = y * channel_view(w, x.dim());
  if (b.defined()) y = y + channel_view(b, x.dim());
  return y;
}

}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& o) {
  const char* op = "batch_norm";
  EMBER_CHECK(input.defined() && input.dim() >= 2, op, ": expected an input of 2 or more dims [N, C, ...], but got ",
              input.defined() ? sizes_str(input.sizes()) : std::string("an undefined tensor"));
  check_float(op, input);
  const int64_t c = input.size(1);
  check_param(op, "weight", o.weight, {c}, input.dtype());
  check_param(op, "bias", o.bias, {c}, input.dtype());
  EMBER_CHECK(running_mean.defined() == running_var.defined(), op,
              ": running_mean and running_var must both be given or both be undefined");
  if (running_mean.defined()) {
    EMBER_CHECK(running_mean.sizes() == IntArrayRef({c}) && running_var.sizes() == IntArrayRef({c}), op,
                ": expected running_mean and running_var of size [", c, "], but got ", sizes_str(running_mean.sizes()),
                " and ", sizes_str(running_var.sizes()));
  }
  const bool use_input_stats = o.training || !running_mean.defined();
  // As PyTorch's _verify_batch_size: training needs more than one value per
  // channel; exactly one raises, an empty batch does not.
  int64_t per_channel = input.size(0);
  for (int64_t d = 2; d < input.dim(); ++d) per_channel *= input.size(d);
  if (o.training)
    EMBER_CHECK(per_channel != 1, op, ": Expected more than 1 value per channel when training, got input size ",
                sizes_str(input.sizes()));
  if (input.numel() == 0) {
    // As PyTorch's _batch_norm_impl_index: an empty input passes through as a
    // clone scaled by weight[0] and shifted by bias[0] (so the result stays in
    // the graph of all three, with zero gradients), and the running statistics
    // are left alone (num_batches_tracked still counts the batch, as the module).
    if (o.training && running_mean.defined() && o.num_batches_tracked.defined()) {
      NoGradGuard no_grad;
      Tensor(o.num_batches_tracked).add_(1);
    }
    Tensor y = input.clone();
    if (o.weight.defined()) y = y * o.weight.select(0, 0);
    if (o.bias.defined()) y = y + o.bias.select(0, 0);
    return y;
  }
  Tensor batch_mean, batch_var;
  Tensor y = batch_norm_forward_slot.supports(input.device(), input.dtype())
                 ? batch_norm_f32(input, o.weight, o.bias, running_mean, running_var, use_input_stats, o.eps,
                                  batch_mean, batch_var)
                 : batch_norm_ops(input, o.weight, o.bias, running_mean, running_var, use_input_stats, o.eps,
                                  batch_mean, batch_var);
  if (o.training && running_mean.defined()) {
    NoGradGuard no_grad;
    double factor = o.momentum.value_or(0.0);
    if (o.num_batches_tracked.defined()) {
      Tensor(o.num_batches_tracked).add_(1);
      if (!o.momentum) factor = 1.0 / o.num_batches_tracked.item<double>();
    } else {
      EMBER_CHECK(o.momentum.has_value(), op,
                  ": momentum=nullopt (cumulative average) needs options.num_batches_tracked");
    }
    const double unbias = static_cast<double>(per_channel) / static_cast<double>(per_channel - 1);
    Tensor rm = running_mean, rv = running_var;
    rm.mul_(1 - factor).add_(batch_mean.to(rm.dtype()), factor);
    rv.mul_(1 - factor).add_(batch_var.to(rv.dtype()), factor * unbias);
  }
  return y;
}

Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& o) {
  const char* op = "instance_norm";
  EMBER_CHECK(input.defined() && input.dim() >= 3, op, ": expected an input of 3 or more dims [N, C, ...], but got ",
              input.defined() ? sizes_str(input.sizes()) : std::string("an undefined tensor"));
  const int64_t n = input.size(0), c = input.size(1);
  // As PyTorch's _verify_spatial_size: exactly one spatial element raises (an empty input does not).
  int64_t spatial = 1;
  for (int64_t d = 2; d < input.dim(); ++d) spatial *= input.size(d);
  if (o.use_input_stats)
    EMBER_CHECK(spatial != 1, op, ": Expected more than 1 spatial element when training, got input size ",
                sizes_str(input.sizes()));
  DimVector shape{1, n * c};
  for (int64_t i = 2; i < input.dim(); ++i) shape.push_back(input.size(i));
  Tensor x = input.reshape(shape);
  Tensor rm = o.running_mean.defined() ? o.running_mean.repeat({n}) : Tensor();
  Tensor rv = o.running_var.defined() ? o.running_var.repeat({n}) : Tensor();
  Tensor w = o.weight.defined() ? o.weight.repeat({n}) : Tensor();
  Tensor b = o.bias.defined() ? o.bias.repeat({n}) : Tensor();
  Tensor y = batch_norm(x, rm, rv,
                        {.weight = w, .bias = b, .training = o.use_input_stats, .momentum = o.momentum, .eps = o.eps});
  if (o.running_mean.defined() && o.use_input_stats) {
    NoGradGuard no_grad;
    Tensor(o.running_mean).copy_(rm.view({n, c}).mean({0}));
    Tensor(o.running_var).copy_(rv.view({n, c}).mean({0}));
  }
  return y.view(input.sizes());
}

// ---- layer norm ----

namespace {

autograd::variable_list layer_norm_backward_ops(const Tensor& x, const Tensor& w, const Tensor& gy, int64_t nd,
                                                double eps) {
  DimVector norm_dims, lead_dims;
  for (int64_t i = 0; i < x.dim(); ++i) (i < x.dim() - nd ? lead_dims : norm_dims).push_back(i);
  Tensor mean = x.mean(norm_dims, true);
  Tensor xc = x - mean;
  Tensor invstd = ((xc * xc).mean(norm_dims, true) + eps).rsqrt();
  Tensor xhat = xc * invstd;
  Tensor gyw = w.defined() ? gy * w : gy;
  Tensor gx = (gyw - gyw.mean(norm_dims, true) - xhat * (gyw * xhat).mean(norm_dims, true)) * invstd;
  Tensor gw = lead_dims.size() ? (gy * xhat).sum(lead_dims) : gy * xhat;
  Tensor gb = lead_dims.size() ? gy.sum(lead_dims) : gy;
  return {gx, gw, gb};
}

}  // namespace

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const LayerNormFuncOptions& o) {
  const char* op = "layer_norm";
  EMBER_CHECK(input.defined(), op, ": input is undefined");
  const int64_t nd = static_cast<int64_t>(normalized_shape.size());
  bool match = nd >= 1 && input.dim() >= nd;
  for (int64_t i = 0; match && i < nd; ++i) match = input.size(input.dim() - nd + i) == normalized_shape[i];
  EMBER_CHECK(match, op, ": Given normalized_shape=", sizes_str(normalized_shape), ", expected input with shape [*",
              [&] {
                std::string s;
                for (int64_t v : normalized_shape) s += ", " + std::to_string(v);
                return s;
              }(),
              "], but got input of size", sizes_str(input.sizes()));
  check_float(op, input);
  check_param(op, "weight", o.weight, normalized_shape, input.dtype());
  check_param(op, "bias", o.bias, normalized_shape, input.dtype());
  if (!layer_norm_forward_slot.supports(input.device(), input.dtype())) {
    DimVector dims;
    for (int64_t i = input.dim() - nd; i < input.dim(); ++i) dims.push_back(i);
    Tensor y = (input - input.mean(dims, true)) * (input.var(dims, 0, true) + o.eps).rsqrt();
    if (o.weight.defined()) y = y * o.weight;
    if (o.bias.defined()) y = y + o.bias;
    return y;
  }
  int64_t n = 1;
  for (int64_t v : normalized_shape) n *= v;
  const int64_t m = n ? input.numel() / n : 0;
  autograd::OpRecorder rec("native_layer_norm", {input, o.weight, o.bias});
  const bool affine = o.weight.defined() || o.bias.defined();
  const TensorOptions like = input.options();
  Tensor w = affine ? (o.weight.defined() ? o.weight.contiguous().view({n}) : ones({n}, like)) : Tensor();
  Tensor b = affine ? (o.bias.defined() ? o.bias.contiguous().view({n}) : zeros({n}, like)) : Tensor();
  Tensor x = input.contiguous().view({m, n});
  Tensor y = empty({m, n}, like), mean = empty({m}, like), var = empty({m}, like);
  if (x.numel() > 0) layer_norm_forward_slot(x.device())(x, w, b, mean, var, y, o.eps);
  y = y.view(input.sizes());
  if (rec)
    rec.record(y, [sx = rec.save(input), sw = rec.save_if(o.weight.defined(), o.weight), w_defined = o.weight.defined(),
                   mean, var, nd, m, n, eps = o.eps](autograd::BackwardContext& ctx) {
      const Tensor& gy = ctx.grads[0];
      Tensor x = ctx.unpack(sx);
      Tensor wt = w_defined ? ctx.unpack(sw) : Tensor();
      autograd::variable_list out(3);
      if (autograd::is_recording() || x.numel() == 0) {
        autograd::variable_list g = layer_norm_backward_ops(x, wt, gy, nd, eps);
        for (size_t i = 0; i < 3; ++i)
          if (ctx.needs(i)) out[i] = g[i];
        return out;
      }
      const bool want_affine = w_defined || ctx.needs(1) || ctx.needs(2);
      const TensorOptions like = x.options();
      Tensor w2 = want_affine ? (w_defined ? wt.contiguous().view({n}) : ones({n}, like)) : Tensor();
      Tensor gx = empty({m, n}, like), gw = want_affine ? empty({n}, like) : Tensor(),
             gb = want_affine ? empty({n}, like) : Tensor();
      layer_norm_backward_slot(x.device())(x.contiguous().view({m, n}), gy.contiguous().view({m, n}), w2, mean, var,
                                            gx, gw, gb, eps);
      DimVector wshape(x.sizes().slice(static_cast<size_t>(x.dim() - nd)));
      if (ctx.needs(0)) out[0] = gx.view(x.sizes());
      if (ctx.needs(1)) out[1] = gw.view(wshape);
      if (ctx.needs(2)) out[2] = gb.view(wshape);
      return out;
    });
  return y;
}

namespace {

// group_norm through the fused kernels (Note [Group norm in two sweeps] in
// kernels/cpu/group_norm_kernels.cpp); input non-empty and planar.
Tensor fused_group_norm(const Tensor& input, int64_t groups, const GroupNormFuncOptions& o) {
  const int64_t n = input.size(0), c = input.size(1), l = input.numel() / (n * c);
  autograd::OpRecorder rec("native_group_norm", {input, o.weight, o.bias});
  const TensorOptions like = input.options();
  const Tensor x = input.contiguous().view({n, c, l});
  const Tensor w = o.weight.defined() ? o.weight.contiguous() : Tensor();
  const Tensor b = o.bias.defined() ? o.bias.contiguous() : Tensor();
  Tensor y = empty({n, c, l}, like), mean = empty({n * groups}, like), rstd = empty({n * groups}, like);
  group_norm_forward_slot(x.device())(x, w, b, groups, mean, rstd, y, o.eps);
  y = y.view(input.sizes());
  if (rec)
    rec.record(y, [sx = rec.save(input), sw = rec.save_if(o.weight.defined(), o.weight), w_defined = o.weight.defined(),
                   mean, rstd, groups, eps = o.eps](autograd::BackwardContext& ctx) {
      const Tensor& gy = ctx.grads[0];
      const Tensor x = ctx.unpack(sx);
      const Tensor wt = w_defined ? ctx.unpack(sw) : Tensor();
      autograd::variable_list out(3);
      DimVector reduce_dims{0};
      for (int64_t d = 2; d < x.dim(); ++d) reduce_dims.push_back(d);
      if (autograd::is_recording()) {
        // Double backward: the same gradients as differentiable ops.
        const int64_t batch = x.size(0);
        const Tensor xg = x.reshape({batch, groups, -1});
        const Tensor rs = (xg.var({2}, 0, true) + eps).rsqrt();
        const Tensor xhat = (xg - xg.mean({2}, true)) * rs;
        const Tensor g = (w_defined ? gy * channel_view(wt, x.dim()) : gy).reshape({batch, groups, -1});
        if (ctx.needs(0))
          out[0] = (rs * (g - g.mean({2}, true) - xhat * (g * xhat).mean({2}, true))).view(x.sizes());
        if (ctx.needs(1)) out[1] = (gy * xhat.view(x.sizes())).sum(reduce_dims);
        if (ctx.needs(2)) out[2] = gy.sum(reduce_dims);
        return out;
      }
      const int64_t batch = x.size(0), channels = x.size(1), len = x.numel() / (batch * channels);
      const TensorOptions like = x.options();
      Tensor gx = ctx.needs(0) ? empty({batch, channels, len}, like) : Tensor();
      Tensor gw = ctx.needs(1) ? empty({channels}, like) : Tensor();
      Tensor gb = ctx.needs(2) ? empty({channels}, like) : Tensor();
      group_norm_backward_slot(x.device())(x.contiguous().view({batch, channels, len}),
                                            gy.contiguous().view({batch, channels, len}),
                                            w_defined ? wt.contiguous() : Tensor(), groups, mean, rstd, gx, gw, gb);
      if (ctx.needs(0)) out[0] = gx.view(x.sizes());
      if (ctx.needs(1)) out[1] = gw;
      if (ctx.needs(2)) out[2] = gb;
      return out;
    });
  return y;
}

}  // namespace

Tensor group_norm(const Tensor& input, int64_t num_groups, const GroupNormFuncOptions& o) {
  const char* op = "group_norm";
  EMBER_CHECK(input.defined() && input.dim() >= 2, op, ": expected an input of 2 or more dims [N, C, ...], but got ",
              input.defined() ? sizes_str(input.sizes()) : std::string("an undefined tensor"));
  const int64_t n = input.size(0), c = input.size(1);
  EMBER_CHECK(num_groups > 0 && c % num_groups == 0, op,
              ": Expected number of channels in input to be divisible by num_groups, but got input of shape ",
              sizes_str(input.sizes()), " and num_groups=", num_groups);
  check_float(op, input);
  check_param(op, "weight", o.weight, {c}, input.dtype());
  check_param(op, "bias", o.bias, {c}, input.dtype());
  const int64_t group_size = n * num_groups != 0 ? input.numel() / (n * num_groups) : 0;
  if (group_norm_forward_slot.supports(input.device(), input.dtype()) && input.numel() > 0 &&
      !is_channels_last(input))
    return fused_group_norm(input, num_groups, o);
  Tensor y = layer_norm(input.reshape({n, num_groups, group_size}), {group_size}, {.eps = o.eps}).view(input.sizes());
  if (o.weight.defined()) y = y * channel_view(o.weight, input.dim());
  if (o.bias.defined()) y = y + channel_view(o.bias, input.dim());
  return is_channels_last(input) ? y.contiguous(cl_format(input.dim())) : y;
}

Tensor local_response_norm(const Tensor& input, int64_t size, const LocalResponseNormFuncOptions& o) {
  const char* op = "local_response_norm";
  EMBER_CHECK(input.defined() && input.dim() >= 3, op, ": Expected 3D or higher dimensionality input (got ",
              input.defined() ? input.dim() : 0, " dimensions)");
  EMBER_CHECK(size > 0, op, ": size must be positive, got ", size);
  if (input.numel() == 0) return input.clone();
  Tensor div = (input * input).unsqueeze(1);
  if (input.dim() == 3) {
    div = constant_pad_nd(div, {0, 0, size / 2, (size - 1) / 2});
    div = avg_pool2d(div, {size, 1}, {.stride = 1}).squeeze(1);
  } else {
    const int64_t n = input.size(0), c = input.size(1);
    div = div.reshape({n, 1, c, input.size(2), -1});
    div = constant_pad_nd(div, {0, 0, 0, 0, size / 2, (size - 1) / 2});
    div = avg_pool3d(div, {size, 1, 1}, {.stride = 1}).squeeze(1).reshape(input.sizes());
  }
  div = (div * o.alpha + o.k).pow(o.beta);
  return input / div;
}

}  // namespace ember::nn::functional
