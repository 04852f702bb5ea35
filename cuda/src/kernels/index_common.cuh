#pragma once
// What the CUDA indexing kernels share (index.cu, scatter_gather.cu,
// mask.cu): the device-side index bound check, element moves by size,
// atomic read-modify-writes of every element type, and the host side of the
// deterministic sorted accumulation (index_sorted.cu).
//
// Note [CUDA index bound checks]
// The CPU raises "<op>: index 5 is out of bounds for dimension 1 with size 4"
// while it reads the indices. A kernel cannot throw, and PyTorch's answer (a
// device-side assert) poisons the CUDA context for the rest of the process.
// Ember's kernels instead check every index they read and, for an index out of
// range, record it in a small device flag (the first one to arrive wins) and
// skip that element: an out-of-range index never reads or writes out of
// bounds. After the kernel the host reads the flag back (a copy to the host
// and a wait for the current stream, like PyTorch's nonzero or .item()) and
// raises the CPU's error naming the op and the index. The cost is that every
// op that reads raw indices synchronizes with its stream once; the kernels
// that only follow offsets an earlier, checked kernel made (index, index_put_)
// do not. Elements of the result other than the bad ones may have been written
// when the error is raised, as on the CPU (which raises midway too).
#include <cstdint>

#include "common.cuh"
#include "kernels/slots/indexing_kernels.h"
#include "math.cuh"

namespace ember::cuda::kernels {

// IndexBound as a kernel sees it (the op name stays on the host).
struct DeviceBound {
  int64_t size;
  bool wrap_negative;
};
inline DeviceBound device_bound(const IndexBound& b) { return {b.size, b.wrap_negative}; }

// flag[0]: 0, or 1 once a bad index was seen; flag[1]: that index.
__device__ __forceinline__ void report_bad_index(unsigned long long* flag, int64_t index) {
  if (atomicCAS(flag, 0ull, 1ull) == 0ull) flag[1] = static_cast<unsigned long long>(index);
}

// The index wrapped (when allowed) into [0, size), or -1 after reporting it.
__device__ __forceinline__ int64_t device_checked_index(int64_t index, DeviceBound b, unsigned long long* flag) {
  const int64_t i = (b.wrap_negative && index < 0) ? index + b.size : index;
  if (static_cast<uint64_t>(i) >= static_cast<uint64_t>(b.size)) {
    report_bad_index(flag, index);
    return -1;
  }
  return i;
}

// The device flag of one op call: allocated zeroed on the current stream,
// read back by raise_if_set (Note [CUDA index bound checks]).
class IndexErrorFlag {
 public:
  IndexErrorFlag(Device device, const char* op);
  unsigned long long* get() const { return static_cast<unsigned long long*>(buffer_.data_ptr()); }
  // Waits for the stream; raises the CPU's out-of-bounds error if an index was bad.
  void raise_if_set(const IndexBound& bound) const;

 private:
  Tensor buffer_;
  const char* op_;
};

// Kernels read their operands' memory directly: every tensor must be on the
// device the op runs on (a CPU index would be read as a device address).
inline void check_same_device(const char* op, const Tensor& self, const Tensor& other, const char* what) {
  EMBER_CHECK(other.device() == self.device(), op, ": expected ", what, " on ", self.device(), " (as self), got it on ",
              other.device());
}

// An unsigned type of each element size (moves do not need the dtype).
struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};
template <class F>
void dispatch_element_size(size_t size, const char* op, F&& f) {
  switch (size) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
    case 16: return f(Bytes16{});
  }
  EMBER_FAIL(op, ": unsupported element size ", size);
}

template <class T>
inline constexpr bool is_complex_device_v = std::is_same_v<T, Complex<float>> || std::is_same_v<T, Complex<double>>;

