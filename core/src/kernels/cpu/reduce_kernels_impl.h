#pragma once
// The body of the CPU reduction kernels, typed on the input element type: the reduction
// functors and reduce_kernel_body<T> / arg_reduce_kernel_body<T>, in an anonymous
// namespace as before the split. Included only by reduce_kernels_<group>.cpp, which
// define the per-type entry points of reduce_kernels_typed.h on it (Note [Kernels split
// by dtype group] in dtype_groups.h).
#include <cmath>
#include <limits>

#include "kernels/cpu/reduce_engine.h"
#include "kernels/cpu/convert.h"
#include "kernels/cpu/dtype_groups.h"
#include "kernels/cpu/math.h"
#include "kernels/cpu/reduce_kernels_typed.h"
#include "kernels/cpu/vec.h"

namespace ember {
namespace {
using reduce_detail::run;

// Accumulator for floating sums: double for float, float for 16-bit types.
template <class T>
using sum_acc_t = std::conditional_t<is_complex_v<T>, complex128,
                  std::conditional_t<std::is_integral_v<T>, int64_t, double>>;

// An element as the reduction sees it: cast to the result dtype first, as
// PyTorch's sum(x, dtype=d) reduces x.to(d) (a complex 0.6+0j summed as int32
// is 0; a float64 summed as float16 is rounded to float16 first), then widened
// to the accumulator.
template <class Acc, class Out, class T>
Acc as_element(T v) {
  if constexpr (std::is_same_v<T, Out>) return convert<Acc>(v);
  else return convert<Acc>(convert<Out>(v));
}

template <class T, class Acc, class Out>
struct SumOps {
  double scale = 1;  // mean: 1/n
  Acc identity() const { return Acc(0); }
  Acc reduce(Acc a, T v, int64_t) const { return math::wrapping_add(a, as_element<Acc, Out>(v)); }
  Acc combine(Acc a, Acc b) const { return math::wrapping_add(a, b); }
  Out project(Acc a) const {
    if constexpr (std::is_integral_v<Acc>) return static_cast<Out>(a);
    else return convert<Out>(a * static_cast<real_of_t<Acc>>(scale));
  }
  // Contiguous float runs: 8 independent accumulators so the loop vectorizes.
  template <class U = T>
  Acc reduce_run(Acc a, const U* p, int64_t n, int64_t) const {
    // float -> double is exact, so the cast to Out (float or double) is implied.
    if constexpr (std::is_same_v<U, float> && std::is_same_v<Acc, double> &&
                  (std::is_same_v<Out, float> || std::is_same_v<Out, double>)) {
      double lanes[8] = {};
      int64_t i = 0;
      for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; ++k) lanes[k] += static_cast<double>(p[i + k]);
      for (; i < n; ++i) lanes[0] += p[i];
      double s = 0;
      for (double l : lanes) s += l;
      return a + s;
    } else {
      for (int64_t i = 0; i < n; ++i) a = math::wrapping_add(a, as_element<Acc, Out>(p[i]));
      return a;
    }
  }
};

template <class T, class Acc, class Out>
struct ProdOps {
  Acc identity() const { return Acc(1); }
  Acc reduce(Acc a, T v, int64_t) const { return math::wrapping_mul(a, as_element<Acc, Out>(v)); }
  Acc combine(Acc a, Acc b) const { return math::wrapping_mul(a, b); }
  Out project(Acc a) const { return convert<Out>(a); }
};

template <class T, bool IsMax>
struct MinMaxOps {
  using C = compute_type_t<T>;
  C identity() const {
    if constexpr (std::is_same_v<T, bool>) return !IsMax ? true : false;
    else if constexpr (std::numeric_limits<C>::has_infinity)
      return IsMax ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::infinity();
    else return IsMax ? std::numeric_limits<C>::lowest() : std::numeric_limits<C>::max();
  }
  C reduce(C a, T v, int64_t) const {
    C x = static_cast<C>(v);
    return IsMax ? math::max_nan(a, x) : math::min_nan(a, x);
  }
  C combine(C a, C b) const { return IsMax ? math::max_nan(a, b) : math::min_nan(a, b); }
  T project(C a) const { return static_cast<T>(a); }
  // SIMD lanes for float/double (max/min are exact, so splitting the run into
  // lanes cannot change the result); a plain loop otherwise. The lanes use the
  // one-instruction max/min (which drops NaN) and record NaNs in a separate
  // mask, so the loop stays at the memory bandwidth.
  template <class U = T>
  C reduce_run(C a, const U* p, int64_t n, int64_t) const {
    if constexpr (std::is_same_v<U, float> || std::is_same_v<U, double>) {
      using V = vec::Vec<U>;
      using M = typename V::Mask;
      constexpr int W = V::size;
      auto pick = [](V acc, V x) -> V {
        return IsMax ? (x.v > acc.v ? x.v : acc.v) : (x.v < acc.v ? x.v : acc.v);
      };
      V l0(a), l1(a), l2(a), l3(a);
      M nan = M{};
      int64_t i = 0;
      for (; i + 4 * W <= n; i += 4 * W) {
        const V x0 = V::load(p + i), x1 = V::load(p + i + W);
        const V x2 = V::load(p + i + 2 * W), x3 = V::load(p + i + 3 * W);
        l0 = pick(l0, x0);
        l1 = pick(l1, x1);
        l2 = pick(l2, x2);
        l3 = pick(l3, x3);
        nan |= (x0 != x0) | (x1 != x1) | (x2 != x2) | (x3 != x3);
      }
      for (int k = 0; k < W; ++k)
        if (nan[k]) return std::numeric_limits<C>::quiet_NaN();
      const V l = pick(pick(l0, l1), pick(l2, l3));
      for (int k = 0; k < W; ++k) a = combine(a, l[k]);
      for (; i < n; ++i) a = combine(a, p[i]);
      return a;
    } else {
      for (int64_t i = 0; i < n; ++i) a = reduce(a, p[i], 0);
      return a;
    }
  }
};

template <class T, bool IsAll, class Out>
struct AllAnyOps {
  bool identity() const { return IsAll; }
  bool reduce(bool a, T v, int64_t) const { return IsAll ? (a && convert<bool>(v)) : (a || convert<bool>(v)); }
  bool combine(bool a, bool b) const { return IsAll ? (a && b) : (a || b); }
  Out project(bool a) const { return static_cast<Out>(a); }
};

template <class T>
struct CountNonzeroOps {
  int64_t identity() const { return 0; }
  int64_t reduce(int64_t a, T v, int64_t) const { return a + (convert<bool>(v) ? 1 : 0); }
  int64_t combine(int64_t a, int64_t b) const { return a + b; }
  int64_t project(int64_t a) const { return a; }
};

// Norms over |x| accumulated in double (or the real type of complex inputs).
template <class T, class Out>
struct NormOps {
  ReduceOp op;
  double p;
  double identity() const {
    return op == ReduceOp::NormNegInf ? std::numeric_limits<double>::infinity() : 0.0;
  }
  double reduce(double a, T v, int64_t) const {
    double x;
    if constexpr (is_complex_v<T>) x = std::abs(complex128(v.real(), v.imag()));
    else x = std::abs(static_cast<double>(static_cast<compute_type_t<T>>(v)));
    switch (op) {
      case ReduceOp::Norm0: return a + (x != 0 ? 1.0 : 0.0);
      case ReduceOp::NormInf: return std::isnan(x) || std::isnan(a) ? NAN : std::max(a, x);
      case ReduceOp::NormNegInf: return std::isnan(x) || std::isnan(a) ? NAN : std::min(a, x);
      case ReduceOp::NormP:
      // Not norms: reduce_kernel_for builds NormOps only for the four norm ops.
      case ReduceOp::Sum: case ReduceOp::Prod: case ReduceOp::Mean: case ReduceOp::Amax:
      case ReduceOp::Amin: case ReduceOp::All: case ReduceOp::Any: case ReduceOp::CountNonzero:
      case ReduceOp::Var:
        break;
    }
    return a + (p == 1 ? x : p == 2 ? x * x : std::pow(x, p));
  }
  double combine(double a, double b) const {
    if (op == ReduceOp::NormInf) return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
    if (op == ReduceOp::NormNegInf) return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
    return a + b;
  }
  Out project(double a) const {
    if (op != ReduceOp::NormP) return static_cast<Out>(a);
    if (p == 1) return static_cast<Out>(a);
    if (p == 2) return static_cast<Out>(std::sqrt(a));
    return static_cast<Out>(std::pow(a, 1.0 / p));
  }
};

// Welford's running variance; combine is Chan et al.'s parallel update.
struct WelfordAcc {
  double mean = 0, m2 = 0;
  int64_t n = 0;
};
template <class T, class Out>
struct VarOps {
  int64_t correction;
  bool take_sqrt;
  WelfordAcc identity() const { return {}; }
  WelfordAcc reduce(WelfordAcc a, T v, int64_t) const {
    double x;
    if constexpr (is_complex_v<T>) x = 0;  // complex handled by the op via real/imag
    else x = static_cast<double>(static_cast<compute_type_t<T>>(v));
    a.n += 1;
    const double delta = x - a.mean;
    a.mean += delta / static_cast<double>(a.n);
    a.m2 += delta * (x - a.mean);
    return a;
  }
  WelfordAcc combine(WelfordAcc a, WelfordAcc b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const int64_t n = a.n + b.n;
    const double delta = b.mean - a.mean;
    const double nb_over_n = static_cast<double>(b.n) / static_cast<double>(n);
    return {a.mean + delta * nb_over_n, a.m2 + b.m2 + delta * delta * static_cast<double>(a.n) * nb_over_n, n};
  }
  Out project(WelfordAcc a) const {
    const double denom = std::max<double>(0.0, static_cast<double>(a.n - correction));
    double var = a.m2 / denom;
    return static_cast<Out>(take_sqrt ? std::sqrt(var) : var);
  }
};


// Calls f(O{}) for the output element type O of a direct reduction of T.
template <class T, class F>
void with_direct_output(DType out, F&& f) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, int64_t>) {
    if (out == kInt64) return f(int64_t{});
  }
  EMBER_CHECK(out == dtype_of_v<T>, "reduce: internal error: no direct reduction of ", dtype_of_v<T>, " into ", out);
  f(T{});
}

