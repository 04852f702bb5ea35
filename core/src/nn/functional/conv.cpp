// Convolutions (Note [Convolutions]).
//
// Note [Convolutions]
// Every convolution, forward or backward, is one of three internal ops on a
// ConvParams geometry (conv_kernels.h):
//   conv_op(x, w, b)              y  = conv(x, w) + b
//   conv_input_grad_op(gy, w)     gx = conv's input gradient = a transposed convolution
//   conv_weight_grad_op(x, gy)    gw = conv's weight gradient
// Each is recorded with a formula made of the other two (as PyTorch's
// _convolution_double_backward), so backward of any order works:
//   conv_op:            gx = input_grad(gy, w),  gw = weight_grad(x, gy),  gb = sum(gy)
//   conv_input_grad_op: g_gy = conv(g, w),       gw = weight_grad(g, gy)
//   conv_weight_grad_op: gx = input_grad(gy, g), g_gy = conv(x, g)
// conv_transposeNd(x, w) is conv_input_grad_op(x, w) with the output size
// that output_padding selects. float32 runs the oneDNN kernels of the three
// slots; float64 (which oneDNN lacks) runs im2col + matmul below.
// conv2d_activation, an inference fusion, calls the forward kernel with an
// activation post-op (ConvParams::activation) only when nothing is recorded;
// with autograd it is conv_op followed by the recorded activation op.
#include "ember/nn/functional/conv.h"

#include <algorithm>

#include "autograd/record.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/determinism.h"
#include "ember/core/parallel.h"
#include "ember/nn/functional/activation.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/shape.h"
#include "kernels/slots/conv_kernels.h"
#include "ops/op_utils.h"
#include "runtime/contention.h"

