// Poolings. Every pooling is a PoolSpec (windows over a 5-d view, see
// pool_kernels.h) run by one forward op and one backward op, each recorded:
//   pool_op:          y (and argmax indices) from x;  grad: pool_backward_op(gy)
//   pool_backward_op: gx from gy (linear in gy);       grad: avg -> pool_op(gg),
//                                                      max -> gather of gg at the indices
// so backward of any order works. lp_pool composes avg_pool as PyTorch.
#include "ember/nn/functional/pooling.h"

#include <cmath>

#include "autograd/record.h"
#include "ember/ops/factories.h"
#include "kernels/slots/pool_kernels.h"

namespace ember::nn::functional {

EMBER_DEFINE_FAMILY_SLOT(pool_forward_slot, PoolForwardFn, "pool_forward", kPoolModeNames,
                         static_cast<int>(std::size(kPoolModeNames)));
EMBER_DEFINE_FAMILY_SLOT(pool_backward_slot, PoolBackwardFn, "pool_backward", kPoolModeNames,
                         static_cast<int>(std::size(kPoolModeNames)));

namespace {

struct PoolSpec {
  int64_t nd = 2;
  PoolWindows win;
  DimVector out_spatial;
  PoolMode mode = PoolMode::Max;
  bool channels_last = false;
};

std::string sizes_str(IntArrayRef s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

MemoryFormat cl_format(int64_t dim) { return dim == 5 ? MemoryFormat::ChannelsLast3d : MemoryFormat::ChannelsLast; }
// Pools write channels-last for a 4-d channels-last input only: PyTorch
// 1.13's 3-d pools return contiguous outputs for channels-last-3d inputs.
bool is_channels_last(const Tensor& x) {
  return x.dim() == 4 && x.suggest_memory_format() == MemoryFormat::ChannelsLast;
}

// An output on `device`.
Tensor alloc(IntArrayRef sizes, DType dtype, Device device, bool cl) {
  const TensorOptions o = TensorOptions(dtype).device(device);
  if (cl) return empty_strided(sizes, strides_for(sizes, cl_format(static_cast<int64_t>(sizes.size()))), o);
  return empty(sizes, o);
}

// [N, C, spatial...] -> [N, C, D, H, W] (a view; unit dims in front).
Tensor to5(const Tensor& t, int64_t nd) {
  Tensor r = t;
  for (int64_t i = nd; i < 3; ++i) r = r.unsqueeze(2);
  return r;
}

int64_t slot(const PoolSpec& s, int64_t i) { return 3 - s.nd + i; }

void unit_dims(PoolSpec& s) {
  for (int64_t k = 0; k < 3 - s.nd; ++k) {
    s.win.begin[k] = {0};
    s.win.count[k] = {1};
    s.win.div[k] = {1.0};
  }
}

std::pair<Tensor, Tensor> raw_forward(const Tensor& x, const PoolSpec& s, bool want_indices) {
  Tensor xd = s.channels_last ? x.contiguous(cl_format(x.dim())) : x.contiguous();
  DimVector ys{x.size(0), x.size(1)};
  for (int64_t v : s.out_spatial) ys.push_back(v);
  Tensor y = alloc(ys, x.dtype(), x.device(), s.channels_last);
  Tensor idx = want_indices ? alloc(ys, kInt64, x.device(), s.channels_last) : Tensor();
  if (y.numel() > 0) {
    Tensor y5 = to5(y, s.nd), idx5 = idx.defined() ? to5(idx, s.nd) : idx;  // views the kernel writes
    pool_forward_slot(x.device())(to5(xd, s.nd), y5, idx5, s.win, s.mode, s.channels_last);
  }
  return {y, idx};
}

Tensor raw_backward(const Tensor& gy, const Tensor& idx, IntArrayRef x_sizes, const PoolSpec& s) {
  Tensor g = s.channels_last ? gy.contiguous(cl_format(gy.dim())) : gy.contiguous();
  Tensor gx = alloc(x_sizes, gy.dtype(), gy.device(), s.channels_last);
  if (gx.numel() == 0) return gx;
  if (g.numel() == 0) return gx.zero_();
  Tensor i = idx.defined() ? (s.channels_last ? idx.contiguous(cl_format(idx.dim())) : idx.contiguous()) : idx;
  Tensor gx5 = to5(gx, s.nd);  // a view the kernel writes
  pool_backward_slot(gy.device())(to5(g, s.nd), i.defined() ? to5(i, s.nd) : i, gx5, s.win, s.mode, s.channels_last);
  return gx;
}

std::pair<Tensor, Tensor> pool_op(const Tensor& x, const PoolSpec& s, const char* op, bool want_indices);

Tensor pool_backward_op(const Tensor& gy, const Tensor& idx, IntArrayRef x_sizes, const PoolSpec& s) {
  autograd::OpRecorder rec(s.mode == PoolMode::Max ? "max_pool_backward" : "avg_pool_backward", {gy});
  Tensor gx = raw_backward(gy, idx, x_sizes, s);
  if (rec)
    rec.record(gx, [idx, s, gy_sizes = DimVector(gy.sizes())](autograd::BackwardContext& c) {
      const Tensor& gg = c.grads[0];
      if (s.mode == PoolMode::Avg) return autograd::variable_list{pool_op(gg, s, "avg_pool", false).first};
      return autograd::variable_list{gg.flatten(2).gather(2, idx.flatten(2)).view(gy_sizes)};
    });
  return gx;
}

std::pair<Tensor, Tensor> pool_op(const Tensor& x, const PoolSpec& s, const char* op, bool want_indices) {
  autograd::OpRecorder rec(op, {x});
  auto [y, idx] = raw_forward(x, s, want_indices || (rec && s.mode == PoolMode::Max));
  if (rec)
    rec.record(y, [idx = idx, s, xs = DimVector(x.sizes())](autograd::BackwardContext& c) {
      return autograd::variable_list{pool_backward_op(c.grads[0], idx, xs, s)};
    });
  return {y, want_indices ? idx : Tensor()};
}

// ---- argument handling ----

// Batched input (unsqueezed when unbatched); checks dims and dtype.
Tensor batched(const char* op, int64_t nd, const Tensor& input, bool& unbatched) {
  EMBER_CHECK(input.defined(), op, ": input is undefined");
  EMBER_CHECK(input.dim() == nd + 1 || input.dim() == nd + 2, op, ": Expected ", nd + 1, "D or ", nd + 2,
              "D (batch mode) input, but got input of size ", sizes_str(input.sizes()));
  EMBER_CHECK(input.dtype() == kFloat32 || input.dtype() == kFloat64, op,
              ": expected a float32 or float64 input, but got ", input.dtype());
  unbatched = input.dim() == nd + 1;
  for (int64_t i = unbatched ? 0 : 1; i < input.dim(); ++i)
    EMBER_CHECK(input.size(i) > 0, op, ": Expected input to have non-zero size for non-batch dimensions, but got ",
                "input of size ", sizes_str(input.sizes()));
  return unbatched ? input.unsqueeze(0) : input;
}

int64_t pool_output_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode, const char* op) {
  // In 128 bits (Note [Checked sizes]): huge kernels, dilations or paddings
  // must not wrap into a plausible size.
  const __int128 num = __int128(in) + __int128(2) * p - __int128(d) * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  __int128 out = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
  if (ceil_mode && (out - 1) * s >= __int128(in) + p) --out;
  EMBER_CHECK(out <= INT64_MAX, op, ": the output size for input size ", in, ", kernel ", k, ", stride ", s,
              ", padding ", p, " and dilation ", d, " overflows int64");
  return out < 0 ? -1 : static_cast<int64_t>(out);
}

struct Regular {
  std::vector<int64_t> k, s, p, d;
};

Regular regular_args(const char* op, int64_t nd, const ExpandingInts& kernel_size, const ExpandingInts& stride,
                     const ExpandingInts& padding, const ExpandingInts& dilation) {
  Regular r;
  r.k = kernel_size.expand(nd, op, "kernel_size");
  r.s = stride.values.empty() ? r.k : stride.expand(nd, op, "stride");
  r.p = padding.expand(nd, op, "padding");
  r.d = dilation.expand(nd, op, "dilation");
  for (int64_t i = 0; i < nd; ++i) {
    EMBER_CHECK(r.k[i] > 0, op, ": kernel_size must be greater than zero, but got ", r.k[i]);
    EMBER_CHECK(r.s[i] > 0, op, ": stride must be greater than zero, but got ", r.s[i]);
    EMBER_CHECK(r.d[i] > 0, op, ": dilation must be greater than zero, but got ", r.d[i]);
    EMBER_CHECK(r.p[i] >= 0 && r.p[i] <= r.k[i] / 2, op,
                ": pad should be at most half of effective kernel size, but got pad=", r.p[i],
                ", kernel_size=", r.k[i], " and dilation=", r.d[i]);
  }
  return r;
}

PoolSpec regular_spec(const char* op, const Tensor& x, int64_t nd, const Regular& r, bool ceil_mode, PoolMode mode,
                      bool count_include_pad) {
  PoolSpec s;
  s.nd = nd;
  s.mode = mode;
  s.channels_last = is_channels_last(x);
  unit_dims(s);
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t in = x.size(2 + i), k = r.k[i], st = r.s[i], p = r.p[i], d = r.d[i];
    const int64_t out = pool_output_size(in, k, st, p, d, ceil_mode, op);
    EMBER_CHECK(out >= 1, op, ": Given input size ", sizes_str(x.sizes().slice(1)), ", the calculated output size of dim ",
                i, " is ", out, ". Output size is too small");
    s.out_spatial.push_back(out);
    PoolWindows& w = s.win;
    const int64_t sl = slot(s, i);
    w.step[sl] = d;
    for (int64_t o = 0; o < out; ++o) {
      const int64_t start = o * st - p;
      const int64_t j0 = start < 0 ? (-start + d - 1) / d : 0;
      const int64_t j1 = std::min(k - 1, (in - 1 - start) / d);
      w.begin[sl].push_back(start + j0 * d);
      w.count[sl].push_back(j1 - j0 + 1);
      const int64_t padded_end = std::min(start + k, in + p);
      w.div[sl].push_back(static_cast<double>(count_include_pad ? padded_end - start : j1 - j0 + 1));
    }
  }
  return s;
}

PoolSpec adaptive_spec(const char* op, const Tensor& x, int64_t nd, const ExpandingInts& output_size, PoolMode mode) {
  PoolSpec s;
  s.nd = nd;
  s.mode = mode;
  s.channels_last = is_channels_last(x);
  unit_dims(s);
  const std::vector<int64_t> os = output_size.expand(nd, op, "output_size");
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t in = x.size(2 + i), out = os[i];
    EMBER_CHECK(out >= 0, op, ": output_size must be non-negative, but got ", out);
    s.out_spatial.push_back(out);
    const int64_t sl = slot(s, i);
    for (int64_t o = 0; o < out; ++o) {
      const int64_t a = o * in / out, b = ((o + 1) * in + out - 1) / out;
      s.win.begin[sl].push_back(a);
      s.win.count[sl].push_back(b - a);
      s.win.div[sl].push_back(static_cast<double>(b - a));
    }
  }
  return s;
}

