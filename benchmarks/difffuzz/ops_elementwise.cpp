// Elementwise ops: unary, binary with type promotion and Python numbers,
// ternary (where, lerp, addcmul/addcdiv, masked_fill, clamp), fill_.
#include <ATen/ScalarOps.h>

#include "ops.h"

namespace difffuzz {

namespace {

// A Python number as libtorch's Python binding passes it: a wrapped 0-dim tensor.
at::Tensor wrapped(const ScalarArg& s) { return at::native::wrapped_scalar_tensor(to_torch(s)); }

// ---- generators ----

enum class Domain { Any, Float, Int, Unit };

DType pick(Gen& g, Domain d) {
  if (g.rng.chance(0.15)) return g.any_dtype();  // outside the op's types: both must raise alike
  switch (d) {
    case Domain::Float:
    case Domain::Unit: return g.float_or_complex_dtype();
    case Domain::Int: return g.int_dtype(true);
    default: return g.any_dtype();
  }
}

std::function<void(Gen&, Case&)> unary(Domain d) {
  return [d](Gen& g, Case& c) {
    const DType t = pick(g, d);
    Values v;
    if (d == Domain::Unit) v = Values{-1.2, 1.2};
    c.tensors.push_back(g.tensor(t, g.shape(), v));
  };
}

// Binary: two tensors of random dtypes and broadcastable shapes, or a tensor
// and a Python number (variant 1), either order of the tensors (flag).
std::function<void(Gen&, Case&)> binary(Domain d, bool number_ok = true) {
  return [d, number_ok](Gen& g, Case& c) {
    const DType a = pick(g, d);
    const DType b = g.rng.chance(0.5) ? a : pick(g, d);
    const std::vector<int64_t> s = g.shape();
    c.tensors.push_back(g.tensor(a, s));
    if (number_ok && g.rng.chance(0.3)) {
      c.p.variant = 1;
      c.p.scalars.push_back(g.scalar_for(a));
      return;
    }
    c.tensors.push_back(g.tensor(b, g.broadcast_partner(s)));
    if (g.rng.chance(0.3)) std::swap(c.tensors[0], c.tensors[1]);
  };
}

// add/sub: binary plus alpha (int or float).
void gen_add(Gen& g, Case& c) {
  binary(Domain::Any)(g, c);
  if (g.rng.chance(0.4)) {
    c.p.flag = true;
    const double u = g.rng.uniform(0, 1);
    c.p.scalars.insert(c.p.scalars.begin(), u < 0.4   ? ScalarArg::of_int(g.rng.range(-3, 3))
                                            : u < 0.8 ? g.small_double()
                                                      : ScalarArg::of_complex(g.small_double().re, g.small_double().re));
  }
}

// The last scalar is the Python number of variant 1; alpha (when flag) is the first.
const ScalarArg& number(const Case& c) { return c.p.scalars.back(); }

#define DF_BINARY(NAME, DOMAIN, FLAGS)                                                        \
  ops.push_back({#NAME, binary(DOMAIN),                                                      \
                 DF_E {                                                                       \
                   if (c.p.variant == 1) return {ember::NAME(x[0], to_ember(number(c)))};    \
                   return {ember::NAME(x[0], x[1])};                                          \
                 },                                                                           \
                 DF_T {                                                                       \
                   if (c.p.variant == 1) return {at::NAME(x[0], wrapped(number(c)))};        \
                   return {at::NAME(x[0], x[1])};                                             \
                 },                                                                           \
                 FLAGS, "elementwise"})

#define DF_UNARY(NAME, DOMAIN, FLAGS)                                                      \
  ops.push_back({#NAME, unary(DOMAIN), DF_E { return {ember::NAME(x[0])}; },            \
                 DF_T { return {at::NAME(x[0])}; }, FLAGS, "elementwise"})

void add_unary(std::vector<OpDef>& ops) {
  DF_UNARY(abs, Domain::Any, kGrad);
  DF_UNARY(neg, Domain::Any, kGrad);
  DF_UNARY(sign, Domain::Any, kGrad);
  DF_UNARY(sgn, Domain::Any, kGrad);
  DF_UNARY(exp, Domain::Float, kGrad);
  DF_UNARY(exp2, Domain::Float, kGrad);
  DF_UNARY(expm1, Domain::Float, kGrad);
  DF_UNARY(log, Domain::Float, kGrad);
  DF_UNARY(log2, Domain::Float, kGrad);
  DF_UNARY(log10, Domain::Float, kGrad);
  DF_UNARY(log1p, Domain::Float, kGrad);
  DF_UNARY(sqrt, Domain::Float, kGrad);
  DF_UNARY(rsqrt, Domain::Float, kGrad);
  DF_UNARY(square, Domain::Any, kGrad);
  DF_UNARY(reciprocal, Domain::Float, kGrad);
  DF_UNARY(sin, Domain::Float, kGrad);
  DF_UNARY(cos, Domain::Float, kGrad);
  DF_UNARY(tan, Domain::Float, kGrad);
  DF_UNARY(asin, Domain::Unit, kGrad);
  DF_UNARY(acos, Domain::Unit, kGrad);
  DF_UNARY(atan, Domain::Float, kGrad);
  DF_UNARY(sinh, Domain::Float, kGrad);
  DF_UNARY(cosh, Domain::Float, kGrad);
  DF_UNARY(tanh, Domain::Float, kGrad);
  DF_UNARY(asinh, Domain::Float, kGrad);
  DF_UNARY(acosh, Domain::Float, kGrad);
  DF_UNARY(atanh, Domain::Unit, kGrad);
  DF_UNARY(sigmoid, Domain::Float, kGrad);
  DF_UNARY(relu, Domain::Any, kGrad);
  DF_UNARY(silu, Domain::Float, kGrad);
  DF_UNARY(erf, Domain::Float, kGrad);
  DF_UNARY(erfc, Domain::Float, kGrad);
  DF_UNARY(floor, Domain::Any, kGrad);
  DF_UNARY(ceil, Domain::Any, kGrad);
  DF_UNARY(round, Domain::Any, kGrad);
  DF_UNARY(trunc, Domain::Any, kGrad);
  DF_UNARY(frac, Domain::Float, kGrad);
  DF_UNARY(logical_not, Domain::Any, 0);
  DF_UNARY(bitwise_not, Domain::Int, 0);
  DF_UNARY(isnan, Domain::Any, 0);
  DF_UNARY(isinf, Domain::Any, 0);
  DF_UNARY(isfinite, Domain::Any, 0);
  DF_UNARY(isposinf, Domain::Any, 0);
  DF_UNARY(isneginf, Domain::Any, 0);
  DF_UNARY(signbit, Domain::Any, 0);
  DF_UNARY(angle, Domain::Any, kGrad);
  DF_UNARY(conj, Domain::Float, kGrad);
  ops.push_back({"gelu",
                 [](Gen& g, Case& c) {
                   unary(Domain::Float)(g, c);
                   c.p.mode = g.rng.chance(0.5) ? "none" : "tanh";
                 },
                 DF_E { return {ember::gelu(x[0], c.p.mode)}; },
                 DF_T { return {at::gelu(x[0], c.p.mode)}; }, kGrad, "elementwise"});
  ops.push_back({"nan_to_num",
                 [](Gen& g, Case& c) {
                   unary(Domain::Any)(g, c);
                   for (int i = 0; i < 3; ++i) c.p.reals.push_back(g.rng.chance(0.5) ? g.small_double().re : 1e300);
                   c.p.variant = static_cast<int>(g.rng.range(0, 1));
                 },
                 DF_E {
                   // variant 0: defaults; 1: explicit replacements (1e300 = default)
                   auto opt = [&](int i) { return c.p.reals[i] == 1e300 ? std::optional<double>() : c.p.reals[i]; };
                   if (c.p.variant == 0) return {ember::nan_to_num(x[0])};
                   return {ember::nan_to_num(x[0], opt(0), opt(1), opt(2))};
                 },
                 DF_T {
                   auto opt = [&](int i) { return c.p.reals[i] == 1e300 ? c10::optional<double>() : c.p.reals[i]; };
                   if (c.p.variant == 0) return {at::nan_to_num(x[0])};
                   return {at::nan_to_num(x[0], opt(0), opt(1), opt(2))};
                 },
                 kGrad, "elementwise"});
}

void add_binary(std::vector<OpDef>& ops) {
  ops.push_back({"add", gen_add,
                 DF_E {
                   const ember::Scalar alpha = c.p.flag ? to_ember(c.p.scalars.front()) : ember::Scalar(1);
                   if (c.p.variant == 1) return {ember::add(x[0], to_ember(number(c)), alpha)};
                   return {ember::add(x[0], x[1], alpha)};
                 },
                 DF_T {
                   const c10::Scalar alpha = c.p.flag ? to_torch(c.p.scalars.front()) : c10::Scalar(1);
                   if (c.p.variant == 1) return {at::add(x[0], wrapped(number(c)), alpha)};
                   return {at::add(x[0], x[1], alpha)};
                 },
                 kGrad, "elementwise"});
  ops.push_back({"sub", gen_add,
                 DF_E {
                   const ember::Scalar alpha = c.p.flag ? to_ember(c.p.scalars.front()) : ember::Scalar(1);
                   if (c.p.variant == 1) return {ember::sub(x[0], to_ember(number(c)), alpha)};
                   return {ember::sub(x[0], x[1], alpha)};
                 },
                 DF_T {
                   const c10::Scalar alpha = c.p.flag ? to_torch(c.p.scalars.front()) : c10::Scalar(1);
                   if (c.p.variant == 1) return {at::sub(x[0], wrapped(number(c)), alpha)};
                   return {at::sub(x[0], x[1], alpha)};
                 },
                 kGrad, "elementwise"});
  DF_BINARY(mul, Domain::Any, kGrad);
  DF_BINARY(div, Domain::Any, kGrad);
  ops.push_back({"div_rounding",
                 [](Gen& g, Case& c) {
                   binary(Domain::Any, false)(g, c);
                   c.p.mode = g.rng.chance(0.5) ? "trunc" : "floor";
                 },
                 DF_E { return {ember::div(x[0], x[1], c.p.mode)}; },
                 DF_T { return {at::div(x[0], x[1], c.p.mode)}; }, kGrad, "elementwise"});
  DF_BINARY(floor_divide, Domain::Any, 0);
  DF_BINARY(fmod, Domain::Any, kGrad);
  DF_BINARY(remainder, Domain::Any, kGrad);
  // Python's `t ** n` calls pow(Tensor, Scalar), which checks integer tensors
  // to negative integer powers; the wrapped-number form does not.
  ops.push_back({"pow", binary(Domain::Any),
                 DF_E {
                   if (c.p.variant == 1) return {ember::pow(x[0], to_ember(number(c)))};
                   return {ember::pow(x[0], x[1])};
                 },
                 DF_T {
                   if (c.p.variant == 1) return {at::pow(x[0], to_torch(number(c)))};
                   return {at::pow(x[0], x[1])};
                 },
                 kGrad, "elementwise"});
  ops.push_back({"pow_scalar_base",
                 [](Gen& g, Case& c) {
                   const DType t = pick(g, Domain::Any);
                   c.tensors.push_back(g.tensor(t, g.shape()));
                   c.p.scalars.push_back(g.scalar_for(t));
                 },
                 DF_E { return {ember::pow(to_ember(c.p.scalars[0]), x[0])}; },
                 DF_T { return {at::pow(to_torch(c.p.scalars[0]), x[0])}; }, kGrad, "elementwise"});
  DF_BINARY(atan2, Domain::Float, kGrad);
  DF_BINARY(maximum, Domain::Any, kGrad);
  DF_BINARY(minimum, Domain::Any, kGrad);
  DF_BINARY(fmax, Domain::Any, kGrad);
  DF_BINARY(fmin, Domain::Any, kGrad);
  DF_BINARY(hypot, Domain::Float, kGrad);
  DF_BINARY(copysign, Domain::Any, kGrad);
  DF_BINARY(xlogy, Domain::Float, kGrad);
  DF_BINARY(eq, Domain::Any, 0);
  DF_BINARY(ne, Domain::Any, 0);
  DF_BINARY(lt, Domain::Any, 0);
  DF_BINARY(le, Domain::Any, 0);
  DF_BINARY(gt, Domain::Any, 0);
  DF_BINARY(ge, Domain::Any, 0);
  DF_BINARY(logical_and, Domain::Any, 0);
  DF_BINARY(logical_or, Domain::Any, 0);
  DF_BINARY(logical_xor, Domain::Any, 0);
  DF_BINARY(bitwise_and, Domain::Int, 0);
  DF_BINARY(bitwise_or, Domain::Int, 0);
  DF_BINARY(bitwise_xor, Domain::Int, 0);
  DF_BINARY(bitwise_left_shift, Domain::Int, 0);
  DF_BINARY(bitwise_right_shift, Domain::Int, 0);
}

// where / lerp / addcmul / addcdiv / masked_fill / clamp / fill_.
void add_ternary(std::vector<OpDef>& ops) {
  ops.push_back({"where",
                 [](Gen& g, Case& c) {
                   const std::vector<int64_t> s = g.shape();
                   c.tensors.push_back(g.mask(g.broadcast_partner(s)));
                   const DType a = g.any_dtype();
                   c.tensors.push_back(g.tensor(a, s));
                   c.p.variant = static_cast<int>(g.rng.range(0, 3));  // 0 TT, 1 ST, 2 TS, 3 SS
                   if (c.p.variant == 0 || c.p.variant == 2)
                     c.tensors.push_back(g.tensor(g.rng.chance(0.5) ? a : g.any_dtype(), g.broadcast_partner(s)));
                   if (c.p.variant != 0) {
                     c.p.scalars.push_back(g.scalar_for(a));
                     c.p.scalars.push_back(g.scalar_for(a));
                   }
                 },
                 DF_E {
                   switch (c.p.variant) {
                     case 0: return {ember::where(x[0], x[1], x[2])};
                     case 1: return {ember::where(x[0], to_ember(c.p.scalars[0]), x[1])};
                     case 2: return {ember::where(x[0], x[1], to_ember(c.p.scalars[0]))};
                     default: return {ember::where(x[0], to_ember(c.p.scalars[0]), to_ember(c.p.scalars[1]))};
                   }
                 },
                 DF_T {
                   switch (c.p.variant) {
                     case 0: return {at::where(x[0], x[1], x[2])};
                     case 1: return {at::where(x[0], to_torch(c.p.scalars[0]), x[1])};
                     case 2: return {at::where(x[0], x[1], to_torch(c.p.scalars[0]))};
                     default: return {at::where(x[0], to_torch(c.p.scalars[0]), to_torch(c.p.scalars[1]))};
                   }
                 },
                 kGrad, "elementwise"});
  ops.push_back({"lerp",
                 [](Gen& g, Case& c) {
                   const DType t = g.float_or_complex_dtype();
                   const std::vector<int64_t> s = g.shape();
                   c.tensors.push_back(g.tensor(t, s));
                   c.tensors.push_back(g.tensor(g.rng.chance(0.9) ? t : g.any_dtype(), g.broadcast_partner(s)));
                   if (g.rng.chance(0.5)) {
                     c.p.variant = 1;
                     c.tensors.push_back(g.tensor(t, g.broadcast_partner(s), Values{-0.5, 1.5}));
                   } else {
                     c.p.scalars.push_back(g.scalar_for(t));
                   }
                 },
                 DF_E {
                   if (c.p.variant == 1) return {ember::lerp(x[0], x[1], x[2])};
                   return {ember::lerp(x[0], x[1], to_ember(c.p.scalars[0]))};
                 },
                 DF_T {
                   if (c.p.variant == 1) return {at::lerp(x[0], x[1], x[2])};
                   return {at::lerp(x[0], x[1], to_torch(c.p.scalars[0]))};
                 },
                 kGrad, "elementwise"});
  auto gen_addc = [](Gen& g, Case& c) {
    const DType t = g.rng.chance(0.8) ? g.float_or_complex_dtype() : g.any_dtype();
    const std::vector<int64_t> s = g.shape();
    c.tensors.push_back(g.tensor(t, s));
    c.tensors.push_back(g.tensor(g.rng.chance(0.8) ? t : g.any_dtype(), g.broadcast_partner(s)));
    c.tensors.push_back(g.tensor(g.rng.chance(0.8) ? t : g.any_dtype(), g.broadcast_partner(s)));
    c.p.scalars.push_back(g.rng.chance(0.5) ? ScalarArg::of_int(1) : g.scalar_for(t));
  };
  ops.push_back({"addcmul", gen_addc,
                 DF_E { return {ember::addcmul(x[0], x[1], x[2], to_ember(c.p.scalars[0]))}; },
                 DF_T { return {at::addcmul(x[0], x[1], x[2], to_torch(c.p.scalars[0]))}; }, kGrad, "elementwise"});
  ops.push_back({"addcdiv", gen_addc,
                 DF_E { return {ember::addcdiv(x[0], x[1], x[2], to_ember(c.p.scalars[0]))}; },
                 DF_T { return {at::addcdiv(x[0], x[1], x[2], to_torch(c.p.scalars[0]))}; }, kGrad, "elementwise"});
  ops.push_back({"masked_fill",
                 [](Gen& g, Case& c) {
                   const DType t = g.any_dtype();
                   const std::vector<int64_t> s = g.shape();
                   c.tensors.push_back(g.tensor(t, s));
                   c.tensors.push_back(g.mask(g.broadcast_partner(s)));
                   if (g.rng.chance(0.25)) {  // value as a 0-dim tensor
                     c.p.variant = 1;
                     c.tensors.push_back(g.tensor(g.rng.chance(0.5) ? t : g.any_dtype(), {}));
                   } else {
                     c.p.scalars.push_back(g.scalar_for(t));
                   }
                 },
                 DF_E {
                   if (c.p.variant == 1) return {ember::masked_fill(x[0], x[1], x[2])};
                   return {ember::masked_fill(x[0], x[1], to_ember(c.p.scalars[0]))};
                 },
                 DF_T {
                   if (c.p.variant == 1) return {at::masked_fill(x[0], x[1], x[2])};
                   return {at::masked_fill(x[0], x[1], to_torch(c.p.scalars[0]))};
                 },
                 kGrad, "elementwise"});
  ops.push_back({"clamp",
                 [](Gen& g, Case& c) {
                   const DType t = g.real_dtype();
                   const std::vector<int64_t> s = g.shape();
                   c.tensors.push_back(g.tensor(t, s));
                   // variant 0: min and/or max numbers (flag: min given, flag2: max given);
                   // variant 1: tensor bounds
                   if (g.rng.chance(0.3)) {
                     c.p.variant = 1;
                     c.tensors.push_back(g.tensor(g.rng.chance(0.6) ? t : g.real_dtype(), g.broadcast_partner(s)));
                     c.tensors.push_back(g.tensor(g.rng.chance(0.6) ? t : g.real_dtype(), g.broadcast_partner(s)));
                   } else {
                     c.p.flag = g.rng.chance(0.75);
                     c.p.flag2 = !c.p.flag || g.rng.chance(0.6);
                     c.p.scalars.push_back(g.scalar_for(t));
                     c.p.scalars.push_back(g.scalar_for(t));
                   }
                 },
                 DF_E {
                   if (c.p.variant == 1) return {ember::clamp(x[0], x[1], x[2])};
                   std::optional<ember::Scalar> lo, hi;
                   if (c.p.flag) lo = to_ember(c.p.scalars[0]);
                   if (c.p.flag2) hi = to_ember(c.p.scalars[1]);
                   return {ember::clamp(x[0], lo, hi)};
                 },
                 DF_T {
                   if (c.p.variant == 1) return {at::clamp(x[0], x[1], x[2])};
                   c10::optional<c10::Scalar> lo, hi;
                   if (c.p.flag) lo = to_torch(c.p.scalars[0]);
                   if (c.p.flag2) hi = to_torch(c.p.scalars[1]);
                   return {at::clamp(x[0], lo, hi)};
                 },
                 kGrad, "elementwise"});
  ops.push_back({"fill_",
                 [](Gen& g, Case& c) {
                   const DType t = g.any_dtype();
                   c.tensors.push_back(g.tensor(t, g.shape(), {}, /*writable=*/true));
                   if (g.rng.chance(0.2)) {
                     c.p.variant = 1;
                     c.tensors.push_back(g.tensor(g.any_dtype(), {}));
                   } else {
                     c.p.scalars.push_back(g.scalar_for(t));
                   }
                 },
                 DF_E {
                   if (c.p.variant == 1) x[0].fill_(x[1]);
                   else x[0].fill_(to_ember(c.p.scalars[0]));
                   return {x[0]};
                 },
                 DF_T {
                   if (c.p.variant == 1) x[0].fill_(x[1]);
                   else x[0].fill_(to_torch(c.p.scalars[0]));
                   return {x[0]};
                 },
                 kInPlace, "elementwise"});
  ops.push_back({"masked_fill_",
                 [](Gen& g, Case& c) {
                   const DType t = g.any_dtype();
                   const std::vector<int64_t> s = g.shape();
                   c.tensors.push_back(g.tensor(t, s, {}, /*writable=*/true));
                   c.tensors.push_back(g.mask(g.broadcast_partner(s)));
                   c.p.scalars.push_back(g.scalar_for(t));
                 },
                 DF_E {
                   x[0].masked_fill_(x[1], to_ember(c.p.scalars[0]));
                   return {x[0]};
                 },
                 DF_T {
                   x[0].masked_fill_(x[1], to_torch(c.p.scalars[0]));
                   return {x[0]};
                 },
                 kInPlace, "elementwise"});
  ops.push_back({"add_",
                 [](Gen& g, Case& c) {
                   const DType t = g.any_dtype();
                   const std::vector<int64_t> s = g.shape();
                   c.tensors.push_back(g.tensor(t, s, {}, /*writable=*/true));
                   c.tensors.push_back(g.tensor(g.rng.chance(0.5) ? t : g.any_dtype(), g.broadcast_partner(s)));
                 },
                 DF_E {
                   x[0].add_(x[1]);
                   return {x[0]};
                 },
                 DF_T {
                   x[0].add_(x[1]);
                   return {x[0]};
                 },
                 kInPlace, "elementwise"});
  ops.push_back({"isclose",
                 [](Gen& g, Case& c) {
                   binary(Domain::Any, false)(g, c);
                   c.p.reals = {g.rng.chance(0.5) ? 1e-5 : 0.1, g.rng.chance(0.5) ? 1e-8 : 0.5};
                   c.p.flag = g.rng.chance(0.5);
                 },
                 DF_E { return {ember::isclose(x[0], x[1], c.p.reals[0], c.p.reals[1], c.p.flag)}; },
                 DF_T { return {at::isclose(x[0], x[1], c.p.reals[0], c.p.reals[1], c.p.flag)}; }, 0,
                 "elementwise"});
}

// libtorch's integer division kernels trap (SIGFPE) on INT_MIN / -1 instead of
// raising; such cases run in Ember alone.
bool int_division_trap(const Case& c) {
  if (c.tensors.empty() || !ember::is_integral(c.tensors[0].dtype, true)) return false;
  const TensorArg& a = c.tensors[0];
  bool has_min = false;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double v = a.value(i);
    if (v == -2147483648.0 || v == -9223372036854775808.0) has_min = true;
  }
  if (!has_min) return false;
  if (c.p.variant == 1) {  // the number converted to the tensor's dtype (INT64_MAX is -1 as int32)
    const ScalarArg& s = c.p.scalars.back();
    if (s.kind != ScalarArg::Kind::Int) return false;
    return a.dtype == DType::Int64 ? s.i == -1 : static_cast<int32_t>(s.i) == -1;
  }
  if (c.tensors.size() < 2 || !ember::is_integral(c.tensors[1].dtype, true)) return false;
  for (int64_t i = 0; i < c.tensors[1].numel(); ++i)
    if (c.tensors[1].value(i) == -1) return true;
  return false;
}

}  // namespace

void add_elementwise_ops(std::vector<OpDef>& ops) {
  add_unary(ops);
  add_binary(ops);
  add_ternary(ops);
  for (OpDef& op : ops)
    if (op.name == "remainder" || op.name == "fmod" || op.name == "floor_divide" || op.name == "div_rounding")
      op.torch_hazard = int_division_trap;
}

}  // namespace difffuzz