namespace ember::nn::functional {

EMBER_DEFINE_FAMILY_SLOT(conv_forward_slot, ConvForwardFn, "conv_forward", kConvPostOpNames,
                         static_cast<int>(std::size(kConvPostOpNames)));
EMBER_DEFINE_SLOT(conv_backward_data_slot, ConvBackwardDataFn, "conv_backward_data");
EMBER_DEFINE_SLOT(conv_backward_weight_slot, ConvBackwardWeightFn, "conv_backward_weight");

std::vector<int64_t> ExpandingInts::expand(int64_t nd, const char* op, const char* what) const {
  if (values.size() == 1) return std::vector<int64_t>(static_cast<size_t>(nd), values[0]);
  EMBER_CHECK(static_cast<int64_t>(values.size()) == nd, op, ": expected ", what, " to be a single integer or a list of ",
              nd, " integers, but got ", values.size(), " values");
  return values;
}

namespace {

MemoryFormat cl_format(int64_t dim) { return dim == 5 ? MemoryFormat::ChannelsLast3d : MemoryFormat::ChannelsLast; }

// Dense activations in the layout p asks for.
Tensor dense(const Tensor& t, const ConvParams& p) {
  return p.channels_last ? t.contiguous(cl_format(t.dim())) : t.contiguous();
}

// A weight the kernels read as it is (row-major or dense channels-last; the
// kernels describe it by its strides), else a row-major copy.
Tensor dense_weight(const Tensor& w) {
  if (w.is_contiguous() || ((w.dim() == 4 || w.dim() == 5) && w.is_contiguous(cl_format(w.dim())))) return w;
  return w.contiguous();
}

// An output of the given sizes with `like`'s dtype and device.
Tensor new_activation(IntArrayRef sizes, const Tensor& like, const ConvParams& p) {
  if (p.channels_last) return empty_strided(sizes, strides_for(sizes, cl_format(static_cast<int64_t>(sizes.size()))),
                                            like.options());
  return empty(sizes, like.options());
}

int64_t nspatial(const ConvParams& p) { return static_cast<int64_t>(p.stride.size()); }

DimVector conv_output_sizes(IntArrayRef x, IntArrayRef w, const ConvParams& p) {
  DimVector out{x[0], w[0]};
  for (int64_t i = 0; i < nspatial(p); ++i)
    out.push_back((x[2 + i] + p.padding_l[i] + p.padding_r[i] - p.dilation[i] * (w[2 + i] - 1) - 1) / p.stride[i] + 1);
  return out;
}

DimVector reduce_dims_but_1(int64_t dim) {
  DimVector d{0};
  for (int64_t i = 2; i < dim; ++i) d.push_back(i);
  return d;
}

Tensor bias_view(const Tensor& b, int64_t nd) {
  DimVector s{b.size(0)};
  for (int64_t i = 0; i < nd; ++i) s.push_back(1);
  return b.view(s);
}

// ---- float64: im2col + matmul ----

// [N, C, out..., k...]: the input windows, as views of the padded input.
Tensor im2col(const Tensor& x, IntArrayRef ksize, const ConvParams& p) {
  const int64_t nd = nspatial(p);
  DimVector pads;
  for (int64_t i = nd - 1; i >= 0; --i) {
    pads.push_back(p.padding_l[i]);
    pads.push_back(p.padding_r[i]);
  }
  Tensor c = constant_pad_nd(x, pads, 0);
  for (int64_t i = 0; i < nd; ++i)
    c = c.unfold(2 + i, p.dilation[i] * (ksize[i] - 1) + 1, p.stride[i]).slice(-1, 0, std::nullopt, p.dilation[i]);
  return c;
}

// Windows as [N, G, L, C/G * prod(k)] (L = prod(out)).
Tensor grouped_cols(const Tensor& x, IntArrayRef ksize, const ConvParams& p, DimVector& out_spatial) {
  const int64_t nd = nspatial(p), n = x.size(0), c = x.size(1), g = p.groups;
  Tensor cols = im2col(x, ksize, p);
  out_spatial.assign(cols.sizes().begin() + 2, cols.sizes().begin() + 2 + nd);
  DimVector v{n, g, c / g};
  DimVector perm{0, 1};
  for (int64_t i = 0; i < nd; ++i) perm.push_back(3 + i);
  perm.push_back(2);
  for (int64_t i = 0; i < 2 * nd; ++i) v.push_back(cols.size(2 + i));
  for (int64_t i = 0; i < nd; ++i) perm.push_back(3 + nd + i);
  int64_t l = 1, ck = c / g;
  for (int64_t i = 0; i < nd; ++i) {
    l *= cols.size(2 + i);
    ck *= ksize[i];
  }
  return cols.reshape(v).permute(perm).reshape({n, g, l, ck});
}

Tensor conv_forward_cols(const Tensor& x, const Tensor& w, const Tensor& b, const ConvParams& p) {
  const int64_t n = x.size(0), o = w.size(0), g = p.groups;
  DimVector out_spatial;
  Tensor cols = grouped_cols(x, w.sizes().slice(2), p, out_spatial);
  Tensor wm = w.reshape({g, o / g, cols.size(3)});
  Tensor out = matmul(cols, wm.transpose(1, 2));  // [N, G, L, O/G]
  DimVector sizes{n, o};
  for (int64_t v : out_spatial) sizes.push_back(v);
  out = out.permute({0, 1, 3, 2}).reshape(sizes);
  if (b.defined()) out = out + bias_view(b, nspatial(p));
  return out;
}

Tensor conv_weight_grad_cols(const Tensor& x, const Tensor& gy, IntArrayRef w_sizes, const ConvParams& p) {
  const int64_t n = x.size(0), o = w_sizes[0], g = p.groups;
  DimVector out_spatial;
  Tensor cols = grouped_cols(x, w_sizes.slice(2), p, out_spatial);
  Tensor gyr = gy.reshape({n, g, o / g, cols.size(2)});
  return matmul(gyr, cols).sum({0}).reshape(w_sizes);
}

// The input gradient as a stride-1 convolution of gy dilated by the stride
// with the flipped, transposed kernel.
Tensor conv_input_grad_cols(const Tensor& gy, const Tensor& w, IntArrayRef x_sizes, const ConvParams& p) {
  const int64_t nd = nspatial(p), g = p.groups, o = w.size(0), c = x_sizes[1];
  DimVector zs{gy.size(0), o};
  for (int64_t i = 0; i < nd; ++i) zs.push_back((gy.size(2 + i) - 1) * p.stride[i] + 1);
  Tensor z = zeros(zs, gy.options());
  Tensor zv = z;
  for (int64_t i = 0; i < nd; ++i) zv = zv.slice(2 + i, 0, std::nullopt, p.stride[i]);
  zv.copy_(gy);
  DimVector wv{g, o / g, c / g}, ws{c, o / g}, flip_dims;
  for (int64_t i = 0; i < nd; ++i) {
    wv.push_back(w.size(2 + i));
    ws.push_back(w.size(2 + i));
    flip_dims.push_back(2 + i);
  }
  Tensor w2 = w.reshape(wv).transpose(1, 2).reshape(ws).flip(flip_dims);
  ConvParams q;
  q.groups = g;
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t span = p.dilation[i] * (w.size(2 + i) - 1);
    q.stride.push_back(1);
    q.dilation.push_back(p.dilation[i]);
    q.padding_l.push_back(span - p.padding_l[i]);
    q.padding_r.push_back(x_sizes[2 + i] - zs[2 + i] + p.padding_l[i]);
  }
  return conv_forward_cols(z, w2, Tensor(), q);
}

// ---- raw computations (no recording) ----

void check_dtype(const char* op, DType dt) {
  EMBER_CHECK(dt == kFloat32 || dt == kFloat64, op, ": expected a float32 or float64 input, but got ", dt,
              " (a backend's kernel runs what it supports, e.g. float32 through oneDNN on the CPU; other "
              "dtypes run as im2col + matmul)");
}

// Note [Convolutions on shared cores]
// While other busy threads hold the cores (Note [Shared cores]), oneDNN runs
// on one thread (Note [OpenMP libraries]: an OpenMP team would wait at every
// barrier for a descheduled member), so a convolution's backward would use
// one core for its two passes, input gradient and weight gradient, one after
// the other. They are independent, so there they run as the two chunks of a
// parallel loop on Ember's pool: the caller takes one, a helper the other if
// it gets a core, else the caller runs both. Each pass is the same one-thread
// oneDNN call as before, so results do not change; running two primitives at
// once needs a scratchpad per call (Note [User scratchpads] in
// kernels/cpu/dnnl_utils.cpp). On quiet cores each pass keeps every thread
// (an OpenMP region per pass) instead, and so does deterministic mode, where
// oneDNN keeps its thread count under load. Splitting the forward's batch
// into parts run the same way was measured and left out: no faster (a helper
// descheduled inside its part holds the caller at the loop's end).
// Measurements: benchmarks/README.md, "Speed under load".
bool backward_passes_run_side_by_side(const Tensor& t) {
  return t.device().is_cpu() && runtime::cores_contended() && get_num_threads() > 1 && !in_parallel_region() &&
         !are_deterministic_algorithms_enabled();
}

Tensor raw_forward(const Tensor& x, const Tensor& w, const Tensor& b, const ConvParams& p) {
  const DimVector out_sizes = conv_output_sizes(x.sizes(), w.sizes(), p);
  if (!conv_forward_slot.supports(x.device(), static_cast<int>(p.activation), x.dtype())) {
    // The column product leaves y channels-last-like whatever the input: give
    // PyTorch's layout (channels-last only for channels-last operands).
    Tensor y = conv_forward_cols(x, w, b, p);
    return y.contiguous(p.channels_last ? cl_format(y.dim()) : MemoryFormat::Contiguous);
  }
  Tensor y = new_activation(out_sizes, x, p);
  if (y.numel() == 0) return y;
  if (x.numel() == 0) {  // no input channels: the bias alone
    y.zero_();
    if (b.defined()) y.add_(bias_view(b, nspatial(p)));
    return y;
  }
  conv_forward_slot(x.device())(dense(x, p), dense_weight(w), b.defined() ? b.contiguous() : b, y, p);
  return y;
}

Tensor raw_input_grad(const Tensor& gy, const Tensor& w, IntArrayRef x_sizes, const ConvParams& p) {
  if (!conv_backward_data_slot.supports(gy.device(), gy.dtype())) {
    Tensor gx = conv_input_grad_cols(gy, w, x_sizes, p);
    return gx.contiguous(p.channels_last ? cl_format(gx.dim()) : MemoryFormat::Contiguous);
  }
  Tensor gx = new_activation(x_sizes, gy, p);
  if (gx.numel() == 0) return gx;
  if (gy.numel() == 0 || w.numel() == 0) return gx.zero_();
  conv_backward_data_slot(gy.device())(dense(gy, p), dense_weight(w), gx, p);
  return gx;
}

Tensor raw_weight_grad(const Tensor& x, const Tensor& gy, IntArrayRef w_sizes, const ConvParams& p, Tensor* gb) {
  if (!conv_backward_weight_slot.supports(x.device(), x.dtype())) {
    if (gb) *gb = gy.sum(reduce_dims_but_1(gy.dim()));
    return conv_weight_grad_cols(x, gy, w_sizes, p);
  }
  Tensor gw = p.weight_channels_last
                  ? empty_strided(w_sizes, strides_for(w_sizes, cl_format(static_cast<int64_t>(w_sizes.size()))),
                                  x.options())
                  : empty(w_sizes, x.options());
  if (gb) *gb = empty({w_sizes[0]}, x.options());
  if (gw.numel() == 0) {
    if (gb) gb->zero_();
    return gw;
  }
  if (x.numel() == 0 || gy.numel() == 0) {
    if (gb) gb->zero_();
    return gw.zero_();
  }
  Tensor no_bias;
  conv_backward_weight_slot(x.device())(dense(x, p), dense(gy, p), gw, gb ? *gb : no_bias, p);
  return gw;
}

// ---- recorded ops ----

Tensor conv_input_grad_op(const Tensor& gy, const Tensor& w, const Tensor& b, IntArrayRef x_sizes,
                          const ConvParams& p, const char* op = "convolution_backward_input");
Tensor conv_weight_grad_op(const Tensor& x, const Tensor& gy, IntArrayRef w_sizes, const ConvParams& p);

Tensor conv_op(const Tensor& x, const Tensor& w, const Tensor& b, const ConvParams& p) {
  autograd::OpRecorder rec("convolution", {x, w, b});
  Tensor y = raw_forward(x, w, b, p);
  if (rec)
    rec.record(y, [sx = rec.save_if(rec.needs(1), x), sw = rec.save_if(rec.needs(0), w),
                   xs = DimVector(x.sizes()), ws = DimVector(w.sizes()), p](autograd::BackwardContext& c) {
      const Tensor& gy = c.grads[0];
      autograd::variable_list out(3);
      if (c.needs(0) && c.needs(1) && !autograd::is_recording() && backward_passes_run_side_by_side(gy)) {
        // Note [Convolutions on shared cores]
        const Tensor x = c.unpack(sx), w = c.unpack(sw);
        const bool bias = c.needs(2);
        parallel_for(0, 2, 1, [&](int64_t begin, int64_t end) {
          // Grad mode is per thread: a pool thread's default would record
          // the fallback paths' ops.
          NoGradGuard no_grad;
          for (int64_t pass = begin; pass < end; ++pass) {
            if (pass == 0) out[1] = raw_weight_grad(x, gy, ws, p, bias ? &out[2] : nullptr);
            else out[0] = raw_input_grad(gy, w, xs, p);
          }
        });
        return out;
      }
      if (c.needs(0)) out[0] = conv_input_grad_op(gy, c.unpack(sw), Tensor(), xs, p);
      if (c.needs(1) && c.needs(2) && !autograd::is_recording()) {
        out[1] = raw_weight_grad(c.unpack(sx), gy, ws, p, &out[2]);  // one oneDNN pass for both
        return out;
      }
      if (c.needs(1)) out[1] = conv_weight_grad_op(c.unpack(sx), gy, ws, p);
      if (c.needs(2)) out[2] = gy.sum(reduce_dims_but_1(gy.dim()));
      return out;
    });
  return y;
}

// With a bias b: a transposed convolution, b added to every output channel.
Tensor conv_input_grad_op(const Tensor& gy, const Tensor& w, const Tensor& b, IntArrayRef x_sizes,
                          const ConvParams& p, const char* op) {
  autograd::OpRecorder rec(op, {gy, w, b});
  Tensor gx = raw_input_grad(gy, w, x_sizes, p);
  if (b.defined()) gx.add_(bias_view(b, nspatial(p)));
  if (rec)
    rec.record(gx, [sgy = rec.save_if(rec.needs(1), gy), sw = rec.save_if(rec.needs(0), w),
                    ws = DimVector(w.sizes()), p](autograd::BackwardContext& c) {
      const Tensor& g = c.grads[0];
      autograd::variable_list out(3);
      if (c.needs(0)) out[0] = conv_op(g, c.unpack(sw), Tensor(), p);
      if (c.needs(1)) out[1] = conv_weight_grad_op(g, c.unpack(sgy), ws, p);
      if (c.needs(2)) out[2] = g.sum(reduce_dims_but_1(g.dim()));
      return out;
    });
  return gx;
}

Tensor conv_weight_grad_op(const Tensor& x, const Tensor& gy, IntArrayRef w_sizes, const ConvParams& p) {
  autograd::OpRecorder rec("convolution_backward_weight", {x, gy});
  Tensor gw = raw_weight_grad(x, gy, w_sizes, p, nullptr);
  if (rec)
    rec.record(gw, [sx = rec.save_if(rec.needs(1), x), sgy = rec.save_if(rec.needs(0), gy),
                    xs = DimVector(x.sizes()), p](autograd::BackwardContext& c) {
      const Tensor& g = c.grads[0];
      autograd::variable_list out(2);
      if (c.needs(0)) out[0] = conv_input_grad_op(c.unpack(sgy), g, Tensor(), xs, p);
      if (c.needs(1)) out[1] = conv_op(c.unpack(sx), g, Tensor(), p);
      return out;
    });
  return gw;
}

// ---- public ops ----

std::string sizes_str(IntArrayRef s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

bool wants_channels_last(const Tensor& x, const Tensor& w) {
  if (x.dim() != 4 && x.dim() != 5) return false;
  const MemoryFormat f = cl_format(x.dim());
  return x.suggest_memory_format() == f || (w.dim() == x.dim() && w.suggest_memory_format() == f);
}

// Checks shared by convolutions and transposed convolutions; returns the
// batched input (unsqueezed when unbatched).
Tensor check_common(const char* op, int64_t nd, const Tensor& input, const Tensor& weight, const Tensor& bias,
                    int64_t groups, bool& unbatched) {
  EMBER_CHECK(input.defined() && weight.defined(), op, ": input and weight must be defined");
  EMBER_CHECK(input.dim() == nd + 1 || input.dim() == nd + 2, op, ": Expected ", nd + 1, "D (unbatched) or ", nd + 2,
              "D (batched) input, but got input of size: ", sizes_str(input.sizes()));
  EMBER_CHECK(weight.dim() == nd + 2, op, ": expected weight to be ", nd + 2, "-dimensional, but got weight of size ",
              sizes_str(weight.sizes()));
  EMBER_CHECK(groups > 0, op, ": non-positive groups is not supported (got ", groups, ")");
  check_dtype(op, input.dtype());
  EMBER_CHECK(weight.dtype() == input.dtype() && (!bias.defined() || bias.dtype() == input.dtype()), op,
              ": expected input, weight and bias of one dtype, but got input ", input.dtype(), ", weight ",
              weight.dtype(), bias.defined() ? ", bias " : "",
              bias.defined() ? dtype_name(bias.dtype()) : std::string_view());
  EMBER_CHECK(input.device() == weight.device() && (!bias.defined() || bias.device() == input.device()), op,
              ": expected input, weight and bias on one device");
  unbatched = input.dim() == nd + 1;
  return unbatched ? input.unsqueeze(0) : input;
}

ConvParams base_params(const char* op, int64_t nd, const ExpandingInts& stride, const ExpandingInts& dilation,
                       int64_t groups) {
  ConvParams p;
  p.groups = groups;
  for (int64_t v : stride.expand(nd, op, "stride")) {
    EMBER_CHECK(v > 0, op, ": non-positive stride is not supported (got ", v, ")");
    p.stride.push_back(v);
  }
  for (int64_t v : dilation.expand(nd, op, "dilation")) {
    EMBER_CHECK(v > 0, op, ": dilation should be greater than zero (got ", v, ")");
    p.dilation.push_back(v);
  }
  return p;
}

// The kernel slot's name for a fusable activation (kernels/ has its own enum,
// so that it includes no nn/ header).
ConvPostOp conv_post_op(ConvActivation act) {
  switch (act) {
    case ConvActivation::None: return ConvPostOp::None;
    case ConvActivation::ReLU: return ConvPostOp::ReLU;
    case ConvActivation::ReLU6: return ConvPostOp::ReLU6;
    case ConvActivation::Hardswish: return ConvPostOp::Hardswish;
    case ConvActivation::SiLU: return ConvPostOp::SiLU;
  }
  EMBER_FAIL("conv2d_activation: unknown activation ", static_cast<int>(act));
}

Tensor apply_activation(const Tensor& y, ConvActivation act) {
  switch (act) {
    case ConvActivation::None: return y;
    case ConvActivation::ReLU: return relu(y);
    case ConvActivation::ReLU6: return relu6(y);
    case ConvActivation::Hardswish: return hardswish(y);
    case ConvActivation::SiLU: return silu(y);
  }
  return y;
}

Tensor conv_nd(const char* op, int64_t nd, const Tensor& input, const Tensor& weight, const ConvFuncOptions& o,
               ConvActivation act = ConvActivation::None) {
  bool unbatched = false;
  Tensor x = check_common(op, nd, input, weight, o.bias, o.groups, unbatched);
  ConvParams p = base_params(op, nd, o.stride, o.dilation, o.groups);
  const int64_t c = x.size(1), oc = weight.size(0);
  EMBER_CHECK(oc % o.groups == 0, op, ": Given groups=", o.groups, ", expected weight to be divisible by ", o.groups,
              " at dimension 0, but got weight of size ", sizes_str(weight.sizes()));
  EMBER_CHECK(c == weight.size(1) * o.groups, op, ": Given groups=", o.groups, ", weight of size ",
              sizes_str(weight.sizes()), ", expected input", sizes_str(x.sizes()), " to have ",
              weight.size(1) * o.groups, " channels, but got ", c, " channels instead");
  EMBER_CHECK(!o.bias.defined() || (o.bias.dim() == 1 && o.bias.size(0) == oc), op, ": Given weight of size ",
              sizes_str(weight.sizes()), ", expected bias to be 1-dimensional with ", oc,
              " elements, but got bias of size ", sizes_str(o.bias.sizes()), " instead");
  // Padding.
  if (o.padding.mode.empty()) {
    for (int64_t v : ExpandingInts(o.padding.values).expand(nd, op, "padding")) {
      EMBER_CHECK(v >= 0, op, ": negative padding is not supported (got ", v, ")");
      p.padding_l.push_back(v);
      p.padding_r.push_back(v);
    }
  } else if (o.padding.mode == "valid") {
    p.padding_l.assign(nd, 0);
    p.padding_r.assign(nd, 0);
  } else if (o.padding.mode == "same") {
    for (int64_t s : p.stride)
      EMBER_CHECK(s == 1, op, ": padding='same' is not supported for strided convolutions");
    for (int64_t i = 0; i < nd; ++i) {
      const int64_t total = checked_mul(p.dilation[i], weight.size(2 + i) - 1, op);
      p.padding_l.push_back(total / 2);
      p.padding_r.push_back(total - total / 2);
    }
  } else {
    EMBER_CHECK(false, op, ": Invalid padding string '", o.padding.mode, "', should be one of {'valid', 'same'}");
  }
  if (o.padding_mode != "zeros") {
    EMBER_CHECK(o.padding_mode == "reflect" || o.padding_mode == "replicate" || o.padding_mode == "circular", op,
                ": padding_mode must be one of 'zeros', 'reflect', 'replicate' or 'circular', but got '",
                o.padding_mode, "'");
    DimVector pads;
    bool any = false;
    for (int64_t i = nd - 1; i >= 0; --i) {
      pads.push_back(p.padding_l[i]);
      pads.push_back(p.padding_r[i]);
      any = any || p.padding_l[i] || p.padding_r[i];
    }
    if (any) x = pad(x, pads, o.padding_mode);
    p.padding_l.assign(nd, 0);
    p.padding_r.assign(nd, 0);
  }
  for (int64_t i = 0; i < nd; ++i) {
    // Checked (Note [Checked sizes]): huge paddings or dilations must not wrap
    // into a plausible size.
    const int64_t padded = checked_add(checked_add(x.size(2 + i), p.padding_l[i], op), p.padding_r[i], op);
    const int64_t span = checked_add(checked_mul(p.dilation[i], weight.size(2 + i) - 1, op), 1, op);
    EMBER_CHECK(padded >= span, op, ": Calculated padded input size per channel: ", padded, " (dim ", i,
                " of input ", sizes_str(x.sizes()), "). Kernel size: ", span,
                " (dilated). Kernel size can't be greater than actual input size");
    // Exact output size: the right padding the last window reaches.
    const int64_t out = (padded - span) / p.stride[i] + 1;
    p.padding_r[i] = (out - 1) * p.stride[i] + span - x.size(2 + i) - p.padding_l[i];
  }
  p.channels_last = wants_channels_last(x, weight);
  p.weight_channels_last = (weight.dim() == 4 || weight.dim() == 5) && !weight.is_contiguous() &&
                           weight.is_contiguous(cl_format(weight.dim()));
  // The activation fuses into the oneDNN convolution when nothing is recorded
  // (Note [Convolutions]: the fused op has no backward formula of its own).
  const bool records = autograd::is_recording() && (x.requires_grad() || weight.requires_grad() ||
                                                    (o.bias.defined() && o.bias.requires_grad()));
  Tensor y;
  if (act != ConvActivation::None &&
      conv_forward_slot.supports(x.device(), static_cast<int>(conv_post_op(act)), x.dtype()) && x.numel() > 0 &&
      !records) {
    p.activation = conv_post_op(act);
    y = raw_forward(x, weight, o.bias, p);
  } else {
    y = apply_activation(conv_op(x, weight, o.bias, p), act);
  }
  return unbatched ? y.squeeze(0) : y;
}

Tensor conv_transpose_nd(const char* op, int64_t nd, const Tensor& input, const Tensor& weight,
                         const ConvTransposeFuncOptions& o) {
  bool unbatched = false;
  Tensor x = check_common(op, nd, input, weight, o.bias, o.groups, unbatched);
  ConvParams p = base_params(op, nd, o.stride, o.dilation, o.groups);
  const int64_t c = x.size(1), oc = weight.size(1) * o.groups;
  EMBER_CHECK(weight.size(0) % o.groups == 0 && c == weight.size(0), op, ": Given transposed=1, weight of size ",
              sizes_str(weight.sizes()), ", expected input", sizes_str(x.sizes()), " to have ", weight.size(0),
              " channels, but got ", c, " channels instead", o.groups > 1 ? " (and weight.size(0) divisible by groups)" : "");
  EMBER_CHECK(!o.bias.defined() || (o.bias.dim() == 1 && o.bias.size(0) == oc), op, ": Given transposed=1, weight of size ",
              sizes_str(weight.sizes()), ", expected bias to be 1-dimensional with ", oc,
              " elements, but got bias of size ", sizes_str(o.bias.sizes()), " instead");
  const std::vector<int64_t> pad = o.padding.expand(nd, op, "padding");
  const std::vector<int64_t> opad = o.output_padding.expand(nd, op, "output_padding");
  DimVector out_sizes{x.size(0), oc};
  for (int64_t i = 0; i < nd; ++i) {
    EMBER_CHECK(pad[i] >= 0, op, ": negative padding is not supported (got ", pad[i], ")");
    EMBER_CHECK(opad[i] >= 0 && (opad[i] < p.stride[i] || opad[i] < p.dilation[i]), op,
                ": output padding must be smaller than either stride or dilation, but got output_padding ", opad[i],
                ", stride ", p.stride[i], ", dilation ", p.dilation[i]);
    const int64_t span = checked_add(checked_mul(p.dilation[i], weight.size(2 + i) - 1, op), 1, op);
    // In 128 bits (Note [Checked sizes]): every term is an int64.
    const __int128 out128 = __int128(x.size(2 + i) - 1) * p.stride[i] - __int128(2) * pad[i] + span + opad[i];
    EMBER_CHECK(out128 <= INT64_MAX, op, ": the output size of dim ", i, " of input ", sizes_str(x.sizes()),
                " overflows int64 (stride ", p.stride[i], ", padding ", pad[i], ", dilation ", p.dilation[i], ")");
    const int64_t out = static_cast<int64_t>(std::max<__int128>(out128, INT64_MIN));
    EMBER_CHECK(out > 0, op, ": Given input size per channel ", x.size(2 + i), " (dim ", i, " of input ",
                sizes_str(x.sizes()), "), the calculated output size ", out, " is too small");
    out_sizes.push_back(out);
    p.padding_l.push_back(pad[i]);
    p.padding_r.push_back(pad[i] - opad[i]);
  }
  p.channels_last = wants_channels_last(x, weight);
  p.weight_channels_last = (weight.dim() == 4 || weight.dim() == 5) && !weight.is_contiguous() &&
                           weight.is_contiguous(cl_format(weight.dim()));
  Tensor y = conv_input_grad_op(x, weight, o.bias, out_sizes, p, "convolution");
  return unbatched ? y.squeeze(0) : y;
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const ConvFuncOptions& options) {
  return conv_nd("conv1d", 1, input, weight, options);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const ConvFuncOptions& options) {
  return conv_nd("conv2d", 2, input, weight, options);
}
Tensor conv3d(const Tensor& input, const Tensor& weight, const ConvFuncOptions& options) {
  return conv_nd("conv3d", 3, input, weight, options);
}
Tensor conv2d_activation(const Tensor& input, const Tensor& weight, const ConvFuncOptions& options,
                         ConvActivation activation) {
  return conv_nd("conv2d_activation", 2, input, weight, options, activation);
}
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const ConvTransposeFuncOptions& options) {
  return conv_transpose_nd("conv_transpose1d", 1, input, weight, options);
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const ConvTransposeFuncOptions& options) {
  return conv_transpose_nd("conv_transpose2d", 2, input, weight, options);
}
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const ConvTransposeFuncOptions& options) {
  return conv_transpose_nd("conv_transpose3d", 3, input, weight, options);
}

}  // namespace ember::nn::functional
