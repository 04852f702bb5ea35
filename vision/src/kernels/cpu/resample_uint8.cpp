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
#include <memory>
#include <vector>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include <ember/core/parallel.h>

#include "kernels/cpu/resample.h"
#include "kernels/cpu/resample_uint8.h"

namespace ember::vision::transforms::detail {
namespace {

// The padded copy of a uint8 row's end that its last outputs read.
constexpr int64_t kTailValues = 1024;

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
void horizontal_scalar(const In* in, int64_t bias, Out* out, const FixedAxisWeights& w, int64_t pixel,
                       int64_t o_begin, int64_t o_end, int shift) {
  const int64_t taps = w.taps;
  for (int64_t o = o_begin; o < o_end; ++o) {
    const int16_t* wo = w.weights.data() + o * taps;
    const In* src = in + (w.start[static_cast<size_t>(o)] - bias) * pixel;
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

// acc / 2^shift: half to even for final uint8 values, half up for the
// intermediate int16 ones (a fraction of a unit below the result's precision).
template <class Out>
inline __m256i finish_shift(__m256i acc, __m128i shift_v, int shift) {
  if constexpr (std::is_same_v<Out, uint8_t>) {
    return round_shift(acc, shift_v, shift);
  } else {
    return _mm256_sra_epi32(_mm256_add_epi32(acc, _mm256_set1_epi32(1 << (shift - 1))), shift_v);
  }
}

// Stores the low `count` int32 lanes of v as Out values (all four when not exact).
template <class Out>
inline void store_pixel(Out* out, __m128i v, int count, bool exact) {
  const __m128i w16 = _mm_packs_epi32(v, v);
  if constexpr (std::is_same_v<Out, uint8_t>) {
    const int32_t word = _mm_cvtsi128_si32(_mm_packus_epi16(w16, w16));
    std::memcpy(out, &word, exact ? static_cast<size_t>(count) : 4);
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

// Two runs of eight consecutive values as int16, in the two 128-bit lanes.
template <class In>
inline __m256i load8x2(const In* a, const In* b) {
  if constexpr (std::is_same_v<In, uint8_t>) {
    return _mm256_cvtepu8_epi16(_mm_unpacklo_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a)),
                                                   _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b))));
  } else {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a))),
                                   _mm_loadu_si128(reinterpret_cast<const __m128i*>(b)), 1);
  }
}

