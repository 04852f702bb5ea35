// Quantized convolution and linear on oneDNN's int8 primitives (Note [oneDNN
// int8 requantization]): u8 (or s8) activations times s8 weights, s32
// accumulation, requantization to the output's dtype in the primitive.
#include <bit>
#include <cstring>
#include <mutex>

#include "ember/core/quantizer.h"
#include "ember/ops/factories.h"
#include "kernels/cpu/dnnl_utils.h"
#include "kernels/slots/quantized_kernels.h"
#include "runtime/openmp_calls.h"

namespace ember::ao::nn::quantized {
namespace {

using namespace dnnl_glue;
using dnnl::memory;

// Note [oneDNN int8 requantization]
// PyTorch's onednn engine (ideep over the same libdnnl) hands oneDNN
// reciprocal scales in float32 and a float32 bias, and oneDNN computes, per
// output (2.x semantics: the bias is added before the output scale):
//   inv_x = float(1 / x_scale), inv_w = float(1 / w_scale[o]), inv_y = float(1 / y_scale)
//   bias_scale = inv_x * inv_w                        (float32)
//   out_scale  = inv_y / bias_scale                   (float32)
//   t = (float(acc) + float(bias) * bias_scale) * out_scale, ReLU, + y_zp
//   y = saturate(nearbyint(t))                        (halves to even)
// with acc = sum((x - x_zp) * w) exact in int32. Ember gives oneDNN the same
// numbers (the bias pre-scaled here exactly as ideep's bias reorder does), so
// the integers equal torch's: on random layers this formula matched torch in
// every one of 600k outputs, where the float64 requantization of the fallback
// path differed in 5 (values within float32 rounding of a half).

uint64_t bits(double v) { return std::bit_cast<uint64_t>(v); }

dt data_type_of(DType d) { return d == kQUInt8 ? dt::u8 : dt::s8; }

// The weight's reciprocal scales in float32, one per output channel (one when per tensor).
std::vector<float> inverse_weight_scales(const Tensor& w) {
  const Quantizer& q = *w.impl()->quantizer();
  if (!q.is_per_channel()) return {static_cast<float>(1.0 / q.scale())};
  const Tensor s = q.scales();
  const double* p = s.data_ptr<double>();
  std::vector<float> out(static_cast<size_t>(s.numel()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(1.0 / p[i]);
  return out;
}

// Output scales and the bias oneDNN adds before them, for one input and output scale.
struct Requant {
  std::vector<float> out_scales;
  Tensor bias;  // float32 [O], scaled; undefined without a bias
};

Requant make_requant(const Tensor& w, const Tensor& bias, double x_scale, double y_scale, int64_t channels) {
  const std::vector<float> inv_w = inverse_weight_scales(w);
  const float inv_x = static_cast<float>(1.0 / x_scale), inv_y = static_cast<float>(1.0 / y_scale);
  Requant r;
  r.out_scales.resize(inv_w.size());
  for (size_t i = 0; i < inv_w.size(); ++i) r.out_scales[i] = inv_y / (inv_x * inv_w[i]);
  if (bias.defined()) {
    const Tensor b = bias.to(kFloat32).contiguous();
    r.bias = empty({channels}, TensorOptions(kFloat32));
    const float* src = b.data_ptr<float>();
    float* dst = r.bias.data_ptr<float>();
    for (int64_t o = 0; o < channels; ++o) {
      const float bias_scale = inv_x * inv_w[inv_w.size() == 1 ? 0 : static_cast<size_t>(o)];
      dst[o] = src[o] * bias_scale;
    }
  }
  return r;
}

// Zero points as ideep gives them (its kernels add them in a different order
// when given at run time or at creation, which can move a result by one):
// the convolution's input zero point at run time, the others at creation.
dnnl::primitive_attr make_attr(const Requant& r, int per_channel_mask, int64_t x_zp, bool x_zp_at_run_time,
                               int64_t y_zp, bool relu) {
  dnnl::primitive_attr attr = with_user_scratchpad();
  attr.set_output_scales(r.out_scales.size() == 1 ? 0 : per_channel_mask, r.out_scales);
  if (x_zp)
    attr.set_zero_points(DNNL_ARG_SRC, 0,
                         {x_zp_at_run_time ? DNNL_RUNTIME_S32_VAL : static_cast<int32_t>(x_zp)});
  if (y_zp) attr.set_zero_points(DNNL_ARG_DST, 0, {static_cast<int32_t>(y_zp)});
  if (relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
    attr.set_post_ops(ops);
  }
  return attr;
}

// One way of running the layer: a primitive for one input shape and pair of
// scales, with the bias scaled for them.
struct Plan {
  std::vector<int64_t> key;
  std::shared_ptr<dnnl::primitive> prim;
  memory::desc src, weights, dst, scratchpad;
  Tensor bias;
  int64_t x_zp = 0;  // passed at run time (0: none)
};

// The per-module state (QKernelState): what it was built from, the weight in
// each layout a primitive asked for, and the last few plans.
struct Int8State : QKernelState {
  Tensor weight, bias;
  uint64_t weight_version = 0, bias_version = 0;
  std::mutex mu;
  std::vector<std::pair<memory::desc, Tensor>> packed;
  std::vector<std::shared_ptr<const Plan>> plans;  // most recently used last
  static constexpr size_t kPlans = 8;

  bool built_from(const Tensor& w, const Tensor& b) const {
    return weight.impl() == w.impl() && weight_version == w.storage()->version() &&
           bias.defined() == b.defined() && (!b.defined() || (bias.impl() == b.impl() &&
                                                              bias_version == b.storage()->version()));
  }
};

std::mutex state_slot_mutex;  // guards the callers' state pointers

std::shared_ptr<Int8State> state_for(const Tensor& w, const Tensor& b, QKernelStatePtr* slot) {
  if (slot != nullptr) {
    std::lock_guard<std::mutex> lock(state_slot_mutex);
    auto s = std::dynamic_pointer_cast<Int8State>(*slot);
    if (s && s->built_from(w, b)) return s;
  }
  auto s = std::make_shared<Int8State>();
  s->weight = w;
  s->weight_version = w.storage()->version();
  if (b.defined()) {
    s->bias = b;
    s->bias_version = b.storage()->version();
  }
  if (slot != nullptr) {
    std::lock_guard<std::mutex> lock(state_slot_mutex);
    *slot = s;
  }
  return s;
}

// The plan for `key`, made by make() on a miss.
template <class Make>
std::shared_ptr<const Plan> plan_for(Int8State& s, const std::vector<int64_t>& key, Make&& make) {
  {
    std::lock_guard<std::mutex> lock(s.mu);
    for (auto it = s.plans.begin(); it != s.plans.end(); ++it) {
      if ((*it)->key == key) {
        auto hit = *it;
        s.plans.erase(it);
        s.plans.push_back(hit);
        return hit;
      }
    }
  }
  std::shared_ptr<const Plan> made = make();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.plans.size() >= Int8State::kPlans) s.plans.erase(s.plans.begin());
  s.plans.push_back(made);
  return made;
}

// The weight in layout `want`: reordered once per layout, kept in the state.
memory weights_in(Int8State& s, const memory& user, const memory::desc& want, std::vector<Tensor>& keep) {
  if (user.get_desc() == want) return user;
  std::lock_guard<std::mutex> lock(s.mu);
  for (const auto& [d, buffer] : s.packed) {
    if (d == want) {
      keep.push_back(buffer);
      return memory(want, engine(), buffer.data_ptr());
    }
  }
  std::vector<Tensor> made;
  memory out = scratch(want, made);
  reorder_into(user, out);
  s.packed.emplace_back(want, made.back());
  keep.push_back(made.back());
  return out;
}

memory zero_point_memory(const int32_t& v) {
  return memory(memory::desc({1}, dt::s32, tag::x), engine(), const_cast<int32_t*>(&v));
}

// Executes the plan: x and y in the plan's layouts, the weight from `user_weights`.
void execute(const Plan& plan, Int8State& s, const memory& user_weights, const memory::desc& bias_desc,
             const Tensor& x, Tensor& y) {
  std::vector<Tensor> keep;
  memory wm = weights_in(s, user_weights, plan.weights, keep);
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, wrap(plan.src, x)}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, wrap(plan.dst, y)}};
  if (plan.bias.defined()) args.emplace(DNNL_ARG_BIAS, wrap(bias_desc, plan.bias));
  const int32_t x_zp = static_cast<int32_t>(plan.x_zp);
  if (x_zp) args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zero_point_memory(x_zp));
  runtime::prepare_openmp_library_call();
  dnnl_glue::execute(*plan.prim, plan.scratchpad, std::move(args));
}

