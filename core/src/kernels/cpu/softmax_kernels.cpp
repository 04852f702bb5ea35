// CPU kernels of softmax / log_softmax and their backward. Tensors are
// contiguous and viewed as [outer, n, inner] around the softmax dim.
// - inner == 1 (the last dim, the common case): each row is contiguous; one
//   vectorized pass finds the max, one sums the exponentials (softmax writes
//   them as it goes), one writes the result. Rows run in parallel.
// - inner > 1: blocks of adjacent inner lanes are processed together so every
//   loop runs over contiguous memory; (outer, block) units run in parallel.
// 16-bit floats compute in float; float32 uses the SIMD exp of vec.h.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/core/parallel.h"
#include "kernels/cpu/convert.h"
#include "kernels/cpu/math.h"
#include "kernels/cpu/vec.h"
#include "kernels/slots/activation_kernels.h"

namespace ember::nn::functional {
namespace {

using vec::Vec;
constexpr int64_t kLaneBlock = 64;

struct Geometry {
  int64_t outer = 1, n = 1, inner = 1;
  Geometry(const Tensor& t, int64_t dim) {
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d < dim) outer *= t.size(d);
      else if (d > dim) inner *= t.size(d);
    }
    n = t.dim() == 0 ? 1 : t.size(dim);
  }
};

// ---- row helpers over compute-type (C) arrays ----
// Accuracy (tests/core/test_special_misc.cpp): the exponentials of the
// elements equal to the max (exactly 1 each) are counted, not summed, so
// log_softmax takes log1p of the others' sum: its results near 0 (a dominant
// element) keep their relative accuracy (they were (x - max) - log(sum), off by
// up to 2^-53 absolute). In double the rounding error of d = x - m is also
// carried into the exponential (exp(d + err) = exp(d) (1 + err)), which
// otherwise costs |d| 2^-53 relative (hundreds of ULP for d ~ -700); float
// skips that (about 30% of the exp pass) and keeps |d| 2^-24.

// exp(x - m) for finite m; in double with the rounding error of x - m compensated (TwoSum).
template <class C>
C exp_shifted(C x, C m) {
  const C d = x - m;
  const C e = std::exp(d);
  if constexpr (!std::is_same_v<C, double>) {
    return e;
  } else {
    if (!(d > -std::numeric_limits<C>::infinity())) return e;  // x = -inf (0) or nan
    const C bb = d - x;
    const C err = (x - (d - bb)) + (-m - bb);
    return e + e * err;
  }
}
inline Vec<float> exp_shifted(Vec<float> x, Vec<float> m) { return vec::exp(x - m); }

// Sums of a row shifted by its (finite) max m: `others` sums exp(x - m) over
// the elements that differ from m, `at_max` counts the rest (each exp is 1).
template <class C>
struct ShiftedSums {
  C others = 0;
  C at_max = 0;
  C total() const { return others + at_max; }
  C log_total() const { return std::log1p(others + (at_max - C(1))); }  // at_max >= 1
};

// dst[i] = exp(src[i] - m) for i < n (when dst), with the sums.
template <class C>
ShiftedSums<C> exp_sub_sum(const C* src, C m, C* dst, int64_t n) {
  ShiftedSums<C> s;
  int64_t i = 0;
  if constexpr (std::is_same_v<C, float>) {
    using V = Vec<float>;
    V acc(0.f), cnt(0.f);
    const V mv(m);
    for (; i + V::size <= n; i += V::size) {
      const V x = V::load(src + i);
      const V e = exp_shifted(x, mv);
      if (dst) e.store(dst + i);
      const auto eq = x == mv;
      acc = acc + vec::select(eq, V(0.f), e);
      cnt = cnt + vec::select(eq, V(1.f), V(0.f));
    }
    for (int k = 0; k < V::size; ++k) s.others += acc[k], s.at_max += cnt[k];
  }
  for (; i < n; ++i) {
    const C x = src[i];  // read before dst[i] is written: they may alias
    const C e = exp_shifted(x, m);
    if (dst) dst[i] = e;
    if (x == m) s.at_max += 1;
    else s.others += e;
  }
  return s;
}

