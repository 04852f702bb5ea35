// Hostile and broken input: every decoder call either decodes or raises
// ember::Error naming the op and the reason; nothing crashes, hangs or
// allocates without bound (run the io suite under EMBER_SANITIZE=address to
// check for leaks too).
#include <gtest/gtest.h>
#include <unistd.h>

#include <random>

#include "io/io_test_util.h"

using namespace ember;
using namespace ember::testing;

namespace image_bad_input_test {

// Decodes, and returns "" or the error message; anything but ember::Error fails.
std::string try_decode(const Tensor& data, io::ImageReadMode mode = io::ImageReadMode::UNCHANGED) {
  try {
    Tensor t = io::decode_image(data, mode);
    EXPECT_EQ(t.dtype(), kUInt8);
    EXPECT_EQ(t.dim(), 3);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

// A PNG whose IHDR claims width x height (with a valid CRC), followed by the rest
// of a real file.
std::vector<uint8_t> png_claiming(uint32_t width, uint32_t height, uint8_t color_type = 6) {
  std::vector<uint8_t> v = image_bytes("pngsuite_basn6a08.png");
  put_be32(v, 16, width);
  put_be32(v, 20, height);
  v[25] = color_type;
  put_be32(v, 29, png_crc32(v.data() + 12, 17));
  return v;
}

TEST(IoImageBadInput, DamagedFilesFromOtherProjectsRaise) {
  for (const char* name : {"damaged_corrupt.jpg", "damaged_corrupt34_2.jpg", "damaged_corrupt34_3.jpg",
                           "damaged_corrupt34_4.jpg", "truncated_jpeg.jpg", "skimage_truncated.jpg",
                           "damaged_sigsegv.png"}) {
    const std::string msg = try_decode(io::read_file(io_image(name)));
    EXPECT_FALSE(msg.empty()) << name << " decoded";
    EXPECT_TRUE(contains(msg, std::string(name).ends_with(".png") ? "decode_png" : "decode_jpeg")) << msg;
  }
  EXPECT_TRUE(contains(try_decode(io::read_file(io_image("truncated_jpeg.jpg"))), "truncated"));
}

TEST(IoImageBadInput, WrongTensorsRaise) {
  using M = io::ImageReadMode;
  EXPECT_TRUE(contains(error_of([] { io::decode_jpeg(empty({0}, kUInt8)); }), "empty"));
  EXPECT_TRUE(contains(error_of([] { io::decode_png(empty({0}, kUInt8)); }), "decode_png"));
  EXPECT_TRUE(contains(error_of([] { io::decode_image(zeros({10}, kFloat32)); }), "uint8"));
  EXPECT_TRUE(contains(error_of([] { io::decode_image(zeros({2, 10}, kUInt8)); }), "1-D"));
  EXPECT_TRUE(contains(error_of([] { io::decode_image(Tensor()); }), "decode_image"));
  EXPECT_TRUE(contains(error_of([] { io::decode_image(zeros({100}, kUInt8)); }), "unsupported image format"));
  EXPECT_TRUE(contains(error_of([] { io::decode_png(zeros({4}, kUInt8)); }), "not a PNG"));
  EXPECT_TRUE(contains(error_of([] { io::decode_jpeg(zeros({100}, kUInt8)); }), "decode_jpeg"));
  const Tensor jpeg = io::read_file(io_image("hopper.jpg"));
  const std::string msg = error_of([&] { io::decode_jpeg(jpeg, M::RGB_ALPHA); });
  EXPECT_TRUE(contains(msg, "decode_jpeg") && contains(msg, "RGB_ALPHA")) << msg;
  EXPECT_THROW(io::decode_image(jpeg, M::GRAY_ALPHA), Error);
  EXPECT_THROW(io::read_image("/nonexistent/ember/image.png"), Error);
}

TEST(IoImageBadInput, HugeDeclaredDimensionsRaiseBeforeAllocating) {
  // 60000 x 60000 RGBA is 14.4 GB: over the 2^31-byte cap.
  std::string msg = try_decode(bytes_of(png_claiming(60000, 60000)));
  EXPECT_TRUE(contains(msg, "decode_png") && contains(msg, "limit")) << msg;
  // Past libpng's own 1,000,000-pixel side limit.
  EXPECT_FALSE(try_decode(bytes_of(png_claiming(2000000, 1))).empty());
  // Absurd IHDR values (zero, over 2^31) are libpng errors.
  EXPECT_FALSE(try_decode(bytes_of(png_claiming(0, 10))).empty());
  EXPECT_FALSE(try_decode(bytes_of(png_claiming(0x80000000u, 10))).empty());
  // A JPEG whose SOF claims 65000 x 65000: 12.7 GB of RGB.
  std::vector<uint8_t> jpeg = image_bytes("hopper.jpg");
  size_t sof = 2;
  while (sof + 9 < jpeg.size() && !(jpeg[sof] == 0xFF && (jpeg[sof + 1] == 0xC0 || jpeg[sof + 1] == 0xC2)))
    ++sof;
  ASSERT_LT(sof + 9, jpeg.size());
  jpeg[sof + 5] = 0xFD, jpeg[sof + 6] = 0xE8;  // height 65000
  jpeg[sof + 7] = 0xFD, jpeg[sof + 8] = 0xE8;  // width 65000
  msg = try_decode(bytes_of(jpeg));
  EXPECT_TRUE(contains(msg, "decode_jpeg") && contains(msg, "limit")) << msg;
}

TEST(IoImageBadInput, EveryTruncationDecodesOrRaises) {
  for (const char* name : {"hopper.jpg", "hopper_progressive.jpg", "pil_sample_rgb.jpg", "cmyk_pytorch.jpg",
                           "pngsuite_basn6a08.png", "pngsuite_ibasn3p08.png", "pngsuite_basn0g16.png",
                           "palette_pytorch.png"}) {
    const std::vector<uint8_t> v = image_bytes(name);
    int raised = 0;
    const size_t step = std::max<size_t>(1, v.size() / 300);
    for (size_t n = 1; n < v.size(); n += step) {
      std::vector<uint8_t> prefix(v.begin(), v.begin() + n);
      for (auto mode : {io::ImageReadMode::UNCHANGED, io::ImageReadMode::RGB}) {
        const std::string msg = try_decode(bytes_of(prefix), mode);
        raised += !msg.empty();
      }
    }
    // Nearly every prefix lacks image data; only the last bytes (trailers) may go.
    EXPECT_GT(raised, 0) << name;
  }
}

TEST(IoImageBadInput, BitFlipsDecodeOrRaise) {
  std::mt19937 rng(1234);
  for (const char* name : {"hopper.jpg", "hopper_progressive.jpg", "app13-multiple.jpg", "cmyk_pytorch.jpg",
                           "orientation_6.jpg", "pngsuite_basn6a08.png", "pngsuite_ibasn2c16.png",
                           "pngsuite_basn3p02.png", "palette_pytorch.png"}) {
    const std::vector<uint8_t> original = image_bytes(name);
    for (int trial = 0; trial < 150; ++trial) {
      std::vector<uint8_t> v = original;
      const int flips = 1 + int(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        // Headers are where the interesting fields are: bias flips to the front.
        const size_t at = trial % 2 ? rng() % std::min<size_t>(v.size(), 400) : rng() % v.size();
        v[at] ^= uint8_t(1u << (rng() % 8));
      }
      const auto mode = static_cast<io::ImageReadMode>(trial % 5);
      try_decode(bytes_of(v), mode);
      try {
        io::decode_jpeg(bytes_of(v), io::ImageReadMode::RGB, true);
      } catch (const Error&) {
      }
    }
  }
}

TEST(IoImageBadInput, GarbageAfterTheImageIsIgnored) {
  for (const char* name : {"hopper.jpg", "pngsuite_basn2c08.png"}) {
    std::vector<uint8_t> v = image_bytes(name);
    const Tensor clean = io::decode_image(bytes_of(v));
    v.insert(v.end(), 1000, 0xAB);
    EXPECT_TRUE(io::decode_image(bytes_of(v)).equal(clean)) << name;
  }
}

}  // namespace image_bad_input_test