std::pair<Tensor, Tensor> max_pool_nd(const char* op, int64_t nd, const Tensor& input, const ExpandingInts& kernel_size,
                                      const MaxPoolFuncOptions& o, bool want_indices) {
  bool unbatched = false;
  Tensor x = batched(op, nd, input, unbatched);
  const Regular r = regular_args(op, nd, kernel_size, o.stride, o.padding, o.dilation);
  PoolSpec s = regular_spec(op, x, nd, r, o.ceil_mode, PoolMode::Max, false);
  auto [y, idx] = pool_op(x, s, op, want_indices);
  if (unbatched) return {y.squeeze(0), want_indices ? idx.squeeze(0) : idx};
  return {y, idx};
}

Tensor avg_pool_nd(const char* op, int64_t nd, const Tensor& input, const ExpandingInts& kernel_size,
                   const AvgPoolFuncOptions& o) {
  bool unbatched = false;
  Tensor x = batched(op, nd, input, unbatched);
  const Regular r = regular_args(op, nd, kernel_size, o.stride, o.padding, 1);
  EMBER_CHECK(!o.divisor_override || *o.divisor_override != 0, op, ": divisor must be not zero");
  PoolSpec s = regular_spec(op, x, nd, r, o.ceil_mode, PoolMode::Avg, o.count_include_pad);
  s.win.divisor_override = o.divisor_override;
  Tensor y = pool_op(x, s, op, false).first;
  return unbatched ? y.squeeze(0) : y;
}

