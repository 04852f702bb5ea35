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

// Note [Streaming stores]
// An output bigger than the last-level cache will not be read back from cache,
// so it is written with non-temporal stores: the core skips reading each line
// before overwriting it, which cuts an add's memory traffic from 4 to 3 passes.
// Values are computed into an L1-resident block and streamed out from there.
// An in-place op (the output is one of the inputs) never streams: its lines
// were just read into the cache, and a non-temporal store would evict them
// for the op that reads the result next (a 25 MB relu_ took 3.5x longer).
inline constexpr int64_t kStreamingBytes = int64_t{16} << 20;

namespace detail {

void stream_copy(void* dst, const void* src, size_t bytes);  // dst 32-byte aligned, bytes % 32 == 0
void stream_fence();

// compute(dst, first, count) writes elements [first, first + count) to dst[0..count).
template <class R, class Compute>
inline void run_output(R* out, int64_t n, bool stream, const Compute& compute) {
  constexpr int64_t kBlock = 4096 / sizeof(R);
  if (!stream || n < 4 * kBlock) {
    compute(out, 0, n);
    return;
  }
  const auto misalign = reinterpret_cast<uintptr_t>(out) % 32;
  if (misalign % sizeof(R) != 0) {
    compute(out, 0, n);
    return;
  }
  const int64_t head = misalign ? static_cast<int64_t>((32 - misalign) / sizeof(R)) : 0;
  compute(out, 0, head);
  alignas(64) R block[kBlock];
  int64_t i = head;
  for (; i + kBlock <= n; i += kBlock) {
    compute(block, i, kBlock);
    stream_copy(out + i, block, sizeof(block));
  }
  stream_fence();
  compute(out + i, i, n - i);
}

inline bool should_stream(const TensorIterator& iter, size_t out_size) {
  if (iter.numel() * static_cast<int64_t>(out_size) < kStreamingBytes) return false;
  for (int i = iter.noutputs(); i < iter.ntensors(); ++i)
    if (iter.data(i) == iter.data(0)) return false;
  return true;
}

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
inline void contiguous_loop(const Op& op, char** data, int64_t n, bool stream, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using R = typename traits::result;
  std::tuple<const arg_t<traits, I>*...> in{reinterpret_cast<const arg_t<traits, I>*>(data[I + 1])...};
  run_output(reinterpret_cast<R*>(data[0]), n, stream, [&](R* __restrict dst, int64_t first, int64_t count) {
    for (int64_t i = 0; i < count; ++i) dst[i] = op(std::get<I>(in)[first + i]...);
  });
}

// Contiguous output; input I is a broadcast scalar when bit I of Mask is set.
template <unsigned Mask, class Op, class R, size_t... I>
inline void masked_loop(const Op& op, char** data, R* out, int64_t n, bool stream, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  std::tuple<const arg_t<traits, I>*...> in{reinterpret_cast<const arg_t<traits, I>*>(data[I + 1])...};
  // Scalars are read once, outside the loop: a load inside it that the op
  // uses conditionally (where's `c ? a : b`) keeps GCC from vectorizing.
  const std::tuple<arg_t<traits, I>...> scalar{((Mask >> I) & 1u) ? std::get<I>(in)[0] : arg_t<traits, I>{}...};
  run_output(out, n, stream, [&](R* __restrict dst, int64_t first, int64_t count) {
    for (int64_t i = 0; i < count; ++i)
      dst[i] = op(((Mask >> I) & 1u) ? std::get<I>(scalar) : std::get<I>(in)[first + i]...);
  });
}

// Contiguous output, each input either contiguous or a broadcast scalar
// (stride 0); `scalar_mask` bit I set means input I is a scalar.
template <class Op, size_t... I>
inline void scalar_broadcast_loop(const Op& op, char** data, int64_t n, unsigned scalar_mask,
                                  bool stream, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using R = typename traits::result;
  R* out = reinterpret_cast<R*>(data[0]);
  if constexpr (sizeof...(I) == 2) {
    using A = arg_t<traits, 0>;
    using B = arg_t<traits, 1>;
    if (scalar_mask == 2) {
      const A* a = reinterpret_cast<const A*>(data[1]);
      const B b = *reinterpret_cast<const B*>(data[2]);
      run_output(out, n, stream, [&](R* __restrict dst, int64_t first, int64_t count) {
        for (int64_t i = 0; i < count; ++i) dst[i] = op(a[first + i], b);
      });
      return;
    }
    if (scalar_mask == 1) {
      const A a = *reinterpret_cast<const A*>(data[1]);
      const B* b = reinterpret_cast<const B*>(data[2]);
      run_output(out, n, stream, [&](R* __restrict dst, int64_t first, int64_t count) {
        for (int64_t i = 0; i < count; ++i) dst[i] = op(a, b[first + i]);
      });
      return;
    }
  }
  if constexpr (sizeof...(I) == 3) {
    // Ternary ops (where(c, grad, 0), addcmul with a scalar operand...): one
    // loop per broadcast pattern, so the compiler sees plain arrays.
    switch (scalar_mask) {
      case 1: return masked_loop<1>(op, data, out, n, stream, std::index_sequence<I...>{});
      case 2: return masked_loop<2>(op, data, out, n, stream, std::index_sequence<I...>{});
      case 3: return masked_loop<3>(op, data, out, n, stream, std::index_sequence<I...>{});
      case 4: return masked_loop<4>(op, data, out, n, stream, std::index_sequence<I...>{});
      case 5: return masked_loop<5>(op, data, out, n, stream, std::index_sequence<I...>{});
      case 6: return masked_loop<6>(op, data, out, n, stream, std::index_sequence<I...>{});
      default: break;
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

// Loop driver for cpu_kernel_vec: whole vectors through vop, the tail through op.
// Inputs are contiguous or broadcast scalars (bits of scalar_mask).
template <class Op, class VOp, size_t... I>
inline void vectorized_loop(const Op& op, const VOp& vop, char** data, int64_t n,
                            unsigned scalar_mask, bool stream, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using R = typename traits::result;
  using T = arg_t<traits, 0>;
  static_assert(((std::is_same_v<arg_t<traits, I>, T>) && ...), "vectorized ops take one type");
  using vec::Vec;
  constexpr int W = Vec<T>::size;
  const T* in[] = {reinterpret_cast<const T*>(data[I + 1])...};
  R* out = reinterpret_cast<R*>(data[0]);
  auto run = [&](auto load, auto scalar_at) {
    int64_t i = 0;
    if (stream && reinterpret_cast<uintptr_t>(out) % sizeof(R) == 0) {
      // Streaming stores straight from registers; a scalar head aligns them.
      for (; i < n && reinterpret_cast<uintptr_t>(out + i) % 32 != 0; ++i) out[i] = op(scalar_at(I, i)...);
      for (; i + 2 * W <= n; i += 2 * W) {
        Vec<R> a = vop(load(I, i)...);
        Vec<R> b = vop(load(I, i + W)...);
        a.store_stream(out + i);
        b.store_stream(out + i + W);
      }
      stream_fence();
    }
    for (; i + 2 * W <= n; i += 2 * W) {
      Vec<R> a = vop(load(I, i)...);
      Vec<R> b = vop(load(I, i + W)...);
      a.store(out + i);
      b.store(out + i + W);
    }
    for (; i + W <= n; i += W) vop(load(I, i)...).store(out + i);
    for (; i < n; ++i) out[i] = op(scalar_at(I, i)...);
  };
  if (scalar_mask == 0) {
    // All contiguous: no per-load scalar test in the hot loop.
    run([&](size_t k, int64_t i) { return Vec<T>::load(in[k] + i); },
        [&](size_t k, int64_t i) { return in[k][i]; });
    return;
  }
  auto is_scalar = [&](size_t k) { return ((scalar_mask >> k) & 1u) != 0; };
  const Vec<T> scalar_vecs[] = {Vec<T>(is_scalar(I) ? in[I][0] : T(0))...};
  run([&](size_t k, int64_t i) { return is_scalar(k) ? scalar_vecs[k] : Vec<T>::load(in[k] + i); },
      [&](size_t k, int64_t i) { return in[k][is_scalar(k) ? 0 : i]; });
}

}  // namespace detail

template <class Op>
void cpu_kernel(TensorIterator& iter, const Op& op, int64_t grain = kGrainSize) {
  using traits = function_traits<Op>;
  using R = typename traits::result;
  constexpr size_t arity = traits::arity;
  using Idx = std::make_index_sequence<arity>;
  const bool stream = detail::should_stream(iter, sizeof(R));
  iter.for_each(
      [&](char** data, const int64_t* strides, int64_t n) {
        if (strides[0] == static_cast<int64_t>(sizeof(R))) {
          if (detail::inputs_contiguous<traits>(strides, Idx{})) {
            detail::contiguous_loop(op, data, n, stream, Idx{});
            return;
          }
          unsigned mask = detail::scalar_mask_of<traits>(strides, Idx{});
          if (mask != ~0u) {
            detail::scalar_broadcast_loop(op, data, n, mask, stream, Idx{});
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
  const bool stream = detail::should_stream(iter, sizeof(R));
  iter.for_each(
      [&](char** data, const int64_t* strides, int64_t n) {
        if (strides[0] == static_cast<int64_t>(sizeof(R))) {
          unsigned mask = detail::scalar_mask_of<traits>(strides, Idx{});
          if (mask != ~0u) {
            detail::vectorized_loop(op, vop, data, n, mask, stream, Idx{});
            return;
          }
        }
        detail::basic_loop(op, data, strides, n, Idx{});
      },
      grain);
}

}  // namespace ember
