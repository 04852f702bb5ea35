// uint8 separable resampling in fixed point.
//
// Note [Fixed-point resize]
// Weights are Q14 int16 (1.0 = 16384, each output's weights summing to exactly
// 16384), pixels go through one intermediate row of int16 holding Q`q`
// values (q = 7 when no weight is negative, less for bicubic's overshoot, so
// that |value| << q fits in int16), and products are summed in int32
// (pmaddwd: two taps per instruction). The result is rounded half to even and
// clamped to [0, 255]; it is within one unit of torchvision's float32
// computation (which rounds half to even).
//
// Pass order: torch resamples horizontally first. Here either order may run,
// whichever costs less: horizontal-first resamples every input row that an
// output row reads, vertical-first resamples only out_h rows horizontally
// but runs the vertical pass over full input rows. Both work per output row
// chunk with a small buffer, so the intermediate stays in cache.
#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include <ember/core/parallel.h>

#include "transforms/geometry/resample.h"
#include "transforms/geometry/resample_uint8.h"

namespace ember::vision::transforms::detail {
namespace {

// acc / 2^shift rounded half to even (torch.round's rule: exact ties, as
// 0.5 * a + 0.5 * b, are common with integer pixels and binary fractions).
inline int32_t round_shift(int32_t acc, int shift) {
  return (acc + ((1 << (shift - 1)) - 1) + ((acc >> shift) & 1)) >> shift;
}

template <class Out>
inline Out finish(int32_t acc, int shift) {
  const int32_t v = round_shift(acc, shift);
  if constexpr (std::is_same_v<Out, uint8_t>) {
    return static_cast<uint8_t>(std::clamp(v, 0, 255));
  } else {
    return static_cast<int16_t>(std::clamp(v, -32768, 32767));
  }
}

// ---- vertical pass: out[x] = sum_k w[k] * rows[k][x] ----

template <class In, class Out>
void vertical_scalar(const In* const* rows, const int16_t* w, int64_t taps, Out* out, int64_t begin, int64_t end,
                     int shift) {
  for (int64_t x = begin; x < end; ++x) {
    int32_t acc = 0;
    for (int64_t k = 0; k < taps; ++k) acc += static_cast<int32_t>(w[k]) * static_cast<int32_t>(rows[k][x]);
    out[x] = finish<Out>(acc, shift);
  }
}

#if defined(__AVX2__)
template <class In>
inline __m256i load16(const In* p) {
  if constexpr (std::is_same_v<In, uint8_t>) {
    return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  } else {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
}

// round_shift on eight lanes.
inline __m256i round_shift(__m256i acc, __m128i shift_v, int shift) {
  const __m256i odd = _mm256_and_si256(_mm256_sra_epi32(acc, shift_v), _mm256_set1_epi32(1));
  acc = _mm256_add_epi32(acc, _mm256_add_epi32(odd, _mm256_set1_epi32((1 << (shift - 1)) - 1)));
  return _mm256_sra_epi32(acc, shift_v);
}
inline __m128i round_shift(__m128i acc, __m128i shift_v, int shift) {
  const __m128i odd = _mm_and_si128(_mm_sra_epi32(acc, shift_v), _mm_set1_epi32(1));
  acc = _mm_add_epi32(acc, _mm_add_epi32(odd, _mm_set1_epi32((1 << (shift - 1)) - 1)));
  return _mm_sra_epi32(acc, shift_v);
}

inline __m256i weight_pair(int16_t a, int16_t b) {
  return _mm256_set1_epi32(static_cast<int32_t>(static_cast<uint16_t>(a)) |
                           (static_cast<int32_t>(static_cast<uint16_t>(b)) << 16));
}
#endif

template <class In, class Out>
void vertical(const In* const* rows, const int16_t* w, int64_t taps, Out* out, int64_t n, int shift) {
  int64_t x = 0;
#if defined(__AVX2__)
  const __m128i shift_v = _mm_cvtsi32_si128(shift);
  for (; x + 16 <= n; x += 16) {
    __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
    int64_t k = 0;
    for (; k + 2 <= taps; k += 2) {
      const __m256i a = load16(rows[k] + x);
      const __m256i b = load16(rows[k + 1] + x);
      const __m256i wp = weight_pair(w[k], w[k + 1]);
      lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), wp));
      hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), wp));
    }
    if (k < taps) {
      const __m256i a = load16(rows[k] + x);
      const __m256i z = _mm256_setzero_si256();
      const __m256i wp = weight_pair(w[k], 0);
      lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, z), wp));
      hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, z), wp));
    }
    lo = round_shift(lo, shift_v, shift);
    hi = round_shift(hi, shift_v, shift);
    const __m256i packed = _mm256_packs_epi32(lo, hi);  // in order: unpack and pack both work per 128-bit lane
    if constexpr (std::is_same_v<Out, uint8_t>) {
      const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(packed, packed), 0xD8);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + x), _mm256_castsi256_si128(bytes));
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + x), packed);
    }
  }
