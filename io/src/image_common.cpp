#include "image_common.h"

#include <atomic>

#include <ember/core/checked_size.h>
#include <ember/core/error.h>

namespace ember::io {
namespace {
std::atomic<uint64_t> g_decode_limit{kDefaultImageDecodeLimit};
}  // namespace

uint64_t image_decode_limit() { return g_decode_limit.load(std::memory_order_relaxed); }

void set_image_decode_limit(uint64_t bytes) {
  g_decode_limit.store(bytes == 0 ? kDefaultImageDecodeLimit : bytes, std::memory_order_relaxed);
}

}  // namespace ember::io

namespace ember::io::detail {

std::string_view mode_name(ImageReadMode mode) {
  switch (mode) {
    case ImageReadMode::UNCHANGED: return "UNCHANGED";
    case ImageReadMode::GRAY: return "GRAY";
    case ImageReadMode::GRAY_ALPHA: return "GRAY_ALPHA";
    case ImageReadMode::RGB: return "RGB";
    case ImageReadMode::RGB_ALPHA: return "RGB_ALPHA";
  }
  return "unknown";
}

Tensor check_encoded(std::string_view op, const Tensor& data) {
  EMBER_CHECK(data.defined(), op, ": expected a tensor of encoded bytes, got an undefined tensor");
  EMBER_CHECK(data.dtype() == kUInt8, op, ": expected a uint8 tensor of encoded bytes, got ",
              dtype_name(data.dtype()));
  EMBER_CHECK(data.is_cpu(), op, ": expected a CPU tensor, got one on ", data.device());
  EMBER_CHECK(data.dim() == 1, op, ": expected a 1-D tensor of encoded bytes, got ", data.dim(),
              " dimensions ", data.sizes());
  EMBER_CHECK(data.numel() > 0, op, ": the encoded data is empty");
  return data.contiguous();
}

Tensor check_image_to_encode(std::string_view op, const Tensor& image, int64_t min_c,
                             int64_t max_c) {
  EMBER_CHECK(image.defined(), op, ": expected an image tensor, got an undefined tensor");
  EMBER_CHECK(image.dtype() == kUInt8, op, ": expected a uint8 image, got ",
              dtype_name(image.dtype()));
  EMBER_CHECK(image.is_cpu(), op, ": expected a CPU tensor, got one on ", image.device());
  EMBER_CHECK(image.dim() == 3, op, ": expected a [C, H, W] image, got shape ", image.sizes());
  const int64_t c = image.size(0);
  EMBER_CHECK(c >= min_c && c <= max_c, op, ": expected ", min_c, " to ", max_c,
              " channels, got ", c, " (shape ", image.sizes(), ")");
  EMBER_CHECK(image.size(1) > 0 && image.size(2) > 0, op, ": the image is empty (shape ",
              image.sizes(), ")");
  return image;
}

void check_decoded_size(std::string_view op, uint64_t width, uint64_t height, uint64_t channels) {
  // Headers give width and height below 2^32, but the product is checked all
  // the same (Note [Checked sizes]), before it is compared with the limit.
  const uint64_t limit = image_decode_limit();
  EMBER_CHECK(width > 0 && height > 0, op, ": the image declares an empty size ", width, "x",
              height);
  EMBER_CHECK(width <= INT64_MAX && height <= INT64_MAX && channels > 0 && channels <= INT64_MAX, op,
              ": the image declares an invalid size ", width, "x", height, "x", channels);
  int64_t samples = 0;
  const bool overflow =
      mul_overflows(static_cast<int64_t>(width), static_cast<int64_t>(height), &samples) ||
      mul_overflows(samples, static_cast<int64_t>(channels), &samples);
  EMBER_CHECK(!overflow && static_cast<uint64_t>(samples) <= limit, op, ": the image declares ", width, "x",
              height, "x", channels, " samples, more than the decode limit of ", limit,
              " bytes (ember::io::set_image_decode_limit changes it)");
}

Tensor hwc_to_chw(const Tensor& hwc) { return hwc.permute({2, 0, 1}); }

}  // namespace ember::io::detail