template <class T>
void reduce_kernel_body(const Tensor& in, Tensor& out, uint64_t mask, ReduceOp op, const ReduceParams& params) {
  [[maybe_unused]] const DType in_t = in.dtype();  // names the dtype in the refusals below
  const DType out_t = out.dtype();
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
      with_direct_output<T>(out_t, [&](auto otag) {
        using O = decltype(otag);
        // The output's accumulator (elements are cast to O first: as_element).
        using Acc = std::conditional_t<is_complex_v<O>, complex128,
                    std::conditional_t<std::is_integral_v<O>, int64_t, double>>;
        SumOps<T, Acc, O> ops;
        if (op == ReduceOp::Mean) {
          int64_t n = 1;
          for (int64_t d = 0; d < in.dim(); ++d)
            if (mask >> d & 1) n *= in.size(d);
          ops.scale = 1.0 / static_cast<double>(n);
        }
        run<T, O>(in, out, mask, ops);
      });
      return;
    case ReduceOp::Prod:
      with_direct_output<T>(out_t, [&](auto otag) {
        using O = decltype(otag);
        // As sum: elements are cast to O before the product
        // (prod([1j, 1j], dtype=float32) is 0, as PyTorch).
        using Acc = std::conditional_t<is_complex_v<O>, complex128,
                    std::conditional_t<std::is_integral_v<O>, int64_t, double>>;
        run<T, O>(in, out, mask, ProdOps<T, Acc, O>{});
      });
      return;
    case ReduceOp::Amax:
    case ReduceOp::Amin:
      if constexpr (in_mask_v<kMaskReal | kMaskBool, T>) {
        if (op == ReduceOp::Amax) run<T, T>(in, out, mask, MinMaxOps<T, true>{});
        else run<T, T>(in, out, mask, MinMaxOps<T, false>{});
        return;
      } else {
        detail::throw_unsupported_dtype(op == ReduceOp::Amax ? "amax" : "amin", in_t);
      }
    case ReduceOp::All:
    case ReduceOp::Any:
      if (out_t == kUInt8) {
        if (op == ReduceOp::All) run<T, uint8_t>(in, out, mask, AllAnyOps<T, true, uint8_t>{});
        else run<T, uint8_t>(in, out, mask, AllAnyOps<T, false, uint8_t>{});
      } else {
        if (op == ReduceOp::All) run<T, bool>(in, out, mask, AllAnyOps<T, true, bool>{});
        else run<T, bool>(in, out, mask, AllAnyOps<T, false, bool>{});
      }
      return;
    case ReduceOp::CountNonzero:
      run<T, int64_t>(in, out, mask, CountNonzeroOps<T>{});
      return;
    case ReduceOp::NormP:
    case ReduceOp::Norm0:
    case ReduceOp::NormInf:
    case ReduceOp::NormNegInf:
      if constexpr (in_mask_v<kMaskFloating | kMaskComplex, T>) {
        dispatch<kMaskFloating>(out_t, "norm", [&](auto otag) {
          using O = decltype(otag);
          run<T, O>(in, out, mask, NormOps<T, O>{op, params.p});
        });
        return;
      } else {
        detail::throw_unsupported_dtype("norm", in_t);
      }
    case ReduceOp::Var:
      if constexpr (in_mask_v<kMaskFloating, T>) {
        run<T, T>(in, out, mask, VarOps<T, T>{params.correction, params.take_sqrt});
        return;
      } else {
        detail::throw_unsupported_dtype(params.take_sqrt ? "std" : "var", in_t);
      }
  }
}