template <class C>
C row_max(const C* src, int64_t n) {
  C m = -std::numeric_limits<C>::infinity();
  int64_t i = 0;
  if constexpr (std::is_same_v<C, float>) {
    using V = Vec<float>;
    V acc(m);
    for (; i + V::size <= n; i += V::size) acc = vec::maximum(acc, V::load(src + i));
    for (int k = 0; k < V::size; ++k) m = math::max_nan(m, acc[k]);
  }
  for (; i < n; ++i) m = math::max_nan(m, src[i]);
  return m;
}

// (x - m) - lse with the rounding error of x - m added back (TwoSum).
template <class C>
C log_softmax_of(C x, C m, C lse) {
  const C d = x - m;
  if (!std::isfinite(d)) return d - lse;  // x = -inf
  const C bb = d - x;
  const C err = (x - (d - bb)) + (-m - bb);
  return (d - lse) + err;
}

// Softmax of one contiguous row of compute type (x may alias y). A row whose
// max is not finite (all -inf, or holding +inf or nan) is all nan, as torch.
template <class C>
void softmax_row(const C* x, C* y, int64_t n, bool log) {
  const C m = row_max(x, n);
  if (!std::isfinite(m)) {
    std::fill(y, y + n, std::numeric_limits<C>::quiet_NaN());
    return;
  }
  if (log) {
    const C lse = exp_sub_sum<C>(x, m, nullptr, n).log_total();  // logsumexp - m
    for (int64_t i = 0; i < n; ++i) y[i] = log_softmax_of(x[i], m, lse);
  } else {
    const C inv = C(1) / exp_sub_sum<C>(x, m, y, n).total();
    for (int64_t i = 0; i < n; ++i) y[i] *= inv;
  }
}

template <class T>
void softmax_lastdim(const T* in, T* out, const Geometry& g, bool log) {
  using C = compute_type_t<T>;
  parallel_for(0, g.outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(g.n, 1)), [&](int64_t b, int64_t e) {
    if constexpr (std::is_same_v<T, C>) {
      for (int64_t r = b; r < e; ++r) softmax_row<C>(in + r * g.n, out + r * g.n, g.n, log);
    } else {
      std::vector<C> buf(g.n);
      for (int64_t r = b; r < e; ++r) {
        for (int64_t i = 0; i < g.n; ++i) buf[i] = static_cast<C>(in[r * g.n + i]);
        softmax_row<C>(buf.data(), buf.data(), g.n, log);
        for (int64_t i = 0; i < g.n; ++i) out[r * g.n + i] = convert<T>(buf[i]);
      }
    }
  });
}

// Calls f(base, lanes) for every block of adjacent inner lanes, in parallel;
// base: element offset of the block's first lane at position 0 of the dim.
template <class F>
void for_each_lane_block(const Geometry& g, const F& f) {
  const int64_t blocks = (g.inner + kLaneBlock - 1) / kLaneBlock;
  const int64_t work = std::max<int64_t>(1, g.n * std::min(g.inner, kLaneBlock));
  parallel_for(0, g.outer * blocks, std::max<int64_t>(1, kGrainSize / work), [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      const int64_t o = u / blocks, j0 = (u % blocks) * kLaneBlock;
      f(o * g.n * g.inner + j0, std::min(kLaneBlock, g.inner - j0));
    }
  });
}

// dst[j] = exp(x[j] - m[j]) (when dst); the lanes' ShiftedSums in others / at_max.
template <class C>
void exp_sub_acc(const C* x, const C* m, C* dst, C* others, C* at_max, int64_t lanes) {
  int64_t j = 0;
  if constexpr (std::is_same_v<C, float>) {
    using V = Vec<float>;
    for (; j + V::size <= lanes; j += V::size) {
      const V xv = V::load(x + j), mv = V::load(m + j);
      const V e = exp_shifted(xv, mv);
      if (dst) e.store(dst + j);
      const auto eq = xv == mv;
      (V::load(others + j) + vec::select(eq, V(0.f), e)).store(others + j);
      (V::load(at_max + j) + vec::select(eq, V(1.f), V(0.f))).store(at_max + j);
    }
  }
  for (; j < lanes; ++j) {
    const C xj = x[j];
    const C e = exp_shifted(xj, m[j]);
    if (dst) dst[j] = e;
    if (xj == m[j]) at_max[j] += 1;
    else others[j] += e;
  }
}