#endif
  vertical_scalar(rows, w, taps, out, x, n, shift);
}

// ---- horizontal pass: out[o][c] = sum_k w[o][k] * in[start[o] + k][c] ----

template <class In, class Out>
void horizontal_scalar(const In* in, Out* out, const FixedAxisWeights& w, int64_t pixel, int64_t o_begin,
                       int64_t o_end, int shift) {
  const int64_t taps = w.taps;
  for (int64_t o = o_begin; o < o_end; ++o) {
    const int16_t* wo = w.weights.data() + o * taps;
    const In* src = in + w.start[static_cast<size_t>(o)] * pixel;
    for (int64_t c = 0; c < pixel; ++c) {
      int32_t acc = 0;
      for (int64_t k = 0; k < taps; ++k) acc += static_cast<int32_t>(wo[k]) * static_cast<int32_t>(src[k * pixel + c]);
      out[o * pixel + c] = finish<Out>(acc, shift);
    }
  }
}

#if defined(__AVX2__)
// Eight consecutive values as int16.
template <class In>
inline __m128i load8(const In* p) {
  if constexpr (std::is_same_v<In, uint8_t>) {
    return _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  } else {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  }
}

// Stores the low `count` int32 lanes of v, shifted, as Out.
template <class Out>
inline void store_pixel(Out* out, __m128i v, int count, bool exact) {
  const __m128i w16 = _mm_packs_epi32(v, v);
  if constexpr (std::is_same_v<Out, uint8_t>) {
    const __m128i w8 = _mm_packus_epi16(w16, w16);
    if (!exact || count == 4) {
      const int32_t word = _mm_cvtsi128_si32(w8);
      std::memcpy(out, &word, 4);
    } else {
      const int32_t word = _mm_cvtsi128_si32(w8);
      std::memcpy(out, &word, static_cast<size_t>(count));
    }
  } else {
    if (!exact || count == 4) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out), w16);
    } else {
      alignas(16) int16_t tmp[8];
      _mm_store_si128(reinterpret_cast<__m128i*>(tmp), w16);
      std::memcpy(out, tmp, sizeof(int16_t) * static_cast<size_t>(count));
    }
  }
}

