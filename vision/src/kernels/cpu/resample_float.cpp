// Floating-point separable resampling (float32 and float64 images).
#include <algorithm>
#include <vector>

#include <ember/core/parallel.h>

#include "kernels/cpu/resample.h"

namespace ember::vision::transforms::detail {
namespace {

// out[o][c] = sum_k w[o][k] * in[start[o] + k][c] over one row of pixels of P values.
template <class S, int kPixel>
void horizontal_row(const S* in, S* out, const AxisWeights<S>& w, int64_t pixel_dyn) {
  const int64_t pixel = kPixel > 0 ? kPixel : pixel_dyn;
  const int64_t taps = w.taps;
  if (taps == 2) {  // bilinear without antialiasing: no inner loop
    for (int64_t o = 0; o < w.out_size; ++o) {
      const S w0 = w.weights[static_cast<size_t>(2 * o)], w1 = w.weights[static_cast<size_t>(2 * o + 1)];
      const S* src = in + w.start[static_cast<size_t>(o)] * pixel;
      for (int64_t c = 0; c < pixel; ++c) {
        S acc = w0 * src[c];
        acc += w1 * src[pixel + c];
        out[o * pixel + c] = acc;
      }
    }
    return;
  }
  for (int64_t o = 0; o < w.out_size; ++o) {
    const S* wo = w.weights.data() + o * taps;
    const S* src = in + w.start[static_cast<size_t>(o)] * pixel;
    for (int64_t c = 0; c < pixel; ++c) {
      S acc = wo[0] * src[c];
      for (int64_t k = 1; k < taps; ++k) acc += wo[k] * src[k * pixel + c];
      out[o * pixel + c] = acc;
    }
  }
}

template <class S>
void horizontal(const S* in, S* out, const AxisWeights<S>& w, int64_t pixel) {
  switch (pixel) {
    case 1: return horizontal_row<S, 1>(in, out, w, 1);
    case 3: return horizontal_row<S, 3>(in, out, w, 3);
    case 4: return horizontal_row<S, 4>(in, out, w, 4);
    default: return horizontal_row<S, 0>(in, out, w, pixel);
  }
}

// out[x] = sum_k w[k] * rows[k][x], rows given by pointer.
template <class S>
void vertical(const S* const* rows, const S* w, int64_t taps, S* out, int64_t n) {
  const S* r0 = rows[0];
  const S w0 = w[0];
  for (int64_t x = 0; x < n; ++x) out[x] = w0 * r0[x];
  for (int64_t k = 1; k < taps; ++k) {
    const S* r = rows[k];
    const S wk = w[k];
    for (int64_t x = 0; x < n; ++x) out[x] += wk * r[x];
  }
}

}  // namespace

template <class S>
void resample_float(const S* src, const ImageLayout& in, S* dst, const ImageLayout& out, const AxisWeights<S>* rows,
                    const AxisWeights<S>* cols) {
  const int64_t total = out.count * out.height;
  const int64_t work_per_row = out.row_values() * ((rows ? rows->taps : 1) + (cols ? cols->taps : 1));
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, work_per_row));
  const int64_t row_values = out.width * in.pixel;  // one row after the horizontal pass
  parallel_for(0, total, grain, [&](int64_t begin, int64_t end) {
    std::vector<S> tmp;
    std::vector<int64_t> slot;
    std::vector<const S*> row_ptrs;
    for (int64_t r = begin; r < end;) {
      const int64_t i = r / out.height;
      const int64_t y0 = r % out.height;
      const int64_t y1 = std::min(out.height, y0 + (end - r));
      r += y1 - y0;
      const S* image = src + in.offset(i);
      S* out_image = dst + out.offset(i);
      if (rows == nullptr) {  // horizontal only
        for (int64_t y = y0; y < y1; ++y)
          horizontal(image + y * in.row_stride, out_image + y * out.row_stride, *cols, in.pixel);
        continue;
      }
      // The input rows the output rows [y0, y1) read.
      const int64_t taps = rows->taps;
      const int64_t lo = rows->start[static_cast<size_t>(y0)];
      const int64_t hi = rows->start[static_cast<size_t>(y1 - 1)] + taps;
      slot.assign(static_cast<size_t>(hi - lo), -1);
      for (int64_t y = y0; y < y1; ++y)
        for (int64_t k = 0; k < taps; ++k) slot[static_cast<size_t>(rows->start[static_cast<size_t>(y)] + k - lo)] = 0;
      row_ptrs.assign(static_cast<size_t>(hi - lo), nullptr);
      if (cols == nullptr) {
        for (int64_t s = lo; s < hi; ++s) row_ptrs[static_cast<size_t>(s - lo)] = image + s * in.row_stride;
      } else {
        int64_t needed = 0;
        for (auto& v : slot)
          if (v == 0) v = needed++;
        tmp.resize(static_cast<size_t>(needed * row_values));
        for (int64_t s = lo; s < hi; ++s) {
          const int64_t k = slot[static_cast<size_t>(s - lo)];
          if (k < 0) continue;
          S* t = tmp.data() + k * row_values;
          horizontal(image + s * in.row_stride, t, *cols, in.pixel);
          row_ptrs[static_cast<size_t>(s - lo)] = t;
        }
      }
      for (int64_t y = y0; y < y1; ++y) {
        const int64_t start = rows->start[static_cast<size_t>(y)];
        vertical(row_ptrs.data() + (start - lo), rows->weights.data() + y * taps, taps,
                 out_image + y * out.row_stride, out.row_values());
      }
    }
  });
}

template void resample_float<float>(const float*, const ImageLayout&, float*, const ImageLayout&,
                                    const AxisWeights<float>*, const AxisWeights<float>*);
template void resample_float<double>(const double*, const ImageLayout&, double*, const ImageLayout&,
                                     const AxisWeights<double>*, const AxisWeights<double>*);

}  // namespace ember::vision::transforms::detail
