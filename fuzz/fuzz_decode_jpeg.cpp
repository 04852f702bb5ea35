// libFuzzer target: ember::io::decode_jpeg on arbitrary bytes, in each mode
// JPEG supports (UNCHANGED with EXIF orientation, GRAY, RGB: the CMYK
// conversions and the EXIF parser are Ember's own code).
#include "image_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using ember::io::ImageReadMode;
  ember::fuzz::set_fuzz_limits();
  const ember::Tensor bytes = ember::fuzz::bytes_tensor(data, size);
  ember::fuzz::decode_checked(
      [&](ImageReadMode m) { return ember::io::decode_jpeg(bytes, m, /*apply_exif_orientation=*/true); },
      ImageReadMode::UNCHANGED);
  for (ImageReadMode mode : {ImageReadMode::GRAY, ImageReadMode::RGB})
    ember::fuzz::decode_checked([&](ImageReadMode m) { return ember::io::decode_jpeg(bytes, m); }, mode);
  return 0;
}
