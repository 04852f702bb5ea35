// Group normalization kernels for float32, planar layout (x [N, C, L], L the
// product of the spatial dims, contiguous).
//
// Note [Group norm in two sweeps]
// group_norm used to run as layer_norm over [N, G, C / G * L] (oneDNN) plus a
// per-channel scale and shift, each a separate op with its own backward. On
// ConvTasNet's GroupNorm(1, 512) over [4, 512, 4001] that was 40 ms forward
// and 135 ms backward on one thread, against libtorch's fused kernel's 13 and
// 23 (oneDNN's layer norm over 4 rows of 2M values, and the affine ops'
// reductions over dims 0 and 2). Here, as in libtorch's GroupNormKernel:
// forward, the (n, g) statistics (one task per (n, g); each 4096-element
// segment gets its mean and squared deviations from two passes while in L1,
// segments merged in double with Chan's formula), then y = (x - mean) * a +
// b[c] per (n, c) row with a = rstd * w[c]. Backward: the (n,
// c) sums of gy * x and gy, then gx = gy * rstd * w[c] + x * c2 + c3 with the
// (n, g) coefficients c2, c3 (see group_norm_backward_kernel), and gw, gb from
// the same sums.
#include <cmath>
#include <cstdint>
#include <vector>

#include "ember/core/parallel.h"
#include "kernels/cpu/vec.h"
#include "kernels/slots/norm_kernels.h"

namespace ember::nn::functional {
namespace {

using V = vec::Vec<float>;
constexpr int64_t kW = V::size;
constexpr int64_t kBlock = 4096;

float hsum(V v) {
  float s = 0;
  for (int i = 0; i < kW; ++i) s += v[i];
  return s;
}

// Mean and sum of squared deviations of p[0, n), merged over segments.
void moments(const float* p, int64_t n, double& mean, double& m2) {
  double count = 0;
  mean = 0;
  m2 = 0;
  for (int64_t s0 = 0; s0 < n; s0 += kBlock) {
    const int64_t len = std::min(kBlock, n - s0);
    const float* q = p + s0;
    V acc(0.f);
    int64_t i = 0;
    for (; i + kW <= len; i += kW) acc = acc + V::load(q + i);
    float sum = hsum(acc);
    for (; i < len; ++i) sum += q[i];
    const float seg_mean = sum / static_cast<float>(len);
    V dev(0.f);
    const V mv(seg_mean);
    i = 0;
    for (; i + kW <= len; i += kW) {
      const V d = V::load(q + i) - mv;
      dev = dev + d * d;
    }
    float seg_m2 = hsum(dev);
    for (; i < len; ++i) seg_m2 += (q[i] - seg_mean) * (q[i] - seg_mean);
    // Chan et al.: merge (count, mean, m2) with the segment's.
    const double nb = static_cast<double>(len), total = count + nb;
    const double delta = static_cast<double>(seg_mean) - mean;
    mean += delta * nb / total;
    m2 += static_cast<double>(seg_m2) + delta * delta * count * nb / total;
    count = total;
  }
}

void group_norm_forward_kernel(const Tensor& x, const Tensor& w, const Tensor& b, int64_t groups, Tensor& mean,
                               Tensor& rstd, Tensor& y, double eps) {
  const int64_t n = x.size(0), c = x.size(1), l = x.size(2), per_group = c / groups;
  const float* px = x.data_ptr<float>();
  float* py = y.data_ptr<float>();
  float* pmean = mean.data_ptr<float>();
  float* prstd = rstd.data_ptr<float>();
  const float* pw = w.defined() ? w.data_ptr<float>() : nullptr;
  const float* pb = b.defined() ? b.data_ptr<float>() : nullptr;
  const int64_t group_elems = per_group * l;
  parallel_for(0, n * groups, 1, [&](int64_t begin, int64_t end) {
    for (int64_t ng = begin; ng < end; ++ng) {
      double mu = 0, m2 = 0;
      moments(px + ng * group_elems, group_elems, mu, m2);
      const double var = group_elems ? m2 / static_cast<double>(group_elems) : 0.0;
      pmean[ng] = static_cast<float>(mu);
      prstd[ng] = static_cast<float>(1.0 / std::sqrt(var + eps));
    }
  });
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(1, l));
  parallel_for(0, n * c, grain, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t ch = row % c, ng = row / c * groups + ch / per_group;
      // (x - mean) * a + b rather than libtorch's x * a + (b - mean * a):
      // with a tiny variance a is large (1 / sqrt(eps) = 316) and b - mean * a
      // rounds to a few ulps of mean * a (8e-4 off for one element of -104
      // per group, whose exact output is b); one subtraction more, same speed.
      const float a = prstd[ng] * (pw ? pw[ch] : 1.f);
      const float m = pmean[ng], s = pb ? pb[ch] : 0.f;
      const float* q = px + row * l;
      float* out = py + row * l;
      const V av(a), mv(m), sv(s);
      int64_t i = 0;
      for (; i + kW <= l; i += kW) ((V::load(q + i) - mv) * av + sv).store(out + i);
      for (; i < l; ++i) out[i] = (q[i] - m) * a + s;
    }
  });
}

