// decode_png through libpng, with torchvision.io's semantics where they are
// well defined; docs/io.md lists the cases where Ember fixes torchvision 0.14
// (16-bit files, low bit depth palettes, alpha added to palette and low bit
// depth gray images).
#include <cstring>
#include <vector>

#include <ember/core/error.h>
#include <ember/core/out_of_memory.h>
#include <ember/io/image.h>
#include <ember/ops/factories.h>

#include "image_common.h"
#include "png_common.h"

namespace ember::io {
namespace {

using detail::run_png_guarded;

struct MemoryReader {
  const uint8_t* next;
  size_t left;
};

void read_from_memory(png_structp png, png_bytep out, png_size_t length) {
  auto* reader = static_cast<MemoryReader*>(png_get_io_ptr(png));
  if (length > reader->left) png_error(png, "unexpected end of data: the PNG is truncated or corrupt");
  std::memcpy(out, reader->next, length);
  reader->next += length;
  reader->left -= length;
}

// Ancillary chunks that never change the decoded pixels. libpng reads each of
// these whole into a buffer of the length its header declares, before reading
// the data (libpng 1.6.39 checks that length only for IDAT), so a 150-byte file
// whose tEXt claims 1.7 GB made it allocate 1.7 GB (found by fuzz_decode_png).
// Marked "never keep", they are skipped in small reads instead (their CRCs are
// still checked). Kept: the critical chunks, tRNS (alpha), and gAMA, sRGB,
// cHRM, iCCP, sBIT, which are small or length-checked and may steer libpng's
// transformations (gamma-aware rgb_to_gray), as in torchvision.
constexpr png_byte kSkippedChunks[] = {
    'b', 'K', 'G', 'D', '\0', 'e', 'X', 'I', 'f', '\0', 'h', 'I', 'S', 'T', '\0', 'i', 'T', 'X', 't', '\0',
    'o', 'F', 'F', 's', '\0', 'p', 'C', 'A', 'L', '\0', 'p', 'H', 'Y', 's', '\0', 's', 'C', 'A', 'L', '\0',
    's', 'P', 'L', 'T', '\0', 's', 'T', 'E', 'R', '\0', 't', 'E', 'X', 't', '\0', 't', 'I', 'M', 'E', '\0',
    'z', 'T', 'X', 't', '\0'};
constexpr int kSkippedChunkCount = sizeof(kSkippedChunks) / 5;

void skip_unused_chunks(png_structp png) {
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, kSkippedChunks, kSkippedChunkCount);
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, nullptr, 0);  // unknown ones
}

// Owns the libpng read structures.
struct PngReader {
  png_structp png = nullptr;
  png_infop info = nullptr;
  detail::PngErrorState err{};
  ~PngReader() {
    if (png != nullptr) png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr);
  }
};

// The weights torchvision passes to png_set_rgb_to_gray (ITU-R 601 luma).
constexpr double kRedWeight = 0.2989;
constexpr double kGreenWeight = 0.587;
// Opaque alpha for added alpha channels (libpng keeps the low byte once 16-bit
// samples are scaled to 8 bits).
constexpr png_uint_32 kOpaque = 0xffff;

// Sets libpng's transformations for `mode`. The image is 8-bit (or about to
// be scaled to 8 bits) and low bit depth gray is already expanded.
void set_mode_transforms(png_structp png, png_infop info, ImageReadMode mode, int color_type) {
  const bool is_palette = color_type == PNG_COLOR_TYPE_PALETTE;
  const bool has_color = (color_type & PNG_COLOR_MASK_COLOR) != 0;
  const bool has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0;
  // A palette expands to RGB, plus alpha when it has a tRNS chunk.
  const bool palette_alpha = is_palette && png_get_valid(png, info, PNG_INFO_tRNS) != 0;
  switch (mode) {
    case ImageReadMode::UNCHANGED:
      break;
    case ImageReadMode::GRAY:
      if (color_type == PNG_COLOR_TYPE_GRAY) break;
      if (is_palette) png_set_palette_to_rgb(png);
      if (has_alpha || palette_alpha) png_set_strip_alpha(png);
      if (has_color) png_set_rgb_to_gray(png, PNG_ERROR_ACTION_NONE, kRedWeight, kGreenWeight);
      break;
    case ImageReadMode::GRAY_ALPHA:
      if (color_type == PNG_COLOR_TYPE_GRAY_ALPHA) break;
      if (is_palette) png_set_palette_to_rgb(png);
      if (!has_alpha && !palette_alpha) png_set_add_alpha(png, kOpaque, PNG_FILLER_AFTER);
      if (has_color) png_set_rgb_to_gray(png, PNG_ERROR_ACTION_NONE, kRedWeight, kGreenWeight);
      break;
    case ImageReadMode::RGB:
      if (color_type == PNG_COLOR_TYPE_RGB) break;
      if (is_palette) png_set_palette_to_rgb(png);
      else if (!has_color) png_set_gray_to_rgb(png);
      if (has_alpha || palette_alpha) png_set_strip_alpha(png);
      break;
    case ImageReadMode::RGB_ALPHA:
      if (color_type == PNG_COLOR_TYPE_RGB_ALPHA) break;
      if (is_palette) png_set_palette_to_rgb(png);
      else if (!has_color) png_set_gray_to_rgb(png);
      if (!has_alpha && !palette_alpha) png_set_add_alpha(png, kOpaque, PNG_FILLER_AFTER);
      break;
  }
}