void add_requant_key(CacheKey& k, std::vector<int64_t>& key, const Tensor& x, const Tensor& y, bool relu) {
  const int64_t xs = static_cast<int64_t>(bits(x.q_scale())), ys = static_cast<int64_t>(bits(y.q_scale()));
  k.add(xs).add(ys).add(x.q_zero_point()).add(y.q_zero_point()).add(int64_t{relu});
  for (int64_t v : {xs, ys, x.q_zero_point(), y.q_zero_point(), static_cast<int64_t>(relu)}) key.push_back(v);
}

// ---- convolution ----

// The weight as oneDNN's (grouped) weights: a convolution's [O, C / g, k...]
// is [g, O / g, C / g, k...]; a transposed convolution's torch weight
// [C, O / g, k...] is oneDNN's deconvolution weight [O, C, k...] (or [g, O /
// g, C / g, k...]) read through permuted strides, so nothing is copied.
memory::dims conv_weight_dims(const Tensor& w, int64_t groups, bool transposed) {
  memory::dims d = to_dims(w.sizes());
  if (transposed) {
    const int64_t c = d[0];
    d[0] = d[1] * groups;  // O
    d[1] = c;              // C
  }
  if (groups == 1) return d;
  d[0] /= groups;
  d[1] = transposed ? d[1] / groups : d[1];
  d.insert(d.begin(), groups);
  return d;
}

