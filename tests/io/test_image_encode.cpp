// encode_jpeg / encode_png: byte-identical to torchvision.io 0.14 (same libjpeg-
// turbo and libpng settings), lossless PNG round trips for 1-4 channels, JPEG
// round trips close to the input, and the write_* / read_image helpers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "io/io_test_util.h"
#include "npy.h"

using namespace ember;
using namespace ember::testing;

namespace image_encode_test {

std::vector<int64_t> checksums(const Tensor& t) {
  const Tensor c = t.contiguous();
  const uint8_t* p = c.data_ptr<uint8_t>();
  int64_t sum = 0, w251 = 0, w65521 = 0;
  for (int64_t i = 0; i < c.numel(); ++i) {
    sum += p[i];
    w251 += int64_t(p[i]) * (i % 251);
    w65521 += int64_t(p[i]) * (i % 65521);
  }
  return {c.numel(), sum, w251, w65521};
}

std::vector<int64_t> int64s(const Tensor& t) {
  const Tensor c = t.contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// Deterministic pseudo-random image (a smooth gradient plus noise, so JPEG
// round trips stay close).
Tensor test_image(int64_t c, int64_t h, int64_t w, uint32_t seed = 1) {
  Tensor t = empty({c, h, w}, kUInt8);
  uint8_t* p = t.data_ptr<uint8_t>();
  uint32_t s = seed;
  for (int64_t k = 0; k < c; ++k)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        s = s * 1664525u + 1013904223u;
        *p++ = uint8_t((x * 255 / std::max<int64_t>(w - 1, 1) + y * 3 + k * 40 + (s >> 29)) & 0xff);
      }
  return t;
}

// A smooth image (what JPEG is made for): gradients, no noise or wrap-around.
Tensor smooth_image(int64_t c, int64_t h, int64_t w) {
  Tensor t = empty({c, h, w}, kUInt8);
  uint8_t* p = t.data_ptr<uint8_t>();
  for (int64_t k = 0; k < c; ++k)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) *p++ = uint8_t(20 + x * 150 / w + y * 60 / h + k * 20);
  return t;
}

double mean_abs_diff(const Tensor& a, const Tensor& b) {
  const Tensor x = a.contiguous(), y = b.contiguous();
  double total = 0;
  for (int64_t i = 0; i < x.numel(); ++i)
    total += std::abs(int(x.data_ptr<uint8_t>()[i]) - int(y.data_ptr<uint8_t>()[i]));
  return total / double(x.numel());
}


TEST(IoImageEncode, BytesMatchTorchvision) {
  std::ifstream f(io_data("io_images/encode_manifest.tsv"));
  std::string line;
  std::getline(f, line);
  int cases = 0;
  while (std::getline(f, line)) {
    std::istringstream ss(line);
    std::string image, mode, codec, param;
    std::getline(ss, image, '\t');
    std::getline(ss, mode, '\t');
    std::getline(ss, codec, '\t');
    std::getline(ss, param, '\t');
    const Tensor x = io::read_image(io_image(image), mode == "GRAY" ? io::ImageReadMode::GRAY
                                                                    : io::ImageReadMode::RGB);
    const int64_t p = std::stoll(param);
    const Tensor encoded = codec == "jpeg" ? io::encode_jpeg(x, p) : io::encode_png(x, p);
    EXPECT_EQ(encoded.dim(), 1);
    EXPECT_EQ(encoded.dtype(), kUInt8);
    const std::string stem = image.substr(0, image.rfind('.'));
    const std::string fixture =
        io_data("io_images/encode__" + stem + "__" + mode + "__" + codec + param + ".npy");
    EXPECT_EQ(checksums(encoded), int64s(load_npy(fixture))) << line;
    ++cases;
  }
  EXPECT_EQ(cases, 40);
}

TEST(IoImageEncode, PngRoundTripIsLosslessForEveryChannelCount) {
  for (int64_t c = 1; c <= 4; ++c) {
    for (int64_t level : {0, 1, 6, 9}) {
      const Tensor image = test_image(c, 37, 53, uint32_t(c * 10 + level));
      const Tensor png = io::encode_png(image, level);
      const Tensor back = io::decode_png(png);
      EXPECT_TRUE(back.equal(image)) << "channels " << c << " level " << level;
      EXPECT_TRUE(io::decode_image(png).equal(image));
    }
  }
}

