// Batch normalization kernels for float32, planar layout (NCHW, NCL, NCDHW).
//
// Note [Batch norm one channel at a time]
// Training-mode batch norm reads every element twice (statistics, then the
// normalization; backward: the two reductions, then gx). Done as two sweeps
// over the whole tensor (libtorch's order, and oneDNN's ncsp kernel), each
// sweep streams the tensor from memory. Here each task takes whole channels
// and finishes one channel before the next: a channel of an [8, 64, 56, 56]
// batch is 100 KB, still in L2 when the second pass runs, so the tensor
// crosses the memory bus once per direction instead of twice.
// Statistics: each row segment (at most kBlock elements of one (n, c) plane)
// gets its mean and sum of squared deviations from two passes over the
// segment while it sits in L1, accumulated in float SIMD lanes; segments merge
// in double with Chan's formula, so the variance does not suffer the
// cancellation of sum(x^2) - n * mean^2.
// Channels-last tensors are [rows, C] with the channels contiguous (Note
// [Batch norm over channels-last rows] below); tiny planar planes go to
// oneDNN (dnnl_norm.cpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ember/core/parallel.h"
#include "kernels/cpu/dnnl_norm.h"
#include "kernels/cpu/vec.h"
#include "kernels/slots/norm_kernels.h"

namespace ember::nn::functional {
namespace {

using V = vec::Vec<float>;
constexpr int64_t kW = V::size;
constexpr int64_t kBlock = 4096;       // elements of a row segment (16 KB)
constexpr int64_t kMinPlane = 2 * kW;  // below this the planar loops are mostly tails

float hsum(V v) {
  float s = 0;
  for (int i = 0; i < kW; ++i) s += v[i];
  return s;
}

float block_sum(const float* p, int64_t n) {
  V a0(0.f), a1(0.f), a2(0.f), a3(0.f);
  int64_t i = 0;
  for (; i + 4 * kW <= n; i += 4 * kW) {
    a0 = a0 + V::load(p + i);
    a1 = a1 + V::load(p + i + kW);
    a2 = a2 + V::load(p + i + 2 * kW);
    a3 = a3 + V::load(p + i + 3 * kW);
  }
  for (; i + kW <= n; i += kW) a0 = a0 + V::load(p + i);
  float s = hsum((a0 + a1) + (a2 + a3));
  for (; i < n; ++i) s += p[i];
  return s;
}

float block_sq_dev(const float* p, int64_t n, float m) {
  const V mv(m);
  V a0(0.f), a1(0.f), a2(0.f), a3(0.f);
  int64_t i = 0;
  for (; i + 4 * kW <= n; i += 4 * kW) {
    V d0 = V::load(p + i) - mv, d1 = V::load(p + i + kW) - mv;
    V d2 = V::load(p + i + 2 * kW) - mv, d3 = V::load(p + i + 3 * kW) - mv;
    a0 = a0 + d0 * d0;
    a1 = a1 + d1 * d1;
    a2 = a2 + d2 * d2;
    a3 = a3 + d3 * d3;
  }
  for (; i + kW <= n; i += kW) {
    V d = V::load(p + i) - mv;
    a0 = a0 + d * d;
  }
  float s = hsum((a0 + a1) + (a2 + a3));
  for (; i < n; ++i) s += (p[i] - m) * (p[i] - m);
  return s;
}

// Running (count, mean, M2) of a channel, merged segment by segment.
struct Moments {
  double n = 0, mean = 0, m2 = 0;
  void add_segment(const float* p, int64_t len) {
    const float m = block_sum(p, len) / static_cast<float>(len);
    const double nb = static_cast<double>(len), m2b = block_sq_dev(p, len, m);
    const double delta = static_cast<double>(m) - mean, total = n + nb;
    mean += delta * nb / total;
    m2 += m2b + delta * delta * n * nb / total;
    n = total;
  }
};

// out[i] = a * x[i] + b
void affine_row(const float* x, float* out, int64_t n, float a, float b) {
  const V av(a), bv(b);
  int64_t i = 0;
  for (; i + kW <= n; i += kW) (V::load(x + i) * av + bv).store(out + i);
  for (; i < n; ++i) out[i] = x[i] * a + b;
}

struct Planar {
  int64_t batch, channels, plane;
  explicit Planar(const Tensor& x) : batch(x.size(0)), channels(x.size(1)), plane(x.numel() / std::max<int64_t>(1, x.size(0) * x.size(1))) {}
  int64_t offset(int64_t n, int64_t c) const { return (n * channels + c) * plane; }
  // Channels per task: enough work to be worth a thread.
  int64_t grain() const { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, batch * plane)); }
};