// Interleaved 3- or 4-value pixels, two taps per step: the pair's values
// shuffled to (c of tap 0, c of tap 1) int16 pairs, times (w0, w1).
template <class In, class Out, int kPixel>
void horizontal_pixels(const In* in, Out* out, const HorizontalPlan& plan, int64_t o_end, int shift) {
  static_assert(kPixel == 3 || kPixel == 4);
  const FixedAxisWeights& w = *plan.weights;
  const int64_t pairs = w.taps / 2;
  const __m128i shuffle = kPixel == 3 ? _mm_setr_epi8(0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11, -1, -1, -1, -1)
                                      : _mm_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
  const __m128i shift_v = _mm_cvtsi32_si128(shift);
  for (int64_t o = 0; o < o_end; ++o) {
    const In* src = in + w.start[static_cast<size_t>(o)] * kPixel;
    const __m128i* wv = reinterpret_cast<const __m128i*>(plan.expanded.data()) + o * pairs;
    __m128i acc = _mm_setzero_si128();
    for (int64_t t = 0; t < pairs; ++t) {
      const __m128i v = _mm_shuffle_epi8(load8(src + 2 * t * kPixel), shuffle);
      acc = _mm_add_epi32(acc, _mm_madd_epi16(v, _mm_loadu_si128(wv + t)));
    }
    acc = round_shift(acc, shift_v, shift);
    store_pixel(out + o * kPixel, acc, kPixel, /*exact=*/o + 1 == w.out_size);
  }
}

// One value per pixel: eight taps per step, then a horizontal sum.
template <class In, class Out>
void horizontal_plane(const In* in, Out* out, const HorizontalPlan& plan, int64_t o_end, int shift) {
  const FixedAxisWeights& w = *plan.weights;
  const int64_t taps = w.taps;
  for (int64_t o = 0; o < o_end; ++o) {
    const In* src = in + w.start[static_cast<size_t>(o)];
    const int16_t* wo = w.weights.data() + o * taps;
    __m128i acc = _mm_setzero_si128();
    for (int64_t k = 0; k < taps; k += 8)
      acc = _mm_add_epi32(acc, _mm_madd_epi16(load8(src + k), _mm_loadu_si128(reinterpret_cast<const __m128i*>(wo + k))));
    acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, 0x4E));
    acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, 0xB1));
    out[o] = finish<Out>(_mm_cvtsi128_si32(acc), shift);
  }
}
#endif

template <class In, class Out>
void horizontal(const In* in, Out* out, const HorizontalPlan& plan, int64_t pixel, int shift) {
  const FixedAxisWeights& w = *plan.weights;
  int64_t done = 0;
#if defined(__AVX2__)
  // plan.simd_end: the outputs whose loads stay inside the row (uint8 rows
  // are the caller's memory; int16 rows are padded buffers of ours).
  const int64_t simd_end = std::is_same_v<In, uint8_t> ? plan.simd_end_uint8 : plan.simd_end_int16;
  if (simd_end > 0) {
    if (pixel == 3) horizontal_pixels<In, Out, 3>(in, out, plan, simd_end, shift);
    else if (pixel == 4) horizontal_pixels<In, Out, 4>(in, out, plan, simd_end, shift);
    else horizontal_plane<In, Out>(in, out, plan, simd_end, shift);
    done = simd_end;
  }
#endif
  horizontal_scalar(in, out, w, pixel, done, w.out_size, shift);
}

// The intermediate precision: as many fraction bits (up to 7) as the first
// pass's largest output, 255 * sum |w|, leaves room for in int16.
int intermediate_bits(double max_abs_sum) {
  int q = 7;
  while (q > 0 && 255.0 * max_abs_sum * (1 << q) > 32000.0) --q;
  return q;
}

}  // namespace

