#include "interleaved_rows.h"

#include <array>
#include <type_traits>

#if defined(__SSSE3__)
#include <immintrin.h>
#endif

namespace ember::io::detail {
namespace {

#if defined(__SSSE3__)
// pshufb masks that pick, for output byte j of 16-byte block k of an RGB row,
// the byte of one plane's 16-pixel load that belongs there (0x80: none).
constexpr std::array<int8_t, 16> rgb_mask(int block, int channel) {
  std::array<int8_t, 16> m{};
  for (int j = 0; j < 16; ++j) {
    const int i = 16 * block + j;
    m[size_t(j)] = i % 3 == channel ? static_cast<int8_t>(i / 3) : static_cast<int8_t>(0x80);
  }
  return m;
}

__m128i load_mask(const std::array<int8_t, 16>& m) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(m.data()));
}

// Interleaves 16 pixels at a time; returns how many pixels it wrote.
int64_t interleave_rgb_simd(const uint8_t* r, const uint8_t* g, const uint8_t* b, int64_t w,
                            uint8_t* dst) {
  static constexpr std::array<std::array<int8_t, 16>, 9> kMasks = {
      rgb_mask(0, 0), rgb_mask(0, 1), rgb_mask(0, 2), rgb_mask(1, 0), rgb_mask(1, 1),
      rgb_mask(1, 2), rgb_mask(2, 0), rgb_mask(2, 1), rgb_mask(2, 2)};
  __m128i masks[9];
  for (int i = 0; i < 9; ++i) masks[i] = load_mask(kMasks[size_t(i)]);
  int64_t x = 0;
  for (; x + 16 <= w; x += 16) {
    const __m128i vr = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + x));
    const __m128i vg = _mm_loadu_si128(reinterpret_cast<const __m128i*>(g + x));
    const __m128i vb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + x));
    for (int k = 0; k < 3; ++k) {
      const __m128i out = _mm_or_si128(
          _mm_or_si128(_mm_shuffle_epi8(vr, masks[3 * k]), _mm_shuffle_epi8(vg, masks[3 * k + 1])),
          _mm_shuffle_epi8(vb, masks[3 * k + 2]));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 3 * x + 16 * k), out);
    }
  }
  return x;
}
#endif

}  // namespace

InterleavedRows::InterleavedRows(const Tensor& image)
    : image_(image),
      base_(image.data_ptr<uint8_t>()),
      channels_(image.size(0)),
      height_(image.size(1)),
      width_(image.size(2)),
      channel_stride_(image.stride(0)),
      row_stride_(image.stride(1)),
      pixel_stride_(image.stride(2)) {
  in_place_ = (channels_ == 1 || channel_stride_ == 1) && (width_ == 1 || pixel_stride_ == channels_);
  if (!in_place_) buffer_.resize(static_cast<size_t>(width_ * channels_));
}

const uint8_t* InterleavedRows::row(int64_t y) {
  const uint8_t* src = base_ + y * row_stride_;
  if (in_place_) return src;
  uint8_t* dst = buffer_.data();
  const int64_t w = width_, c = channels_, cs = channel_stride_, ps = pixel_stride_;
  if (ps == 1) {
    // Planar rows (the common [C, H, W] contiguous case): one plane at a time,
    // written with stride C; a constant C lets the compiler unroll the stores.
    auto planes = [&](auto channel_count) {
      constexpr int64_t C = decltype(channel_count)::value;
      for (int64_t ch = 0; ch < C; ++ch) {
        const uint8_t* plane = src + ch * cs;
        for (int64_t x = 0; x < w; ++x) dst[x * C + ch] = plane[x];
      }
    };
    switch (c) {
      case 1: planes(std::integral_constant<int64_t, 1>{}); return dst;
      case 2: planes(std::integral_constant<int64_t, 2>{}); return dst;
      case 3: {
        int64_t done = 0;
#if defined(__SSSE3__)
        done = interleave_rgb_simd(src, src + cs, src + 2 * cs, w, dst);
#endif
        for (int64_t x = done; x < w; ++x)
          for (int64_t ch = 0; ch < 3; ++ch) dst[x * 3 + ch] = src[ch * cs + x];
        return dst;
      }
      case 4: planes(std::integral_constant<int64_t, 4>{}); return dst;
      default: break;
    }
  }
  for (int64_t x = 0; x < w; ++x)
    for (int64_t ch = 0; ch < c; ++ch) dst[x * c + ch] = src[x * ps + ch * cs];
  return dst;
}

}  // namespace ember::io::detail