void native_forward(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& mean, const Tensor& var,
                    const Tensor& y, double eps, bool use_input_stats) {
  const Planar s(x);
  const float* xp = x.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  float* mp = mean.data_ptr<float>();
  float* vp = var.data_ptr<float>();
  const float* wp = w.defined() ? w.data_ptr<float>() : nullptr;
  const float* bp = b.defined() ? b.data_ptr<float>() : nullptr;
  parallel_for(0, s.channels, s.grain(), [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      double m, v;
      if (use_input_stats) {
        Moments mo;
        for (int64_t n = 0; n < s.batch; ++n)
          for (int64_t i = 0; i < s.plane; i += kBlock)
            mo.add_segment(xp + s.offset(n, c) + i, std::min(kBlock, s.plane - i));
        m = mo.mean;
        v = mo.n > 0 ? mo.m2 / mo.n : 0.0;
        mp[c] = static_cast<float>(m);
        vp[c] = static_cast<float>(v);
      } else {
        m = mp[c];
        v = vp[c];
      }
      const double invstd = 1.0 / std::sqrt(v + eps);
      const double scale = wp ? wp[c] * invstd : invstd;
      const double shift = (bp ? bp[c] : 0.0) - m * scale;
      for (int64_t n = 0; n < s.batch; ++n)
        affine_row(xp + s.offset(n, c), yp + s.offset(n, c), s.plane, static_cast<float>(scale),
                   static_cast<float>(shift));
    }
  });
}

// sum(gy) and sum(gy * (x - m)) over a segment, float lanes.
void block_grad_sums(const float* x, const float* gy, int64_t n, float m, float& sum_gy, float& sum_dot) {
  const V mv(m);
  V g0(0.f), g1(0.f), d0(0.f), d1(0.f);
  int64_t i = 0;
  for (; i + 2 * kW <= n; i += 2 * kW) {
    V ga = V::load(gy + i), gb = V::load(gy + i + kW);
    g0 = g0 + ga;
    g1 = g1 + gb;
    d0 = d0 + ga * (V::load(x + i) - mv);
    d1 = d1 + gb * (V::load(x + i + kW) - mv);
  }
  for (; i + kW <= n; i += kW) {
    V ga = V::load(gy + i);
    g0 = g0 + ga;
    d0 = d0 + ga * (V::load(x + i) - mv);
  }
  sum_gy = hsum(g0 + g1);
  sum_dot = hsum(d0 + d1);
  for (; i < n; ++i) {
    sum_gy += gy[i];
    sum_dot += gy[i] * (x[i] - m);
  }
}

// gx[i] = a * gy[i] - k * (x[i] - m) + d. The deviation is formed before
// scaling (as PyTorch does): folding k * m into d would cancel two terms of
// the size of the mean, losing precision whenever |mean| >> std.
void grad_input_row(const float* x, const float* gy, float* gx, int64_t n, float a, float k, float m, float d) {
  const V av(a), kv(k), mv(m), dv(d);
  int64_t i = 0;
  for (; i + kW <= n; i += kW) (V::load(gy + i) * av - (V::load(x + i) - mv) * kv + dv).store(gx + i);
  for (; i < n; ++i) gx[i] = gy[i] * a - (x[i] - m) * k + d;
}

