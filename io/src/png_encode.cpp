// encode_png through libpng: 8-bit, non-interlaced, libpng's default filters,
// zlib at the requested level (torchvision.io's settings).
#include <cstdlib>
#include <cstring>
#include <vector>

#include <ember/core/error.h>
#include <ember/io/image.h>
#include <ember/ops/factories.h>

#include "image_common.h"
#include "interleaved_rows.h"
#include "png_common.h"

namespace ember::io {
namespace {

using detail::run_png_guarded;

// A growable malloc'd output buffer, freed by ~PngWriter even after an error.
struct MemoryWriter {
  unsigned char* buffer = nullptr;
  size_t size = 0;
  size_t capacity = 0;
};

void write_to_memory(png_structp png, png_bytep data, png_size_t length) {
  auto* w = static_cast<MemoryWriter*>(png_get_io_ptr(png));
  if (length > w->capacity - w->size) {
    size_t capacity = w->capacity == 0 ? 64 * 1024 : w->capacity;
    while (length > capacity - w->size) capacity *= 2;
    auto* bigger = static_cast<unsigned char*>(std::realloc(w->buffer, capacity));
    if (bigger == nullptr) png_error(png, "out of memory");
    w->buffer = bigger;
    w->capacity = capacity;
  }
  std::memcpy(w->buffer + w->size, data, length);
  w->size += length;
}

void flush_memory(png_structp) {}

struct PngWriter {
  png_structp png = nullptr;
  png_infop info = nullptr;
  detail::PngErrorState err{};
  MemoryWriter out;
  ~PngWriter() {
    if (png != nullptr) png_destroy_write_struct(&png, info != nullptr ? &info : nullptr);
    std::free(out.buffer);
  }
};

int color_type_for(int64_t channels) {
  switch (channels) {
    case 1: return PNG_COLOR_TYPE_GRAY;
    case 2: return PNG_COLOR_TYPE_GRAY_ALPHA;
    case 3: return PNG_COLOR_TYPE_RGB;
    default: return PNG_COLOR_TYPE_RGB_ALPHA;
  }
}

}  // namespace

Tensor encode_png(const Tensor& image, int64_t compression_level) {
  EMBER_CHECK(compression_level >= 0 && compression_level <= 9,
              "encode_png: compression_level must be in [0, 9], got ", compression_level);
  detail::InterleavedRows rows(detail::check_image_to_encode("encode_png", image, 1, 4));
  const int64_t height = rows.height(), width = rows.width(), channels = rows.channels();
  // The PNG format's limit (2^31 - 1) and libpng's default of 1,000,000.
  EMBER_CHECK(width <= PNG_USER_WIDTH_MAX && height <= PNG_USER_HEIGHT_MAX,
              "encode_png: PNG images are at most ", PNG_USER_WIDTH_MAX, " pixels a side, got ",
              width, "x", height);

  PngWriter w;
  w.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w.err, detail::png_error_jump,
                                  detail::png_warning_silent);
  EMBER_CHECK(w.png != nullptr, "encode_png: cannot create the libpng writer (out of memory)");
  w.info = png_create_info_struct(w.png);
  EMBER_CHECK(w.info != nullptr, "encode_png: cannot create the libpng info (out of memory)");

  const bool encoded = run_png_guarded(w.err, [&] {
    png_set_write_fn(w.png, &w.out, write_to_memory, flush_memory);
    png_set_IHDR(w.png, w.info, png_uint_32(width), png_uint_32(height), 8,
                 color_type_for(channels), PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(w.png, int(compression_level));
    png_write_info(w.png, w.info);
    // Row by row (non-interlaced: one pass), so each row is interleaved just in time.
    for (int64_t y = 0; y < height; ++y) png_write_row(w.png, const_cast<png_bytep>(rows.row(y)));
    png_write_end(w.png, w.info);
  });
  EMBER_CHECK(encoded, "encode_png: ", w.err.message);

  Tensor out = empty({static_cast<int64_t>(w.out.size)}, kUInt8);
  std::memcpy(out.data_ptr(), w.out.buffer, w.out.size);
  return out;
}

}  // namespace ember::io