// Interleaved 3- or 4-value pixels, two taps per step: a tap pair's values
// shuffled to (value c of tap 0, value c of tap 1) int16 pairs, times (w0, w1)
// with pmaddwd. Four outputs per iteration, one per 128-bit lane of two
// registers. The row holds input pixels from `bias` on. kPairs: the tap
// pairs when known at compile time (0: plan.weights->taps / 2).
template <class In, class Out, int kPixel, int kPairs>
void horizontal_pixels(const In* in, int64_t bias, Out* out, const HorizontalPlan& plan, int64_t o_begin,
                       int64_t o_end, int shift) {
  static_assert(kPixel == 3 || kPixel == 4);
  const FixedAxisWeights& w = *plan.weights;
  const int64_t pairs = kPairs > 0 ? kPairs : w.taps / 2;
  const __m128i shuffle = kPixel == 3 ? _mm_setr_epi8(0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11, -1, -1, -1, -1)
                                      : _mm_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
  const __m256i shuffle2 = _mm256_broadcastsi128_si256(shuffle);
  // Drops the 4th value of 3-value pixels: int16 [p, q] -> 6 values, bytes [p, q, r, s] -> 12.
  const __m256i compact16 = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, -1, -1, -1, -1,  //
                                             0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, -1, -1, -1, -1);
  const __m128i compact8 = _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
  const __m128i shift_v = _mm_cvtsi32_si128(shift);
  const int16_t* expanded = plan.expanded.data();
  const int64_t stride = plan.out_stride * 8;  // int16 per tap pair
  // 3-value pixels are stored with junk after them (up to 4 bytes, or 2 int16
  // values, past the 4th pixel), which the next pixels overwrite; nothing may
  // land past the row: its last pixels take the exact stores below.
  const int64_t quad_end = kPixel == 3 ? std::min(o_end, w.out_size - 2) : o_end;
  const int64_t* offset = plan.offset.data();  // window starts in values
  const int64_t bias_values = bias * kPixel;
  int64_t o = o_begin;
  for (; o + 4 <= quad_end; o += 4) {
    const In* s0 = in + (offset[o] - bias_values);
    const In* s1 = in + (offset[o + 1] - bias_values);
    const In* s2 = in + (offset[o + 2] - bias_values);
    const In* s3 = in + (offset[o + 3] - bias_values);
    const int16_t* wo = expanded + o * 8;
    __m256i acc01 = _mm256_setzero_si256(), acc23 = _mm256_setzero_si256();
    for (int64_t t = 0; t < pairs; ++t) {
      const int64_t k = 2 * t * kPixel;
      const __m256i v01 = _mm256_shuffle_epi8(load8x2(s0 + k, s1 + k), shuffle2);
      const __m256i v23 = _mm256_shuffle_epi8(load8x2(s2 + k, s3 + k), shuffle2);
      const __m256i* wt = reinterpret_cast<const __m256i*>(wo + t * stride);
      acc01 = _mm256_add_epi32(acc01, _mm256_madd_epi16(v01, _mm256_loadu_si256(wt)));
      acc23 = _mm256_add_epi32(acc23, _mm256_madd_epi16(v23, _mm256_loadu_si256(wt + 1)));
    }
    acc01 = finish_shift<Out>(acc01, shift_v, shift);
    acc23 = finish_shift<Out>(acc23, shift_v, shift);
    const __m256i w16 = _mm256_packs_epi32(acc01, acc23);  // lanes: [p0, p2], [p1, p3]
    if constexpr (std::is_same_v<Out, uint8_t>) {
      const __m256i b8 = _mm256_packus_epi16(w16, w16);
      __m128i q = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(b8, _mm256_setr_epi32(0, 4, 1, 5, 0, 0, 0, 0)));
      if constexpr (kPixel == 3) q = _mm_shuffle_epi8(q, compact8);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + o * kPixel), q);
    } else {
      __m256i q = _mm256_permute4x64_epi64(w16, 0xD8);  // [p0, p1], [p2, p3]
      if constexpr (kPixel == 3) {
        q = _mm256_shuffle_epi8(q, compact16);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + o * 3), _mm256_castsi256_si128(q));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (o + 2) * 3), _mm256_extracti128_si256(q, 1));
      } else {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + o * 4), q);
      }
    }
  }
  for (; o < o_end; ++o) {
    const In* src = in + (w.start[static_cast<size_t>(o)] - bias) * kPixel;
    const int16_t* wo = expanded + o * 8;
    __m128i acc = _mm_setzero_si128();
    for (int64_t t = 0; t < pairs; ++t) {
      const __m128i v = _mm_shuffle_epi8(load8(src + 2 * t * kPixel), shuffle);
      acc = _mm_add_epi32(acc, _mm_madd_epi16(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(wo + t * stride))));
    }
    acc = _mm256_castsi256_si128(finish_shift<Out>(_mm256_castsi128_si256(acc), shift_v, shift));
    store_pixel(out + o * kPixel, acc, kPixel, /*exact=*/o + 1 == w.out_size);
  }
}