memory conv_user_weights(const Tensor& w, int64_t groups, bool transposed) {
  memory::dims strides = to_dims(w.strides());
  if (transposed) {
    // dims [O, C, k...]: O runs along torch's dim 1, C along dim 0.
    std::swap(strides[0], strides[1]);
    // grouped: [g, O / g, C / g, k...], a group steps C / g rows of torch's dim 0.
    if (groups > 1) strides.insert(strides.begin(), strides[1] * (w.size(0) / groups));
  } else if (groups > 1) {
    strides.insert(strides.begin(), strides[0] * (w.size(0) / groups));
  }
  return wrap(memory::desc(conv_weight_dims(w, groups, transposed), dt::s8, strides), w);
}

struct ConvPrimitive {
  memory::desc src, weights, dst, scratchpad;
  std::shared_ptr<dnnl::primitive> prim;
};

// Convolution (or, with p.transposed, deconvolution) with 2 or 3 spatial
// dims: x and y dense channels-last (nhwc / ndhwc).
void qconv_kernel(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y, const QConvParams& p,
                  QKernelStatePtr* state_slot) {
  auto s = state_for(w, bias, state_slot);
  const dt xdt = data_type_of(x.dtype());
  CacheKey k(p.transposed ? "qconv_transpose" : "qconv");
  k.add(x.sizes()).add(w.sizes()).add(y.sizes()).add(p.stride).add(p.padding_l).add(p.padding_r).add(p.dilation);
  k.add(p.groups).add(static_cast<int64_t>(xdt)).add(int64_t{bias.defined()});
  k.add(int64_t{w.impl()->quantizer()->is_per_channel()});
  std::vector<int64_t> key(x.sizes().begin(), x.sizes().end());
  key.push_back(runtime::prepare_openmp_library_call());
  add_requant_key(k, key, x, y, p.relu);
  const int64_t out_channels = y.size(1);
  auto plan = plan_for(*s, key, [&] {
    auto made = std::make_shared<Plan>();
    made->key = key;
    Requant r = make_requant(w, bias, x.q_scale(), y.q_scale(), out_channels);
    for (float v : r.out_scales) k.add(static_cast<int64_t>(std::bit_cast<uint32_t>(v)));
    auto prim = cached<ConvPrimitive>(k, [&] {
      const tag layout = plain_tag(x.dim(), true);
      const memory::desc src(to_dims(x.sizes()), xdt, layout), dst(to_dims(y.sizes()), xdt, layout);
      const memory::desc wd(conv_weight_dims(w, p.groups, p.transposed), dt::s8, tag::any);
      const memory::desc bd({out_channels}, dt::f32, tag::a);
      memory::dims dil;
      for (int64_t v : p.dilation) dil.push_back(v - 1);
      const auto prop = dnnl::prop_kind::forward_inference;
      // The input zero point at run time, as ideep gives the convolution's
      // (the deconvolution matches torch's integers either way on the fixtures).
      const dnnl::primitive_attr attr =
          make_attr(r, 1 << 1, x.q_zero_point(), true, y.q_zero_point(), p.relu);
      const memory::dims st = to_dims(p.stride), pl = to_dims(p.padding_l), pr = to_dims(p.padding_r);
      if (p.transposed) {
        using D = dnnl::deconvolution_forward;
        const auto alg = dnnl::algorithm::deconvolution_direct;
        D::primitive_desc pd = bias.defined()
                                   ? D::primitive_desc(D::desc(prop, alg, src, wd, bd, dst, st, dil, pl, pr), attr,
                                                       engine())
                                   : D::primitive_desc(D::desc(prop, alg, src, wd, dst, st, dil, pl, pr), attr,
                                                       engine());
        return ConvPrimitive{pd.src_desc(), pd.weights_desc(), pd.dst_desc(), pd.scratchpad_desc(), std::make_shared<D>(pd)};
      }
      using C = dnnl::convolution_forward;
      const auto alg = dnnl::algorithm::convolution_direct;
      C::primitive_desc pd =
          bias.defined()
              ? C::primitive_desc(C::desc(prop, alg, src, wd, bd, dst, st, dil, pl, pr), attr, engine())
              : C::primitive_desc(C::desc(prop, alg, src, wd, dst, st, dil, pl, pr), attr, engine());
      return ConvPrimitive{pd.src_desc(), pd.weights_desc(), pd.dst_desc(), pd.scratchpad_desc(), std::make_shared<C>(pd)};
    });
    made->prim = std::shared_ptr<dnnl::primitive>(prim, prim->prim.get());
    made->src = prim->src;
    made->weights = prim->weights;
    made->dst = prim->dst;
    made->scratchpad = prim->scratchpad;
    made->bias = r.bias;
    made->x_zp = x.q_zero_point();
    return std::shared_ptr<const Plan>(made);
  });
  execute(*plan, *s, conv_user_weights(w, p.groups, p.transposed), memory::desc({out_channels}, dt::f32, tag::a), x,
          y);
}

