#pragma once
// Moving signals between memory and lane buffers (lane_layout.h). A signal in
// memory is a strided run of complex values: element j of the signal at base b
// is (data[b + j stride], data[b + j stride + imag]) in units of T, so the same
// view describes interleaved complex tensors (imag = 1) and real tensors read
// as pairs x[2j], x[2j+1] (the real fast paths; imag = the real stride).
// The common layouts get SIMD paths, everything else an element loop:
//   - contiguous elements (stride 2, imag 1), kLanes signals anywhere:
//     kLanes x kLanes tile transposes (rows of a matrix, frames of an stft);
//   - the kLanes signals side by side (base[l] = base[0] + 2l), any stride:
//     one deinterleave per element (columns of a matrix, the four-step).
#include <complex>
#include <cstdint>

#include "kernels/cpu/fft/lane_layout.h"

namespace ember::fft::detail {

template <class T>
struct StridedIn {
  const T* data;
  int64_t stride, imag;
  T im_sign;  // -1 conjugates
  std::complex<T> load(int64_t base, int64_t j) const {
    const T* p = data + base + j * stride;
    return {p[0], p[imag] * im_sign};
  }
};

template <class T>
struct StridedOut {
  T* data;
  int64_t stride, imag;
  T scale, im_scale;  // im_scale = -scale conjugates
  void store(int64_t base, int64_t k, std::complex<T> v) const {
    T* p = data + base + k * stride;
    p[0] = v.real() * scale;
    p[imag] = v.imag() * im_scale;
  }
};

namespace simd {

template <class T>
using RawV = typename vec::Vec<T>::V;

// [r0 i0 r1 i1 ...] x 2 vectors -> re, im vectors of kLanes values.
[[gnu::always_inline]] inline void deinterleave(RawV<float> a, RawV<float> b, RawV<float>& re, RawV<float>& im) {
  re = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
  im = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
}
[[gnu::always_inline]] inline void deinterleave(RawV<double> a, RawV<double> b, RawV<double>& re, RawV<double>& im) {
  re = __builtin_shufflevector(a, b, 0, 2, 4, 6);
  im = __builtin_shufflevector(a, b, 1, 3, 5, 7);
}
[[gnu::always_inline]] inline void interleave(RawV<float> re, RawV<float> im, RawV<float>& a, RawV<float>& b) {
  a = __builtin_shufflevector(re, im, 0, 8, 1, 9, 2, 10, 3, 11);
  b = __builtin_shufflevector(re, im, 4, 12, 5, 13, 6, 14, 7, 15);
}
[[gnu::always_inline]] inline void interleave(RawV<double> re, RawV<double> im, RawV<double>& a, RawV<double>& b) {
  a = __builtin_shufflevector(re, im, 0, 4, 1, 5);
  b = __builtin_shufflevector(re, im, 2, 6, 3, 7);
}

// In-place kLanes x kLanes transpose: v[c][l] <- v[l][c].
[[gnu::always_inline]] inline void transpose(RawV<float>* v) {
  RawV<float> t[8], u[8];
  for (int p = 0; p < 4; ++p) {
    t[2 * p] = __builtin_shufflevector(v[2 * p], v[2 * p + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[2 * p + 1] = __builtin_shufflevector(v[2 * p], v[2 * p + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int q = 0; q < 2; ++q) {
    const RawV<float>*s = t + 4 * q;
    u[4 * q + 0] = __builtin_shufflevector(s[0], s[2], 0, 1, 8, 9, 4, 5, 12, 13);
    u[4 * q + 1] = __builtin_shufflevector(s[0], s[2], 2, 3, 10, 11, 6, 7, 14, 15);
    u[4 * q + 2] = __builtin_shufflevector(s[1], s[3], 0, 1, 8, 9, 4, 5, 12, 13);
    u[4 * q + 3] = __builtin_shufflevector(s[1], s[3], 2, 3, 10, 11, 6, 7, 14, 15);
  }
  for (int c = 0; c < 4; ++c) {
    v[c] = __builtin_shufflevector(u[c], u[c + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    v[c + 4] = __builtin_shufflevector(u[c], u[c + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}
[[gnu::always_inline]] inline void transpose(RawV<double>* v) {
  const RawV<double> t0 = __builtin_shufflevector(v[0], v[1], 0, 4, 2, 6);
  const RawV<double> t1 = __builtin_shufflevector(v[0], v[1], 1, 5, 3, 7);
  const RawV<double> t2 = __builtin_shufflevector(v[2], v[3], 0, 4, 2, 6);
  const RawV<double> t3 = __builtin_shufflevector(v[2], v[3], 1, 5, 3, 7);
  v[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
  v[2] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
  v[1] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
  v[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

template <class T>
inline RawV<T> loadu(const T* p) {
  RawV<T> v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}
template <class T>
inline void storeu(T* p, RawV<T> v) {
  __builtin_memcpy(p, &v, sizeof(v));
}

}  // namespace simd

// kLanes side-by-side complex values at p -> one lane element.
template <class T>
inline CV<T> load_adjacent(const T* p) {
  CV<T> c;
  simd::deinterleave(simd::loadu(p), simd::loadu(p + kLanes<T>), c.re.v, c.im.v);
  return c;
}
template <class T>
inline void store_adjacent(T* p, const CV<T>& c) {
  simd::RawV<T> a, b;
  simd::interleave(c.re.v, c.im.v, a, b);
  simd::storeu(p, a);
  simd::storeu(p + kLanes<T>, b);
}

// Side-by-side lanes along a large stride touch a new cache line (often a new
// page) per element, which the hardware prefetchers do not follow; asking
// this many elements ahead keeps enough misses in flight. Prefetching past
// the end of a signal is harmless (prefetches never fault).
inline constexpr int64_t kPrefetchAhead = 12;

// The kLanes complex values at p (2 kLanes T's: one or two cache lines).
template <class T>
[[gnu::always_inline]] inline void prefetch_lanes(const T* p, bool write) {
  if (write) {
    __builtin_prefetch(p, 1);
    __builtin_prefetch(p + 2 * kLanes<T> - 1, 1);
  } else {
    __builtin_prefetch(p, 0);
    __builtin_prefetch(p + 2 * kLanes<T> - 1, 0);
  }
}

inline bool side_by_side(const int64_t* base, int lanes) {
  for (int l = 1; l < lanes; ++l) {
    if (base[l] != base[0] + 2 * l) return false;
  }
  return true;
}

// Elements [0, count) of the signals at base[0 .. kLanes) -> lane buffer.
template <class T, class Source>
void gather_lanes(const Source& src, const int64_t* base, int64_t count, T* buf) {
  constexpr int L = kLanes<T>;
  for (int64_t j = 0; j < count; ++j) {
    T* e = buf + j * kElemStride<T>;
    for (int l = 0; l < L; ++l) {
      const std::complex<T> v = src.load(base[l], j);
      e[l] = v.real();
      e[L + l] = v.imag();
    }
  }
}

template <class T>
void gather_lanes(const StridedIn<T>& src, const int64_t* base, int64_t count, T* buf) {
  constexpr int L = kLanes<T>;
  constexpr int64_t E = kElemStride<T>;
  if (src.imag != 1) {
    gather_lanes<T, StridedIn<T>>(src, base, count, buf);
    return;
  }
  using V = typename CV<T>::V;
  const V sign(src.im_sign);
  if (src.stride == 2) {
    // Tiles of L/2 elements: row l = lane l's L/2 complex values; transposed,
    // vector c is element c/2's real (c even) or imaginary part: buf order.
    int64_t j = 0;
    for (; j + L / 2 <= count; j += L / 2) {
      simd::RawV<T> v[L];
      for (int l = 0; l < L; ++l) v[l] = simd::loadu(src.data + base[l] + 2 * j);
      simd::transpose(v);
      T* e = buf + j * E;
      for (int c = 0; c < L; ++c) simd::storeu(e + c * L, c % 2 ? (V(v[c]) * sign).v : v[c]);
    }
    if (j < count) {
      T* e = buf + j * E;
      int64_t rebased[L];
      for (int l = 0; l < L; ++l) rebased[l] = base[l] + 2 * j;
      gather_lanes<T, StridedIn<T>>(src, rebased, count - j, e);
    }
    return;
  }
  if (side_by_side(base, L)) {
    const T* p = src.data + base[0];
    for (int64_t j = 0; j < count; ++j) {
      prefetch_lanes(p + (j + kPrefetchAhead) * src.stride, false);
      CV<T> c = load_adjacent(p + j * src.stride);
      c.im = c.im * sign;
      c.store(buf + j * E);
    }
    return;
  }
  gather_lanes<T, StridedIn<T>>(src, base, count, buf);
}

// Lane buffer elements [0, count) -> the first `valid` signals at base[].
template <class T, class Sink>
void scatter_lanes(const Sink& sink, const int64_t* base, int valid, int64_t count, const T* buf) {
  constexpr int L = kLanes<T>;
  for (int64_t k = 0; k < count; ++k) {
    const T* e = buf + k * kElemStride<T>;
    for (int l = 0; l < valid; ++l) sink.store(base[l], k, std::complex<T>(e[l], e[L + l]));
  }
}

template <class T>
void scatter_lanes(const StridedOut<T>& sink, const int64_t* base, int valid, int64_t count, const T* buf) {
  constexpr int L = kLanes<T>;
  constexpr int64_t E = kElemStride<T>;
  if (sink.imag != 1 || valid != L) {
    scatter_lanes<T, StridedOut<T>>(sink, base, valid, count, buf);
    return;
  }
  using V = typename CV<T>::V;
  const V scale(sink.scale), im_scale(sink.im_scale);
  if (sink.stride == 2) {
    int64_t k = 0;
    for (; k + L / 2 <= count; k += L / 2) {
      simd::RawV<T> v[L];
      const T* e = buf + k * E;
      for (int c = 0; c < L; ++c) v[c] = (V::load(e + c * L) * (c % 2 ? im_scale : scale)).v;
      simd::transpose(v);
      for (int l = 0; l < L; ++l) simd::storeu(sink.data + base[l] + 2 * k, v[l]);
    }
    if (k < count) {
      int64_t rebased[L];
      for (int l = 0; l < L; ++l) rebased[l] = base[l] + 2 * k;
      scatter_lanes<T, StridedOut<T>>(sink, rebased, valid, count - k, buf + k * E);
    }
    return;
  }
  if (side_by_side(base, L)) {
    T* p = sink.data + base[0];
    for (int64_t k = 0; k < count; ++k) {
      prefetch_lanes(p + (k + kPrefetchAhead) * sink.stride, true);
      CV<T> c = CV<T>::load(buf + k * E);
      store_adjacent(p + k * sink.stride, CV<T>{c.re * scale, c.im * im_scale});
    }
    return;
  }
  scatter_lanes<T, StridedOut<T>>(sink, base, valid, count, buf);
}

// One signal bound to its base, for the single-signal paths (single.h): a
// callable like any load/store there, plus runs of kLanes consecutive elements
// that the four-step reads and writes with one deinterleave.
template <class T>
struct SignalIn {
  StridedIn<T> src;
  int64_t base;
  std::complex<T> operator()(int64_t j) const { return src.load(base, j); }
};
template <class T>
struct SignalOut {
  StridedOut<T> sink;
  int64_t base;
  void operator()(int64_t k, std::complex<T> v) const { sink.store(base, k, v); }
};

// Prefetch hints for runs of a bound signal (no-ops for other callables).
template <class F>
inline void prefetch_run(const F&, int64_t, bool) {}
template <class T>
inline void prefetch_run(const SignalIn<T>& in, int64_t first, bool) {
  if (in.src.imag == 1 && in.src.stride == 2) prefetch_lanes(in.src.data + in.base + 2 * first, false);
}
template <class T>
inline void prefetch_run(const SignalOut<T>& out, int64_t first, bool) {
  if (out.sink.imag == 1 && out.sink.stride == 2) prefetch_lanes(out.sink.data + out.base + 2 * first, true);
}

// Elements first .. first + kLanes - 1 of a signal -> one lane element.
template <class T, class Load>
inline CV<T> load_run(const Load& load, int64_t first) {
  constexpr int L = kLanes<T>;
  alignas(64) T e[2 * L];
  for (int l = 0; l < L; ++l) {
    const std::complex<T> v = load(first + l);
    e[l] = v.real();
    e[L + l] = v.imag();
  }
  return CV<T>::load(e);
}
template <class T>
inline CV<T> load_run(const SignalIn<T>& in, int64_t first) {
  if (in.src.imag != 1 || in.src.stride != 2) return load_run<T, SignalIn<T>>(in, first);
  CV<T> c = load_adjacent(in.src.data + in.base + 2 * first);
  c.im = c.im * typename CV<T>::V(in.src.im_sign);
  return c;
}

template <class T, class Store>
inline void store_run(const Store& store, int64_t first, const CV<T>& c) {
  constexpr int L = kLanes<T>;
  alignas(64) T e[2 * L];
  c.store(e);
  for (int l = 0; l < L; ++l) store(first + l, std::complex<T>(e[l], e[L + l]));
}
template <class T>
inline void store_run(const SignalOut<T>& out, int64_t first, const CV<T>& c) {
  if (out.sink.imag != 1 || out.sink.stride != 2) {
    store_run<T, SignalOut<T>>(out, first, c);
    return;
  }
  using V = typename CV<T>::V;
  store_adjacent(out.sink.data + out.base + 2 * first, CV<T>{c.re * V(out.sink.scale), c.im * V(out.sink.im_scale)});
}

}  // namespace ember::fft::detail
