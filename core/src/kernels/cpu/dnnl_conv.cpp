// Convolution kernels on oneDNN (Note [oneDNN primitives] in dnnl_utils.cpp):
// forward, backward data and backward weights (+ bias), float32, any groups,
// strides, dilations and (asymmetric) paddings, 1-3 spatial dims.
#include "kernels/cpu/dnnl_utils.h"
#include "kernels/slots/conv_kernels.h"

namespace ember::nn::functional {
namespace {

using namespace dnnl_glue;
using dnnl::memory;

memory::dims weight_dims(const Tensor& w, int64_t groups) {
  memory::dims d = to_dims(w.sizes());
  if (groups == 1) return d;
  d[0] /= groups;
  d.insert(d.begin(), groups);
  return d;
}

// The weight (or its gradient) as oneDNN memory, described by its strides
// (row-major or channels-last), viewed as [G, O/G, I/G, k...] when grouped.
memory weight_memory(const Tensor& w, int64_t groups) {
  memory::dims strides = to_dims(w.strides());
  if (groups > 1) strides.insert(strides.begin(), strides[0] * (w.size(0) / groups));
  return wrap(memory::desc(weight_dims(w, groups), dt::f32, strides), w);
}

memory::dims dilates(const ConvParams& p) {
  memory::dims d;
  for (int64_t v : p.dilation) d.push_back(v - 1);
  return d;
}

memory::desc act_desc(IntArrayRef sizes, const ConvParams& p, bool any) {
  return memory::desc(to_dims(sizes), dt::f32,
                      p.channels_last ? plain_tag(static_cast<int64_t>(sizes.size()), true)
                                      : (any ? tag::any : plain_tag(static_cast<int64_t>(sizes.size()), false)));
}

CacheKey conv_key(const char* op, IntArrayRef x, IntArrayRef w, IntArrayRef y, const ConvParams& p, bool bias) {
  CacheKey k(op);
  k.add(x).add(w).add(y).add(p.stride).add(p.padding_l).add(p.padding_r).add(p.dilation);
  k.add(p.groups).add(p.channels_last ? 1 : 0).add(bias ? 1 : 0).add(static_cast<int64_t>(p.activation));
  return k;
}

// The activation as oneDNN post-ops on the convolution's output: ReLU6 is
// clip(0, 6), SiLU is swish with alpha 1.
dnnl::primitive_attr activation_attr(ConvPostOp act) {
  dnnl::post_ops ops;
  switch (act) {
    case ConvPostOp::None: break;
    case ConvPostOp::ReLU: ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f); break;
    case ConvPostOp::ReLU6: ops.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, 0.f, 6.f); break;
    case ConvPostOp::Hardswish: ops.append_eltwise(1.f, dnnl::algorithm::eltwise_hardswish, 0.f, 0.f); break;
    case ConvPostOp::SiLU: ops.append_eltwise(1.f, dnnl::algorithm::eltwise_swish, 1.f, 0.f); break;
  }
  dnnl::primitive_attr attr = with_user_scratchpad();
  attr.set_post_ops(ops);
  return attr;
}

dnnl::convolution_forward::primitive_desc forward_pd(IntArrayRef x, const Tensor& w, IntArrayRef y,
                                                     const ConvParams& p, bool bias) {
  const memory::desc src = act_desc(x, p, true), dst = act_desc(y, p, true);
  const memory::desc wd(weight_dims(w, p.groups), dt::f32, tag::any);
  const auto prop = dnnl::prop_kind::forward_training;
  const auto alg = dnnl::algorithm::convolution_direct;
  const memory::dims st = to_dims(p.stride), pl = to_dims(p.padding_l), pr = to_dims(p.padding_r);
  const dnnl::primitive_attr attr = activation_attr(p.activation);
  if (bias) {
    const memory::desc bd({w.size(0)}, dt::f32, tag::a);
    return {dnnl::convolution_forward::desc(prop, alg, src, wd, bd, dst, st, dilates(p), pl, pr), attr, engine()};
  }
  return {dnnl::convolution_forward::desc(prop, alg, src, wd, dst, st, dilates(p), pl, pr), attr, engine()};
}

struct Forward {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
};

void conv_forward_kernel(const Tensor& x, const Tensor& w, const Tensor& b, Tensor& y,
                         const ConvParams& p) {
  const bool bias = b.defined();
  auto f = cached<Forward>(conv_key("conv_fwd", x.sizes(), w.sizes(), y.sizes(), p, bias), [&] {
    auto pd = forward_pd(x.sizes(), w, y.sizes(), p, bias);
    return Forward{pd, dnnl::convolution_forward(pd)};
  });
  std::vector<Tensor> keep;
  const int64_t nd = x.dim();
  memory src = reordered(wrap(memory::desc(to_dims(x.sizes()), dt::f32, plain_tag(nd, p.channels_last)), x),
                         f->pd.src_desc(), keep);
  memory wm = reordered_cached(w, weight_memory(w, p.groups), f->pd.weights_desc(), keep);
  memory user_dst = wrap(memory::desc(to_dims(y.sizes()), dt::f32, plain_tag(nd, p.channels_last)), y);
  const bool direct = f->pd.dst_desc() == user_dst.get_desc();
  memory dst = direct ? user_dst : scratch(f->pd.dst_desc(), keep);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dst}};
  if (bias) args.emplace(DNNL_ARG_BIAS, wrap(memory::desc({w.size(0)}, dt::f32, tag::a), b));
  execute(f->prim, f->pd.scratchpad_desc(), std::move(args));
  if (!direct) reorder_into(dst, user_dst);
}