// ---- linear (matmul) ----

struct MatmulPrimitive {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
};

void qlinear_kernel(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y, bool relu,
                    QKernelStatePtr* state_slot) {
  auto s = state_for(w, bias, state_slot);
  const dt xdt = data_type_of(x.dtype());
  const int64_t M = x.size(0), K = x.size(1), N = w.size(0);
  CacheKey k("qlinear");
  k.add(M).add(K).add(N).add(static_cast<int64_t>(xdt)).add(int64_t{bias.defined()});
  k.add(int64_t{w.impl()->quantizer()->is_per_channel()});
  std::vector<int64_t> key{M, K, N, runtime::prepare_openmp_library_call()};
  add_requant_key(k, key, x, y, relu);
  auto plan = plan_for(*s, key, [&] {
    auto made = std::make_shared<Plan>();
    made->key = key;
    Requant r = make_requant(w, bias, x.q_scale(), y.q_scale(), N);
    for (float v : r.out_scales) k.add(static_cast<int64_t>(std::bit_cast<uint32_t>(v)));
    auto prim = cached<MatmulPrimitive>(k, [&] {
      const memory::desc src({M, K}, xdt, tag::ab), dst({M, N}, xdt, tag::ab);
      const memory::desc wd({K, N}, dt::s8, tag::any);
      const dnnl::primitive_attr attr = make_attr(r, 1 << 1, x.q_zero_point(), false, y.q_zero_point(), relu);
      dnnl::matmul::primitive_desc pd =
          bias.defined()
              ? dnnl::matmul::primitive_desc(
                    dnnl::matmul::desc(src, wd, memory::desc({1, N}, dt::f32, tag::ab), dst), attr, engine())
              : dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, wd, dst), attr, engine());
      return MatmulPrimitive{pd, dnnl::matmul(pd)};
    });
    made->prim = std::shared_ptr<dnnl::primitive>(prim, &prim->prim);
    made->src = prim->pd.src_desc();
    made->weights = prim->pd.weights_desc();
    made->dst = prim->pd.dst_desc();
    made->scratchpad = prim->pd.scratchpad_desc();
    made->bias = r.bias;
    return std::shared_ptr<const Plan>(made);
  });
  // w [N, K] is the matmul's [K, N] operand read through transposed strides.
  const memory user_w = wrap(memory::desc({K, N}, dt::s8, memory::dims{w.stride(1), w.stride(0)}), w);
  execute(*plan, *s, user_w, memory::desc({1, N}, dt::f32, tag::ab), x, y);
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(qconv_slot, CPU, qconv_kernel, dtype_bit(kQUInt8) | dtype_bit(kQInt8));
EMBER_REGISTER_KERNEL_FOR_DTYPES(qlinear_slot, CPU, qlinear_kernel, dtype_bit(kQUInt8) | dtype_bit(kQInt8));

}  // namespace ember::ao::nn::quantized