void group_norm_backward_kernel(const Tensor& x, const Tensor& gy, const Tensor& w, int64_t groups,
                                const Tensor& mean, const Tensor& rstd, Tensor& gx, Tensor& gw, Tensor& gb) {
  const int64_t n = x.size(0), c = x.size(1), l = x.size(2), per_group = c / groups;
  const float* px = x.data_ptr<float>();
  const float* pg = gy.data_ptr<float>();
  const float* pw = w.defined() ? w.data_ptr<float>() : nullptr;
  const float* pmean = mean.data_ptr<float>();
  const float* prstd = rstd.data_ptr<float>();
  // Per (n, c) row: sum(gy * x) and sum(gy), segments in float lanes, rows in double.
  std::vector<double> ds(static_cast<size_t>(n * c)), db(static_cast<size_t>(n * c));
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(1, l));
  parallel_for(0, n * c, grain, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const float* q = px + row * l;
      const float* g = pg + row * l;
      double sx = 0, sg = 0;
      for (int64_t s0 = 0; s0 < l; s0 += kBlock) {
        const int64_t len = std::min(kBlock, l - s0);
        V a(0.f), bsum(0.f);
        int64_t i = s0;
        for (; i + kW <= s0 + len; i += kW) {
          const V gv = V::load(g + i);
          a = a + gv * V::load(q + i);
          bsum = bsum + gv;
        }
        float fa = hsum(a), fb = hsum(bsum);
        for (; i < s0 + len; ++i) fa += g[i] * q[i], fb += g[i];
        sx += fa;
        sg += fb;
      }
      ds[static_cast<size_t>(row)] = sx;
      db[static_cast<size_t>(row)] = sg;
    }
  });
  // gx = gy * rstd * w[c] + x * c2 + c3 (Note [Group norm in two sweeps]), with M = per_group * l:
  // c2 = (db_g * mean - ds_g) * rstd^3 / M, c3 = -c2 * mean - db_g * rstd / M, where
  // ds_g, db_g sum w[c] * ds, w[c] * db over the group's channels.
  std::vector<double> c2(static_cast<size_t>(n * groups)), c3(static_cast<size_t>(n * groups));
  const double inv_m = 1.0 / static_cast<double>(per_group * l);
  for (int64_t ni = 0; ni < n; ++ni) {
    for (int64_t g = 0; g < groups; ++g) {
      double dsg = 0, dbg = 0;
      for (int64_t ch = g * per_group; ch < (g + 1) * per_group; ++ch) {
        const double wc = pw ? pw[ch] : 1.0;
        dsg += ds[static_cast<size_t>(ni * c + ch)] * wc;
        dbg += db[static_cast<size_t>(ni * c + ch)] * wc;
      }
      const size_t ng = static_cast<size_t>(ni * groups + g);
      const double mu = pmean[ng], r = prstd[ng];
      c2[ng] = (dbg * mu - dsg) * r * r * r * inv_m;
      c3[ng] = -c2[ng] * mu - dbg * r * inv_m;
    }
  }
  if (gx.defined()) {
    float* out = gx.data_ptr<float>();
    parallel_for(0, n * c, grain, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t ch = row % c;
        const size_t ng = static_cast<size_t>(row / c * groups + ch / per_group);
        const float a = prstd[ng] * (pw ? pw[ch] : 1.f);
        const float k2 = static_cast<float>(c2[ng]), k3 = static_cast<float>(c3[ng]);
        const float* q = px + row * l;
        const float* g = pg + row * l;
        float* o = out + row * l;
        const V av(a), k2v(k2), k3v(k3);
        int64_t i = 0;
        for (; i + kW <= l; i += kW) (V::load(g + i) * av + V::load(q + i) * k2v + k3v).store(o + i);
        for (; i < l; ++i) o[i] = g[i] * a + q[i] * k2 + k3;
      }
    });
  }
  // gw[c] = sum_n (ds - db * mean) * rstd; gb[c] = sum_n db.
  for (int64_t ch = 0; ch < c; ++ch) {
    double sw = 0, sb = 0;
    for (int64_t ni = 0; ni < n; ++ni) {
      const size_t row = static_cast<size_t>(ni * c + ch), ng = static_cast<size_t>(ni * groups + ch / per_group);
      sw += (ds[row] - db[row] * pmean[ng]) * prstd[ng];
      sb += db[row];
    }
    if (gw.defined()) gw.data_ptr<float>()[ch] = static_cast<float>(sw);
    if (gb.defined()) gb.data_ptr<float>()[ch] = static_cast<float>(sb);
  }
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(group_norm_forward_slot, CPU, group_norm_forward_kernel, dtype_bit(kFloat32));
EMBER_REGISTER_KERNEL_FOR_DTYPES(group_norm_backward_slot, CPU, group_norm_backward_kernel, dtype_bit(kFloat32));

}  // namespace ember::nn::functional
