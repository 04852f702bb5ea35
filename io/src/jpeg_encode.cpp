// encode_jpeg through libjpeg-turbo: the same settings as torchvision.io
// (jpeg_set_defaults, jpeg_set_quality(q, force_baseline)), so the bytes match.
#include <cstdlib>
#include <cstring>
#include <optional>

#include <ember/core/error.h>
#include <ember/io/image.h>
#include <ember/ops/factories.h>

#include "image_common.h"
#include "interleaved_rows.h"
#include "jpeg_common.h"
#include "jpeg_planar_420.h"

namespace ember::io {
namespace {

using detail::run_guarded;

// A growable malloc'd output buffer. It is freed by ~Compressor, also when
// libjpeg aborts half-way (jpeg_mem_dest would leak in that case).
struct MemoryDestination {
  jpeg_destination_mgr pub;
  unsigned char* buffer;
  size_t capacity;
};

constexpr size_t kInitialCapacity = 64 * 1024;

bool grow(MemoryDestination& dest) {
  const size_t capacity = dest.capacity == 0 ? kInitialCapacity : dest.capacity * 2;
  auto* bigger = static_cast<unsigned char*>(std::realloc(dest.buffer, capacity));
  if (bigger == nullptr) return false;
  dest.buffer = bigger;
  dest.capacity = capacity;
  return true;
}

void init_destination(j_compress_ptr cinfo) {
  auto* dest = reinterpret_cast<MemoryDestination*>(cinfo->dest);
  if (!grow(*dest)) detail::jpeg_fail(reinterpret_cast<j_common_ptr>(cinfo), "out of memory");
  dest->pub.next_output_byte = dest->buffer;
  dest->pub.free_in_buffer = dest->capacity;
}

boolean empty_output_buffer(j_compress_ptr cinfo) {
  // Called when the buffer is full: everything up to capacity is written.
  auto* dest = reinterpret_cast<MemoryDestination*>(cinfo->dest);
  const size_t used = dest->capacity;
  if (!grow(*dest)) detail::jpeg_fail(reinterpret_cast<j_common_ptr>(cinfo), "out of memory");
  dest->pub.next_output_byte = dest->buffer + used;
  dest->pub.free_in_buffer = dest->capacity - used;
  return TRUE;
}

void term_destination(j_compress_ptr) {}

struct Compressor {
  jpeg_compress_struct cinfo{};
  detail::JpegErrorManager err{};
  MemoryDestination dest{};
  bool created = false;
  ~Compressor() {
    if (created) jpeg_destroy_compress(&cinfo);
    std::free(dest.buffer);
  }
};

}  // namespace

Tensor encode_jpeg(const Tensor& image, int64_t quality) {
  EMBER_CHECK(quality >= 1 && quality <= 100, "encode_jpeg: quality must be in [1, 100], got ",
              quality);
  const Tensor checked = detail::check_image_to_encode("encode_jpeg", image, 1, 3);
  detail::InterleavedRows rows(checked);
  const int64_t channels = rows.channels();
  EMBER_CHECK(channels != 2, "encode_jpeg: expected 1 (gray) or 3 (RGB) channels, got 2");
  EMBER_CHECK(rows.height() <= JPEG_MAX_DIMENSION && rows.width() <= JPEG_MAX_DIMENSION,
              "encode_jpeg: JPEG images are at most ", JPEG_MAX_DIMENSION, " pixels a side, got ",
              rows.width(), "x", rows.height());
  // RGB planes ([3, H, W] rows with pixel stride 1) skip the interleave: Ember
  // converts them to YCbCr 4:2:0 itself, bit-identical to libjpeg's own path.
  std::optional<detail::PlanarRgb420Writer> planar;
  if (channels == 3 && checked.stride(2) == 1 && rows.width() > 1)
    planar.emplace(checked.data_ptr<uint8_t>(), checked.stride(0), checked.stride(1), rows.width(), rows.height());

  Compressor c;
  jpeg_compress_struct& cinfo = c.cinfo;
  detail::install_jpeg_error_manager(reinterpret_cast<j_common_ptr>(&cinfo), c.err);
  const bool created = run_guarded(c.err, [&] { jpeg_create_compress(&cinfo); });
  EMBER_CHECK(created, "encode_jpeg: ", c.err.message);
  c.created = true;

  c.dest.pub.init_destination = init_destination;
  c.dest.pub.empty_output_buffer = empty_output_buffer;
  c.dest.pub.term_destination = term_destination;
  cinfo.dest = &c.dest.pub;
  cinfo.image_width = static_cast<JDIMENSION>(rows.width());
  cinfo.image_height = static_cast<JDIMENSION>(rows.height());
  cinfo.input_components = static_cast<int>(channels);
  cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;

  const bool encoded = run_guarded(c.err, [&] {
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, static_cast<int>(quality), TRUE);
    const bool raw = planar.has_value() && detail::uses_default_420(cinfo);
    if (raw) detail::PlanarRgb420Writer::prepare(cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    if (raw) {
      planar->write(cinfo);
    } else {
      while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = const_cast<uint8_t*>(rows.row(cinfo.next_scanline));
        jpeg_write_scanlines(&cinfo, &row, 1);
      }
    }
    jpeg_finish_compress(&cinfo);
  });
  EMBER_CHECK(encoded, "encode_jpeg: ", c.err.message);

  const size_t size = c.dest.capacity - c.dest.pub.free_in_buffer;
  Tensor out = empty({static_cast<int64_t>(size)}, kUInt8);
  std::memcpy(out.data_ptr(), c.dest.buffer, size);
  return out;
}

}  // namespace ember::io