// One value per pixel, eight outputs per iteration: a gather fetches the tap
// pair (x[s], x[s + 1]) of each output as one 32-bit word, pmaddwd weighs it.
template <class In, class Out, int kPairs>
void horizontal_plane(const In* in, int64_t bias, Out* out, const HorizontalPlan& plan, int64_t o_begin,
                      int64_t o_end, int shift) {
  const FixedAxisWeights& w = *plan.weights;
  const int64_t pairs = kPairs > 0 ? kPairs : w.taps / 2;
  const __m128i shift_v = _mm_cvtsi32_si128(shift);
  const __m256i bias_v = _mm256_set1_epi32(static_cast<int32_t>(bias));
  // uint8 words: bytes 0 and 1 of each 32-bit word widened to int16.
  const __m256i widen = _mm256_setr_epi8(0, -1, 1, -1, 4, -1, 5, -1, 8, -1, 9, -1, 12, -1, 13, -1,  //
                                         0, -1, 1, -1, 4, -1, 5, -1, 8, -1, 9, -1, 12, -1, 13, -1);
  int64_t o = o_begin;
  for (; o + 8 <= o_end; o += 8) {
    if constexpr (std::is_same_v<In, uint8_t> && kPairs == 1) {
      // Two taps, eight outputs within 64 bytes (Note [Shuffled gathers]):
      // four 16-byte blocks, each broadcast and byte-shuffled into place.
      if (o % 8 == 0 && plan.shuffles[static_cast<size_t>(o / 8)] != 0) {
        const uint8_t* base = in + (plan.start32[static_cast<size_t>(o)] - bias);
        const __m256i* mask = reinterpret_cast<const __m256i*>(plan.shuffle_masks.data()) + (o / 8) * 4;
        __m256i v = _mm256_shuffle_epi8(
            _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(base))), _mm256_loadu_si256(mask));
        for (int b = 1; b < 4; ++b)
          v = _mm256_or_si256(v, _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128(
                                                         reinterpret_cast<const __m128i*>(base + 16 * b))),
                                                     _mm256_loadu_si256(mask + b)));
        __m256i acc = _mm256_madd_epi16(v, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(plan.pairs8.data() + o)));
        acc = finish_shift<Out>(acc, shift_v, shift);
        const __m256i w16 = _mm256_permute4x64_epi64(_mm256_packs_epi32(acc, acc), 0x08);
        if constexpr (std::is_same_v<Out, uint8_t>) {
          _mm_storel_epi64(reinterpret_cast<__m128i*>(out + o),
                           _mm_packus_epi16(_mm256_castsi256_si128(w16), _mm256_castsi256_si128(w16)));
        } else {
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out + o), _mm256_castsi256_si128(w16));
        }
        continue;
      }
    }
    const __m256i index = _mm256_sub_epi32(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(plan.start32.data() + o)), bias_v);
    const int32_t* wo = plan.pairs8.data() + o;
    __m256i acc = _mm256_setzero_si256();
    for (int64_t t = 0; t < pairs; ++t) {
      // A gather merges into its destination: start from a fresh zero, or
      // each gather waits for the previous iteration's result in that register.
      __m256i v = _mm256_setzero_si256();
      asm volatile("" : "+x"(v));
      v = _mm256_mask_i32gather_epi32(v, reinterpret_cast<const int*>(in + 2 * t), index, _mm256_set1_epi32(-1),
                                      sizeof(In));
      if constexpr (std::is_same_v<In, uint8_t>) v = _mm256_shuffle_epi8(v, widen);
      acc = _mm256_add_epi32(
          acc, _mm256_madd_epi16(v, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wo + t * plan.out_stride))));
    }
    acc = finish_shift<Out>(acc, shift_v, shift);
    const __m256i w16 = _mm256_permute4x64_epi64(_mm256_packs_epi32(acc, acc), 0x08);  // v0..v7 in the low half
    if constexpr (std::is_same_v<Out, uint8_t>) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + o),
                       _mm_packus_epi16(_mm256_castsi256_si128(w16), _mm256_castsi256_si128(w16)));
    } else {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + o), _mm256_castsi256_si128(w16));
    }
  }
  horizontal_scalar(in, bias, out, w, 1, o, o_end, shift);
}

template <class In, class Out>
void horizontal_simd(const In* in, int64_t bias, Out* out, const HorizontalPlan& plan, int64_t pixel,
                     int64_t o_begin, int64_t o_end, int shift) {
  // Two taps (bilinear without antialiasing) get a loop of their own.
  const bool two = plan.weights->taps == 2;
  if (pixel == 3) {
    if (two) horizontal_pixels<In, Out, 3, 1>(in, bias, out, plan, o_begin, o_end, shift);
    else horizontal_pixels<In, Out, 3, 0>(in, bias, out, plan, o_begin, o_end, shift);
  } else if (pixel == 4) {
    if (two) horizontal_pixels<In, Out, 4, 1>(in, bias, out, plan, o_begin, o_end, shift);
    else horizontal_pixels<In, Out, 4, 0>(in, bias, out, plan, o_begin, o_end, shift);
  } else {
    if (two) horizontal_plane<In, Out, 1>(in, bias, out, plan, o_begin, o_end, shift);
    else horizontal_plane<In, Out, 0>(in, bias, out, plan, o_begin, o_end, shift);
  }
}
#endif