HorizontalPlan make_horizontal_plan(const FixedAxisWeights& w, int64_t pixel) {
  HorizontalPlan plan;
  plan.weights = &w;
#if defined(__AVX2__)
  const bool grouped = pixel == 3 || pixel == 4;
  const int64_t group = grouped ? 2 : 8;
  if ((pixel != 1 && !grouped) || w.taps % group != 0) return plan;  // scalar only
  if (grouped) {
    // Per output and tap pair: (w0, w1) repeated for each value of the pixel.
    const int64_t pairs = w.taps / 2;
    plan.expanded.assign(static_cast<size_t>(w.out_size * pairs * 8), 0);
    for (int64_t o = 0; o < w.out_size; ++o)
      for (int64_t t = 0; t < pairs; ++t) {
        int16_t* e = plan.expanded.data() + (o * pairs + t) * 8;
        for (int64_t c = 0; c < pixel; ++c) {
          e[2 * c] = w.weights[static_cast<size_t>(o * w.taps + 2 * t)];
          e[2 * c + 1] = w.weights[static_cast<size_t>(o * w.taps + 2 * t + 1)];
        }
      }
  }
  // A 3-value pixel pair is loaded as 8 values: 2 past the pair. Outputs
  // whose window ends at the last pixel would read past the row.
  plan.simd_end_int16 = w.out_size;
  plan.simd_end_uint8 = w.out_size;
  if (pixel == 3) {
    plan.simd_end_uint8 = 0;
    while (plan.simd_end_uint8 < w.out_size &&
           w.start[static_cast<size_t>(plan.simd_end_uint8)] + w.taps < w.in_size)
      ++plan.simd_end_uint8;
  }
#else
  (void)pixel;
#endif
  return plan;
}

