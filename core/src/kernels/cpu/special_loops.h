#pragma once
// The loops every ember::special CPU kernel runs: a scalar function of doubles
// applied over a floating-dtype iterator. Each element widens to double (the
// scalar math may go to long double inside) and rounds once to its own dtype.
#include "kernels/cpu/loops.h"

namespace ember::special_loops {

template <class F>
void unary_over_floating(TensorIterator& iter, F f) {
  dispatch<kMaskFloating>(iter.common_dtype(), iter.op_name(), [&](auto tag) {
    using T = decltype(tag);
    cpu_kernel(iter, [f](T a) -> T { return static_cast<T>(f(static_cast<double>(a))); });
  });
}

template <class F>
void binary_over_floating(TensorIterator& iter, F f) {
  dispatch<kMaskFloating>(iter.common_dtype(), iter.op_name(), [&](auto tag) {
    using T = decltype(tag);
    cpu_kernel(iter, [f](T a, T b) -> T {
      return static_cast<T>(f(static_cast<double>(a), static_cast<double>(b)));
    });
  });
}

}  // namespace ember::special_loops