template <class In, class Out>
void horizontal(const In* in, Out* out, const HorizontalPlan& plan, int64_t pixel, int shift,
                bool overread_ok = false) {
  const FixedAxisWeights& w = *plan.weights;
#if defined(__AVX2__)
  if (plan.vectorized) {
    // Vector loads may read a few values past a window: fine in our padded
    // int16 rows, not at the end of a caller's uint8 row, whose last outputs
    // read a padded copy of the row's tail instead.
    // overread_ok: the caller's memory goes on past this row (the next row),
    // so every output takes the vector path.
    const int64_t simd_end = std::is_same_v<In, uint8_t> && !overread_ok ? plan.simd_end_uint8 : w.out_size;
    horizontal_simd(in, 0, out, plan, pixel, 0, simd_end, shift);
    if (simd_end < w.out_size) {
      const int64_t bias = w.start[static_cast<size_t>(simd_end)];
      In tail[kTailValues];
      const int64_t n = (w.in_size - bias) * pixel;
      if (n + 16 <= kTailValues) {
        std::memcpy(tail, in + bias * pixel, sizeof(In) * static_cast<size_t>(n));
        std::memset(tail + n, 0, sizeof(In) * 16);
        horizontal_simd(tail, bias, out, plan, pixel, simd_end, w.out_size, shift);
      } else {
        horizontal_scalar(in, 0, out, w, pixel, simd_end, w.out_size, shift);
      }
    }
    return;
  }
#endif
  horizontal_scalar(in, 0, out, w, pixel, 0, w.out_size, shift);
}

// A growable int16 buffer that does not zero what it allocates.
struct Buffer16 {
  std::unique_ptr<int16_t[]> data_;
  int64_t capacity = 0;
  void reserve(int64_t n) {
    if (n > capacity) {
      data_.reset(new int16_t[static_cast<size_t>(n)]);
      capacity = n;
    }
  }
  int16_t* data() { return data_.get(); }
};

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
  if ((pixel != 1 && pixel != 3 && pixel != 4) || w.taps % 2 != 0) return plan;  // scalar only
  plan.vectorized = true;
  const int64_t pairs = w.taps / 2;
  plan.out_stride = (w.out_size + 7) / 8 * 8 + 8;  // room for a block of 8 (or a pair) past the last output
  auto weight = [&](int64_t o, int64_t k) -> int16_t {
    return o < w.out_size ? w.weights[static_cast<size_t>(o * w.taps + k)] : int16_t{0};
  };
  if (pixel == 1 && w.taps == 2) {
    // Note [Shuffled gathers]: when the two taps of eight consecutive outputs
    // lie within 64 bytes of the first one's, four 16-byte loads and byte
    // shuffles (pshufb, one mask per 16-byte block, zeroing the bytes other
    // blocks fill) replace the gather: half the loads. Per block of eight
    // outputs, each output's word is (x[s], 0, x[s + 1], 0): two int16.
    const int64_t blocks = w.out_size / 8;
    plan.shuffles.assign(static_cast<size_t>(blocks), 0);
    plan.shuffle_masks.assign(static_cast<size_t>(blocks * 4 * 32), static_cast<int8_t>(-1));
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t base = w.start[static_cast<size_t>(b * 8)];
      if (w.start[static_cast<size_t>(b * 8 + 7)] + 2 > base + 64 || base + 64 > w.in_size) continue;
      plan.shuffles[static_cast<size_t>(b)] = 1;
      for (int64_t k = 0; k < 8; ++k)
        for (int64_t tap = 0; tap < 2; ++tap) {
          const int64_t d = w.start[static_cast<size_t>(b * 8 + k)] + tap - base;  // 0..63
          const int64_t block = d / 16;
          // Output k's word is in lane k / 4, bytes 4 * (k % 4) + 2 * tap (+1 stays zero).
          const int64_t at = (k / 4) * 16 + (k % 4) * 4 + 2 * tap;
          plan.shuffle_masks[static_cast<size_t>((b * 4 + block) * 32 + at)] = static_cast<int8_t>(d % 16);
        }
    }
  }
  if (pixel == 1) {
    // Per tap pair, per output: w0 | w1 << 16. Starts as int32.
    plan.pairs8.assign(static_cast<size_t>(pairs * plan.out_stride), 0);
    plan.start32.assign(static_cast<size_t>(plan.out_stride), 0);
    for (int64_t o = 0; o < w.out_size; ++o) {
      plan.start32[static_cast<size_t>(o)] = static_cast<int32_t>(w.start[static_cast<size_t>(o)]);
      for (int64_t t = 0; t < pairs; ++t)
        plan.pairs8[static_cast<size_t>(t * plan.out_stride + o)] =
            static_cast<int32_t>(static_cast<uint16_t>(weight(o, 2 * t))) |
            static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint16_t>(weight(o, 2 * t + 1))) << 16);
    }
  } else {
    plan.offset.resize(static_cast<size_t>(w.out_size));
    for (int64_t o = 0; o < w.out_size; ++o) plan.offset[static_cast<size_t>(o)] = w.start[static_cast<size_t>(o)] * pixel;
    // Per tap pair, per output: (w0, w1) repeated for each value of the pixel (8 int16).
    plan.expanded.assign(static_cast<size_t>(pairs * plan.out_stride * 8), 0);
    for (int64_t o = 0; o < w.out_size; ++o)
      for (int64_t t = 0; t < pairs; ++t) {
        int16_t* e = plan.expanded.data() + (t * plan.out_stride + o) * 8;
        for (int64_t c = 0; c < pixel; ++c) {
          e[2 * c] = weight(o, 2 * t);
          e[2 * c + 1] = weight(o, 2 * t + 1);
        }
      }
  }
  // The outputs whose vector loads stay inside a uint8 row: a 3-value pixel
  // pair is read as 8 values (2 past the pair), a plane's tap pair as 4 bytes.
  plan.simd_end_uint8 = w.out_size;
  if (pixel != 4) {
    const int64_t slack = pixel == 3 ? 1 : 2;
    plan.simd_end_uint8 = 0;
    while (plan.simd_end_uint8 < w.out_size &&
           w.start[static_cast<size_t>(plan.simd_end_uint8)] + w.taps + slack <= w.in_size)
      ++plan.simd_end_uint8;
  }
