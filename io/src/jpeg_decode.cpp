// decode_jpeg through libjpeg-turbo, with torchvision.io's semantics.
#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include <ember/core/error.h>
#include <ember/core/out_of_memory.h>
#include <ember/io/image.h>
#include <ember/ops/factories.h>

#include "exif.h"
#include "image_common.h"
#include "jpeg_common.h"

#include <jerror.h>

namespace ember::io {
namespace {

using detail::JpegErrorManager;
using detail::run_guarded;

// More scans than this is not a real progressive JPEG but a file built to make
// the decoder loop (each scan re-touches every coefficient).
constexpr int kMaxScans = 1000;

// libjpeg's working memory beyond the coefficient buffers (tables, row buffers).
constexpr uint64_t kJpegWorkingSlack = uint64_t{64} << 20;

// Reads from the tensor's bytes; running out of data is an error (as in
// torchvision), not the fake end-of-image that jpeg_mem_src would insert.
struct MemorySource {
  jpeg_source_mgr pub;
};

void init_source(j_decompress_ptr) {}
void term_source(j_decompress_ptr) {}

boolean fill_input_buffer(j_decompress_ptr cinfo) {
  detail::jpeg_fail(reinterpret_cast<j_common_ptr>(cinfo), "Image is incomplete or truncated");
}

void skip_input_data(j_decompress_ptr cinfo, long num_bytes) {
  if (num_bytes <= 0) return;
  jpeg_source_mgr* src = cinfo->src;
  if (static_cast<size_t>(num_bytes) > src->bytes_in_buffer)
    detail::jpeg_fail(reinterpret_cast<j_common_ptr>(cinfo), "Image is incomplete or truncated");
  src->next_input_byte += num_bytes;
  src->bytes_in_buffer -= static_cast<size_t>(num_bytes);
}

void limit_scans(j_common_ptr cinfo) {
  auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
  if (d->input_scan_number > kMaxScans)
    detail::jpeg_fail(cinfo, "too many scans (more than 1000): corrupt or hostile progressive JPEG");
}

// Owns the libjpeg decompressor; destroying it frees everything libjpeg allocated.
struct Decompressor {
  jpeg_decompress_struct cinfo{};
  JpegErrorManager err{};
  MemorySource source{};
  jpeg_progress_mgr progress{};
  bool created = false;
  ~Decompressor() {
    if (created) jpeg_destroy_decompress(&cinfo);
  }
};

// Pillow's exact rounding of a * b / 255 for bytes.
inline int mul_div255(int a, int b) {
  int v = a * b + 128;
  return ((v >> 8) + v) >> 8;
}

// libjpeg returns Adobe CMYK inverted (0 = full ink), so for stored values
// c, k the red is k * c / 255 = k - k * (255 - c) / 255; the second form with
// Pillow's rounding is what later torchvision releases compute.
inline uint8_t cmyk_channel_to_rgb(int k, int cmy) {
  return static_cast<uint8_t>(std::clamp(k - mul_div255(k, 255 - cmy), 0, 255));
}

// ITU-R 601 luma with 16-bit fixed weights (Pillow's and later torchvision's
// RGB -> L), used only for CMYK files, which libjpeg cannot convert to gray.
inline uint8_t rgb_to_luma(int r, int g, int b) {
  return static_cast<uint8_t>((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16);
}

void cmyk_line_to(const uint8_t* cmyk, int width, int out_channels, uint8_t* out) {
  for (int x = 0; x < width; ++x, cmyk += 4) {
    const uint8_t r = cmyk_channel_to_rgb(cmyk[3], cmyk[0]);
    const uint8_t g = cmyk_channel_to_rgb(cmyk[3], cmyk[1]);
    const uint8_t b = cmyk_channel_to_rgb(cmyk[3], cmyk[2]);
    if (out_channels == 3) {
      out[0] = r, out[1] = g, out[2] = b;
      out += 3;
    } else {
      *out++ = rgb_to_luma(r, g, b);
    }
  }
}

int find_exif_orientation(const jpeg_decompress_struct& cinfo) {
  for (jpeg_saved_marker_ptr m = cinfo.marker_list; m != nullptr; m = m->next) {
    if (m->marker != JPEG_APP0 + 1) continue;
    if (m->data_length >= 6 && std::memcmp(m->data, "Exif\0\0", 6) == 0)
      return detail::exif_orientation(m->data, m->data_length);
  }
  return 1;
}

}  // namespace

// Note [Out of memory at the entry points]: decode_jpeg below runs this.
static Tensor decode_jpeg_impl(const Tensor& data, ImageReadMode mode, bool apply_exif_orientation) {
  const Tensor bytes = detail::check_encoded("decode_jpeg", data);
  EMBER_CHECK(mode == ImageReadMode::UNCHANGED || mode == ImageReadMode::GRAY ||
                  mode == ImageReadMode::RGB,
              "decode_jpeg: mode ", detail::mode_name(mode),
              " is not supported for JPEG files (use UNCHANGED, GRAY or RGB)");

  Decompressor d;
  jpeg_decompress_struct& cinfo = d.cinfo;
  detail::install_jpeg_error_manager(reinterpret_cast<j_common_ptr>(&cinfo), d.err);
  d.source.pub.init_source = init_source;
  d.source.pub.fill_input_buffer = fill_input_buffer;
  d.source.pub.skip_input_data = skip_input_data;
  d.source.pub.resync_to_restart = jpeg_resync_to_restart;
  d.source.pub.term_source = term_source;
  d.source.pub.next_input_byte = bytes.data_ptr<uint8_t>();
  d.source.pub.bytes_in_buffer = static_cast<size_t>(bytes.numel());
  d.progress.progress_monitor = limit_scans;

  const bool created = run_guarded(d.err, [&] { jpeg_create_decompress(&cinfo); });
  EMBER_CHECK(created, "decode_jpeg: ", d.err.message);
  d.created = true;
  const bool header_ok = run_guarded(d.err, [&] {
    cinfo.src = &d.source.pub;
    cinfo.progress = &d.progress;
    if (apply_exif_orientation) jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xffff);
    jpeg_read_header(&cinfo, TRUE);
  });
  EMBER_CHECK(header_ok, "decode_jpeg: ", d.err.message);
  // Read now: the saved markers live in libjpeg's per-image pool, which
  // jpeg_finish_decompress frees.
  const int orientation = apply_exif_orientation ? find_exif_orientation(cinfo) : 1;

