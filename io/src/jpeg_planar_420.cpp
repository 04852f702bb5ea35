#include "jpeg_planar_420.h"

#include <algorithm>
#include <cstring>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace ember::io::detail {
namespace {

// jccolor.c's constants: FIX(x) = x * 2^16 rounded.
constexpr int32_t kFix0299 = 19595, kFix0587 = 38470, kFix0114 = 7471;
constexpr int32_t kFix0168 = 11059, kFix0331 = 21709, kFix0500 = 32768;
constexpr int32_t kFix0418 = 27439, kFix0081 = 5329;
constexpr int32_t kOneHalf = 1 << 15;
// Cb and Cr: the centre sample plus a rounding of one half minus epsilon, so
// that the largest result is 255, never 256 (jccolor.c).
constexpr int32_t kChromaOffset = (128 << 16) + kOneHalf - 1;

void convert_scalar(const uint8_t* r, const uint8_t* g, const uint8_t* b, int64_t begin, int64_t end,
                    uint8_t* luma, uint8_t* cb, uint8_t* cr) {
  for (int64_t x = begin; x < end; ++x) {
    const int32_t R = r[x], G = g[x], B = b[x];
    luma[x] = static_cast<uint8_t>((kFix0299 * R + kFix0587 * G + kFix0114 * B + kOneHalf) >> 16);
    cb[x] = static_cast<uint8_t>((-kFix0168 * R - kFix0331 * G + kFix0500 * B + kChromaOffset) >> 16);
    cr[x] = static_cast<uint8_t>((kFix0500 * R - kFix0418 * G - kFix0081 * B + kChromaOffset) >> 16);
  }
}

#if defined(__AVX2__)
// Two int16 coefficients as one madd pair (low half first).
__m256i pair(int32_t low, int32_t high) {
  return _mm256_set1_epi32(static_cast<int32_t>((static_cast<uint32_t>(high) << 16) | (low & 0xFFFF)));
}

// 8-bit results of 16 pixels from two vectors of 8 int32 (the lo/hi unpack
// halves of each 128-bit lane), back in pixel order.
__m128i pack_to_bytes(__m256i lo, __m256i hi) {
  const __m256i words = _mm256_packus_epi32(lo, hi);  // per lane: lo then hi = pixel order
  const __m256i bytes = _mm256_packus_epi16(words, words);
  return _mm256_castsi256_si128(_mm256_permute4x64_epi64(bytes, 0xD8));
}

// Converts pixels [0, n16) 16 at a time; returns n16. The products are exact
// in int32 (pmaddwd of 16-bit pairs), so this equals convert_scalar. 0.587
// does not fit int16: it is split as 0.337 + 0.250 (as libjpeg-turbo's SIMD
// code does), and 0.5 * x is x << 15.
int64_t convert_avx2(const uint8_t* r, const uint8_t* g, const uint8_t* b, int64_t n, uint8_t* luma, uint8_t* cb,
                     uint8_t* cr) {
  const __m256i y_rg = pair(kFix0299, kFix0587 - 16384), y_bg = pair(kFix0114, 16384);
  const __m256i cb_rg = pair(-kFix0168, -kFix0331), cr_bg = pair(-kFix0081, -kFix0418);
  const __m256i half = _mm256_set1_epi32(kOneHalf), offset = _mm256_set1_epi32(kChromaOffset);
  const __m256i low16 = _mm256_set1_epi32(0xFFFF);
  int64_t x = 0;
  for (; x + 16 <= n; x += 16) {
    const __m256i r16 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r + x)));
    const __m256i g16 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(g + x)));
    const __m256i b16 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + x)));
    __m256i ys[2], cbs[2], crs[2];
    for (int h = 0; h < 2; ++h) {
      const __m256i rg = h == 0 ? _mm256_unpacklo_epi16(r16, g16) : _mm256_unpackhi_epi16(r16, g16);
      const __m256i bg = h == 0 ? _mm256_unpacklo_epi16(b16, g16) : _mm256_unpackhi_epi16(b16, g16);
      const __m256i r_half = _mm256_slli_epi32(_mm256_and_si256(rg, low16), 15);
      const __m256i b_half = _mm256_slli_epi32(_mm256_and_si256(bg, low16), 15);
      ys[h] = _mm256_srli_epi32(
          _mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(rg, y_rg), _mm256_madd_epi16(bg, y_bg)), half), 16);
      cbs[h] = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(rg, cb_rg), b_half), offset), 16);
      crs[h] = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(bg, cr_bg), r_half), offset), 16);
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(luma + x), pack_to_bytes(ys[0], ys[1]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(cb + x), pack_to_bytes(cbs[0], cbs[1]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(cr + x), pack_to_bytes(crs[0], crs[1]));
  }
  return x;
}
#endif

// h2v2_downsample: output column x averages columns 2x, 2x + 1 of both rows,
// rounding with bias 1 at even x and 2 at odd x.
void downsample(const uint8_t* row0, const uint8_t* row1, int64_t out_width, uint8_t* out) {
  int64_t x = 0;
#if defined(__AVX2__)
  const __m256i ones = _mm256_set1_epi8(1);
  const __m256i bias = _mm256_set1_epi32(0x00020001);  // 1, 2, 1, 2... as int16
  for (; x + 16 <= out_width; x += 16) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row0 + 2 * x));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row1 + 2 * x));
    __m256i sum = _mm256_add_epi16(_mm256_maddubs_epi16(a, ones), _mm256_maddubs_epi16(b, ones));
    sum = _mm256_srli_epi16(_mm256_add_epi16(sum, bias), 2);
    const __m256i bytes = _mm256_packus_epi16(sum, sum);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + x),
                     _mm256_castsi256_si128(_mm256_permute4x64_epi64(bytes, 0xD8)));
  }