#else
  (void)pixel;
#endif
  return plan;
}

void resample_uint8(const uint8_t* src, const ImageLayout& in, uint8_t* dst, const ImageLayout& out,
                    const FixedAxisWeights* rows, const FixedAxisWeights* cols, PassOrder order,
                    int64_t src_readable) {
  // A row may be read past its end by the vector loads when the memory goes
  // on (kOverread bytes are plenty for every kernel's slack).
  constexpr int64_t kOverread = 64;
  const int64_t row_bytes = in.row_values();
  auto overread_ok = [&](const uint8_t* row) { return (row - src) + row_bytes + kOverread <= src_readable; };
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
      // Rough costs in instructions: horizontal outputs go eight at a time
      // (planes) or two at a time (pixels), a few per tap pair; the vertical
      // pass does 16 values per step.
      const double h_pairs = static_cast<double>((cols->taps + 1) / 2);
      const double v_pairs = static_cast<double>((rows->taps + 1) / 2);
      const double h_pixel = pixel == 1 ? (6.0 + 3.0 * h_pairs) / 8.0 : (8.0 + 3.0 * h_pairs) / 2.0;
      const double v_value = (6.0 + 4.0 * v_pairs) / 16.0;
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
    Buffer16 tmp;  // uninitialized: every value read is written first
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
                                       shift_single, overread_ok(image + y * in.row_stride));
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
        tmp.reserve(in_values + kPad);
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
      tmp.reserve(needed * stride);
      row16.assign(static_cast<size_t>(hi - lo), nullptr);
      for (int64_t s = lo; s < hi; ++s) {
        const int64_t k = slot[static_cast<size_t>(s - lo)];
        if (k < 0) continue;
        int16_t* t = tmp.data() + k * stride;
        if (pixel == 1) {
          // Short plane rows far apart (downscaling): fetch the next row read
          // while this one is resampled (interleaved rows are long enough for
          // the hardware prefetcher).
          int64_t next = s + 1;
          while (next < hi && slot[static_cast<size_t>(next - lo)] < 0) ++next;
          if (next < hi)
            for (int64_t i = 0; i < row_bytes; i += 64) __builtin_prefetch(image + next * in.row_stride + i, 0, 3);
        }
        horizontal<uint8_t, int16_t>(image + s * in.row_stride, t, plan, pixel, shift_first,
                                     overread_ok(image + s * in.row_stride));
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
                    const FixedAxisWeights* rows, const FixedAxisWeights* cols, int64_t src_readable) {
  resample_uint8(src, in, dst, out, rows, cols, PassOrder::Auto, src_readable);
}

}  // namespace ember::vision::transforms::detail
