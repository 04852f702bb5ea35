// Replays the inputs the image fuzz targets once failed on
// (tests/data/io/fuzz_regressions/, see fuzz/README.md): each must decode or
// raise ember::Error in every mode, under every decoder entry point.
#include <gtest/gtest.h>

#include <filesystem>

#include "io/io_test_util.h"

using namespace ember;
using namespace ember::testing;

namespace image_fuzz_regressions_test {

constexpr io::ImageReadMode kModes[] = {io::ImageReadMode::UNCHANGED, io::ImageReadMode::GRAY,
                                        io::ImageReadMode::GRAY_ALPHA, io::ImageReadMode::RGB,
                                        io::ImageReadMode::RGB_ALPHA};

template <class F>
void decode_or_raise(F&& decode) {
  try {
    const Tensor t = decode();
    EXPECT_EQ(t.dtype(), kUInt8);
    EXPECT_EQ(t.dim(), 3);
  } catch (const Error&) {
  }
}

TEST(IoImageFuzzRegressions, EveryInputDecodesOrRaises) {
  const std::filesystem::path dir = io_data("fuzz_regressions");
  int inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".bin") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const Tensor data = io::read_file(entry.path().string());
    ++inputs;
    for (io::ImageReadMode mode : kModes) {
      decode_or_raise([&] { return io::decode_image(data, mode); });
      decode_or_raise([&] { return io::decode_png(data, mode); });
      decode_or_raise([&] { return io::decode_jpeg(data, mode); });
      decode_or_raise([&] { return io::decode_jpeg(data, mode, /*apply_exif_orientation=*/true); });
    }
  }
  RecordProperty("inputs", inputs);
}

}  // namespace image_fuzz_regressions_test