void resample_uint8(const uint8_t* src, const ImageLayout& in, uint8_t* dst, const ImageLayout& out,
                    const FixedAxisWeights* rows, const FixedAxisWeights* cols, PassOrder order) {
  const int64_t pixel = in.pixel;
  const int64_t in_values = in.row_values();
  const int64_t out_values = out.row_values();
  const int64_t mid_values = (cols ? cols->out_size : in.width) * pixel;  // a row after the horizontal pass
  constexpr int64_t kPad = 32;  // int16 rows are padded for the vector loads

  HorizontalPlan plan;
  if (cols) plan = make_horizontal_plan(*cols, pixel);

  // Which input rows the output rows read (the same for every image).
  if (order == PassOrder::Auto) {
    if (!rows || !cols) {
      order = PassOrder::HorizontalFirst;
    } else {
      std::vector<char> used(static_cast<size_t>(in.height), 0);
      for (int64_t y = 0; y < out.height; ++y)
        for (int64_t k = 0; k < rows->taps; ++k) used[static_cast<size_t>(rows->start[static_cast<size_t>(y)] + k)] = 1;
      const double needed = static_cast<double>(std::count(used.begin(), used.end(), 1));
      // Rough costs in vector steps: a horizontal output pixel costs a fixed
      // part plus one step per tap pair (per 8 taps for planes); the vertical
      // pass one step per 16 values per tap pair.
      const double h_pixel = pixel == 1 ? 6.0 + static_cast<double>(cols->taps) / 8.0
                                        : 4.0 + static_cast<double>(cols->taps) / 2.0;
      const double v_value = (1.0 + static_cast<double>(rows->taps) / 2.0) / 16.0;
      const double h_first = needed * static_cast<double>(out.width) * h_pixel +
                             static_cast<double>(out.height * out_values) * v_value;
      const double v_first = static_cast<double>(out.height * in_values) * v_value +
                             static_cast<double>(out.height * out.width) * h_pixel;
      order = v_first < h_first ? PassOrder::VerticalFirst : PassOrder::HorizontalFirst;
    }
  }
  const bool h_first = order == PassOrder::HorizontalFirst;
  // Fraction bits of the int16 rows between the passes.
  const int q = intermediate_bits(h_first ? (cols ? cols->max_abs_sum : 1.0) : (rows ? rows->max_abs_sum : 1.0));
  const int shift_first = kWeightBits - q;       // uint8 -> Qq
  const int shift_second = kWeightBits + q;      // Qq -> uint8
  const int shift_single = kWeightBits;          // uint8 -> uint8

  const int64_t total = out.count * out.height;
  const int64_t per_row = out_values * ((rows ? rows->taps : 1) + (cols ? cols->taps : 1));
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, per_row));
  parallel_for(0, total, grain, [&](int64_t begin, int64_t end) {
    std::vector<int16_t> tmp;
    std::vector<int64_t> slot;
    std::vector<const int16_t*> row16;
    std::vector<const uint8_t*> row8;
    for (int64_t r = begin; r < end;) {
      const int64_t i = r / out.height;
      const int64_t y0 = r % out.height;
      const int64_t y1 = std::min(out.height, y0 + (end - r));
      r += y1 - y0;
      const uint8_t* image = src + in.offset(i);
      uint8_t* out_image = dst + out.offset(i);
      if (!rows) {  // horizontal only
        for (int64_t y = y0; y < y1; ++y)
          horizontal<uint8_t, uint8_t>(image + y * in.row_stride, out_image + y * out.row_stride, plan, pixel,
                                       shift_single);
        continue;
      }
      const int64_t taps = rows->taps;
      if (!cols) {  // vertical only
        row8.resize(static_cast<size_t>(taps));
        for (int64_t y = y0; y < y1; ++y) {
          const int64_t s = rows->start[static_cast<size_t>(y)];
          for (int64_t k = 0; k < taps; ++k) row8[static_cast<size_t>(k)] = image + (s + k) * in.row_stride;
          vertical<uint8_t, uint8_t>(row8.data(), rows->weights.data() + y * taps, taps,
                                     out_image + y * out.row_stride, out_values, shift_single);
        }
        continue;
      }
      if (!h_first) {
        // Per output row: vertical over the full input row, then horizontal.
        tmp.resize(static_cast<size_t>(in_values + kPad));
        row8.resize(static_cast<size_t>(taps));
        for (int64_t y = y0; y < y1; ++y) {
          const int64_t s = rows->start[static_cast<size_t>(y)];
          for (int64_t k = 0; k < taps; ++k) row8[static_cast<size_t>(k)] = image + (s + k) * in.row_stride;
          vertical<uint8_t, int16_t>(row8.data(), rows->weights.data() + y * taps, taps, tmp.data(), in_values,
                                     shift_first);
          horizontal<int16_t, uint8_t>(tmp.data(), out_image + y * out.row_stride, plan, pixel, shift_second);
        }
        continue;
      }
      // Horizontal first: every input row the chunk reads, once, then vertical.
      const int64_t lo = rows->start[static_cast<size_t>(y0)];
      const int64_t hi = rows->start[static_cast<size_t>(y1 - 1)] + taps;
      slot.assign(static_cast<size_t>(hi - lo), -1);
      for (int64_t y = y0; y < y1; ++y)
        for (int64_t k = 0; k < taps; ++k) slot[static_cast<size_t>(rows->start[static_cast<size_t>(y)] + k - lo)] = 0;
      int64_t needed = 0;
      for (auto& v : slot)
        if (v == 0) v = needed++;
      const int64_t stride = mid_values + kPad;
      tmp.resize(static_cast<size_t>(needed * stride));
      row16.assign(static_cast<size_t>(hi - lo), nullptr);
      for (int64_t s = lo; s < hi; ++s) {
        const int64_t k = slot[static_cast<size_t>(s - lo)];
        if (k < 0) continue;
        int16_t* t = tmp.data() + k * stride;
        horizontal<uint8_t, int16_t>(image + s * in.row_stride, t, plan, pixel, shift_first);
        row16[static_cast<size_t>(s - lo)] = t;
      }
      for (int64_t y = y0; y < y1; ++y) {
        const int64_t s = rows->start[static_cast<size_t>(y)];
        vertical<int16_t, uint8_t>(row16.data() + (s - lo), rows->weights.data() + y * taps, taps,
                                   out_image + y * out.row_stride, out_values, shift_second);
      }
    }
  });
}

void resample_uint8(const uint8_t* src, const ImageLayout& in, uint8_t* dst, const ImageLayout& out,
                    const FixedAxisWeights* rows, const FixedAxisWeights* cols) {
  resample_uint8(src, in, dst, out, rows, cols, PassOrder::Auto);
}

}  // namespace ember::vision::transforms::detail