// a (op) b in the CPU's semantics (scatter_gather_kernels.cpp, reduce_values):
// bool adds as or and multiplies as and; 16-bit floats compute in float;
// integers wrap; amax/amin let NaN win.
template <ScatterOp Op, class T>
__device__ __forceinline__ T combine(T a, T b) {
  if constexpr (Op == ScatterOp::Assign) {
    return b;
  } else if constexpr (std::is_same_v<T, bool>) {
    return (Op == ScatterOp::Add || Op == ScatterOp::Amax) ? (a || b) : (a && b);
  } else if constexpr (is_complex_device_v<T>) {
    if constexpr (Op == ScatterOp::Add) return T{a.re + b.re, a.im + b.im};
    else if constexpr (Op == ScatterOp::Multiply) return T{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    else return b;  // amax/amin refuse complex (the op checks)
  } else {
    using C = compute_t<T>;
    const C x = static_cast<C>(a), y = static_cast<C>(b);
    if constexpr (Op == ScatterOp::Add) return convert<T>(wrapping_add(x, y));
    else if constexpr (Op == ScatterOp::Multiply) return convert<T>(wrapping_mul(x, y));
    else {
      if constexpr (std::is_floating_point_v<C>)
        if (x != x || y != y) return convert<T>(x != x ? x : y);
      if constexpr (Op == ScatterOp::Amax) return convert<T>(x < y ? y : x);
      else return convert<T>(y < x ? y : x);
    }
  }
}

// *addr = combine<Op>(*addr, v), atomically. float, double, int32 and int64
// add with the native atomicAdd; everything else runs a compare-and-swap loop
// on the aligned 32- or 64-bit word holding the element (1- and 2-byte
// elements share their word with neighbours, which the loop leaves as they
// are). complex128 adds its two parts with two atomicAdds (as PyTorch's
// gpuAtomicAdd); its other read-modify-writes need a 16-byte compare-and-swap
// and are not offered (the kernels' callers refuse them on the host).
template <ScatterOp Op, class T>
__device__ __forceinline__ void atomic_combine(T* addr, T v) {
  if constexpr (Op == ScatterOp::Add && (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                         std::is_same_v<T, int32_t>)) {
    atomicAdd(addr, v);
  } else if constexpr (Op == ScatterOp::Add && std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(v));
  } else if constexpr (std::is_same_v<T, Complex<double>>) {
    if constexpr (Op == ScatterOp::Add) {
      atomicAdd(&addr->re, v.re);
      atomicAdd(&addr->im, v.im);
    }
  } else if constexpr (sizeof(T) == 8) {
    auto* word = reinterpret_cast<unsigned long long*>(addr);
    unsigned long long old = *word, assumed;
    do {
      assumed = old;
      T cur;
      memcpy(&cur, &assumed, sizeof(T));
      const T next = combine<Op>(cur, v);
      unsigned long long desired;
      memcpy(&desired, &next, sizeof(T));
      if (desired == assumed) return;
      old = atomicCAS(word, assumed, desired);
    } while (old != assumed);
  } else if constexpr (sizeof(T) == 4) {
    auto* word = reinterpret_cast<unsigned int*>(addr);
    unsigned old = *word, assumed;
    do {
      assumed = old;
      T cur;
      memcpy(&cur, &assumed, sizeof(T));
      const T next = combine<Op>(cur, v);
      unsigned desired;
      memcpy(&desired, &next, sizeof(T));
      if (desired == assumed) return;
      old = atomicCAS(word, assumed, desired);
    } while (old != assumed);
  } else {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2, "atomic_combine: element size");
    // The aligned 32-bit word holding the element (little-endian: byte k of
    // the word is at address word + k).
    const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    auto* word = reinterpret_cast<unsigned int*>(a & ~uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(a & 3u) * 8u;
    const unsigned mask = ((1u << (8 * sizeof(T))) - 1u) << shift;
    unsigned old = *word, assumed;
    do {
      assumed = old;
      const unsigned bits = (assumed & mask) >> shift;
      T cur;
      memcpy(&cur, &bits, sizeof(T));  // the low bytes of `bits`
      const T next = combine<Op>(cur, v);
      unsigned next_bits = 0;
      memcpy(&next_bits, &next, sizeof(T));
      const unsigned desired = (assumed & ~mask) | (next_bits << shift);
      if (desired == assumed) return;
      old = atomicCAS(word, assumed, desired);
    } while (old != assumed);
  }
}

// ---- deterministic accumulation (index_sorted.cu) ----
// Note [Sorted accumulation]: PyTorch's deterministic index_put_ with
// accumulate (index_put_with_sort). Each write i goes to element key[i] of the
// destination (in elements from `dst`) and takes its value from byte offset
// value_off[i] of `src` (or the constant, when src is null). The pairs are
// sorted by key with a stable radix sort, so writes to one element keep their
// order i; one thread per run of equal keys then applies them in that order:
// Add sums them into the element (the CPU's serial order, so the same
// rounding), Assign stores the last. No atomics: the result is the same run
// to run. keys and value_off are int64 device tensors of n elements (consumed).
void sorted_accumulate(DType dtype, ScatterOp op, char* dst, const char* src, const Scalar& constant,
                       Tensor& keys, Tensor& value_off, int64_t n, int16_t device, cudaStream_t stream,
                       const char* op_name);
// Stable sort of (keys, values) pairs by key, into the out tensors; CUB's
// radix sort (index_sort.cu, its only instantiation).
void sort_pairs_int64(const Tensor& keys_in, Tensor& keys_out, const Tensor& values_in, Tensor& values_out,
                      int64_t n, cudaStream_t stream, const char* op);
// out[i] = in[0] + ... + in[i] over int64 (CUB's scan, index_sort.cu).
void inclusive_sum_int64(const Tensor& in, Tensor& out, int64_t n, cudaStream_t stream, const char* op);
// Copies one int64 from device memory to the host and waits for the stream.
int64_t read_int64(const int64_t* device_ptr, cudaStream_t stream, const char* op);

}  // namespace ember::cuda::kernels

namespace ember::cuda::kernels {

// A Scalar as the device type T (as fill_'s kernel converts it).
template <class T>
T device_value(const Scalar& value) {
  if constexpr (is_complex_device_v<T>) {
    using R = decltype(T::re);
    const auto c = value.to<std::complex<double>>();
    return T{static_cast<R>(c.real()), static_cast<R>(c.imag())};
  } else if constexpr (std::is_same_v<T, __half>) {
    return __float2half(static_cast<float>(value.to<double>()));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16(static_cast<float>(value.to<double>()));
  } else if constexpr (std::is_same_v<T, bool>) {
    return value.to<bool>();
  } else {
    return value.to<T>();
  }
}

}  // namespace ember::cuda::kernels
