#pragma once
// JPEG and PNG decoding and encoding with torchvision.io's semantics: encoded
// images are 1-D uint8 tensors, decoded images C x H x W uint8 contiguous
// tensors. See docs/io.md for the policies where Ember differs from
// torchvision 0.14 (16-bit PNGs, palettes, CMYK and EXIF orientation).
#include <cstdint>
#include <string>

#include <ember/core/tensor.h>

namespace ember::io {

// The channels a decoder returns (torchvision.io.ImageReadMode).
enum class ImageReadMode {
  UNCHANGED,   // the file's own channels (a palette PNG gives its indices)
  GRAY,        // 1 channel
  GRAY_ALPHA,  // 2 channels (PNG only)
  RGB,         // 3 channels
  RGB_ALPHA,   // 4 channels (PNG only)
};

// The decoded-size limit: decoders raise ember::Error, before allocating the
// image, when width * height * channels (bytes, counting the file's own channels
// too) would exceed it. Default kDefaultImageDecodeLimit (2 GiB). Process-wide;
// set_image_decode_limit(0) restores the default. See docs/io.md, "Bad input and limits".
inline constexpr uint64_t kDefaultImageDecodeLimit = uint64_t{1} << 31;
uint64_t image_decode_limit();
void set_image_decode_limit(uint64_t bytes);

// Decodes a JPEG. UNCHANGED keeps the file's components (1 gray, 3 RGB, 4 for
// CMYK/YCCK, as Adobe-inverted CMYK as libjpeg returns it); GRAY and RGB convert.
// apply_exif_orientation rotates/flips by the EXIF orientation tag, if any.
Tensor decode_jpeg(const Tensor& data, ImageReadMode mode = ImageReadMode::UNCHANGED,
                   bool apply_exif_orientation = false);

// Encodes a [C, H, W] uint8 image (C = 1 or 3) as a baseline JPEG.
Tensor encode_jpeg(const Tensor& image, int64_t quality = 75);

// Decodes a PNG of any color type and bit depth; 16-bit samples are scaled to
// uint8 with correct rounding (round(v * 255 / 65535)).
Tensor decode_png(const Tensor& data, ImageReadMode mode = ImageReadMode::UNCHANGED);

// Encodes a [C, H, W] uint8 image (C = 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA) as a
// PNG; compression_level is zlib's 0..9.
Tensor encode_png(const Tensor& image, int64_t compression_level = 6);

// Decodes a JPEG or PNG, chosen by the leading magic bytes.
Tensor decode_image(const Tensor& data, ImageReadMode mode = ImageReadMode::UNCHANGED);

// read_file followed by decode_image.
Tensor read_image(const std::string& path, ImageReadMode mode = ImageReadMode::UNCHANGED);

// encode_jpeg / encode_png followed by write_file.
void write_jpeg(const Tensor& image, const std::string& path, int64_t quality = 75);
void write_png(const Tensor& image, const std::string& path, int64_t compression_level = 6);

}  // namespace ember::io