#endif
  for (; x < out_width; ++x) {
    const int bias = (x & 1) ? 2 : 1;
    out[x] = static_cast<uint8_t>((row0[2 * x] + row0[2 * x + 1] + row1[2 * x] + row1[2 * x + 1] + bias) >> 2);
  }
}

}  // namespace

bool uses_default_420(const jpeg_compress_struct& cinfo) {
  if (cinfo.num_components != 3 || cinfo.jpeg_color_space != JCS_YCbCr || cinfo.smoothing_factor != 0) return false;
  const jpeg_component_info* c = cinfo.comp_info;
  return c[0].h_samp_factor == 2 && c[0].v_samp_factor == 2 && c[1].h_samp_factor == 1 &&
         c[1].v_samp_factor == 1 && c[2].h_samp_factor == 1 && c[2].v_samp_factor == 1;
}

PlanarRgb420Writer::PlanarRgb420Writer(const uint8_t* base, int64_t channel_stride, int64_t row_stride,
                                       int64_t width, int64_t height)
    : base_(base),
      channel_stride_(channel_stride),
      row_stride_(row_stride),
      width_(width),
      height_(height),
      luma_width_((width + 7) / 8 * 8),
      chroma_width_((width + 15) / 16 * 8) {
  luma_.resize(static_cast<size_t>(16 * luma_width_));
  cb_.resize(static_cast<size_t>(8 * chroma_width_));
  cr_.resize(static_cast<size_t>(8 * chroma_width_));
  // Two rows each, 2 * chroma_width_ wide (the right edge expanded to there).
  full_cb_.resize(static_cast<size_t>(4 * chroma_width_));
  full_cr_.resize(static_cast<size_t>(4 * chroma_width_));
  for (int i = 0; i < 16; ++i) luma_rows_[i] = luma_.data() + i * luma_width_;
  for (int i = 0; i < 8; ++i) {
    cb_rows_[i] = cb_.data() + i * chroma_width_;
    cr_rows_[i] = cr_.data() + i * chroma_width_;
  }
}

void PlanarRgb420Writer::prepare(jpeg_compress_struct& cinfo) { cinfo.raw_data_in = TRUE; }

void PlanarRgb420Writer::convert_row_pair(int64_t y, uint8_t* luma0, uint8_t* luma1, uint8_t* cb, uint8_t* cr) {
  const int64_t full = 2 * chroma_width_;
  uint8_t* lumas[2] = {luma0, luma1};
  for (int k = 0; k < 2; ++k) {
    const int64_t row = std::min(y + k, height_ - 1);  // an odd last row pairs with itself
    const uint8_t* r = base_ + row * row_stride_;
    const uint8_t* g = r + channel_stride_;
    const uint8_t* b = g + channel_stride_;
    uint8_t* full_cb = full_cb_.data() + k * full;
    uint8_t* full_cr = full_cr_.data() + k * full;
    int64_t done = 0;
#if defined(__AVX2__)
    done = convert_avx2(r, g, b, width_, lumas[k], full_cb, full_cr);
#endif
    convert_scalar(r, g, b, done, width_, lumas[k], full_cb, full_cr);
    // expand_right_edge: the last column repeated out to the widths libjpeg reads.
    std::memset(lumas[k] + width_, lumas[k][width_ - 1], static_cast<size_t>(luma_width_ - width_));
    std::memset(full_cb + width_, full_cb[width_ - 1], static_cast<size_t>(full - width_));
    std::memset(full_cr + width_, full_cr[width_ - 1], static_cast<size_t>(full - width_));
  }
  downsample(full_cb_.data(), full_cb_.data() + full, chroma_width_, cb);
  downsample(full_cr_.data(), full_cr_.data() + full, chroma_width_, cr);
}

void PlanarRgb420Writer::write(jpeg_compress_struct& cinfo) {
  JSAMPARRAY planes[3] = {luma_rows_, cb_rows_, cr_rows_};
  for (int64_t top = 0; top < height_; top += 16) {
    int pairs = 0;
    for (; pairs < 8 && top + 2 * pairs < height_; ++pairs)
      convert_row_pair(top + 2 * pairs, luma_rows_[2 * pairs], luma_rows_[2 * pairs + 1], cb_rows_[pairs],
                       cr_rows_[pairs]);
    // Below the image: copies of the last rows (jcprepct.c's expand_bottom_edge).
    for (int p = pairs; p < 8; ++p) {
      std::memcpy(luma_rows_[2 * p], luma_rows_[2 * pairs - 1], static_cast<size_t>(luma_width_));
      std::memcpy(luma_rows_[2 * p + 1], luma_rows_[2 * pairs - 1], static_cast<size_t>(luma_width_));
      std::memcpy(cb_rows_[p], cb_rows_[pairs - 1], static_cast<size_t>(chroma_width_));
      std::memcpy(cr_rows_[p], cr_rows_[pairs - 1], static_cast<size_t>(chroma_width_));
    }
    jpeg_write_raw_data(&cinfo, planes, 16);
  }
}

}  // namespace ember::io::detail