Tensor adaptive_avg_nd(const char* op, int64_t nd, const Tensor& input, const ExpandingInts& output_size) {
  bool unbatched = false;
  Tensor x = batched(op, nd, input, unbatched);
  Tensor y = pool_op(x, adaptive_spec(op, x, nd, output_size, PoolMode::Avg), op, false).first;
  return unbatched ? y.squeeze(0) : y;
}

std::pair<Tensor, Tensor> adaptive_max_nd(const char* op, int64_t nd, const Tensor& input,
                                          const ExpandingInts& output_size, bool want_indices) {
  bool unbatched = false;
  Tensor x = batched(op, nd, input, unbatched);
  auto [y, idx] = pool_op(x, adaptive_spec(op, x, nd, output_size, PoolMode::Max), op, want_indices);
  if (unbatched) return {y.squeeze(0), want_indices ? idx.squeeze(0) : idx};
  return {y, idx};
}

}  // namespace

Tensor max_pool1d(const Tensor& input, const ExpandingInts& k, const MaxPoolFuncOptions& o) {
  return max_pool_nd("max_pool1d", 1, input, k, o, false).first;
}
Tensor max_pool2d(const Tensor& input, const ExpandingInts& k, const MaxPoolFuncOptions& o) {
  return max_pool_nd("max_pool2d", 2, input, k, o, false).first;
}
Tensor max_pool3d(const Tensor& input, const ExpandingInts& k, const MaxPoolFuncOptions& o) {
  return max_pool_nd("max_pool3d", 3, input, k, o, false).first;
}
std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const ExpandingInts& k,
                                                  const MaxPoolFuncOptions& o) {
  return max_pool_nd("max_pool1d", 1, input, k, o, true);
}
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const ExpandingInts& k,
                                                  const MaxPoolFuncOptions& o) {
  return max_pool_nd("max_pool2d", 2, input, k, o, true);
}
std::pair<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const ExpandingInts& k,
                                                  const MaxPoolFuncOptions& o) {
  return max_pool_nd("max_pool3d", 3, input, k, o, true);
}

