// The matmul family and einsum; nn functional ops (softmax, losses,
// convolutions, pooling, normalization, interpolate, embedding, activations).
#include <torch/nn/functional/batchnorm.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/functional/upsampling.h>

#include <cmath>

#include "ops.h"

namespace difffuzz {

namespace F = ember::nn::functional;
namespace TF = torch::nn::functional;

namespace {

// Optional tensor arguments: p.ints[slot] holds the input's position in x, or -1.
ember::Tensor opt(ETensors& x, const Case& c, size_t slot) {
  const int64_t i = c.p.ints[slot];
  return i < 0 ? ember::Tensor() : x[static_cast<size_t>(i)];
}
at::Tensor opt(TTensors& x, const Case& c, size_t slot) {
  const int64_t i = c.p.ints[slot];
  return i < 0 ? at::Tensor() : x[static_cast<size_t>(i)];
}
// Adds `t` as an optional input (present with probability `p`), recording its slot.
void add_optional(Gen& g, Case& c, double p, const TensorArg& t) {
  if (g.rng.chance(p)) {
    c.p.ints.push_back(static_cast<int64_t>(c.tensors.size()));
    c.tensors.push_back(t);
  } else {
    c.p.ints.push_back(-1);
  }
}

F::Reduction ember_reduction(int v) {
  return v == 0 ? F::Reduction::None : v == 1 ? F::Reduction::Mean : F::Reduction::Sum;
}
int64_t torch_reduction(int v) {
  return v == 0 ? at::Reduction::None : v == 1 ? at::Reduction::Mean : at::Reduction::Sum;
}

// Mostly float32/float64, sometimes anything (both must reject it alike).
DType nn_dtype(Gen& g) {
  const double u = g.rng.uniform(0, 1);
  return u < 0.45 ? DType::Float32 : u < 0.85 ? DType::Float64 : g.any_dtype();
}

// ---- matmul family ----

void gen_matmul(Gen& g, Case& c) {
  const DType t = g.rng.chance(0.9) ? g.numeric_dtype() : g.any_dtype();
  const int64_t m = g.rng.range(0, 7), k = g.rng.range(0, 9), n = g.rng.range(0, 7);
  std::vector<int64_t> a, b;
  switch (g.rng.range(0, 5)) {
    case 0: a = {k}; b = {k}; break;
    case 1: a = {m, k}; b = {k}; break;
    case 2: a = {k}; b = {k, n}; break;
    case 3: a = {m, k}; b = {k, n}; break;
    default: {
      const std::vector<int64_t> batch = g.shape(1, 2, 6, false);
      a = batch;
      b = g.broadcast_partner(batch);
      a.insert(a.end(), {m, k});
      b.insert(b.end(), {k, n});
      if (g.rng.chance(0.2)) b = {k, n};
      if (g.rng.chance(0.1)) a = {k};
    }
  }
  if (g.rng.chance(0.03)) b.back() += 1;  // mismatched inner dims
  c.tensors.push_back(g.tensor(t, a));
  c.tensors.push_back(g.tensor(g.rng.chance(0.9) ? t : g.any_dtype(), b));
  c.tol_scale = 2.0 * static_cast<double>(k) + 1;
}

void gen_mm(Gen& g, Case& c, int kind) {
  // kind 0 mm, 1 bmm, 2 addmm, 3 baddbmm, 4 addmv, 5 dot/vdot, 6 mv, 7 outer
  const DType t = g.rng.chance(0.9) ? g.numeric_dtype() : g.any_dtype();
  const int64_t bt = g.rng.range(0, 3), m = g.rng.range(0, 7), k = g.rng.range(0, 9), n = g.rng.range(0, 7);
  auto add = [&](std::vector<int64_t> s) { c.tensors.push_back(g.tensor(g.rng.chance(0.95) ? t : g.any_dtype(), s)); };
  switch (kind) {
    case 0: add({m, k}); add({k, n}); break;
    case 1: add({bt, m, k}); add({bt, k, n}); break;
    case 2: add(g.broadcast_partner({m, n})); add({m, k}); add({k, n}); break;
    case 3: add(g.broadcast_partner({bt, m, n})); add({bt, m, k}); add({bt, k, n}); break;
    case 4: add(g.broadcast_partner({m})); add({m, k}); add({k}); break;
    case 5: add({k}); add({k}); break;
    case 6: add({m, k}); add({k}); break;
    default: add({m}); add({n}); break;
  }
  if (kind == 2 || kind == 3 || kind == 4) {
    c.p.scalars.push_back(g.rng.chance(0.5) ? ScalarArg::of_int(1) : g.scalar_for(t));  // beta
    c.p.scalars.push_back(g.rng.chance(0.5) ? ScalarArg::of_int(1) : g.scalar_for(t));  // alpha
  }
  c.tol_scale = 2.0 * static_cast<double>(k) + 1;
}

// einsum: an equation from a list, operand shapes from per-label sizes.
const std::vector<std::string>& einsum_equations() {
  static const std::vector<std::string> eqs = {
      "ij,jk->ik", "bij,bjk->bik", "ii->i",    "ij->",        "i,i->",         "ij,ij->ij", "...ij,...jk->...ik",
      "ijk->kji",  "i,j->ij",      "bhqd,bhkd->bhqk", "ij,kj->ik", "iij->j",   "ab,b",      "ba"};
  return eqs;
}

void gen_einsum(Gen& g, Case& c) {
  c.p.mode = g.rng.pick(einsum_equations());
  int64_t size[128] = {};
  for (int64_t& s : size) s = g.rng.range(0, 5);
  const std::vector<int64_t> ell = g.shape(0, 2, 8, false);
  const DType t = g.rng.chance(0.9) ? g.float_or_complex_dtype() : g.any_dtype();
  const std::string lhs = c.p.mode.substr(0, c.p.mode.find("->"));
  size_t start = 0;
  while (start <= lhs.size()) {
    size_t end = lhs.find(',', start);
    if (end == std::string::npos) end = lhs.size();
    std::vector<int64_t> s;
    for (size_t i = start; i < end; ++i) {
      if (lhs[i] == '.') {
        s.insert(s.end(), ell.begin(), ell.end());
        i += 2;
      } else {
        s.push_back(size[static_cast<unsigned char>(lhs[i])]);
      }
    }
    c.tensors.push_back(g.tensor(t, s));
    start = end + 1;
  }
  c.tol_scale = 40;
}

void add_linalg(std::vector<OpDef>& ops) {
  ops.push_back({"matmul", gen_matmul, DF_E { return {ember::matmul(x[0], x[1])}; },
                 DF_T { return {at::matmul(x[0], x[1])}; }, kGrad, "linalg"});
  ops.push_back({"mm", [](Gen& g, Case& c) { gen_mm(g, c, 0); }, DF_E { return {ember::mm(x[0], x[1])}; },
                 DF_T { return {at::mm(x[0], x[1])}; }, kGrad, "linalg"});
  ops.push_back({"bmm", [](Gen& g, Case& c) { gen_mm(g, c, 1); }, DF_E { return {ember::bmm(x[0], x[1])}; },
                 DF_T { return {at::bmm(x[0], x[1])}; }, kGrad, "linalg"});
  ops.push_back({"addmm", [](Gen& g, Case& c) { gen_mm(g, c, 2); },
                 DF_E { return {ember::addmm(x[0], x[1], x[2], to_ember(c.p.scalars[0]), to_ember(c.p.scalars[1]))}; },
                 DF_T { return {at::addmm(x[0], x[1], x[2], to_torch(c.p.scalars[0]), to_torch(c.p.scalars[1]))}; },
                 kGrad, "linalg"});
  ops.push_back({"baddbmm", [](Gen& g, Case& c) { gen_mm(g, c, 3); },
                 DF_E { return {ember::baddbmm(x[0], x[1], x[2], to_ember(c.p.scalars[0]), to_ember(c.p.scalars[1]))}; },
                 DF_T { return {at::baddbmm(x[0], x[1], x[2], to_torch(c.p.scalars[0]), to_torch(c.p.scalars[1]))}; },
                 kGrad, "linalg"});
  ops.push_back({"addmv", [](Gen& g, Case& c) { gen_mm(g, c, 4); },
                 DF_E { return {ember::addmv(x[0], x[1], x[2], to_ember(c.p.scalars[0]), to_ember(c.p.scalars[1]))}; },
                 DF_T { return {at::addmv(x[0], x[1], x[2], to_torch(c.p.scalars[0]), to_torch(c.p.scalars[1]))}; },
                 kGrad, "linalg"});
  ops.push_back({"dot", [](Gen& g, Case& c) { gen_mm(g, c, 5); }, DF_E { return {ember::dot(x[0], x[1])}; },
                 DF_T { return {at::dot(x[0], x[1])}; }, kGrad, "linalg"});
  ops.push_back({"vdot", [](Gen& g, Case& c) { gen_mm(g, c, 5); }, DF_E { return {ember::vdot(x[0], x[1])}; },
                 DF_T { return {at::vdot(x[0], x[1])}; }, kGrad, "linalg"});
  ops.push_back({"mv", [](Gen& g, Case& c) { gen_mm(g, c, 6); }, DF_E { return {ember::mv(x[0], x[1])}; },
                 DF_T { return {at::mv(x[0], x[1])}; }, kGrad, "linalg"});
  ops.push_back({"outer", [](Gen& g, Case& c) { gen_mm(g, c, 7); }, DF_E { return {ember::outer(x[0], x[1])}; },
                 DF_T { return {at::outer(x[0], x[1])}; }, kGrad, "linalg"});
  ops.push_back({"einsum", gen_einsum, DF_E { return {ember::einsum(c.p.mode, x)}; },
                 DF_T { return {at::einsum(c.p.mode, x)}; }, kGrad, "linalg"});
  ops.push_back({"tensordot",
                 [](Gen& g, Case& c) {
                   const DType t = g.float_or_complex_dtype();
                   const std::vector<int64_t> a = g.shape(0, 3, 64, true);
                   c.p.k = g.rng.range(0, static_cast<int64_t>(a.size()));
                   std::vector<int64_t> b(a.end() - c.p.k, a.end());
                   const std::vector<int64_t> extra = g.shape(0, 2, 8);
                   b.insert(b.end(), extra.begin(), extra.end());
                   c.tensors.push_back(g.tensor(t, a));
                   c.tensors.push_back(g.tensor(t, b));
                   c.tol_scale = 40;
                 },
                 DF_E { return {ember::tensordot(x[0], x[1], c.p.k)}; },
                 DF_T {
                   std::vector<int64_t> da, db;
                   const int64_t ra = x[0].dim();
                   for (int64_t i = 0; i < c.p.k; ++i) {
                     da.push_back(ra - c.p.k + i);
                     db.push_back(i);
                   }
                   return {at::tensordot(x[0], x[1], da, db)};
                 },
                 kGrad, "linalg"});
}

// ---- nn functional ----

void gen_softmax(Gen& g, Case& c) {
  const std::vector<int64_t> s = g.shape();
  c.tensors.push_back(g.tensor(g.rng.chance(0.85) ? g.float_dtype() : g.any_dtype(), s));
  c.p.dim = g.dim(static_cast<int64_t>(s.size()));
  if (g.rng.chance(0.25)) c.p.dtype = g.rng.chance(0.8) ? g.float_dtype() : g.any_dtype();
}

// Classification losses: logits [N, C] / [C] / [N, C, d...], class targets
// (with ignore_index entries) or probabilities (variant 1), optional weight.
void gen_class_loss(Gen& g, Case& c, bool allow_probs) {
  const DType t = nn_dtype(g);
  const int64_t C = g.rng.range(1, 6);
  std::vector<int64_t> s;
  const double u = g.rng.uniform(0, 1);
  if (u < 0.15) s = {C};
  else if (u < 0.8) s = {g.rng.range(0, 6), C};
  else s = {g.rng.range(0, 3), C, g.rng.range(0, 3), g.rng.range(1, 3)};
  c.tensors.push_back(g.tensor(t, s));
  std::vector<int64_t> ts = s;
  ts.erase(ts.begin() + (s.size() == 1 ? 0 : 1));
  c.p.k = g.rng.chance(0.5) ? -100 : g.rng.range(-1, C);  // ignore_index
  c.p.variant = allow_probs && g.rng.chance(0.25) ? 1 : 0;
  if (c.p.variant == 1) {
    c.tensors.push_back(g.tensor(t, s, Values{0, 1, false}));
  } else {
    // Class indices, some equal to ignore_index (all of them, sometimes).
    const bool all_ignored = g.rng.chance(0.1);
    TensorArg target = g.index_tensor(ts, 0, C - 1);
    for (int64_t& v : target.ints)
      if (all_ignored || g.rng.chance(0.15)) v = c.p.k;
    c.tensors.push_back(target);
  }
  c.p.ints.clear();
  TensorArg w = g.tensor(t, {C}, Values{0, 2, false});
  add_optional(g, c, 0.35, w);
  c.p.mode = std::to_string(g.rng.range(0, 2));  // reduction
  c.p.reals.push_back(g.rng.chance(0.3) ? g.rng.uniform(0, 1) : 0.0);  // label smoothing
  c.tol_scale = 8;
}

// Regression losses: input and target of one shape (sometimes broadcast).
void gen_pair_loss(Gen& g, Case& c, Values target = {}) {
  const DType t = nn_dtype(g);
  const std::vector<int64_t> s = g.shape();
  c.tensors.push_back(g.tensor(t, s, target.lo >= 0 ? Values{0.01, 0.99, false} : Values{}));
  c.tensors.push_back(g.tensor(g.rng.chance(0.9) ? t : nn_dtype(g), g.rng.chance(0.9) ? s : g.broadcast_partner(s), target));
  c.p.mode = std::to_string(g.rng.range(0, 2));
  c.tol_scale = 4 * std::sqrt(static_cast<double>(std::max<int64_t>(c.tensors[0].numel(), 1))) + 1;
}
int red(const Case& c) { return c.p.mode[0] - '0'; }

// Python's F.l1_loss / mse_loss / smooth_l1_loss broadcast input and target
// first (at::mse_loss's own broadcasting doubles the target's gradient).
std::pair<at::Tensor, at::Tensor> py_broadcast(const TTensors& x) {
  std::vector<at::Tensor> b = at::broadcast_tensors({x[0], x[1]});
  return {b[0], b[1]};
}

// Convolution: input [N, C, spatial...] (or unbatched), weight, optional bias.
void gen_conv(Gen& g, Case& c, int nd, bool transpose) {
  const DType t = nn_dtype(g);
  const int64_t groups = g.rng.chance(0.7) ? 1 : g.rng.range(1, 3);
  const int64_t cin = groups * g.rng.range(1, 3), cout = groups * g.rng.range(1, 3);
  std::vector<int64_t> in = {g.rng.range(1, 3), cin};
  std::vector<int64_t> w = transpose ? std::vector<int64_t>{cin, cout / groups} : std::vector<int64_t>{cout, cin / groups};
  for (int d = 0; d < nd; ++d) {
    in.push_back(g.rng.range(1, 8));
    w.push_back(g.rng.range(1, 3));
  }
  if (g.rng.chance(0.15)) in.erase(in.begin());  // unbatched
  c.tensors.push_back(g.tensor(t, in));
  c.tensors.push_back(g.tensor(g.rng.chance(0.95) ? t : nn_dtype(g), w));
  add_optional(g, c, 0.6, g.tensor(t, {transpose ? cout : cout}));
  c.p.k = groups;
  c.p.dims = {g.rng.range(1, 2), g.rng.range(0, 2), g.rng.range(1, 2)};  // stride, padding, dilation
  if (transpose) c.p.dims.push_back(g.rng.range(0, c.p.dims[0] - 1));  // output_padding < stride
  if (!transpose && g.rng.chance(0.15)) c.p.mode = g.rng.chance(0.5) ? "same" : "valid";
  if (c.p.mode == "same") c.p.dims[0] = 1;
  int64_t terms = cin / groups;
  for (size_t i = 2; i < w.size(); ++i) terms *= w[i];
  c.tol_scale = 2.0 * static_cast<double>(terms) + 1;
}

// Normalizations divide by sqrt(var + eps): where a group's variance is ~0,
// both libraries' rounding in (x - mean) is amplified by up to 1/sqrt(eps).
double norm_tolerance(double eps) { return 8 + 2 / std::sqrt(eps); }

// Pooling input [N, C, H, W] or [C, H, W].
std::vector<int64_t> pool_shape(Gen& g) {
  std::vector<int64_t> s = {g.rng.range(1, 2), g.rng.range(1, 3), g.rng.range(1, 9), g.rng.range(1, 9)};
  if (g.rng.chance(0.2)) s.erase(s.begin());
  return s;
}

void gen_pool(Gen& g, Case& c) {
  c.tensors.push_back(g.tensor(nn_dtype(g), pool_shape(g)));
  const int64_t k = g.rng.range(1, 3);
  c.p.dims = {k, g.rng.range(1, 3), g.rng.range(0, k / 2), g.rng.range(1, 2)};  // kernel, stride, padding, dilation
  c.p.flag = g.rng.chance(0.3);   // ceil_mode
  c.p.flag2 = g.rng.chance(0.7);  // count_include_pad
  if (g.rng.chance(0.15)) c.p.k = g.rng.range(1, 5);  // divisor_override
}

// PyTorch's pooling_output_shape for one dim.
int64_t pool_out(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil) {
  int64_t out = (in + 2 * pad - dil * (k - 1) - 1 + (ceil ? stride - 1 : 0)) / stride + 1;
  if (ceil && (out - 1) * stride >= in + pad) --out;
  return out;
}

// libtorch's max_pool2d gives windows that hold no input element (all
// padding, or beyond the input through dilation) a meaningless index, and its
// backward writes the gradient there: out of the buffer, a heap corruption.
bool max_pool_empty_window(const Case& c) {
  const TensorArg& t = c.tensors[0];
  const size_t r = t.sizes.size();
  if (r < 3) return false;
  const int64_t k = c.p.dims[0], stride = c.p.dims[1], pad = c.p.dims[2], dil = c.p.dims[3];
  if (pad * 2 > dil * (k - 1) + 1 || stride < 1) return false;  // rejected by both
  for (size_t d = r - 2; d < r; ++d) {
    const int64_t in = t.sizes[d], out = pool_out(in, k, pad, stride, dil, c.p.flag);
    for (int64_t o = 0; o < out; ++o) {
      bool any = false;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t pos = o * stride - pad + j * dil;
        any = any || (pos >= 0 && pos < in);
      }
      if (!any) return true;
    }
  }
  return false;
}

void add_nn(std::vector<OpDef>& ops) {
  ops.push_back({"softmax", gen_softmax, DF_E { return {F::softmax(x[0], *c.p.dim, c.p.dtype)}; },
                 DF_T { return {at::softmax(x[0], *c.p.dim, to_torch(c.p.dtype))}; }, kGrad, "nn"});
  ops.push_back({"log_softmax", gen_softmax, DF_E { return {F::log_softmax(x[0], *c.p.dim, c.p.dtype)}; },
                 DF_T { return {at::log_softmax(x[0], *c.p.dim, to_torch(c.p.dtype))}; }, kGrad, "nn"});
  ops.push_back({"cross_entropy", [](Gen& g, Case& c) { gen_class_loss(g, c, true); },
                 DF_E {
                   return {F::cross_entropy(x[0], x[1], {.weight = opt(x, c, 0), .ignore_index = c.p.k,
                                                         .reduction = ember_reduction(red(c)),
                                                         .label_smoothing = c.p.reals[0]})};
                 },
                 DF_T {
                   return {at::cross_entropy_loss(x[0], x[1], opt(x, c, 0), torch_reduction(red(c)), c.p.k,
                                                  c.p.reals[0])};
                 },
                 kGrad, "nn"});
  ops.push_back({"nll_loss", [](Gen& g, Case& c) { gen_class_loss(g, c, false); },
                 DF_E {
                   return {F::nll_loss(x[0], x[1], {.weight = opt(x, c, 0), .ignore_index = c.p.k,
                                                    .reduction = ember_reduction(red(c))})};
                 },
                 DF_T { return {at::nll_loss_nd(x[0], x[1], opt(x, c, 0), torch_reduction(red(c)), c.p.k)}; },
                 kGrad, "nn"});
  ops.push_back({"mse_loss", [](Gen& g, Case& c) { gen_pair_loss(g, c); },
                 DF_E { return {F::mse_loss(x[0], x[1], ember_reduction(red(c)))}; },
                 DF_T {
                   auto [a, b] = py_broadcast(x);
                   return {at::mse_loss(a, b, torch_reduction(red(c)))};
                 },
                 kGrad, "nn"});
  ops.push_back({"l1_loss", [](Gen& g, Case& c) { gen_pair_loss(g, c); },
                 DF_E { return {F::l1_loss(x[0], x[1], ember_reduction(red(c)))}; },
                 DF_T {
                   auto [a, b] = py_broadcast(x);
                   return {at::l1_loss(a, b, torch_reduction(red(c)))};
                 },
                 kGrad, "nn"});
  ops.push_back({"smooth_l1_loss",
                 [](Gen& g, Case& c) {
                   gen_pair_loss(g, c);
                   c.p.reals.push_back(g.rng.chance(0.2) ? 0.0 : g.rng.uniform(0.1, 2));
                 },
                 DF_E { return {F::smooth_l1_loss(x[0], x[1], {.reduction = ember_reduction(red(c)), .beta = c.p.reals[0]})}; },
                 DF_T {
                   // Python's F.smooth_l1_loss calls l1_loss for beta == 0
                   auto [a, b] = py_broadcast(x);
                   if (c.p.reals[0] == 0) return {at::l1_loss(a, b, torch_reduction(red(c)))};
                   return {at::smooth_l1_loss(a, b, torch_reduction(red(c)), c.p.reals[0])};
                 },
                 kGrad,
                 "nn"});
  ops.push_back({"binary_cross_entropy", [](Gen& g, Case& c) { gen_pair_loss(g, c, Values{0, 1, false}); },
                 DF_E { return {F::binary_cross_entropy(x[0], x[1], {.reduction = ember_reduction(red(c))})}; },
                 DF_T {
                   // (as Python's F.binary_cross_entropy: it checks that the sizes agree)
                   TF::BinaryCrossEntropyFuncOptions o;
                   if (red(c) == 0) o.reduction(torch::kNone);
                   else if (red(c) == 2) o.reduction(torch::kSum);
                   return {TF::binary_cross_entropy(x[0], x[1], o)};
                 },
                 kGrad, "nn"});
  ops.push_back({"binary_cross_entropy_with_logits",
                 [](Gen& g, Case& c) {
                   gen_pair_loss(g, c, Values{0, 1, false});
                   c.tensors[0] = g.tensor(c.tensors[0].dtype, c.tensors[0].sizes);  // logits: any sign
                   c.p.ints.clear();
                   const std::vector<int64_t> last = c.tensors[0].sizes.empty()
                                                         ? std::vector<int64_t>{}
                                                         : std::vector<int64_t>{c.tensors[0].sizes.back()};
                   add_optional(g, c, 0.3, g.tensor(c.tensors[0].dtype, last, Values{0, 2, false}));  // pos_weight
                 },
                 DF_E {
                   return {F::binary_cross_entropy_with_logits(
                       x[0], x[1], {.pos_weight = opt(x, c, 0), .reduction = ember_reduction(red(c))})};
                 },
                 DF_T {
                   // (as Python's F.binary_cross_entropy_with_logits: it checks that the sizes agree)
                   TF::BinaryCrossEntropyWithLogitsFuncOptions o;
                   if (opt(x, c, 0).defined()) o.pos_weight(opt(x, c, 0));
                   if (red(c) == 0) o.reduction(torch::kNone);
                   else if (red(c) == 2) o.reduction(torch::kSum);
                   return {TF::binary_cross_entropy_with_logits(x[0], x[1], o)};
                 },
                 kGrad, "nn"});
  ops.push_back({"conv1d", [](Gen& g, Case& c) { gen_conv(g, c, 1, false); },
                 DF_E {
                   F::ConvFuncOptions o{.bias = opt(x, c, 0), .stride = c.p.dims[0], .padding = c.p.dims[1],
                                        .dilation = c.p.dims[2], .groups = c.p.k};
                   if (!c.p.mode.empty()) o.padding = c.p.mode;
                   return {F::conv1d(x[0], x[1], o)};
                 },
                 DF_T {
                   const std::vector<int64_t> st = {c.p.dims[0]}, pd = {c.p.dims[1]}, dl = {c.p.dims[2]};
                   if (!c.p.mode.empty()) return {at::conv1d(x[0], x[1], opt(x, c, 0), st, c.p.mode, dl, c.p.k)};
                   return {at::conv1d(x[0], x[1], opt(x, c, 0), st, pd, dl, c.p.k)};
                 },
                 kGrad, "nn"});
  ops.push_back({"conv2d", [](Gen& g, Case& c) { gen_conv(g, c, 2, false); },
                 DF_E {
                   F::ConvFuncOptions o{.bias = opt(x, c, 0), .stride = c.p.dims[0], .padding = c.p.dims[1],
                                        .dilation = c.p.dims[2], .groups = c.p.k};
                   if (!c.p.mode.empty()) o.padding = c.p.mode;
                   return {F::conv2d(x[0], x[1], o)};
                 },
                 DF_T {
                   const std::vector<int64_t> st(2, c.p.dims[0]), pd(2, c.p.dims[1]), dl(2, c.p.dims[2]);
                   if (!c.p.mode.empty()) return {at::conv2d(x[0], x[1], opt(x, c, 0), st, c.p.mode, dl, c.p.k)};
                   return {at::conv2d(x[0], x[1], opt(x, c, 0), st, pd, dl, c.p.k)};
                 },
                 kGrad, "nn"});
  ops.push_back({"conv_transpose2d", [](Gen& g, Case& c) { gen_conv(g, c, 2, true); },
                 DF_E {
                   return {F::conv_transpose2d(x[0], x[1],
                                               {.bias = opt(x, c, 0), .stride = c.p.dims[0], .padding = c.p.dims[1],
                                                .output_padding = c.p.dims[3], .groups = c.p.k,
                                                .dilation = c.p.dims[2]})};
                 },
                 DF_T {
                   const std::vector<int64_t> st(2, c.p.dims[0]), pd(2, c.p.dims[1]), dl(2, c.p.dims[2]),
                       op(2, c.p.dims[3]);
                   return {at::conv_transpose2d(x[0], x[1], opt(x, c, 0), st, pd, op, c.p.k, dl)};
                 },
                 kGrad, "nn"});
  ops.push_back({"max_pool2d", gen_pool,
                 DF_E {
                   auto [v, i] = F::max_pool2d_with_indices(
                       x[0], c.p.dims[0],
                       {.stride = c.p.dims[1], .padding = c.p.dims[2], .dilation = c.p.dims[3], .ceil_mode = c.p.flag});
                   return {v, i};
                 },
                 DF_T {
                   const std::vector<int64_t> k(2, c.p.dims[0]), st(2, c.p.dims[1]), pd(2, c.p.dims[2]),
                       dl(2, c.p.dims[3]);
                   auto [v, i] = at::max_pool2d_with_indices(x[0], k, st, pd, dl, c.p.flag);
                   return {v, i};
                 },
                 kGrad, "nn", max_pool_empty_window});
  ops.push_back({"avg_pool2d", gen_pool,
                 DF_E {
                   std::optional<int64_t> div;
                   if (c.p.k) div = c.p.k;
                   return {F::avg_pool2d(x[0], c.p.dims[0],
                                         {.stride = c.p.dims[1], .padding = c.p.dims[2], .ceil_mode = c.p.flag,
                                          .count_include_pad = c.p.flag2, .divisor_override = div})};
                 },
                 DF_T {
                   const std::vector<int64_t> k(2, c.p.dims[0]), st(2, c.p.dims[1]), pd(2, c.p.dims[2]);
                   c10::optional<int64_t> div;
                   if (c.p.k) div = c.p.k;
                   return {at::avg_pool2d(x[0], k, st, pd, c.p.flag, c.p.flag2, div)};
                 },
                 kGrad, "nn"});
  ops.push_back({"adaptive_avg_pool2d",
                 [](Gen& g, Case& c) {
                   c.tensors.push_back(g.tensor(nn_dtype(g), pool_shape(g)));
                   c.p.dims = {g.rng.range(1, 6), g.rng.range(1, 6)};
                 },
                 DF_E { return {F::adaptive_avg_pool2d(x[0], c.p.dims)}; },
                 DF_T { return {at::adaptive_avg_pool2d(x[0], c.p.dims)}; }, kGrad, "nn"});
  ops.push_back({"adaptive_max_pool2d",
                 [](Gen& g, Case& c) {
                   c.tensors.push_back(g.tensor(nn_dtype(g), pool_shape(g)));
                   c.p.dims = {g.rng.range(1, 6), g.rng.range(1, 6)};
                 },
                 DF_E {
                   auto [v, i] = F::adaptive_max_pool2d_with_indices(x[0], c.p.dims);
                   return {v, i};
                 },
                 DF_T {
                   auto [v, i] = at::adaptive_max_pool2d(x[0], c.p.dims);
                   return {v, i};
                 },
                 kGrad, "nn"});
  ops.push_back({"batch_norm",
                 [](Gen& g, Case& c) {
                   const DType t = nn_dtype(g);
                   const int64_t C = g.rng.range(1, 4);
                   std::vector<int64_t> s = {g.rng.range(0, 4), C};
                   const int64_t extra = g.rng.range(0, 2);
                   for (int64_t i = 0; i < extra; ++i) s.push_back(g.rng.range(1, 4));
                   c.tensors.push_back(g.tensor(t, s));
                   c.p.flag = g.rng.chance(0.6);  // training
                   add_optional(g, c, 0.6, g.tensor(t, {C}));  // weight
                   add_optional(g, c, 0.6, g.tensor(t, {C}));  // bias
                   // running_mean / running_var: both or neither (written in place)
                   if (g.rng.chance(0.7) || !c.p.flag) {
                     TensorArg rm = g.tensor(t, {C}, Values{-1, 1, false}, true);
                     TensorArg rv = g.tensor(t, {C}, Values{0.5, 2, false}, true);
                     rm.no_grad = rv.no_grad = true;
                     c.p.ints.push_back(static_cast<int64_t>(c.tensors.size()));
                     c.tensors.push_back(rm);
                     c.p.ints.push_back(static_cast<int64_t>(c.tensors.size()));
                     c.tensors.push_back(rv);
                   } else {
                     c.p.ints.push_back(-1);
                     c.p.ints.push_back(-1);
                   }
                   c.p.reals = {g.rng.chance(0.8) ? 0.1 : g.rng.uniform(0, 1), g.rng.chance(0.8) ? 1e-5 : 1e-3};
                   c.tol_scale = norm_tolerance(c.p.reals[1]);
                 },
                 DF_E {
                   ember::Tensor y = F::batch_norm(x[0], opt(x, c, 2), opt(x, c, 3),
                                                   {.weight = opt(x, c, 0), .bias = opt(x, c, 1), .training = c.p.flag,
                                                    .momentum = c.p.reals[0], .eps = c.p.reals[1]});
                   ETensors out = {y};
                   if (c.p.ints[2] >= 0) out.insert(out.end(), {x[c.p.ints[2]], x[c.p.ints[3]]});
                   return out;
                 },
                 DF_T {
                   // (torch::nn::functional's, as Python's F.batch_norm: it checks for one value per channel)
                   at::Tensor y = TF::batch_norm(x[0], opt(x, c, 2), opt(x, c, 3),
                                                 TF::BatchNormFuncOptions()
                                                     .weight(opt(x, c, 0))
                                                     .bias(opt(x, c, 1))
                                                     .training(c.p.flag)
                                                     .momentum(c.p.reals[0])
                                                     .eps(c.p.reals[1]));
                   TTensors out = {y};
                   if (c.p.ints[2] >= 0) out.insert(out.end(), {x[c.p.ints[2]], x[c.p.ints[3]]});
                   return out;
                 },
                 kGrad, "nn"});
  ops.push_back({"layer_norm",
                 [](Gen& g, Case& c) {
                   const DType t = nn_dtype(g);
                   const std::vector<int64_t> s = g.shape(1, 4);
                   c.tensors.push_back(g.tensor(t, s));
                   const int64_t k = g.rng.range(1, static_cast<int64_t>(s.size()));
                   c.p.dims.assign(s.end() - k, s.end());
                   add_optional(g, c, 0.6, g.tensor(t, c.p.dims));
                   add_optional(g, c, 0.6, g.tensor(t, c.p.dims));
                   c.p.reals = {g.rng.chance(0.8) ? 1e-5 : 1e-2};
                   c.tol_scale = norm_tolerance(c.p.reals[0]);
                 },
                 DF_E {
                   return {F::layer_norm(x[0], c.p.dims, {.weight = opt(x, c, 0), .bias = opt(x, c, 1), .eps = c.p.reals[0]})};
                 },
                 DF_T { return {at::layer_norm(x[0], c.p.dims, opt(x, c, 0), opt(x, c, 1), c.p.reals[0], false)}; },
                 kGrad, "nn"});
  ops.push_back({"group_norm",
                 [](Gen& g, Case& c) {
                   const DType t = nn_dtype(g);
                   const int64_t groups = g.rng.range(1, 3);
                   const int64_t C = groups * g.rng.range(1, 3);
                   std::vector<int64_t> s = {g.rng.range(1, 3), C};
                   const int64_t extra = g.rng.range(0, 2);
                   for (int64_t i = 0; i < extra; ++i) s.push_back(g.rng.range(1, 4));
                   c.tensors.push_back(g.tensor(t, s));
                   c.p.k = g.rng.chance(0.95) ? groups : groups + 1;
                   add_optional(g, c, 0.6, g.tensor(t, {C}));
                   add_optional(g, c, 0.6, g.tensor(t, {C}));
                   c.tol_scale = norm_tolerance(1e-5);
                 },
                 DF_E { return {F::group_norm(x[0], c.p.k, {.weight = opt(x, c, 0), .bias = opt(x, c, 1)})}; },
                 DF_T { return {at::group_norm(x[0], c.p.k, opt(x, c, 0), opt(x, c, 1), 1e-5, false)}; }, kGrad, "nn"});
  ops.push_back({"interpolate",
                 [](Gen& g, Case& c) {
                   static const std::vector<std::string> modes = {"nearest", "nearest-exact", "linear", "bilinear",
                                                                  "bicubic", "trilinear", "area"};
                   c.p.mode = g.rng.pick(modes);
                   int nd = c.p.mode == "linear" ? 1 : c.p.mode == "trilinear" ? 3 : c.p.mode[0] == 'b' ? 2
                                                                                  : static_cast<int>(g.rng.range(1, 3));
                   std::vector<int64_t> s = {g.rng.range(1, 2), g.rng.range(1, 3)};
                   for (int i = 0; i < nd; ++i) s.push_back(g.rng.range(1, 7));
                   c.tensors.push_back(g.tensor(nn_dtype(g), s));
                   if (g.rng.chance(0.5)) {
                     for (int i = 0; i < nd; ++i) c.p.dims.push_back(g.rng.range(1, 9));
                   } else {
                     static const std::vector<double> scales = {0.5, 2, 1.5, 0.75, 3, 1.7, 0.3};
                     for (int i = 0; i < nd; ++i) c.p.reals.push_back(g.rng.pick(scales));
                     if (g.rng.chance(0.3)) c.p.flag2 = true;  // recompute_scale_factor
                   }
                   const bool interpolating = c.p.mode.find("linear") != std::string::npos || c.p.mode == "bicubic";
                   c.p.variant = interpolating && g.rng.chance(0.5) ? 1 : 0;  // align_corners given
                   c.p.flag = g.rng.chance(0.5);                             // align_corners value
                   c.tol_scale = 16;  // up to 4x4 taps (bicubic), weights of either sign
                 },
                 DF_E {
                   F::InterpolateOptions o{.size = c.p.dims, .scale_factor = c.p.reals, .mode = c.p.mode};
                   if (c.p.variant == 1) o.align_corners = c.p.flag;
                   if (c.p.flag2) o.recompute_scale_factor = true;
                   return {F::interpolate(x[0], o)};
                 },
                 DF_T {
                   TF::InterpolateFuncOptions o;
                   if (!c.p.dims.empty()) o.size(c.p.dims);
                   if (!c.p.reals.empty()) o.scale_factor(c.p.reals);
                   if (c.p.mode == "nearest") o.mode(torch::kNearest);
                   else if (c.p.mode == "nearest-exact") o.mode(torch::kNearestExact);
                   else if (c.p.mode == "linear") o.mode(torch::kLinear);
                   else if (c.p.mode == "bilinear") o.mode(torch::kBilinear);
                   else if (c.p.mode == "bicubic") o.mode(torch::kBicubic);
                   else if (c.p.mode == "trilinear") o.mode(torch::kTrilinear);
                   else o.mode(torch::kArea);
                   if (c.p.variant == 1) o.align_corners(c.p.flag);
                   if (c.p.flag2) o.recompute_scale_factor(true);
                   return {TF::interpolate(x[0], o)};
                 },
                 kGrad, "nn"});
  ops.push_back({"embedding",
                 [](Gen& g, Case& c) {
                   const int64_t num = g.rng.range(1, 8), dim = g.rng.range(0, 5);
                   c.tensors.push_back(g.index_tensor(g.shape(0, 3, 32), 0, num - 1,
                                                      g.rng.chance(0.85) ? DType::Int64 : DType::Int32));
                   c.tensors.push_back(g.tensor(nn_dtype(g), {num, dim}));
                   if (g.rng.chance(0.4)) c.p.dim = g.rng.range(-num, num - 1);  // padding_idx
                 },
                 DF_E {
                   F::EmbeddingFuncOptions o;
                   o.padding_idx = c.p.dim;
                   return {F::embedding(x[0], x[1], o)};
                 },
                 DF_T {
                   int64_t pad = -1;
                   if (c.p.dim) pad = *c.p.dim < 0 ? *c.p.dim + x[1].size(0) : *c.p.dim;
                   return {at::embedding(x[1], x[0], pad)};
                 },
                 kGrad, "nn"});
  ops.push_back({"linear",
                 [](Gen& g, Case& c) {
                   const DType t = nn_dtype(g);
                   std::vector<int64_t> s = g.shape(1, 3, 64);
                   const int64_t out = g.rng.range(0, 5);
                   c.tensors.push_back(g.tensor(t, s));
                   c.tensors.push_back(g.tensor(t, {out, s.back()}));
                   add_optional(g, c, 0.6, g.tensor(t, {out}));
                   c.tol_scale = 2.0 * static_cast<double>(s.back()) + 1;
                 },
                 DF_E { return {F::linear(x[0], x[1], opt(x, c, 0))}; },
                 DF_T { return {at::linear(x[0], x[1], opt(x, c, 0))}; }, kGrad, "nn"});
  // Activations with parameters.
  auto gen_act = [](Gen& g, Case& c) {
    c.tensors.push_back(g.tensor(g.rng.chance(0.85) ? g.float_dtype() : g.any_dtype(), g.shape()));
    c.p.reals = {g.small_double().re, g.small_double().re};
  };
  ops.push_back({"leaky_relu", gen_act, DF_E { return {F::leaky_relu(x[0], c.p.reals[0])}; },
                 DF_T { return {at::leaky_relu(x[0], c.p.reals[0])}; }, kGrad, "nn"});
  ops.push_back({"elu", gen_act, DF_E { return {F::elu(x[0], c.p.reals[0])}; },
                 DF_T { return {at::elu(x[0], c.p.reals[0])}; }, kGrad, "nn"});
  ops.push_back({"hardtanh", gen_act, DF_E { return {F::hardtanh(x[0], c.p.reals[0], c.p.reals[1])}; },
                 DF_T { return {at::hardtanh(x[0], c.p.reals[0], c.p.reals[1])}; }, kGrad, "nn"});
  ops.push_back({"softplus", gen_act, DF_E { return {F::softplus(x[0], c.p.reals[0], 20 * std::abs(c.p.reals[1]))}; },
                 DF_T { return {at::softplus(x[0], c.p.reals[0], 20 * std::abs(c.p.reals[1]))}; }, kGrad, "nn"});
  ops.push_back({"hardswish", gen_act, DF_E { return {F::hardswish(x[0])}; },
                 DF_T { return {at::hardswish(x[0])}; }, kGrad, "nn"});
  ops.push_back({"hardsigmoid", gen_act, DF_E { return {F::hardsigmoid(x[0])}; },
                 DF_T { return {at::hardsigmoid(x[0])}; }, kGrad, "nn"});
  ops.push_back({"mish", gen_act, DF_E { return {F::mish(x[0])}; }, DF_T { return {at::mish(x[0])}; }, kGrad, "nn"});
  ops.push_back({"logsigmoid", gen_act, DF_E { return {F::logsigmoid(x[0])}; },
                 DF_T { return {at::log_sigmoid(x[0])}; }, kGrad, "nn"});
  ops.push_back({"glu",
                 [](Gen& g, Case& c) {
                   std::vector<int64_t> s = g.shape(1, 4);
                   c.p.dim = g.dim(static_cast<int64_t>(s.size()));
                   int64_t& e = s[static_cast<size_t>(*c.p.dim < 0 ? *c.p.dim + static_cast<int64_t>(s.size()) : *c.p.dim)];
                   if (g.rng.chance(0.9)) e = 2 * std::max<int64_t>(e / 2, 0);
                   c.tensors.push_back(g.tensor(nn_dtype(g), s));
                 },
                 DF_E { return {F::glu(x[0], *c.p.dim)}; }, DF_T { return {at::glu(x[0], *c.p.dim)}; }, kGrad, "nn"});
  ops.push_back({"pixel_shuffle",
                 [](Gen& g, Case& c) {
                   const int64_t r = g.rng.range(1, 3);
                   std::vector<int64_t> s = {g.rng.range(1, 2), g.rng.range(1, 2) * r * r, g.rng.range(1, 4),
                                             g.rng.range(1, 4)};
                   if (g.rng.chance(0.1)) s[1] += 1;
                   c.tensors.push_back(g.tensor(g.any_dtype(), s));
                   c.p.k = r;
                 },
                 DF_E { return {F::pixel_shuffle(x[0], c.p.k)}; },
                 DF_T { return {at::pixel_shuffle(x[0], c.p.k)}; }, kGrad, "nn"});
}

}  // namespace

void add_nn_linalg_ops(std::vector<OpDef>& ops) {
  add_linalg(ops);
  add_nn(ops);
}

}  // namespace difffuzz