int expected_channels(ImageReadMode mode, int file_channels) {
  switch (mode) {
    case ImageReadMode::GRAY: return 1;
    case ImageReadMode::GRAY_ALPHA: return 2;
    case ImageReadMode::RGB: return 3;
    case ImageReadMode::RGB_ALPHA: return 4;
    default: return file_channels;
  }
}

}  // namespace

// Note [Out of memory at the entry points]: decode_png below runs this.
static Tensor decode_png_impl(const Tensor& data, ImageReadMode mode) {
  const Tensor bytes = detail::check_encoded("decode_png", data);
  const auto* begin = bytes.data_ptr<uint8_t>();
  const size_t size = static_cast<size_t>(bytes.numel());
  EMBER_CHECK(size >= 8 && png_sig_cmp(begin, 0, 8) == 0,
              "decode_png: not a PNG file (no PNG signature in the first 8 of ", size, " bytes)");

  PngReader r;
  r.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r.err, detail::png_error_jump,
                                 detail::png_warning_silent);
  EMBER_CHECK(r.png != nullptr, "decode_png: cannot create the libpng reader (out of memory)");
  r.info = png_create_info_struct(r.png);
  EMBER_CHECK(r.info != nullptr, "decode_png: cannot create the libpng info (out of memory)");
  MemoryReader reader{begin + 8, size - 8};

  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0, interlace = 0;
  const bool header_ok = run_png_guarded(r.err, [&] {
    png_set_sig_bytes(r.png, 8);
    skip_unused_chunks(r.png);
    png_set_read_fn(r.png, &reader, read_from_memory);
    png_read_info(r.png, r.info);
    png_get_IHDR(r.png, r.info, &width, &height, &bit_depth, &color_type, &interlace, nullptr,
                 nullptr);
  });
  EMBER_CHECK(header_ok, "decode_png: ", r.err.message);
  const int file_channels = png_get_channels(r.png, r.info);
  detail::check_decoded_size("decode_png", width, height,
                             std::max(expected_channels(mode, file_channels), file_channels));

  int channels = 0;
  size_t row_bytes = 0;
  const bool transforms_ok = run_png_guarded(r.err, [&] {
    if (bit_depth == 16) png_set_scale_16(r.png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(r.png);
    // UNCHANGED palette images give their indices, one byte per pixel.
    if (color_type == PNG_COLOR_TYPE_PALETTE && bit_depth < 8) png_set_packing(r.png);
    png_set_interlace_handling(r.png);
    set_mode_transforms(r.png, r.info, mode, color_type);
    png_read_update_info(r.png, r.info);
    channels = png_get_channels(r.png, r.info);
    row_bytes = png_get_rowbytes(r.png, r.info);
  });
  EMBER_CHECK(transforms_ok, "decode_png: ", r.err.message);
  EMBER_CHECK(channels == expected_channels(mode, file_channels) &&
                  row_bytes == size_t(width) * size_t(channels),
              "decode_png: internal error: libpng gives ", channels, " channels and ", row_bytes,
              " bytes per row for a ", width, "-pixel row in mode ", detail::mode_name(mode));

  Tensor hwc = empty({int64_t(height), int64_t(width), int64_t(channels)}, kUInt8);
  std::vector<png_bytep> rows(height);
  for (png_uint_32 y = 0; y < height; ++y) rows[y] = hwc.data_ptr<uint8_t>() + size_t(y) * row_bytes;
  const bool decoded = run_png_guarded(r.err, [&] { png_read_image(r.png, rows.data()); });
  EMBER_CHECK(decoded, "decode_png: ", r.err.message);
  return detail::hwc_to_chw(hwc);
}

Tensor decode_png(const Tensor& data, ImageReadMode mode) {
  return with_out_of_memory_context(
      "decode_png", [&] { return ember::detail::concat("decoding ", data.defined() ? data.numel() : 0, " bytes of PNG"); },
      [&] { return decode_png_impl(data, mode); });
}

}  // namespace ember::io
