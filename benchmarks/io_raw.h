#pragma once
// The raw library calls the io suite measures Ember against: libjpeg-turbo
// through its libjpeg API and libpng, used the way torchvision.io uses them,
// with the libraries' own pixel layout (interleaved H x W x 3 RGB buffers).
// Each reads or writes memory only; a fatal library error throws.
#include <ATen/ATen.h>

#include <cstddef>
#include <cstdint>

namespace ember_bench::raw {

// JPEG bytes -> [H, W, 3] uint8 RGB (jpeg_read_scanlines straight into the tensor).
at::Tensor decode_jpeg(const uint8_t* data, size_t size);
// [H, W, 3] contiguous uint8 RGB -> baseline JPEG bytes (jpeg_set_defaults,
// jpeg_set_quality(quality, TRUE), jpeg_mem_dest): torchvision's settings.
at::Tensor encode_jpeg(const at::Tensor& hwc, int quality);

// 8-bit RGB PNG bytes -> [H, W, 3] uint8 (png_read_image into the tensor).
at::Tensor decode_png(const uint8_t* data, size_t size);
// [H, W, 3] contiguous uint8 RGB -> PNG bytes: 8-bit, not interlaced,
// libpng's default filters, zlib level `level` (torchvision's settings).
at::Tensor encode_png(const at::Tensor& hwc, int level);

}  // namespace ember_bench::raw
