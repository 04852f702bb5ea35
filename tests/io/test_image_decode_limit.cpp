// The decode limit (ember::io::set_image_decode_limit): decoders refuse images
// whose width * height * channels exceeds it, before allocating.
#include <gtest/gtest.h>

#include "image_common.h"
#include "io/io_test_util.h"

using namespace ember;
using namespace ember::testing;

namespace image_decode_limit_test {

// Restores the default limit when a test ends, failed or not.
struct LimitGuard {
  ~LimitGuard() { io::set_image_decode_limit(0); }
};

TEST(IoImageDecodeLimit, DefaultIsTwoGiB) {
  EXPECT_EQ(io::image_decode_limit(), uint64_t{1} << 31);
  EXPECT_EQ(io::kDefaultImageDecodeLimit, uint64_t{1} << 31);
}

TEST(IoImageDecodeLimit, ExactBoundaryForPng) {
  LimitGuard guard;
  const Tensor png = io::read_file(io_image("pngsuite_basn2c08.png"));  // 32 x 32 RGB
  io::set_image_decode_limit(32 * 32 * 3);
  EXPECT_EQ(io::decode_png(png).sizes().vec(), (std::vector<int64_t>{3, 32, 32}));
  io::set_image_decode_limit(32 * 32 * 3 - 1);
  const std::string msg = decode_error(png);
  EXPECT_TRUE(contains(msg, "decode_png") && contains(msg, "decode limit of 3071 bytes")) << msg;
  // The file's own channels count: RGB_ALPHA needs 4 per pixel.
  io::set_image_decode_limit(32 * 32 * 3);
  EXPECT_THROW(io::decode_png(png, io::ImageReadMode::RGB_ALPHA), Error);
  // ... and so does GRAY of an RGB file (libpng converts from 3 channels).
  EXPECT_EQ(io::decode_png(png, io::ImageReadMode::GRAY).size(0), 1);
  io::set_image_decode_limit(32 * 32 * 3 - 1);
  EXPECT_THROW(io::decode_png(png, io::ImageReadMode::GRAY), Error);
}

TEST(IoImageDecodeLimit, AppliesToJpegAndReadImage) {
  LimitGuard guard;
  const Tensor jpeg = io::read_file(io_image("hopper.jpg"));
  const Tensor rgb = io::decode_jpeg(jpeg);
  const uint64_t bytes = uint64_t(rgb.numel());
  io::set_image_decode_limit(bytes);
  EXPECT_TRUE(io::decode_jpeg(jpeg).equal(rgb));
  // GRAY output still has libjpeg work on the file's 3 components.
  EXPECT_NO_THROW(io::decode_jpeg(jpeg, io::ImageReadMode::GRAY));
  io::set_image_decode_limit(bytes - 1);
  EXPECT_THROW(io::decode_jpeg(jpeg, io::ImageReadMode::GRAY), Error);
  const std::string msg = decode_error(jpeg);
  EXPECT_TRUE(contains(msg, "decode_jpeg") && contains(msg, "set_image_decode_limit")) << msg;
  try {
    io::read_image(io_image("hopper.jpg"));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "hopper.jpg") && contains(e.what(), "decode limit")) << e.what();
  }
}

TEST(IoImageDecodeLimit, ZeroRestoresTheDefault) {
  LimitGuard guard;
  io::set_image_decode_limit(10);
  EXPECT_EQ(io::image_decode_limit(), 10u);
  io::set_image_decode_limit(0);
  EXPECT_EQ(io::image_decode_limit(), io::kDefaultImageDecodeLimit);
  // A limit near 2^64 cannot overflow the check.
  io::set_image_decode_limit(~uint64_t{0});
  EXPECT_NO_THROW(io::decode_image(io::read_file(io_image("pngsuite_basn0g01.png"))));
}

// width x height x channels is checked for overflow before the comparison
// with the limit (Note [Checked sizes]): even under the largest limit, sizes
// whose product wraps are refused, and every message names the op.
TEST(IoImageDecodeLimit, DeclaredSizesNeverWrap) {
  LimitGuard guard;
  io::set_image_decode_limit(~uint64_t{0});
  EXPECT_NO_THROW(io::detail::check_decoded_size("decode_png", 1u << 20, 1u << 20, 4));
  for (auto [w, h, c] : {std::tuple<uint64_t, uint64_t, uint64_t>{0xFFFFFFFFu, 0xFFFFFFFFu, 4},
                         {uint64_t{1} << 32, uint64_t{1} << 31, 1},
                         {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu},
                         {~uint64_t{0}, 1, 1}}) {
    try {
      io::detail::check_decoded_size("decode_png", w, h, c);
      ADD_FAILURE() << w << "x" << h << "x" << c << " passed";
    } catch (const Error& e) {
      EXPECT_TRUE(contains(e.what(), "decode_png")) << e.what();
    }
  }
  EXPECT_THROW(io::detail::check_decoded_size("decode_png", 0, 5, 3), Error);
}

}  // namespace image_decode_limit_test