TEST(IoImageEncode, PngCompressionLevelChangesSizeNotPixels) {
  const Tensor image = test_image(3, 64, 64);
  const Tensor stored = io::encode_png(image, 0), best = io::encode_png(image, 9);
  EXPECT_GT(stored.numel(), best.numel());
  EXPECT_GE(stored.numel(), 64 * 64 * 3);
  EXPECT_TRUE(io::decode_png(best).equal(io::decode_png(stored)));
}

TEST(IoImageEncode, JpegRoundTripIsClose) {
  for (int64_t c : {1, 3}) {
    const Tensor image = smooth_image(c, 48, 40);
    double previous = 1e9;
    for (int64_t q : {10, 50, 75, 95}) {
      const Tensor back = io::decode_jpeg(io::encode_jpeg(image, q));
      ASSERT_EQ(back.sizes().vec(), image.sizes().vec());
      const double err = mean_abs_diff(back, image);
      EXPECT_LT(err, q >= 75 ? 1.5 : q >= 50 ? 4.0 : 10.0) << "channels " << c << " quality " << q;
      EXPECT_LE(err, previous + 0.5) << "error should shrink as quality grows";
      previous = err;
    }
  }
}

// Planar RGB input goes through Ember's own YCbCr 4:2:0 conversion
// (jpeg_planar_420.cpp); interleaved input through libjpeg's. The bytes must
// be the same for every size (all edge paddings: widths and heights around
// multiples of 8 and 16), quality and content, saturated colours included.
TEST(IoImageEncode, PlanarRgbEncodesLikeLibjpegsOwnConversion) {
  Generator gen(17);
  int cases = 0;
  for (int64_t h : {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33}) {
    for (int64_t w : {1, 2, 3, 5, 8, 15, 16, 17, 31, 32, 33, 47, 70}) {
      for (int content = 0; content < 3; ++content) {
        // Noise, a smooth picture, and only the values 0 and 255.
        Tensor planar = content == 0   ? randint(0, 256, {3, h, w}, kUInt8, &gen)
                        : content == 1 ? smooth_image(3, h, w)
                                       : randint(0, 2, {3, h, w}, kUInt8, &gen) * 255;
        planar = planar.to(kUInt8).contiguous();
        const Tensor interleaved = planar.permute({1, 2, 0}).contiguous().permute({2, 0, 1});
        for (int64_t q : {1, 75, 100}) {
          ASSERT_TRUE(io::encode_jpeg(planar, q).equal(io::encode_jpeg(interleaved, q)))
              << h << "x" << w << " content " << content << " quality " << q;
          ++cases;
        }
      }
    }
  }
  EXPECT_EQ(cases, 11 * 13 * 3 * 3);
  // Planes with padded rows (a crop) and a 1080p frame.
  const Tensor big = randint(0, 256, {3, 1080, 1920}, kUInt8, &gen).to(kUInt8);
  const Tensor crop = big.slice(1, 3, 1000).slice(2, 5, 1800);
  ASSERT_EQ(crop.stride(2), 1);
  EXPECT_TRUE(io::encode_jpeg(crop, 90).equal(io::encode_jpeg(crop.permute({1, 2, 0}).contiguous().permute({2, 0, 1}), 90)));
  EXPECT_TRUE(io::encode_jpeg(big, 75).equal(io::encode_jpeg(big.permute({1, 2, 0}).contiguous().permute({2, 0, 1}), 75)));
}

TEST(IoImageEncode, NonContiguousInputsEncodeAsTheirValues) {
  const Tensor base = test_image(3, 40, 30);
  // A [C, H, W] view of an H x W x C buffer (channels-last strides), and a flipped view.
  const Tensor hwc = base.permute({1, 2, 0}).contiguous();
  const Tensor strided = hwc.permute({2, 0, 1});
  ASSERT_FALSE(strided.is_contiguous());
  EXPECT_TRUE(io::encode_png(strided).equal(io::encode_png(base)));
  EXPECT_TRUE(io::encode_jpeg(strided, 90).equal(io::encode_jpeg(base, 90)));
  const Tensor flipped = flip(base, {2});
  EXPECT_TRUE(io::decode_png(io::encode_png(flipped)).equal(flipped.contiguous()));
  const Tensor every_other = base.slice(2, 0, 30, 2);
  EXPECT_TRUE(io::decode_png(io::encode_png(every_other)).equal(every_other.contiguous()));
}