template <class T>
void softmax_inner(const T* in, T* out, const Geometry& g, bool log) {
  using C = compute_type_t<T>;
  const int64_t stride = g.inner;
  for_each_lane_block(g, [&](int64_t base, int64_t lanes) {
    C m[kLaneBlock], others[kLaneBlock], at_max[kLaneBlock], xs[kLaneBlock];
    std::fill(m, m + lanes, -std::numeric_limits<C>::infinity());
    std::fill(others, others + lanes, C(0));
    std::fill(at_max, at_max + lanes, C(0));
    for (int64_t i = 0; i < g.n; ++i) {
      const T* x = in + base + i * stride;
      for (int64_t j = 0; j < lanes; ++j) m[j] = math::max_nan(m[j], static_cast<C>(x[j]));
    }
    for (int64_t i = 0; i < g.n; ++i) {
      const T* x = in + base + i * stride;
      T* y = out + base + i * stride;
      if constexpr (std::is_same_v<T, C>) {
        exp_sub_acc<C>(x, m, log ? nullptr : y, others, at_max, lanes);
      } else {
        (void)y;
        for (int64_t j = 0; j < lanes; ++j) xs[j] = static_cast<C>(x[j]);
        exp_sub_acc<C>(xs, m, nullptr, others, at_max, lanes);
      }
    }
    // A lane whose max is not finite is all nan (as softmax_row).
    const C nan = std::numeric_limits<C>::quiet_NaN();
    if (log) {
      C lse[kLaneBlock];  // logsumexp - m
      for (int64_t j = 0; j < lanes; ++j) lse[j] = std::isfinite(m[j]) ? std::log1p(others[j] + (at_max[j] - C(1))) : nan;
      for (int64_t i = 0; i < g.n; ++i) {
        const T* x = in + base + i * stride;
        T* y = out + base + i * stride;
        for (int64_t j = 0; j < lanes; ++j)
          y[j] = convert<T>(std::isfinite(m[j]) ? log_softmax_of(static_cast<C>(x[j]), m[j], lse[j]) : nan);
      }
    } else {
      C inv[kLaneBlock];
      for (int64_t j = 0; j < lanes; ++j) inv[j] = std::isfinite(m[j]) ? C(1) / (others[j] + at_max[j]) : nan;
      for (int64_t i = 0; i < g.n; ++i) {
        T* y = out + base + i * stride;
        if constexpr (std::is_same_v<T, C>) {
          for (int64_t j = 0; j < lanes; ++j) y[j] *= inv[j];
        } else {
          // 16-bit: the exponentials are recomputed (not stored rounded).
          const T* x = in + base + i * stride;
          for (int64_t j = 0; j < lanes; ++j)
            y[j] = convert<T>(std::isfinite(m[j]) ? exp_shifted(static_cast<C>(x[j]), m[j]) * inv[j] : nan);
        }
      }
    }
  });
}

void softmax_kernel(const Tensor& in, Tensor& out, int64_t dim, bool log) {
  const Geometry g(in, dim);
  if (in.numel() == 0) return;
  dispatch<kMaskFloating>(in.dtype(), log ? "log_softmax" : "softmax", [&](auto t) {
    using T = decltype(t);
    const T* src = in.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    if (g.inner == 1) softmax_lastdim<T>(src, dst, g, log);
    else softmax_inner<T>(src, dst, g, log);
  });
}

// ---- backward ----
// One contiguous float row: vector accumulators for the sum, SIMD exp.
void float_row_backward(const float* g, const float* y, float* o, int64_t n, bool log) {
  using V = Vec<float>;
  V acc(0.f);
  int64_t i = 0;
  if (log)
    for (; i + V::size <= n; i += V::size) acc = acc + V::load(g + i);
  else
    for (; i + V::size <= n; i += V::size) acc = acc + V::load(g + i) * V::load(y + i);
  float s = 0;
  for (int k = 0; k < V::size; ++k) s += acc[k];
  for (; i < n; ++i) s += log ? g[i] : g[i] * y[i];
  const V sv(s);
  i = 0;
  if (log) {
    for (; i + V::size <= n; i += V::size) (V::load(g + i) - vec::exp(V::load(y + i)) * sv).store(o + i);
    for (; i < n; ++i) o[i] = g[i] - std::exp(y[i]) * s;
  } else {
    for (; i < n; ++i) o[i] = y[i] * (g[i] - s);
  }
}

