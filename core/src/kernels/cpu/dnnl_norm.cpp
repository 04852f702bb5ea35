// Batch and layer normalization kernels on oneDNN (batch norm: for the layouts
// batch_norm_kernels.cpp sends here) (Note [oneDNN primitives]
// in dnnl_utils.cpp), float32. Scale and shift come together or not at all
// (the ops give ones/zeros for a missing one).
#include <bit>

#include "kernels/cpu/dnnl_norm.h"
#include "kernels/cpu/dnnl_utils.h"
#include "kernels/slots/norm_kernels.h"

namespace ember::nn::functional {
namespace {

using namespace dnnl_glue;
using dnnl::memory;
using dnnl::normalization_flags;

const normalization_flags kAffine = normalization_flags::use_scale | normalization_flags::use_shift;
normalization_flags affine_flags(bool affine) { return affine ? kAffine : normalization_flags::none; }

memory::desc data_desc(const Tensor& x, bool channels_last) {
  return memory::desc(to_dims(x.sizes()), dt::f32, plain_tag(x.dim(), channels_last));
}
memory vec(const Tensor& t) { return wrap(memory::desc({t.numel()}, dt::f32, tag::a), t); }

float eps_f(double eps) { return static_cast<float>(eps); }

struct BnForward {
  dnnl::batch_normalization_forward::primitive_desc pd;
  dnnl::batch_normalization_forward prim;
};

dnnl::batch_normalization_forward::primitive_desc bn_forward_pd(const memory::desc& d, double eps, bool stats,
                                                                bool affine) {
  const auto flags = stats ? affine_flags(affine) : affine_flags(affine) | normalization_flags::use_global_stats;
  const auto prop = stats ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
  return {dnnl::batch_normalization_forward::desc(prop, d, eps_f(eps), flags), with_user_scratchpad(), engine()};
}

CacheKey bn_key(const char* op, const Tensor& x, double eps, bool flag, bool channels_last, bool affine) {
  CacheKey k(op);
  k.add(x.sizes()).add(std::bit_cast<int32_t>(eps_f(eps))).add(flag).add(channels_last).add(affine);
  return k;
}

using Args = std::unordered_map<int, memory>;

}  // namespace

void dnnl_batch_norm_forward(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& mean,
                             const Tensor& var, const Tensor& y, double eps, bool use_input_stats,
                             bool channels_last) {
  const memory::desc d = data_desc(x, channels_last);
  const bool affine = w.defined();
  auto f = cached<BnForward>(bn_key("bn_fwd", x, eps, use_input_stats, channels_last, affine), [&] {
    auto pd = bn_forward_pd(d, eps, use_input_stats, affine);
    return BnForward{pd, dnnl::batch_normalization_forward(pd)};
  });
  Args args{{DNNL_ARG_SRC, wrap(d, x)}, {DNNL_ARG_DST, wrap(d, y)}, {DNNL_ARG_MEAN, vec(mean)},
            {DNNL_ARG_VARIANCE, vec(var)}};
  if (affine) {
    args.emplace(DNNL_ARG_SCALE, vec(w));
    args.emplace(DNNL_ARG_SHIFT, vec(b));
  }
  execute(f->prim, f->pd.scratchpad_desc(), std::move(args));
}

namespace {

struct BnBackward {
  dnnl::batch_normalization_backward::primitive_desc pd;
  dnnl::batch_normalization_backward prim;
};

}  // namespace

void dnnl_batch_norm_backward(const Tensor& x, const Tensor& gy, const Tensor& w, const Tensor& mean,
                              const Tensor& var, const Tensor& gx, const Tensor& gw, const Tensor& gb, double eps,
                              bool channels_last) {
  const memory::desc d = data_desc(x, channels_last);
  const bool affine = w.defined();
  auto f = cached<BnBackward>(bn_key("bn_bwd", x, eps, true, channels_last, affine), [&] {
    auto hint = bn_forward_pd(d, eps, true, affine);
    dnnl::batch_normalization_backward::desc bd(
        affine ? dnnl::prop_kind::backward : dnnl::prop_kind::backward_data, d, d, eps_f(eps), affine_flags(affine));
    dnnl::batch_normalization_backward::primitive_desc pd(bd, with_user_scratchpad(), engine(), hint);
    return BnBackward{pd, dnnl::batch_normalization_backward(pd)};
  });
  Args args{{DNNL_ARG_SRC, wrap(d, x)},   {DNNL_ARG_DIFF_DST, wrap(d, gy)}, {DNNL_ARG_MEAN, vec(mean)},
            {DNNL_ARG_VARIANCE, vec(var)}, {DNNL_ARG_DIFF_SRC, wrap(d, gx)}};
  if (affine) {
    args.emplace(DNNL_ARG_SCALE, vec(w));
    // oneDNN 2.6 wants a shift argument in backward too (unread): pass w.
    args.emplace(DNNL_ARG_SHIFT, vec(w));
    args.emplace(DNNL_ARG_DIFF_SCALE, vec(gw));
    args.emplace(DNNL_ARG_DIFF_SHIFT, vec(gb));
  }
  execute(f->prim, f->pd.scratchpad_desc(), std::move(args));
}

namespace {

struct LnForward {
  dnnl::layer_normalization_forward::primitive_desc pd;
  dnnl::layer_normalization_forward prim;
};

memory::desc ln_stat_desc(const Tensor& x) { return memory::desc({x.size(0)}, dt::f32, tag::a); }

dnnl::layer_normalization_forward::primitive_desc ln_forward_pd(const memory::desc& d, const memory::desc& s,
                                                                double eps, bool affine) {
  return {dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_training, d, s, eps_f(eps),
                                                  affine_flags(affine)),
          with_user_scratchpad(), engine()};
}

void layer_norm_forward_kernel(const Tensor& x, const Tensor& w, const Tensor& b, Tensor& mean,
                               Tensor& var, Tensor& y, double eps) {
  const memory::desc d = data_desc(x, false), s = ln_stat_desc(x);
  const bool affine = w.defined();
  auto f = cached<LnForward>(bn_key("ln_fwd", x, eps, true, false, affine), [&] {
    auto pd = ln_forward_pd(d, s, eps, affine);
    return LnForward{pd, dnnl::layer_normalization_forward(pd)};
  });
  Args args{{DNNL_ARG_SRC, wrap(d, x)}, {DNNL_ARG_DST, wrap(d, y)}, {DNNL_ARG_MEAN, wrap(s, mean)},
            {DNNL_ARG_VARIANCE, wrap(s, var)}};
  if (affine) {
    args.emplace(DNNL_ARG_SCALE, vec(w));
    args.emplace(DNNL_ARG_SHIFT, vec(b));
  }
  execute(f->prim, f->pd.scratchpad_desc(), std::move(args));
}

struct LnBackward {
  dnnl::layer_normalization_backward::primitive_desc pd;
  dnnl::layer_normalization_backward prim;
};

void layer_norm_backward_kernel(const Tensor& x, const Tensor& gy, const Tensor& w, const Tensor& mean,
                                const Tensor& var, Tensor& gx, Tensor& gw, Tensor& gb,
                                double eps) {
  const memory::desc d = data_desc(x, false), s = ln_stat_desc(x);
  const bool affine = w.defined();
  auto f = cached<LnBackward>(bn_key("ln_bwd", x, eps, true, false, affine), [&] {
    auto hint = ln_forward_pd(d, s, eps, affine);
    dnnl::layer_normalization_backward::desc bd(affine ? dnnl::prop_kind::backward : dnnl::prop_kind::backward_data,
                                                d, d, s, eps_f(eps), affine_flags(affine));
    dnnl::layer_normalization_backward::primitive_desc pd(bd, with_user_scratchpad(), engine(), hint);
    return LnBackward{pd, dnnl::layer_normalization_backward(pd)};
  });
  Args args{{DNNL_ARG_SRC, wrap(d, x)},        {DNNL_ARG_DIFF_DST, wrap(d, gy)}, {DNNL_ARG_MEAN, wrap(s, mean)},
            {DNNL_ARG_VARIANCE, wrap(s, var)}, {DNNL_ARG_DIFF_SRC, wrap(d, gx)}};
  if (affine) {
    args.emplace(DNNL_ARG_SCALE, vec(w));
    // oneDNN 2.6 wants a shift argument in backward too (unread): pass w.
    args.emplace(DNNL_ARG_SHIFT, vec(w));
    args.emplace(DNNL_ARG_DIFF_SCALE, vec(gw));
    args.emplace(DNNL_ARG_DIFF_SHIFT, vec(gb));
  }
  execute(f->prim, f->pd.scratchpad_desc(), std::move(args));
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(layer_norm_forward_slot, CPU, layer_norm_forward_kernel, dtype_bit(kFloat32));
EMBER_REGISTER_KERNEL_FOR_DTYPES(layer_norm_backward_slot, CPU, layer_norm_backward_kernel, dtype_bit(kFloat32));

}  // namespace ember::nn::functional