void native_backward(const Tensor& x, const Tensor& gy, const Tensor& w, const Tensor& mean, const Tensor& var,
                     const Tensor& gx, const Tensor& gw, const Tensor& gb, double eps) {
  const Planar s(x);
  const float* xp = x.data_ptr<float>();
  const float* gyp = gy.data_ptr<float>();
  float* gxp = gx.data_ptr<float>();
  const float* mp = mean.data_ptr<float>();
  const float* vp = var.data_ptr<float>();
  const float* wp = w.defined() ? w.data_ptr<float>() : nullptr;
  float* gwp = gw.defined() ? gw.data_ptr<float>() : nullptr;
  float* gbp = gb.defined() ? gb.data_ptr<float>() : nullptr;
  const double count = static_cast<double>(s.batch * s.plane);
  parallel_for(0, s.channels, s.grain(), [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const float m = mp[c];
      double sum_gy = 0, sum_dot = 0;
      for (int64_t n = 0; n < s.batch; ++n) {
        const int64_t off = s.offset(n, c);
        for (int64_t i = 0; i < s.plane; i += kBlock) {
          float sg, sd;
          block_grad_sums(xp + off + i, gyp + off + i, std::min(kBlock, s.plane - i), m, sg, sd);
          sum_gy += sg;
          sum_dot += sd;
        }
      }
      const double invstd = 1.0 / std::sqrt(static_cast<double>(vp[c]) + eps);
      if (gwp) gwp[c] = static_cast<float>(sum_dot * invstd);
      if (gbp) gbp[c] = static_cast<float>(sum_gy);
      // gx = w * invstd * (gy - mean(gy) - (x - m) * invstd^2 * mean(gy * (x - m)))
      const double a = (wp ? wp[c] : 1.0) * invstd;
      const double k = a * invstd * invstd * sum_dot / count;
      const double d = -a * sum_gy / count;
      for (int64_t n = 0; n < s.batch; ++n) {
        const int64_t off = s.offset(n, c);
        grad_input_row(xp + off, gyp + off, gxp + off, s.plane, static_cast<float>(a), static_cast<float>(k), m,
                       static_cast<float>(d));
      }
    }
  });
}

// Note [Batch norm over channels-last rows]
// A channels-last tensor is a matrix [rows = N * spatial, C], every row holding
// all channels contiguously. Every loop runs along a row, vectorized over the
// channels. Statistics: the rows are cut into fixed chunks (about 16K
// elements, so a chunk is still in L2 for its second pass); each chunk's
// per-channel mean and sum of squared deviations come from two float passes
// over it, and the chunks merge per channel in double with Chan's formula,
// in chunk order: the result does not depend on the thread count. (oneDNN's
// nhwc kernels, used before, took about 1.5x libtorch's time here.)
struct Rows {
  int64_t rows, channels, chunk_rows, chunks;
  explicit Rows(const Tensor& x) : rows(x.numel() / std::max<int64_t>(1, x.size(1))), channels(x.size(1)) {
    chunk_rows = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, channels));
    chunks = (rows + chunk_rows - 1) / chunk_rows;
  }
  int64_t row_grain() const { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, channels)); }
};

// acc[c] += row[c] - pivot[c] for c < n.
void add_deviation(float* acc, const float* row, const float* pivot, int64_t n) {
  int64_t c = 0;
  for (; c + kW <= n; c += kW) (V::load(acc + c) + (V::load(row + c) - V::load(pivot + c))).store(acc + c);
  for (; c < n; ++c) acc[c] += row[c] - pivot[c];
}

// out[c] = (row[c] - m[c]) * a[c] + b[c]. Subtracting the mean first (as
// oneDNN does) keeps the precision of channels whose mean is large against
// their spread; folding it into the shift, b - m * a, would cancel two terms
// of the mean's size.
void normalize_channels(const float* row, float* out, const float* m, const float* a, const float* b, int64_t n) {
  int64_t c = 0;
  for (; c + kW <= n; c += kW)
    ((V::load(row + c) - V::load(m + c)) * V::load(a + c) + V::load(b + c)).store(out + c);
  for (; c < n; ++c) out[c] = (row[c] - m[c]) * a[c] + b[c];
}