  // libjpeg cannot convert CMYK/YCCK to RGB or gray: decode CMYK and convert here.
  const bool is_cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  int out_channels = 0;  // 0: whatever libjpeg outputs
  if (mode == ImageReadMode::GRAY && cinfo.jpeg_color_space != JCS_GRAYSCALE) {
    if (is_cmyk) cinfo.out_color_space = JCS_CMYK, out_channels = 1;
    else cinfo.out_color_space = JCS_GRAYSCALE;
  } else if (mode == ImageReadMode::RGB && cinfo.jpeg_color_space != JCS_RGB) {
    if (is_cmyk) cinfo.out_color_space = JCS_CMYK, out_channels = 3;
    else cinfo.out_color_space = JCS_RGB;
  }
  const bool dims_ok = run_guarded(d.err, [&] { jpeg_calc_output_dimensions(&cinfo); });
  EMBER_CHECK(dims_ok, "decode_jpeg: ", d.err.message);
  const int width = static_cast<int>(cinfo.output_width);
  const int height = static_cast<int>(cinfo.output_height);
  const int components = cinfo.output_components;
  if (out_channels == 0) out_channels = components;
  // The file's own component count counts too: libjpeg works on all of them.
  detail::check_decoded_size("decode_jpeg", cinfo.output_width, cinfo.output_height,
                             std::max({components, out_channels, cinfo.num_components}));
  // Progressive and multi-scan files keep every DCT coefficient (2 bytes a
  // sample, padded to whole blocks) until the last scan. libjpeg asks its memory
  // manager how much it may use before allocating those buffers and fails when
  // they do not fit (it has no backing store), so this caps it.
  cinfo.mem->max_memory_to_use = static_cast<long>(
      std::min<uint64_t>(2 * image_decode_limit() + kJpegWorkingSlack, LONG_MAX));

  Tensor hwc = empty({height, width, out_channels}, kUInt8);
  std::vector<uint8_t> cmyk_line(is_cmyk && out_channels != components ? size_t(width) * 4 : 0);
  uint8_t* out = hwc.data_ptr<uint8_t>();
  const size_t out_stride = size_t(width) * size_t(out_channels);
  const bool decoded = run_guarded(d.err, [&] {
    jpeg_start_decompress(&cinfo);
    while (cinfo.output_scanline < cinfo.output_height) {
      uint8_t* row = out + size_t(cinfo.output_scanline) * out_stride;
      if (cmyk_line.empty()) {
        jpeg_read_scanlines(&cinfo, &row, 1);
      } else {
        uint8_t* line = cmyk_line.data();
        jpeg_read_scanlines(&cinfo, &line, 1);
        cmyk_line_to(line, width, out_channels, row);
      }
    }
    jpeg_finish_decompress(&cinfo);
  });
  EMBER_CHECK(decoded, "decode_jpeg: ", d.err.message,
              d.err.pub.msg_code == JERR_NO_BACKING_STORE
                  ? " (libjpeg's working memory would exceed the decode limit)"
                  : "");

  Tensor chw = detail::hwc_to_chw(hwc);
  if (orientation != 1) chw = detail::apply_exif_orientation(chw, orientation).contiguous();
  return chw;
}

Tensor decode_jpeg(const Tensor& data, ImageReadMode mode, bool apply_exif_orientation) {
  return with_out_of_memory_context(
      "decode_jpeg", [&] { return ember::detail::concat("decoding ", data.defined() ? data.numel() : 0, " bytes of JPEG"); },
      [&] { return decode_jpeg_impl(data, mode, apply_exif_orientation); });
}

}  // namespace ember::io
