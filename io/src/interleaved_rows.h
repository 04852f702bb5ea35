#pragma once
// Hands an encoder the rows of a [C, H, W] uint8 image as interleaved W x C rows,
// one at a time. Codecs consume rows, so interleaving one row into a small buffer
// right before the codec reads it keeps the data in cache and skips the H x W x C
// copy of the whole image (which, for a 1080p RGB image, cost more than libpng's
// or libjpeg's own work on some workloads). An image that is already interleaved
// in memory (channel stride 1, pixel stride C: what decode_* returns) is read in
// place.
#include <cstdint>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::io::detail {

class InterleavedRows {
 public:
  // `image`: a checked [C, H, W] uint8 CPU tensor (check_image_to_encode).
  explicit InterleavedRows(const Tensor& image);

  int64_t channels() const { return channels_; }
  int64_t height() const { return height_; }
  int64_t width() const { return width_; }

  // Row y as W x C interleaved bytes; valid until the next call.
  const uint8_t* row(int64_t y);

 private:
  Tensor image_;  // keeps the storage alive
  const uint8_t* base_ = nullptr;
  int64_t channels_ = 0, height_ = 0, width_ = 0;
  int64_t channel_stride_ = 0, row_stride_ = 0, pixel_stride_ = 0;
  bool in_place_ = false;
  std::vector<uint8_t> buffer_;
};

}  // namespace ember::io::detail