// softmax: gx = y * (g - sum(g * y)); log_softmax: gx = g - exp(y) * sum(g).
template <class T>
void softmax_backward_typed(const T* g, const T* y, T* out, const Geometry& geo, bool log) {
  using C = compute_type_t<T>;
  if (geo.inner == 1) {
    parallel_for(0, geo.outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(geo.n, 1)), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const T* gr = g + r * geo.n;
        const T* yr = y + r * geo.n;
        T* o = out + r * geo.n;
        if constexpr (std::is_same_v<T, float>) {
          float_row_backward(gr, yr, o, geo.n, log);
          continue;
        }
        C s = 0;
        if (log) {
          for (int64_t i = 0; i < geo.n; ++i) s += static_cast<C>(gr[i]);
          for (int64_t i = 0; i < geo.n; ++i)
            o[i] = convert<T>(static_cast<C>(gr[i]) - std::exp(static_cast<C>(yr[i])) * s);
        } else {
          for (int64_t i = 0; i < geo.n; ++i) s += static_cast<C>(gr[i]) * static_cast<C>(yr[i]);
          for (int64_t i = 0; i < geo.n; ++i)
            o[i] = convert<T>(static_cast<C>(yr[i]) * (static_cast<C>(gr[i]) - s));
        }
      }
    });
    return;
  }
  for_each_lane_block(geo, [&](int64_t base, int64_t lanes) {
    C s[kLaneBlock];
    std::fill(s, s + lanes, C(0));
    for (int64_t i = 0; i < geo.n; ++i) {
      const int64_t off = base + i * geo.inner;
      if (log)
        for (int64_t j = 0; j < lanes; ++j) s[j] += static_cast<C>(g[off + j]);
      else
        for (int64_t j = 0; j < lanes; ++j) s[j] += static_cast<C>(g[off + j]) * static_cast<C>(y[off + j]);
    }
    for (int64_t i = 0; i < geo.n; ++i) {
      const int64_t off = base + i * geo.inner;
      if (log)
        for (int64_t j = 0; j < lanes; ++j)
          out[off + j] = convert<T>(static_cast<C>(g[off + j]) - std::exp(static_cast<C>(y[off + j])) * s[j]);
      else
        for (int64_t j = 0; j < lanes; ++j)
          out[off + j] = convert<T>(static_cast<C>(y[off + j]) * (static_cast<C>(g[off + j]) - s[j]));
    }
  });
}

void softmax_backward_kernel(const Tensor& grad, const Tensor& y, Tensor& out, int64_t dim, bool log) {
  if (y.numel() == 0) return;
  const Geometry geo(y, dim);
  dispatch<kMaskFloating>(y.dtype(), log ? "log_softmax_backward" : "softmax_backward", [&](auto t) {
    using T = decltype(t);
    softmax_backward_typed<T>(grad.data_ptr<T>(), y.data_ptr<T>(), out.data_ptr<T>(), geo, log);
  });
}

}  // namespace

// softmax and log_softmax, forward and backward: the floating dtypes (the dispatch above).
EMBER_REGISTER_KERNEL_FOR_DTYPES(softmax_slot, CPU, &softmax_kernel, kMaskFloating);
EMBER_REGISTER_KERNEL_FOR_DTYPES(softmax_backward_slot, CPU, &softmax_backward_kernel, kMaskFloating);
constexpr uint32_t kSoftmaxOpDTypes[] = {kMaskFloating, kMaskFloating};
static_assert(std::size(kSoftmaxOpDTypes) == std::size(kSoftmaxOpNames));
static const bool softmax_op_dtypes_registered = softmax_slot.set_op_dtypes(DeviceType::CPU, kSoftmaxOpDTypes);
static const bool softmax_backward_op_dtypes_registered =
    softmax_backward_slot.set_op_dtypes(DeviceType::CPU, kSoftmaxOpDTypes);

}  // namespace ember::nn::functional