Tensor avg_pool1d(const Tensor& input, const ExpandingInts& k, const AvgPoolFuncOptions& o) {
  return avg_pool_nd("avg_pool1d", 1, input, k, o);
}
Tensor avg_pool2d(const Tensor& input, const ExpandingInts& k, const AvgPoolFuncOptions& o) {
  return avg_pool_nd("avg_pool2d", 2, input, k, o);
}
Tensor avg_pool3d(const Tensor& input, const ExpandingInts& k, const AvgPoolFuncOptions& o) {
  return avg_pool_nd("avg_pool3d", 3, input, k, o);
}

Tensor adaptive_avg_pool1d(const Tensor& input, const ExpandingInts& s) {
  return adaptive_avg_nd("adaptive_avg_pool1d", 1, input, s);
}
Tensor adaptive_avg_pool2d(const Tensor& input, const ExpandingInts& s) {
  return adaptive_avg_nd("adaptive_avg_pool2d", 2, input, s);
}
Tensor adaptive_avg_pool3d(const Tensor& input, const ExpandingInts& s) {
  return adaptive_avg_nd("adaptive_avg_pool3d", 3, input, s);
}
Tensor adaptive_max_pool1d(const Tensor& input, const ExpandingInts& s) {
  return adaptive_max_nd("adaptive_max_pool1d", 1, input, s, false).first;
}
Tensor adaptive_max_pool2d(const Tensor& input, const ExpandingInts& s) {
  return adaptive_max_nd("adaptive_max_pool2d", 2, input, s, false).first;
}
Tensor adaptive_max_pool3d(const Tensor& input, const ExpandingInts& s) {
  return adaptive_max_nd("adaptive_max_pool3d", 3, input, s, false).first;
}
std::pair<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input, const ExpandingInts& s) {
  return adaptive_max_nd("adaptive_max_pool1d", 1, input, s, true);
}
std::pair<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input, const ExpandingInts& s) {
  return adaptive_max_nd("adaptive_max_pool2d", 2, input, s, true);
}
std::pair<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input, const ExpandingInts& s) {
  return adaptive_max_nd("adaptive_max_pool3d", 3, input, s, true);
}

namespace {
Tensor lp_finish(const Tensor& out, double norm_type, int64_t window) {
  return (out.sign() * out.abs().relu()).mul(static_cast<double>(window)).pow(1.0 / norm_type);
}
}  // namespace

Tensor lp_pool1d(const Tensor& input, double norm_type, const ExpandingInts& kernel_size, const LPPoolFuncOptions& o) {
  const int64_t k = kernel_size.expand(1, "lp_pool1d", "kernel_size")[0];
  Tensor out = avg_pool1d(input.pow(norm_type), k, {.stride = o.stride, .padding = 0, .ceil_mode = o.ceil_mode});
  return lp_finish(out, norm_type, k);
}

Tensor lp_pool2d(const Tensor& input, double norm_type, const ExpandingInts& kernel_size, const LPPoolFuncOptions& o) {
  const std::vector<int64_t> k = kernel_size.expand(2, "lp_pool2d", "kernel_size");
  Tensor out = avg_pool2d(input.pow(norm_type), k, {.stride = o.stride, .padding = 0, .ceil_mode = o.ceil_mode});
  return lp_finish(out, norm_type, k[0] * k[1]);
}

}  // namespace ember::nn::functional
