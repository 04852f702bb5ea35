#pragma once
// cpu_kernel: runs a scalar lambda over a TensorIterator. The lambda's
// parameter and return types name the operand dtypes (outputs first in the
// iterator, return value = output 0). Contiguous runs and broadcast scalars get
// tight loops the compiler vectorizes; cpu_kernel_vec additionally takes a
// lambda over Vec<T> for ops the compiler can't vectorize itself (exp, ...).
#include <tuple>
#include <type_traits>
#include <utility>

#include "iter/tensor_iterator.h"
#include "kernels/cpu/vec.h"

namespace ember {

template <class F>
struct function_traits : function_traits<decltype(&F::operator())> {};
template <class C, class R, class... Args>
struct function_traits<R (C::*)(Args...) const> {
  using result = R;
  using args = std::tuple<Args...>;
  static constexpr size_t arity = sizeof...(Args);
};
template <class R, class... Args>
struct function_traits<R (*)(Args...)> {
  using result = R;
  using args = std::tuple<Args...>;
  static constexpr size_t arity = sizeof...(Args);
};

namespace detail {

template <class Traits, size_t I>
using arg_t = std::decay_t<std::tuple_element_t<I, typename Traits::args>>;

template <class Op, size_t... I>
inline void basic_loop(const Op& op, char** data, const int64_t* strides, int64_t n,
                       std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using R = typename traits::result;
  char* out = data[0];
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<R*>(out + i * strides[0]) =
        op(*reinterpret_cast<const arg_t<traits, I>*>(data[I + 1] + i * strides[I + 1])...);
  }
}

template <class Op, size_t... I>
inline void contiguous_loop(const Op& op, char** data, int64_t n, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using R = typename traits::result;
  R* __restrict out = reinterpret_cast<R*>(data[0]);
  std::tuple<const arg_t<traits, I>* __restrict...> in{
      reinterpret_cast<const arg_t<traits, I>*>(data[I + 1])...};
  for (int64_t i = 0; i < n; ++i) out[i] = op(std::get<I>(in)[i]...);
}

// Contiguous output, each input either contiguous or a broadcast scalar
// (stride 0); `scalar_mask` bit I set means input I is a scalar.
template <class Op, size_t... I>
inline void scalar_broadcast_loop(const Op& op, char** data, int64_t n, unsigned scalar_mask,
                                  std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using R = typename traits::result;
  R* __restrict out = reinterpret_cast<R*>(data[0]);
  if constexpr (sizeof...(I) == 2) {
    using A = arg_t<traits, 0>;
    using B = arg_t<traits, 1>;
    if (scalar_mask == 2) {
      const A* __restrict a = reinterpret_cast<const A*>(data[1]);
      const B b = *reinterpret_cast<const B*>(data[2]);
      for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], b);
      return;
    }
    if (scalar_mask == 1) {
      const A a = *reinterpret_cast<const A*>(data[1]);
      const B* __restrict b = reinterpret_cast<const B*>(data[2]);
      for (int64_t i = 0; i < n; ++i) out[i] = op(a, b[i]);
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i)
    out[i] = op(*reinterpret_cast<const arg_t<traits, I>*>(
        data[I + 1] + (((scalar_mask >> I) & 1u) ? 0 : i * sizeof(arg_t<traits, I>)))...);
}

template <class Traits, size_t... I>
inline bool inputs_contiguous(const int64_t* strides, std::index_sequence<I...>) {
  return ((strides[I + 1] == static_cast<int64_t>(sizeof(arg_t<Traits, I>))) && ...);
}
template <class Traits, size_t... I>
inline unsigned scalar_mask_of(const int64_t* strides, std::index_sequence<I...>) {
  unsigned mask = 0;
  ((mask |= (strides[I + 1] == 0 ? 1u << I : 0u)), ...);
  bool ok = ((strides[I + 1] == 0 || strides[I + 1] == static_cast<int64_t>(sizeof(arg_t<Traits, I>))) && ...);
  return ok ? mask : ~0u;
}

// Loop driver for cpu_kernel_vec.
template <class Op, class VOp, size_t... I>
inline void vectorized_loop(const Op& op, const VOp& vop, char** data, int64_t n,
                            unsigned scalar_mask, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using R = typename traits::result;
  using T = arg_t<traits, 0>;
  static_assert(((std::is_same_v<arg_t<traits, I>, T>) && ...), "vectorized ops take one type");
  using vec::Vec;
  constexpr int W = Vec<T>::size;
  R* out = reinterpret_cast<R*>(data[0]);
  const T* in[] = {reinterpret_cast<const T*>(data[I + 1])...};
  auto is_scalar = [&](size_t k) { return ((scalar_mask >> k) & 1u) != 0; };
  // Broadcast scalars are loaded once.
  Vec<T> scalar_vecs[] = {Vec<T>(is_scalar(I) ? in[I][0] : T(0))...};
  auto load = [&](size_t k, int64_t i) {
    return is_scalar(k) ? scalar_vecs[k] : Vec<T>::load(in[k] + i);
  };
  int64_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    Vec<R> a = vop(load(I, i)...);
    Vec<R> b = vop(load(I, i + W)...);
    a.store(out + i);
    b.store(out + i + W);
  }
  for (; i + W <= n; i += W) vop(load(I, i)...).store(out + i);
  for (; i < n; ++i) out[i] = op(in[I][is_scalar(I) ? 0 : i]...);
}

}  // namespace detail

template <class Op>
void cpu_kernel(TensorIterator& iter, const Op& op, int64_t grain = kGrainSize) {
  using traits = function_traits<Op>;
  using R = typename traits::result;
  constexpr size_t arity = traits::arity;
  using Idx = std::make_index_sequence<arity>;
  iter.for_each(
      [&](char** data, const int64_t* strides, int64_t n) {
        if (strides[0] == static_cast<int64_t>(sizeof(R))) {
          if (detail::inputs_contiguous<traits>(strides, Idx{})) {
            detail::contiguous_loop(op, data, n, Idx{});
            return;
          }
          unsigned mask = detail::scalar_mask_of<traits>(strides, Idx{});
          if (mask != ~0u) {
            detail::scalar_broadcast_loop(op, data, n, mask, Idx{});
            return;
          }
        }
        detail::basic_loop(op, data, strides, n, Idx{});
      },
      grain);
}

// Like cpu_kernel, plus vop(Vec<T>...) -> Vec<R> used on contiguous runs
// (and runs with broadcast scalars) of whole vectors.
template <class Op, class VOp>
void cpu_kernel_vec(TensorIterator& iter, const Op& op, const VOp& vop, int64_t grain = kGrainSize) {
  using traits = function_traits<Op>;
  using R = typename traits::result;
  constexpr size_t arity = traits::arity;
  using Idx = std::make_index_sequence<arity>;
  iter.for_each(
      [&](char** data, const int64_t* strides, int64_t n) {
        if (strides[0] == static_cast<int64_t>(sizeof(R))) {
          unsigned mask = detail::scalar_mask_of<traits>(strides, Idx{});
          if (mask != ~0u) {
            detail::vectorized_loop(op, vop, data, n, mask, Idx{});
            return;
          }
        }
        detail::basic_loop(op, data, strides, n, Idx{});
      },
      grain);
}

}  // namespace ember
