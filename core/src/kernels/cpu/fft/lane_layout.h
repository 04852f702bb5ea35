#pragma once
// The lane layout: the engine's working format. kLanes<T> independent signals
// (one SIMD vector's worth: 8 floats or 4 doubles with 32-byte vectors) are
// stored element-major with real and imaginary parts split:
//   element j of lane l:  re at buf[j * 2L + l],  im at buf[j * 2L + L + l].
// Every butterfly then works on whole vectors, one signal per lane, with
// scalar twiddles broadcast: the batch is what gets vectorized, so no shuffles
// are needed inside a transform and any radix vectorizes the same way.
// Whole-vector math also keeps lanes independent: a signal gets identical
// bits in any lane and at any thread count.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "kernels/cpu/vec.h"

namespace ember::fft::detail {

template <class T>
inline constexpr int kLanes = vec::Vec<T>::size;

// T's per element of a lane buffer.
template <class T>
inline constexpr int64_t kElemStride = 2 * kLanes<T>;

// A complex vector: one element of kLanes signals.
template <class T>
struct CV {
  using V = vec::Vec<T>;
  V re, im;

  static CV load(const T* p) { return {V::load(p), V::load(p + kLanes<T>)}; }
  void store(T* p) const {
    re.store(p);
    im.store(p + kLanes<T>);
  }
  friend CV operator+(const CV& a, const CV& b) { return {a.re + b.re, a.im + b.im}; }
  friend CV operator-(const CV& a, const CV& b) { return {a.re - b.re, a.im - b.im}; }
  // Times a scalar complex (broadcast to every lane).
  CV mul(T wr, T wi) const { return {re * V(wr) - im * V(wi), re * V(wi) + im * V(wr)}; }
  CV mul(V wr, V wi) const { return {re * wr - im * wi, re * wi + im * wr}; }
  CV mul(std::complex<T> w) const { return mul(w.real(), w.imag()); }
  CV mul(const CV& w) const { return {re * w.re - im * w.im, re * w.im + im * w.re}; }
  CV conj() const { return {re, -im}; }
  CV times_minus_i() const { return {im, -re}; }
  CV times_i() const { return {-im, re}; }
  CV scale(T s) const { return {re * V(s), im * V(s)}; }
};

// Complex product without the C99 Annex G NaN recovery of std::complex's
// operator* (a library call GCC keeps unless -ffast-math; it blocks vectorizing).
template <class T>
inline std::complex<T> cmul(std::complex<T> a, std::complex<T> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// 64-byte aligned allocator for tables read with vector loads.
template <class T>
struct LaneAllocator {
  using value_type = T;
  LaneAllocator() = default;
  template <class U>
  LaneAllocator(const LaneAllocator<U>&) {}
  T* allocate(std::size_t n) {
    void* p = std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64);
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) { std::free(p); }
  friend bool operator==(const LaneAllocator&, const LaneAllocator&) { return true; }
};

}  // namespace ember::fft::detail