// Per-channel (count, mean, M2) of every chunk, merged in chunk order.
void rows_moments(const Rows& r, const float* xp, float* mean_out, float* var_out) {
  const int64_t C = r.channels;
  std::vector<float> chunk_mean(static_cast<size_t>(r.chunks * C)), chunk_m2(static_cast<size_t>(r.chunks * C));
  parallel_for(0, r.chunks, 1, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t r0 = k * r.chunk_rows, r1 = std::min(r.rows, r0 + r.chunk_rows);
      float* m = chunk_mean.data() + k * C;
      float* q = chunk_m2.data() + k * C;
      std::fill(m, m + C, 0.f);
      std::fill(q, q + C, 0.f);
      // The mean is the chunk's first row plus the mean deviation from it: a
      // float sum of the raw values would round at the scale of the sum (for
      // values near 1000 over 1000 rows, ~0.06 an add), the deviations'
      // sum at the scale of the spread.
      const float* pivot = xp + r0 * C;
      for (int64_t i = r0 + 1; i < r1; ++i) add_deviation(m, xp + i * C, pivot, C);
      const float inv = 1.f / static_cast<float>(r1 - r0);
      for (int64_t c = 0; c < C; ++c) m[c] = pivot[c] + m[c] * inv;
      for (int64_t i = r0; i < r1; ++i) {
        const float* row = xp + i * C;
        int64_t c = 0;
        for (; c + kW <= C; c += kW) {
          const V d = V::load(row + c) - V::load(m + c);
          (V::load(q + c) + d * d).store(q + c);
        }
        for (; c < C; ++c) q[c] += (row[c] - m[c]) * (row[c] - m[c]);
      }
    }
  });
  parallel_for(0, C, 16, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      double n = 0, mean = 0, m2 = 0;
      for (int64_t k = 0; k < r.chunks; ++k) {
        const double nb = static_cast<double>(std::min(r.rows, (k + 1) * r.chunk_rows) - k * r.chunk_rows);
        const double delta = static_cast<double>(chunk_mean[k * C + c]) - mean, total = n + nb;
        mean += delta * nb / total;
        m2 += static_cast<double>(chunk_m2[k * C + c]) + delta * delta * n * nb / total;
        n = total;
      }
      mean_out[c] = static_cast<float>(mean);
      var_out[c] = static_cast<float>(n > 0 ? m2 / n : 0.0);
    }
  });
}

void rows_forward(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& mean, const Tensor& var,
                  const Tensor& y, double eps, bool use_input_stats) {
  const Rows r(x);
  const int64_t C = r.channels;
  const float* xp = x.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  float* mp = mean.data_ptr<float>();
  float* vp = var.data_ptr<float>();
  if (use_input_stats) rows_moments(r, xp, mp, vp);
  std::vector<float> scale(static_cast<size_t>(C)), shift(static_cast<size_t>(C));
  const float* wp = w.defined() ? w.data_ptr<float>() : nullptr;
  const float* bp = b.defined() ? b.data_ptr<float>() : nullptr;
  for (int64_t c = 0; c < C; ++c) {
    const double invstd = 1.0 / std::sqrt(static_cast<double>(vp[c]) + eps);
    const double a = wp ? wp[c] * invstd : invstd;
    scale[c] = static_cast<float>(a);
    shift[c] = bp ? bp[c] : 0.f;
  }
  parallel_for(0, r.rows, r.row_grain(), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) normalize_channels(xp + i * C, yp + i * C, mp, scale.data(), shift.data(), C);
  });
}

