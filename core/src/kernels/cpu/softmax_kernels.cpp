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
#include "nn/functional/activation_kernels.h"

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
// dst[i] = exp(src[i] - m) for i < n; returns the sum.
template <class C>
C exp_sub_sum(const C* src, C m, C* dst, int64_t n) {
  C sum = 0;
  int64_t i = 0;
  if constexpr (std::is_same_v<C, float>) {
    using V = Vec<float>;
    V acc(0.f);
    const V mv(m);
    for (; i + V::size <= n; i += V::size) {
      V e = vec::exp(V::load(src + i) - mv);
      if (dst) e.store(dst + i);
      acc = acc + e;
    }
    for (int k = 0; k < V::size; ++k) sum += acc[k];
  }
  for (; i < n; ++i) {
    const C e = std::exp(src[i] - m);
    if (dst) dst[i] = e;
    sum += e;
  }
  return sum;
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

// Softmax of one contiguous row of compute type (x may alias y).
template <class C>
void softmax_row(const C* x, C* y, int64_t n, bool log) {
  const C m = row_max(x, n);
  if (log) {
    const C lse = m + std::log(exp_sub_sum<C>(x, m, nullptr, n));
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] - lse;
  } else {
    const C inv = C(1) / exp_sub_sum<C>(x, m, y, n);
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

// dst[j] = exp(x[j] - m[j]); sum[j] += dst[j] (or only the sum when !dst).
template <class C>
void exp_sub_acc(const C* x, const C* m, C* dst, C* sum, int64_t lanes) {
  int64_t j = 0;
  if constexpr (std::is_same_v<C, float>) {
    using V = Vec<float>;
    for (; j + V::size <= lanes; j += V::size) {
      V e = vec::exp(V::load(x + j) - V::load(m + j));
      if (dst) e.store(dst + j);
      (V::load(sum + j) + e).store(sum + j);
    }
  }
  for (; j < lanes; ++j) {
    const C e = std::exp(x[j] - m[j]);
    if (dst) dst[j] = e;
    sum[j] += e;
  }
}

template <class T>
void softmax_inner(const T* in, T* out, const Geometry& g, bool log) {
  using C = compute_type_t<T>;
  const int64_t stride = g.inner;
  for_each_lane_block(g, [&](int64_t base, int64_t lanes) {
    C m[kLaneBlock], sum[kLaneBlock], xs[kLaneBlock];
    std::fill(m, m + lanes, -std::numeric_limits<C>::infinity());
    std::fill(sum, sum + lanes, C(0));
    for (int64_t i = 0; i < g.n; ++i) {
      const T* x = in + base + i * stride;
      for (int64_t j = 0; j < lanes; ++j) m[j] = math::max_nan(m[j], static_cast<C>(x[j]));
    }
    for (int64_t i = 0; i < g.n; ++i) {
      const T* x = in + base + i * stride;
      T* y = out + base + i * stride;
      if constexpr (std::is_same_v<T, C>) {
        exp_sub_acc<C>(x, m, log ? nullptr : y, sum, lanes);
      } else {
        (void)y;
        for (int64_t j = 0; j < lanes; ++j) xs[j] = static_cast<C>(x[j]);
        exp_sub_acc<C>(xs, m, nullptr, sum, lanes);
      }
    }
    if (log) {
      for (int64_t j = 0; j < lanes; ++j) m[j] += std::log(sum[j]);  // m = logsumexp
      for (int64_t i = 0; i < g.n; ++i) {
        const T* x = in + base + i * stride;
        T* y = out + base + i * stride;
        for (int64_t j = 0; j < lanes; ++j) y[j] = convert<T>(static_cast<C>(x[j]) - m[j]);
      }
    } else {
      for (int64_t j = 0; j < lanes; ++j) sum[j] = C(1) / sum[j];
      for (int64_t i = 0; i < g.n; ++i) {
        T* y = out + base + i * stride;
        if constexpr (std::is_same_v<T, C>) {
          for (int64_t j = 0; j < lanes; ++j) y[j] *= sum[j];
        } else {
          // 16-bit: the exponentials are recomputed (not stored rounded).
          const T* x = in + base + i * stride;
          for (int64_t j = 0; j < lanes; ++j)
            y[j] = convert<T>(std::exp(static_cast<C>(x[j]) - m[j]) * sum[j]);
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

EMBER_REGISTER_KERNEL(softmax_stub, CPU, &softmax_kernel);
EMBER_REGISTER_KERNEL(softmax_backward_stub, CPU, &softmax_backward_kernel);

}  // namespace ember::nn::functional