template <class T, bool IsMax>
struct ArgOps {
  using C = compute_type_t<T>;
  struct Acc {
    C value;
    int64_t index;
  };
  Acc identity() const { return {MinMaxOps<T, IsMax>{}.identity(), -1}; }
  Acc reduce(Acc a, T v, int64_t idx) const {
    const C x = static_cast<C>(v);
    if (a.index >= 0 && math::isnan(a.value)) return a;  // first NaN wins
    if (a.index < 0 || math::isnan(x) || (IsMax ? x > a.value : x < a.value)) return {x, idx};
    return a;
  }
  Acc combine(Acc a, Acc b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    if (math::isnan(a.value)) return a;
    if (math::isnan(b.value) || (IsMax ? b.value > a.value : b.value < a.value)) return b;
    return a;
  }
  Acc project(Acc a) const { return a; }
};

template <class T, bool IsMax>
void arg_reduce_into(const Tensor& in, Tensor& values, Tensor& indices, uint64_t mask) {
  T* v = values.data_ptr<T>();
  int64_t* idx = indices.data_ptr<int64_t>();
  reduce_detail::run_with<T>(in, values, mask, ArgOps<T, IsMax>{}, [v, idx](int64_t off, const auto& acc) {
    v[off] = static_cast<T>(acc.value);
    idx[off] = acc.index;
  });
}

template <class T>
void arg_reduce_kernel_body(const Tensor& in, Tensor& values, Tensor& indices, uint64_t mask, ArgReduceOp op) {
  if constexpr (in_mask_v<kMaskReal | kMaskBool, T>) {
    if (op == ArgReduceOp::Max) arg_reduce_into<T, true>(in, values, indices, mask);
    else arg_reduce_into<T, false>(in, values, indices, mask);
  } else {
    detail::throw_unsupported_dtype(op == ArgReduceOp::Max ? "max" : "min", in.dtype());
  }
}

}  // namespace
}  // namespace ember