void rows_backward(const Tensor& x, const Tensor& gy, const Tensor& w, const Tensor& mean, const Tensor& var,
                   const Tensor& gx, const Tensor& gw, const Tensor& gb, double eps) {
  const Rows r(x);
  const int64_t C = r.channels;
  const float* xp = x.data_ptr<float>();
  const float* gyp = gy.data_ptr<float>();
  const float* mp = mean.data_ptr<float>();
  const float* vp = var.data_ptr<float>();
  const float* wp = w.defined() ? w.data_ptr<float>() : nullptr;
  // Per chunk: sum(gy) and sum(gy * (x - m)) per channel, in float; merged in double in chunk order.
  std::vector<float> chunk_gy(static_cast<size_t>(r.chunks * C)), chunk_dot(static_cast<size_t>(r.chunks * C));
  parallel_for(0, r.chunks, 1, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t r0 = k * r.chunk_rows, r1 = std::min(r.rows, r0 + r.chunk_rows);
      float* sg = chunk_gy.data() + k * C;
      float* sd = chunk_dot.data() + k * C;
      std::fill(sg, sg + C, 0.f);
      std::fill(sd, sd + C, 0.f);
      for (int64_t i = r0; i < r1; ++i) {
        const float* xr = xp + i * C;
        const float* gr = gyp + i * C;
        int64_t c = 0;
        for (; c + kW <= C; c += kW) {
          const V g = V::load(gr + c);
          (V::load(sg + c) + g).store(sg + c);
          (V::load(sd + c) + g * (V::load(xr + c) - V::load(mp + c))).store(sd + c);
        }
        for (; c < C; ++c) {
          sg[c] += gr[c];
          sd[c] += gr[c] * (xr[c] - mp[c]);
        }
      }
    }
  });
  const double count = static_cast<double>(r.rows);
  std::vector<float> a(static_cast<size_t>(C)), kx(static_cast<size_t>(C)), d(static_cast<size_t>(C));
  float* gwp = gw.defined() ? gw.data_ptr<float>() : nullptr;
  float* gbp = gb.defined() ? gb.data_ptr<float>() : nullptr;
  for (int64_t c = 0; c < C; ++c) {
    double sum_gy = 0, sum_dot = 0;
    for (int64_t k = 0; k < r.chunks; ++k) {
      sum_gy += chunk_gy[k * C + c];
      sum_dot += chunk_dot[k * C + c];
    }
    const double invstd = 1.0 / std::sqrt(static_cast<double>(vp[c]) + eps);
    if (gwp) gwp[c] = static_cast<float>(sum_dot * invstd);
    if (gbp) gbp[c] = static_cast<float>(sum_gy);
    // gx = a * gy - k * (x - m) + d, as native_backward.
    const double ac = (wp ? wp[c] : 1.0) * invstd;
    const double kc = ac * invstd * invstd * sum_dot / count;
    a[c] = static_cast<float>(ac);
    kx[c] = static_cast<float>(kc);
    d[c] = static_cast<float>(-ac * sum_gy / count);
  }
  float* gxp = gx.data_ptr<float>();
  parallel_for(0, r.rows, r.row_grain(), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const float* xr = xp + i * C;
      const float* gr = gyp + i * C;
      float* out = gxp + i * C;
      int64_t c = 0;
      for (; c + kW <= C; c += kW)
        (V::load(gr + c) * V::load(a.data() + c) - (V::load(xr + c) - V::load(mp + c)) * V::load(kx.data() + c) +
         V::load(d.data() + c))
            .store(out + c);
      for (; c < C; ++c) out[c] = gr[c] * a[c] - (xr[c] - mp[c]) * kx[c] + d[c];
    }
  });
}

bool use_native(const Tensor& x, bool channels_last) {
  return !channels_last && x.dim() >= 3 && x.numel() / (x.size(0) * x.size(1)) >= kMinPlane;
}

void batch_norm_forward_cpu(const Tensor& x, const Tensor& w, const Tensor& b, Tensor& mean, Tensor& var,
                            Tensor& y, double eps, bool use_input_stats, bool channels_last) {
  if (use_native(x, channels_last)) return native_forward(x, w, b, mean, var, y, eps, use_input_stats);
  if (channels_last || x.dim() == 2) return rows_forward(x, w, b, mean, var, y, eps, use_input_stats);
  dnnl_batch_norm_forward(x, w, b, mean, var, y, eps, use_input_stats, channels_last);
}

void batch_norm_backward_cpu(const Tensor& x, const Tensor& gy, const Tensor& w, const Tensor& mean,
                             const Tensor& var, Tensor& gx, Tensor& gw, Tensor& gb, double eps,
                             bool channels_last) {
  if (use_native(x, channels_last)) return native_backward(x, gy, w, mean, var, gx, gw, gb, eps);
  if (channels_last || x.dim() == 2) return rows_backward(x, gy, w, mean, var, gx, gw, gb, eps);
  dnnl_batch_norm_backward(x, gy, w, mean, var, gx, gw, gb, eps, channels_last);
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(batch_norm_forward_slot, CPU, batch_norm_forward_cpu, dtype_bit(kFloat32));
EMBER_REGISTER_KERNEL_FOR_DTYPES(batch_norm_backward_slot, CPU, batch_norm_backward_cpu, dtype_bit(kFloat32));

}  // namespace ember::nn::functional
