#pragma once
// The body of the CPU ternary elementwise kernel, typed on the element type of the first
// tensor: ternary_kernel_body<Elem>, in an anonymous namespace as before the split.
// Included only by ternary_kernels_<group>.cpp, which define the per-type entry points
// of ternary_kernels_typed.h on it (Note [Kernels split by dtype group] in
// dtype_groups.h).
#include "kernels/cpu/dtype_groups.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/math.h"
#include "kernels/cpu/ternary_kernels_typed.h"
#include "kernels/slots/elementwise_info.h"

namespace ember {
namespace {

template <class Elem>
void ternary_kernel_body(TensorIterator& iter, TernaryOp op, const Scalar& value) {
  switch (op) {
    case TernaryOp::Where:
      dispatch_typed<op_info(TernaryOp::Where).dtypes, Elem>(iter.dtype(0), "where", [&](auto tag) {
        using T = decltype(tag);
        // The condition is read as bytes: GCC does not vectorize loads of bool.
        cpu_kernel(iter, [](uint8_t c, T a, T b) { return c ? a : b; });
      });
      return;
    case TernaryOp::Clamp:
      dispatch_typed<op_info(TernaryOp::Clamp).dtypes, Elem>(iter.dtype(0), "clamp", [&](auto tag) {
        using T = decltype(tag);
        using C = compute_type_t<T>;
        cpu_kernel(iter, [](T x, T lo, T hi) -> T {
          const C above_lo = math::max_nan(static_cast<C>(x), static_cast<C>(lo));
          return static_cast<T>(math::min_nan(above_lo, static_cast<C>(hi)));
        });
      });
      return;
    case TernaryOp::Lerp:
      dispatch_typed<op_info(TernaryOp::Lerp).dtypes, Elem>(iter.dtype(0), "lerp", [&](auto tag) {
        using T = decltype(tag);
        using C = compute_type_t<T>;
        cpu_kernel(iter, [](T a, T b, T w) -> T {
          const C x = static_cast<C>(a), y = static_cast<C>(b), t = static_cast<C>(w);
          // Two forms keep lerp exact at both ends (weight 0 and 1), as PyTorch.
          // PyTorch 1.13 picks the form by weight < 0.5 for real weights (so a
          // weight of -inf takes the first) and by |weight| for complex ones.
          bool small_weight;
          if constexpr (is_complex_v<C>) small_weight = std::abs(t) < 0.5;
          else small_weight = t < C(0.5);
          if (small_weight) return static_cast<T>(x + t * (y - x));
          return static_cast<T>(y - (y - x) * (C(1) - t));
        });
      });
      return;
    case TernaryOp::Addcmul:
    case TernaryOp::Addcdiv:
      static_assert(op_info(TernaryOp::Addcmul).dtypes == op_info(TernaryOp::Addcdiv).dtypes,
                    "addcmul and addcdiv share one dispatch");
      dispatch_typed<op_info(TernaryOp::Addcmul).dtypes, Elem>(iter.dtype(0), iter.op_name(), [&](auto tag) {
        using T = decltype(tag);
        using C = compute_type_t<T>;
        const C v = value.to<C>();
        if (op == TernaryOp::Addcmul)
          cpu_kernel(iter, [v](T a, T b, T c) -> T {
            return static_cast<T>(static_cast<C>(a) + v * static_cast<C>(b) * static_cast<C>(c));
          });
        else
          cpu_kernel(iter, [v](T a, T b, T c) -> T {
            return static_cast<T>(static_cast<C>(a) + v * (static_cast<C>(b) / static_cast<C>(c)));
          });
      });
      return;
  }
}

}  // namespace
}  // namespace ember
