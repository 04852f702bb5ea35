#pragma once
// Feeds an RGB image stored as three planes ([3, H, W] with pixel stride 1, the
// layout torchvision and most tensor code hold) to libjpeg as raw YCbCr 4:2:0
// data (jpeg_write_raw_data), doing the colour conversion and chroma
// downsampling that libjpeg-turbo's compressor would do on interleaved RGB
// scanlines, bit for bit:
//   - colour conversion: jccolor.c's fixed-point RGB -> YCbCr (SCALEBITS 16,
//     Cb/Cr rounded with ONE_HALF - 1), which the SIMD versions reproduce
//     exactly;
//   - downsampling: jcsample.c's h2v2_downsample, (a + b + c + d + bias) >> 2
//     with bias alternating 1, 2 along the row;
//   - edges: the right edge replicated (expand_right_edge) before downsampling,
//     an odd last row replicated into its row pair, and the last iMCU row
//     padded with copies of the last row of each component (jcprepct.c).
// So the bytes equal those of libjpeg's own path on the interleaved image
// (the tests check that over many sizes), while skipping the interleave copy
// and libjpeg's full-size copy of the Y plane.
//
// Only for the component layout jpeg_set_defaults gives RGB input: Y sampled
// 2x2, Cb and Cr 1x1 (uses_default_420 checks it).
#include <cstddef>
#include <cstdint>
#include <cstdio>  // jpeglib.h needs size_t and FILE declared first
#include <vector>

#include <jpeglib.h>

namespace ember::io::detail {

// Whether cinfo (after jpeg_set_defaults on 3-component RGB input) has the
// 4:2:0 YCbCr layout this writer produces.
bool uses_default_420(const jpeg_compress_struct& cinfo);

class PlanarRgb420Writer {
 public:
  // plane c of row y starts at base + c * channel_stride + y * row_stride.
  PlanarRgb420Writer(const uint8_t* base, int64_t channel_stride, int64_t row_stride, int64_t width,
                     int64_t height);

  // Sets raw_data_in; call after jpeg_set_defaults/jpeg_set_quality and before
  // jpeg_start_compress.
  static void prepare(jpeg_compress_struct& cinfo);

  // Writes every iMCU row (call between jpeg_start_compress and
  // jpeg_finish_compress, inside run_guarded: it keeps no objects with
  // destructors on the stack, so a libjpeg error may longjmp out of it).
  void write(jpeg_compress_struct& cinfo);

 private:
  // Converts image rows y and y + 1 (y + 1 clamped to the last row) into Y
  // rows `luma0`/`luma1` and one downsampled Cb and Cr row.
  void convert_row_pair(int64_t y, uint8_t* luma0, uint8_t* luma1, uint8_t* cb, uint8_t* cr);

  const uint8_t* base_;
  int64_t channel_stride_, row_stride_, width_, height_;
  int64_t luma_width_;    // Y row width libjpeg reads: width rounded up to 8
  int64_t chroma_width_;  // Cb/Cr row width: ceil(width / 16) * 8
  std::vector<uint8_t> luma_, cb_, cr_;                // one iMCU row: 16 Y rows, 8 Cb/Cr rows
  std::vector<uint8_t> full_cb_, full_cr_;             // two full-resolution chroma rows
  JSAMPROW luma_rows_[16], cb_rows_[8], cr_rows_[8];
};

}  // namespace ember::io::detail
