// decode_image (format sniffing), read_image and the write_* helpers.
#include <cstring>

#include <ember/core/error.h>
#include <ember/core/out_of_memory.h>
#include <ember/io/file.h>
#include <ember/io/image.h>

#include "image_common.h"

namespace ember::io {
namespace {

bool starts_with(const Tensor& bytes, const uint8_t* magic, size_t n) {
  return static_cast<size_t>(bytes.numel()) >= n &&
         std::memcmp(bytes.data_ptr<uint8_t>(), magic, n) == 0;
}

constexpr uint8_t kJpegMagic[] = {0xFF, 0xD8, 0xFF};
constexpr uint8_t kPngMagic[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

}  // namespace

Tensor decode_image(const Tensor& data, ImageReadMode mode) {
  const Tensor bytes = detail::check_encoded("decode_image", data);
  if (starts_with(bytes, kJpegMagic, sizeof(kJpegMagic))) return decode_jpeg(bytes, mode);
  if (starts_with(bytes, kPngMagic, sizeof(kPngMagic))) return decode_png(bytes, mode);
  EMBER_FAIL("decode_image: unsupported image format: the data (", bytes.numel(),
             " bytes) starts with neither the JPEG (FF D8 FF) nor the PNG signature");
}

Tensor read_image(const std::string& path, ImageReadMode mode) {
  // decode_* turn running out of memory into an ember::Error (Note [Out of
  // memory at the entry points]), which gets the path here; so does reading.
  const Tensor bytes = with_out_of_memory_context(
      "read_image: '" + path + "'", "reading the file", [&] { return read_file(path); });
  EMBER_CHECK(bytes.numel() > 0, "read_image: '", path, "' is empty");
  try {
    return decode_image(bytes, mode);
  } catch (const Error& e) {
    EMBER_FAIL("read_image: '", path, "': ", e.what());
  }
}

void write_jpeg(const Tensor& image, const std::string& path, int64_t quality) {
  write_file(path, encode_jpeg(image, quality));
}

void write_png(const Tensor& image, const std::string& path, int64_t compression_level) {
  write_file(path, encode_png(image, compression_level));
}

}  // namespace ember::io
