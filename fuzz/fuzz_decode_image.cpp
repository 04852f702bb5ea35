// libFuzzer target: ember::io::decode_image (format sniffing, then JPEG or PNG)
// on arbitrary bytes, in all five modes, JPEG-unsupported ones included. The
// corpus mixes JPEG and PNG seeds, so mutations cross between the formats.
#include "image_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using ember::io::ImageReadMode;
  ember::fuzz::set_fuzz_limits();
  const ember::Tensor bytes = ember::fuzz::bytes_tensor(data, size);
  for (ImageReadMode mode : {ImageReadMode::UNCHANGED, ImageReadMode::GRAY, ImageReadMode::GRAY_ALPHA,
                             ImageReadMode::RGB, ImageReadMode::RGB_ALPHA})
    ember::fuzz::decode_checked([&](ImageReadMode m) { return ember::io::decode_image(bytes, m); }, mode);
  return 0;
}
