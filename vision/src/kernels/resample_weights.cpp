// Per-axis resampling weights (see resample_weights.h for whose formulas).
#include "kernels/resample_weights.h"

#include <algorithm>
#include <cmath>

namespace ember::vision::transforms::detail {
namespace {

// The contributions to each output, as input index -> weight over a
// contiguous window [lo, lo + len), built with indices in non-decreasing
// order (taps clamped to the border add to the border's weight).
template <class S>
struct Windows {
  Windows(int64_t out_size, int64_t capacity)
      : cap(capacity),
        lo(static_cast<size_t>(out_size), 0),
        len(static_cast<size_t>(out_size), 0),
        w(static_cast<size_t>(out_size * capacity), S(0)) {}
  void add(int64_t o, int64_t index, S weight) {
    const size_t u = static_cast<size_t>(o);
    S* row = w.data() + o * cap;
    if (len[u] == 0) {
      lo[u] = index;
      len[u] = 1;
      row[0] = weight;
      return;
    }
    const int64_t k = index - lo[u];
    if (k >= len[u]) len[u] = k + 1;  // the slots in between are still zero
    row[k] += weight;
  }
  int64_t cap;
  std::vector<int64_t> lo, len;
  std::vector<S> w;
};

// Lays the windows out with one tap count, moving a window left where its
// padding would run past the end of the axis.
template <class S>
AxisWeights<S> pack(int64_t in_size, const Windows<S>& windows) {
  AxisWeights<S> out;
  out.in_size = in_size;
  out.out_size = static_cast<int64_t>(windows.lo.size());
  for (int64_t n : windows.len) out.taps = std::max(out.taps, n);
  out.taps = std::max<int64_t>(out.taps, 1);
  out.start.resize(windows.lo.size());
  out.weights.assign(windows.lo.size() * static_cast<size_t>(out.taps), S(0));
  for (size_t o = 0; o < windows.lo.size(); ++o) {
    const int64_t start = std::max<int64_t>(0, std::min(windows.lo[o], in_size - out.taps));
    out.start[o] = start;
    const S* src = windows.w.data() + static_cast<int64_t>(o) * windows.cap;
    for (int64_t k = 0; k < windows.len[o]; ++k)
      out.weights[o * static_cast<size_t>(out.taps) + static_cast<size_t>(windows.lo[o] - start + k)] = src[k];
  }
  return out;
}

// area_pixel_compute_source_index(scale, dst, align_corners=false, cubic):
// computed in double, stored in S, as torch's expression does.
template <class S>
S source_index(S scale, int64_t dst, bool cubic) {
  const S src = static_cast<S>(static_cast<double>(scale) * (static_cast<double>(dst) + 0.5) - 0.5);
  return (!cubic && src < S(0)) ? S(0) : src;
}

template <class S>
S cubic_convolution1(S x, S a) {
  return ((a + S(2)) * x - (a + S(3))) * x * x + S(1);
}
template <class S>
S cubic_convolution2(S x, S a) {
  return ((a * x - S(5) * a) * x + S(8) * a) * x - S(4) * a;
}

template <class S>
S linear_filter(S x) {
  if (x < S(0)) x = -x;
  if (x < S(1)) return static_cast<S>(1.0 - x);
  return S(0);
}

// PIL's bicubic (a = -0.5), which torch's antialiased bicubic uses.
template <class S>
S cubic_filter(S x) {
  const S a = S(-0.5);
  x = std::abs(x);
  if (x < S(1)) return cubic_convolution1(x, a);
  if (x < S(2)) return cubic_convolution2(x, a);
  return S(0);
}

}  // namespace

template <class S>
AxisWeights<S> interpolation_weights(int64_t in_size, int64_t out_size, ResampleFilter filter) {
  Windows<S> windows(out_size, 4);
  const S scale = static_cast<S>(in_size) / static_cast<S>(out_size);
  for (int64_t o = 0; o < out_size; ++o) {
    if (in_size == out_size) {
      windows.add(o, o, S(1));
      continue;
    }
    if (filter == ResampleFilter::Linear) {
      const S real = source_index(scale, o, /*cubic=*/false);
      const int64_t i0 = static_cast<int64_t>(real);
      const int64_t i1 = i0 + (i0 < in_size - 1 ? 1 : 0);
      const S l1 = std::min(std::max(real - static_cast<S>(i0), S(0)), S(1));
      const S l0 = S(1) - l1;
      windows.add(o, i0, l0);
      windows.add(o, i1, l1);
    } else {
      const S real = source_index(scale, o, /*cubic=*/true);
      const int64_t i0 = static_cast<int64_t>(std::floor(real));
      const S t = real - static_cast<S>(i0);
      const S a = S(-0.75);
      const S c[4] = {cubic_convolution2<S>(t + S(1), a), cubic_convolution1<S>(t, a),
                      cubic_convolution1<S>(S(1) - t, a), cubic_convolution2<S>(S(1) - t + S(1), a)};
      for (int k = 0; k < 4; ++k) windows.add(o, std::clamp<int64_t>(i0 - 1 + k, 0, in_size - 1), c[k]);
    }
  }
  return pack(in_size, windows);
}

template <class S>
AxisWeights<S> antialias_weights(int64_t in_size, int64_t out_size, ResampleFilter filter) {
  const S scale = static_cast<S>(in_size) / static_cast<S>(out_size);
  const double half_taps = filter == ResampleFilter::Linear ? 1.0 : 2.0;  // interp_size * 0.5
  const S support = static_cast<S>(scale >= S(1) ? half_taps * static_cast<double>(scale) : half_taps);
  const S invscale = static_cast<S>(scale >= S(1) ? 1.0 / static_cast<double>(scale) : 1.0);
  // torch's bound on the window, ceil(support) * 2 + 1 taps, plus one for safety.
  Windows<S> windows(out_size, static_cast<int64_t>(std::ceil(static_cast<double>(support))) * 2 + 2);
  std::vector<S> w(static_cast<size_t>(windows.cap));
  for (int64_t o = 0; o < out_size; ++o) {
    const S center = static_cast<S>(static_cast<double>(scale) * (static_cast<double>(o) + 0.5));
    const int64_t xmin = std::max<int64_t>(static_cast<int64_t>(static_cast<double>(center - support) + 0.5), 0);
    const int64_t xsize = std::min<int64_t>(
        std::min<int64_t>(static_cast<int64_t>(static_cast<double>(center + support) + 0.5), in_size) - xmin,
        windows.cap);
    S total = 0;
    for (int64_t j = 0; j < xsize; ++j) {
      const S x = static_cast<S>(
          (static_cast<double>(static_cast<S>(j + xmin) - center) + 0.5) * static_cast<double>(invscale));
      w[static_cast<size_t>(j)] = filter == ResampleFilter::Linear ? linear_filter(x) : cubic_filter(x);
      total += w[static_cast<size_t>(j)];
    }
    for (int64_t j = 0; j < xsize; ++j) {
      if (total != S(0)) w[static_cast<size_t>(j)] /= total;
      windows.add(o, xmin + j, w[static_cast<size_t>(j)]);
    }
    if (windows.len[static_cast<size_t>(o)] == 0) windows.add(o, std::min(xmin, in_size - 1), S(0));
  }
  return pack(in_size, windows);
}

std::vector<int64_t> nearest_indices(int64_t in_size, int64_t out_size) {
  std::vector<int64_t> index(static_cast<size_t>(out_size));
  const float scale = static_cast<float>(in_size) / static_cast<float>(out_size);
  for (int64_t o = 0; o < out_size; ++o) {
    const int64_t src =
        in_size == out_size ? o : static_cast<int64_t>(std::floor(static_cast<float>(o) * scale));
    index[static_cast<size_t>(o)] = std::min(src, in_size - 1);
  }
  return index;
}

FixedAxisWeights to_fixed(const AxisWeights<float>& w, int64_t tap_multiple) {
  FixedAxisWeights f;
  f.in_size = w.in_size;
  f.out_size = w.out_size;
  f.taps = w.taps;
  const int64_t rounded = (w.taps + tap_multiple - 1) / tap_multiple * tap_multiple;
  if (rounded <= w.in_size) f.taps = rounded;
  f.start.resize(static_cast<size_t>(w.out_size));
  f.weights.assign(static_cast<size_t>(w.out_size * f.taps), 0);
  constexpr int32_t one = 1 << kWeightBits;
  for (int64_t o = 0; o < w.out_size; ++o) {
    const float* src = w.weights.data() + o * w.taps;
    int16_t* dst = f.weights.data() + o * f.taps;
    const int64_t start = std::min(w.start[static_cast<size_t>(o)], w.in_size - f.taps);
    // Extra zero taps go after the window, or before it where it ends at the axis end.
    const int64_t offset = w.start[static_cast<size_t>(o)] - start;
    f.start[static_cast<size_t>(o)] = start;
    int32_t sum = 0;
    int64_t largest = 0;
    double abs_sum = 0;
    for (int64_t k = 0; k < w.taps; ++k) {
      const int32_t q = static_cast<int32_t>(std::lrint(static_cast<double>(src[k]) * one));
      dst[offset + k] = static_cast<int16_t>(q);
      sum += q;
      if (std::abs(src[k]) > std::abs(src[largest])) largest = k;
    }
    // Exact unit sum: flat regions stay exactly flat.
    if (sum != 0) dst[offset + largest] = static_cast<int16_t>(dst[offset + largest] + (one - sum));
    for (int64_t k = 0; k < f.taps; ++k) abs_sum += std::abs(static_cast<double>(dst[k])) / one;
    f.max_abs_sum = std::max(f.max_abs_sum, abs_sum);
  }
  return f;
}

template AxisWeights<float> interpolation_weights<float>(int64_t, int64_t, ResampleFilter);
template AxisWeights<double> interpolation_weights<double>(int64_t, int64_t, ResampleFilter);
template AxisWeights<float> antialias_weights<float>(int64_t, int64_t, ResampleFilter);
template AxisWeights<double> antialias_weights<double>(int64_t, int64_t, ResampleFilter);

}  // namespace ember::vision::transforms::detail