struct BackwardData {
  dnnl::convolution_backward_data::primitive_desc pd;
  dnnl::convolution_backward_data prim;
};

void conv_backward_data_kernel(const Tensor& gy, const Tensor& w, Tensor& gx, const ConvParams& p) {
  auto f = cached<BackwardData>(conv_key("conv_bwd_data", gx.sizes(), w.sizes(), gy.sizes(), p, false), [&] {
    auto hint = forward_pd(gx.sizes(), w, gy.sizes(), p, false);
    const memory::desc wd(weight_dims(w, p.groups), dt::f32, tag::any);
    dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, act_desc(gx.sizes(), p, true), wd,
                                            act_desc(gy.sizes(), p, true), to_dims(p.stride), dilates(p),
                                            to_dims(p.padding_l), to_dims(p.padding_r));
    dnnl::convolution_backward_data::primitive_desc pd(d, with_user_scratchpad(), engine(), hint);
    return BackwardData{pd, dnnl::convolution_backward_data(pd)};
  });
  std::vector<Tensor> keep;
  const int64_t nd = gx.dim();
  memory dy = reordered(wrap(memory::desc(to_dims(gy.sizes()), dt::f32, plain_tag(nd, p.channels_last)), gy),
                        f->pd.diff_dst_desc(), keep);
  memory wm = reordered_cached(w, weight_memory(w, p.groups), f->pd.weights_desc(), keep);
  memory user_dx = wrap(memory::desc(to_dims(gx.sizes()), dt::f32, plain_tag(nd, p.channels_last)), gx);
  const bool direct = f->pd.diff_src_desc() == user_dx.get_desc();
  memory dx = direct ? user_dx : scratch(f->pd.diff_src_desc(), keep);
  execute(f->prim, f->pd.scratchpad_desc(), {{DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DIFF_SRC, dx}});
  if (!direct) reorder_into(dx, user_dx);
}

struct BackwardWeights {
  dnnl::convolution_backward_weights::primitive_desc pd;
  dnnl::convolution_backward_weights prim;
};

void conv_backward_weight_kernel(const Tensor& x, const Tensor& gy, Tensor& gw, Tensor& gb,
                                 const ConvParams& p) {
  const bool bias = gb.defined();
  auto f = cached<BackwardWeights>(conv_key("conv_bwd_weights", x.sizes(), gw.sizes(), gy.sizes(), p, bias), [&] {
    auto hint = forward_pd(x.sizes(), gw, gy.sizes(), p, bias);
    const memory::desc wd(weight_dims(gw, p.groups), dt::f32, tag::any);
    const memory::desc src = act_desc(x.sizes(), p, true), dst = act_desc(gy.sizes(), p, true);
    const auto alg = dnnl::algorithm::convolution_direct;
    const memory::dims st = to_dims(p.stride), pl = to_dims(p.padding_l), pr = to_dims(p.padding_r);
    auto d = bias ? dnnl::convolution_backward_weights::desc(alg, src, wd, memory::desc({gw.size(0)}, dt::f32, tag::a),
                                                             dst, st, dilates(p), pl, pr)
                  : dnnl::convolution_backward_weights::desc(alg, src, wd, dst, st, dilates(p), pl, pr);
    dnnl::convolution_backward_weights::primitive_desc pd(d, with_user_scratchpad(), engine(), hint);
    return BackwardWeights{pd, dnnl::convolution_backward_weights(pd)};
  });
  std::vector<Tensor> keep;
  const int64_t nd = x.dim();
  memory src = reordered(wrap(memory::desc(to_dims(x.sizes()), dt::f32, plain_tag(nd, p.channels_last)), x),
                         f->pd.src_desc(), keep);
  memory dy = reordered(wrap(memory::desc(to_dims(gy.sizes()), dt::f32, plain_tag(nd, p.channels_last)), gy),
                        f->pd.diff_dst_desc(), keep);
  memory user_dw = weight_memory(gw, p.groups);
  const bool direct = f->pd.diff_weights_desc() == user_dw.get_desc();
  memory dw = direct ? user_dw : scratch(f->pd.diff_weights_desc(), keep);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_DIFF_WEIGHTS, dw}};
  if (bias) args.emplace(DNNL_ARG_DIFF_BIAS, wrap(memory::desc({gw.size(0)}, dt::f32, tag::a), gb));
  execute(f->prim, f->pd.scratchpad_desc(), std::move(args));
  if (!direct) reorder_into(dw, user_dw);
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(conv_forward_slot, CPU, conv_forward_kernel, dtype_bit(kFloat32));
// Every post-op fuses (activation_attr), in float32.
constexpr uint32_t kConvPostOpDTypes[] = {dtype_bit(kFloat32), dtype_bit(kFloat32), dtype_bit(kFloat32),
                                          dtype_bit(kFloat32), dtype_bit(kFloat32)};
static_assert(std::size(kConvPostOpDTypes) == std::size(kConvPostOpNames));
static const bool conv_post_op_dtypes_registered = conv_forward_slot.set_op_dtypes(DeviceType::CPU, kConvPostOpDTypes);
EMBER_REGISTER_KERNEL_FOR_DTYPES(conv_backward_data_slot, CPU, conv_backward_data_kernel, dtype_bit(kFloat32));
EMBER_REGISTER_KERNEL_FOR_DTYPES(conv_backward_weight_slot, CPU, conv_backward_weight_kernel, dtype_bit(kFloat32));

}  // namespace ember::nn::functional
