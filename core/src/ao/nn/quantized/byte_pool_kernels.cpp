// Quantized poolings over the stored bytes (Note [Quantized byte kernels]):
// max_pool2d takes the largest byte of each window, the average poolings sum
// the integers of each window in int32 and divide through PyTorch's
// multiplier (average_q), as the general path does over int64 / float copies.
// Row-major inputs loop per H x W plane; channels-last ones per output pixel
// with the channels innermost (what the compiler vectorizes).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ao/nn/quantized/byte_kernels.h"
#include "ember/core/parallel.h"
#include "ember/core/quantizer.h"

namespace ember::ao::nn::quantized::functional::detail {

int64_t average_q(int64_t acc, float multiplier, int64_t zp, bool channels_last) {
  if (channels_last) {
    const float scale = 1.0f / multiplier;
    const float inv = 1.0f / scale;
    return zp + static_cast<int64_t>(std::nearbyint(static_cast<float>(acc) * inv));
  }
  const float product = static_cast<float>(acc) * multiplier;
  return static_cast<int64_t>(std::nearbyint(product + static_cast<float>(zp)));
}

namespace {

// PyTorch's pooling_output_shape.
int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

// The geometry of an N x C x H x W input (a 3-d input is one batch).
struct Planes {
  int64_t N, C, H, W;
  bool channels_last;
};

std::optional<Planes> planes_of(const Tensor& q) {
  if (!per_tensor_bytes(q) || (q.dim() != 3 && q.dim() != 4)) return std::nullopt;
  const std::optional<MemoryFormat> layout = dense_layout(q);
  if (!layout) return std::nullopt;
  const bool b = q.dim() == 4;
  return Planes{b ? q.size(0) : 1, q.size(b ? 1 : 0), q.size(-2), q.size(-1),
                *layout == MemoryFormat::ChannelsLast};
}

Tensor output_like(const Tensor& q, const Planes& g, int64_t OH, int64_t OW) {
  DimVector sizes(q.sizes());
  sizes[sizes.size() - 2] = OH;
  sizes[sizes.size() - 1] = OW;
  return empty_quantized(sizes, q.impl()->quantizer(),
                         g.channels_last ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous);
}

// Runs one output value per call, in parallel: row-major f_plane(plane,
// oh, ow) for every H x W plane; channels-last f_pixel(n, oh, ow), which
// writes the pixel's C channels.
template <class PlaneFn, class PixelFn>
void for_each_output(const Planes& g, int64_t OH, int64_t OW, PlaneFn f_plane, PixelFn f_pixel) {
  if (!g.channels_last) {
    const int64_t per = std::max<int64_t>(1, OH * OW);
    parallel_for(0, g.N * g.C, std::max<int64_t>(1, 16384 / per), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p)
        for (int64_t oh = 0; oh < OH; ++oh)
          for (int64_t ow = 0; ow < OW; ++ow) f_plane(p, oh, ow);
    });
  } else {
    parallel_for(0, g.N * OH * OW, std::max<int64_t>(1, 16384 / std::max<int64_t>(g.C, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t i = b; i < e; ++i) f_pixel(i / (OH * OW), (i / OW) % OH, i % OW);
                 });
  }
}

