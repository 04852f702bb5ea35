// CPU kernels of lerp, addcmul, addcdiv, where and clamp with tensor bounds.
#include "kernels/cpu/loops.h"
#include "kernels/cpu/math.h"
#include "kernels/slots/elementwise_kernels.h"

namespace ember {
namespace {

void ternary_kernel(TensorIterator& iter, TernaryOp op, const Scalar& value) {
  switch (op) {
    case TernaryOp::Where:
      dispatch<kMaskAll>(iter.dtype(0), "where", [&](auto tag) {
        using T = decltype(tag);
        // The condition is read as bytes: GCC does not vectorize loads of bool.
        cpu_kernel(iter, [](uint8_t c, T a, T b) { return c ? a : b; });
      });
      return;
    case TernaryOp::Clamp:
      dispatch<kMaskReal | kMaskBool>(iter.dtype(0), "clamp", [&](auto tag) {
        using T = decltype(tag);
        using C = compute_type_t<T>;
        cpu_kernel(iter, [](T x, T lo, T hi) -> T {
          const C above_lo = math::max_nan(static_cast<C>(x), static_cast<C>(lo));
          return static_cast<T>(math::min_nan(above_lo, static_cast<C>(hi)));
        });
      });
      return;
    case TernaryOp::Lerp:
      dispatch<kMaskFloating | kMaskComplex>(iter.dtype(0), "lerp", [&](auto tag) {
        using T = decltype(tag);
        using C = compute_type_t<T>;
        cpu_kernel(iter, [](T a, T b, T w) -> T {
          const C x = static_cast<C>(a), y = static_cast<C>(b), t = static_cast<C>(w);
          // Two forms keep lerp exact at both ends (weight 0 and 1), as PyTorch.
          if (std::abs(t) < 0.5) return static_cast<T>(x + t * (y - x));
          return static_cast<T>(y - (y - x) * (C(1) - t));
        });
      });
      return;
    case TernaryOp::Addcmul:
    case TernaryOp::Addcdiv:
      dispatch<kMaskNumber>(iter.dtype(0), iter.op_name(), [&](auto tag) {
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

EMBER_REGISTER_KERNEL(ternary_stub, CPU, ternary_kernel);

}  // namespace ember