TEST(IoImageEncode, OddSizesAndSinglePixels) {
  for (auto [h, w] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {1, 17}, {17, 1}, {9, 15}}) {
    const Tensor image = test_image(3, h, w);
    EXPECT_TRUE(io::decode_png(io::encode_png(image)).equal(image));
    const Tensor back = io::decode_jpeg(io::encode_jpeg(image, 100));
    EXPECT_EQ(back.sizes().vec(), image.sizes().vec());
  }
}

TEST(IoImageEncode, WriteAndReadFiles) {
  const Tensor image = test_image(3, 21, 34);
  TempPath png("write.png"), jpg("write.jpg");
  io::write_png(image, png.str(), 3);
  EXPECT_TRUE(io::read_image(png.str()).equal(image));
  EXPECT_TRUE(io::read_file(png.str()).equal(io::encode_png(image, 3)));
  io::write_jpeg(image, jpg.str(), 92);
  EXPECT_TRUE(io::read_file(jpg.str()).equal(io::encode_jpeg(image, 92)));
  const Tensor gray = io::read_image(jpg.str(), io::ImageReadMode::GRAY);
  EXPECT_EQ(gray.sizes().vec(), (std::vector<int64_t>{1, 21, 34}));
}

TEST(IoImageEncode, BadArgumentsRaise) {
  const Tensor rgb = test_image(3, 8, 8);
  EXPECT_THROW(io::encode_jpeg(rgb, 0), Error);
  EXPECT_THROW(io::encode_jpeg(rgb, 101), Error);
  EXPECT_THROW(io::encode_png(rgb, -1), Error);
  EXPECT_THROW(io::encode_png(rgb, 10), Error);
  EXPECT_THROW(io::encode_jpeg(test_image(2, 8, 8), 75), Error);   // gray+alpha: no JPEG
  EXPECT_THROW(io::encode_jpeg(test_image(4, 8, 8), 75), Error);
  EXPECT_THROW(io::encode_png(zeros({5, 8, 8}, kUInt8)), Error);
  EXPECT_THROW(io::encode_png(zeros({3, 8, 8}, kFloat32)), Error);
  EXPECT_THROW(io::encode_png(zeros({8, 8}, kUInt8)), Error);
  EXPECT_THROW(io::encode_png(zeros({3, 0, 8}, kUInt8)), Error);
  EXPECT_THROW(io::encode_jpeg(zeros({1, 8, 8}, kInt64)), Error);
  EXPECT_THROW(io::encode_jpeg(zeros({3, 8, 65501}, kUInt8)), Error);
  EXPECT_THROW(io::write_png(rgb, "/nonexistent/ember/out.png"), Error);
  try {
    io::encode_jpeg(rgb, 0);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("encode_jpeg"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("quality"), std::string::npos) << e.what();
  }
}

// The encoders read any layout: planar [C, H, W], the interleaved view the
// decoders return, and strided views (a crop of a flipped image) give the bytes
// that the contiguous copy of the same pixels gives.
TEST(IoImageEncode, AnyLayoutEncodesLikeTheContiguousCopy) {
  for (int64_t c : {1, 3, 4}) {
    Tensor hwc = randint(0, 256, {37, 53, c}, TensorOptions().dtype(kUInt8));
    const Tensor views[] = {hwc.permute({2, 0, 1}),                                // interleaved
                            hwc.permute({2, 0, 1}).contiguous(),                   // planar
                            hwc.permute({2, 0, 1}).flip({2}).narrow(1, 3, 30)};  // strided
    for (const Tensor& image : views) {
      const Tensor ref = image.contiguous();
      const Tensor png = io::encode_png(image, 6), png_ref = io::encode_png(ref, 6);
      ASSERT_TRUE(equal(png, png_ref)) << "png, C=" << c << " strides " << image.strides();
      // PNG is lossless: the pixels come back whatever path interleaved them.
      ASSERT_TRUE(equal(io::decode_png(png).contiguous(), ref)) << "png round trip, C=" << c;
      if (c == 4) continue;
      const Tensor jpg = io::encode_jpeg(image, 80), jpg_ref = io::encode_jpeg(ref, 80);
      ASSERT_TRUE(equal(jpg, jpg_ref)) << "jpeg, C=" << c << " strides " << image.strides();
    }
  }
}

}  // namespace image_encode_test