template <class T>
void max_pool(const Tensor& q, Tensor& y, const Planes& g, int64_t OH, int64_t OW, const int64_t* k,
              const int64_t* s, const int64_t* p, const int64_t* d) {
  const T* in = static_cast<const T*>(q.data_ptr());
  T* out = static_cast<T*>(y.data_ptr());
  const int64_t H = g.H, W = g.W, C = g.C;
  const int64_t kh = k[0], kw = k[1], sh = s[0], sw = s[1], ph = p[0], pw = p[1], dh = d[0], dw = d[1];
  for_each_output(
      g, OH, OW,
      [=](int64_t pl, int64_t oh, int64_t ow) {
        const T* src = in + pl * H * W;
        T m = std::numeric_limits<T>::lowest();
        for (int64_t i = 0; i < kh; ++i) {
          const int64_t h = oh * sh - ph + i * dh;
          if (h < 0 || h >= H) continue;
          for (int64_t j = 0; j < kw; ++j) {
            const int64_t w = ow * sw - pw + j * dw;
            if (w >= 0 && w < W) m = std::max(m, src[h * W + w]);
          }
        }
        out[(pl * OH + oh) * OW + ow] = m;
      },
      [=](int64_t n, int64_t oh, int64_t ow) {
        T* __restrict__ dst = out + ((n * OH + oh) * OW + ow) * C;
        std::fill(dst, dst + C, std::numeric_limits<T>::lowest());
        for (int64_t i = 0; i < kh; ++i) {
          const int64_t h = oh * sh - ph + i * dh;
          if (h < 0 || h >= H) continue;
          for (int64_t j = 0; j < kw; ++j) {
            const int64_t w = ow * sw - pw + j * dw;
            if (w < 0 || w >= W) continue;
            const T* __restrict__ src = in + ((n * H + h) * W + w) * C;
            for (int64_t c = 0; c < C; ++c) dst[c] = std::max(dst[c], src[c]);
          }
        }
      });
}

// One window of an average pooling: rows [h0, h1) and cols [w0, w1) of the
// input and the float32 multiplier its sum is requantized with (the general
// path's: 1 / divisor for avg_pool2d, 1 / height / width for the adaptive one).
struct AvgWindow {
  int64_t h0, h1, w0, w1;
  float multiplier;
};

template <class T, class WindowFn>
void avg_pool(const Tensor& q, Tensor& y, const Planes& g, int64_t OH, int64_t OW, WindowFn window) {
  const T* in = static_cast<const T*>(q.data_ptr());
  T* out = static_cast<T*>(y.data_ptr());
  const int64_t H = g.H, W = g.W, C = g.C, zp = q.q_zero_point();
  const int64_t lo = quant_min_of(q.dtype()), hi = quant_max_of(q.dtype());
  const bool cl = q.dim() == 4 && q.is_contiguous(MemoryFormat::ChannelsLast);  // torch's choice of formula
  auto finish = [=](int64_t sum, const AvgWindow& a) {
    const int64_t count = (a.h1 - a.h0) * (a.w1 - a.w0);
    return static_cast<T>(std::clamp<int64_t>(average_q(sum - zp * count, a.multiplier, zp, cl), lo, hi));
  };
  for_each_output(
      g, OH, OW,
      [=](int64_t pl, int64_t oh, int64_t ow) {
        const AvgWindow a = window(oh, ow);
        const T* src = in + pl * H * W;
        int64_t sum = 0;
        for (int64_t h = a.h0; h < a.h1; ++h)
          for (int64_t w = a.w0; w < a.w1; ++w) sum += src[h * W + w];
        out[(pl * OH + oh) * OW + ow] = finish(sum, a);
      },
      [=](int64_t n, int64_t oh, int64_t ow) {
        const AvgWindow a = window(oh, ow);
        // int32 sums: a window of up to 2^23 bytes cannot overflow them
        std::vector<int32_t> sums(static_cast<size_t>(C), 0);
        int32_t* __restrict__ acc = sums.data();
        for (int64_t h = a.h0; h < a.h1; ++h)
          for (int64_t w = a.w0; w < a.w1; ++w) {
            const T* __restrict__ src = in + ((n * H + h) * W + w) * C;
            for (int64_t c = 0; c < C; ++c) acc[c] += src[c];
          }
        T* dst = out + ((n * OH + oh) * OW + ow) * C;
        for (int64_t c = 0; c < C; ++c) dst[c] = finish(acc[c], a);
      });
}

}  // namespace

Tensor max_pool2d_bytes(const Tensor& q, std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
                        std::vector<int64_t> d, bool ceil_mode) {
  const std::optional<Planes> g = planes_of(q);
  if (!g || k.size() != 2 || s.size() != 2 || p.size() != 2 || d.size() != 2) return Tensor();
  int64_t out[2];
  const int64_t in[2] = {g->H, g->W};
  for (int i = 0; i < 2; ++i) {
    // Leave what the general path rejects to it (it names the error).
    if (k[i] <= 0 || s[i] <= 0 || d[i] <= 0 || p[i] < 0 || p[i] > ((k[i] - 1) * d[i] + 1) / 2) return Tensor();
    out[i] = pooled_size(in[i], k[i], s[i], p[i], d[i], ceil_mode);
    if (out[i] <= 0) return Tensor();
  }
  Tensor y = output_like(q, *g, out[0], out[1]);
  if (y.numel() == 0) return y;
  if (q.dtype() == kQUInt8)
    max_pool<uint8_t>(q, y, *g, out[0], out[1], k.data(), s.data(), p.data(), d.data());
  else
    max_pool<int8_t>(q, y, *g, out[0], out[1], k.data(), s.data(), p.data(), d.data());
  return y;
}

Tensor avg_pool2d_bytes(const Tensor& q, std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
                        bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  const std::optional<Planes> g = planes_of(q);
  if (!g || k.size() != 2 || s.size() != 2 || p.size() != 2) return Tensor();
  if (divisor_override && *divisor_override == 0) return Tensor();
  int64_t out[2];
  const int64_t in[2] = {g->H, g->W};
  for (int i = 0; i < 2; ++i) {
    if (k[i] <= 0 || s[i] <= 0 || p[i] < 0 || p[i] > k[i] / 2) return Tensor();
    out[i] = pooled_size(in[i], k[i], s[i], p[i], 1, ceil_mode);
    if (out[i] <= 0) return Tensor();
  }
  Tensor y = output_like(q, *g, out[0], out[1]);
  if (y.numel() == 0) return y;
  const int64_t H = g->H, W = g->W, kh = k[0], kw = k[1], sh = s[0], sw = s[1], ph = p[0], pw = p[1];
  const int64_t over = divisor_override.value_or(0);
  // PyTorch's avg_pool2d window: the pool size counts the padding (clipped
  // to the padded input), the count the input elements.
  auto window = [=](int64_t oh, int64_t ow) {
    int64_t h0 = oh * sh - ph, w0 = ow * sw - pw;
    int64_t h1 = std::min(h0 + kh, H + ph), w1 = std::min(w0 + kw, W + pw);
    const int64_t pool = (h1 - h0) * (w1 - w0);
    h0 = std::max<int64_t>(h0, 0);
    w0 = std::max<int64_t>(w0, 0);
    h1 = std::min(h1, H);
    w1 = std::min(w1, W);
    const int64_t divisor = over ? over : count_include_pad ? pool : (h1 - h0) * (w1 - w0);
    return AvgWindow{h0, h1, w0, w1, 1.0f / static_cast<float>(divisor)};
  };
  if (q.dtype() == kQUInt8)
    avg_pool<uint8_t>(q, y, *g, out[0], out[1], window);
  else
    avg_pool<int8_t>(q, y, *g, out[0], out[1], window);
  return y;
}

Tensor adaptive_avg_pool2d_bytes(const Tensor& q, int64_t OH, int64_t OW) {
  const std::optional<Planes> g = planes_of(q);
  if (!g || OH < 0 || OW < 0) return Tensor();
  Tensor y = output_like(q, *g, OH, OW);
  if (y.numel() == 0 || g->H == 0 || g->W == 0) return y.numel() == 0 ? y : Tensor();
  const int64_t H = g->H, W = g->W;
  auto window = [=](int64_t oh, int64_t ow) {
    const int64_t h0 = oh * H / OH, h1 = ((oh + 1) * H + OH - 1) / OH;
    const int64_t w0 = ow * W / OW, w1 = ((ow + 1) * W + OW - 1) / OW;
    return AvgWindow{h0, h1, w0, w1, 1.0f / static_cast<float>(h1 - h0) / static_cast<float>(w1 - w0)};
  };
  if (q.dtype() == kQUInt8)
    avg_pool<uint8_t>(q, y, *g, OH, OW, window);
  else
    avg_pool<int8_t>(q, y, *g, OH, OW, window);
  return y;
}

}  // namespace ember::ao::nn::quantized::functional::detail
