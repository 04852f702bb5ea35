// Every decode case of tests/data/io/io_images/manifest.tsv (made by
// scripts/fixtures/io_images.py with torchvision.io 0.14): Ember's pixels must
// be identical, or Ember must raise where the manifest says "error".
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "io/io_test_util.h"
#include "npy.h"

using namespace ember;
using namespace ember::testing;

namespace image_decode_fixtures_test {

struct DecodeCase {
  std::string image, op, mode, expect;
  bool exif = false;
  std::string stem() const {
    std::string s = image.substr(0, image.rfind('.')) + "__" + op + "__" + mode;
    return exif ? s + "__exif" : s;
  }
};

// gtest prints failing parameters with this instead of their raw bytes.
void PrintTo(const DecodeCase& c, std::ostream* os) { *os << c.stem() << " (expect " << c.expect << ")"; }

std::vector<DecodeCase> load_manifest() {
  std::vector<DecodeCase> cases;
  std::ifstream f(io_data("io_images/manifest.tsv"));
  std::string line;
  std::getline(f, line);  // header
  while (std::getline(f, line)) {
    std::istringstream ss(line);
    DecodeCase c;
    std::string exif;
    if (std::getline(ss, c.image, '\t') && std::getline(ss, c.op, '\t') &&
        std::getline(ss, c.mode, '\t') && std::getline(ss, exif, '\t') &&
        std::getline(ss, c.expect, '\t')) {
      c.exif = exif == "1";
      cases.push_back(c);
    }
  }
  return cases;
}

io::ImageReadMode parse_mode(const std::string& m) {
  if (m == "GRAY") return io::ImageReadMode::GRAY;
  if (m == "GRAY_ALPHA") return io::ImageReadMode::GRAY_ALPHA;
  if (m == "RGB") return io::ImageReadMode::RGB;
  if (m == "RGB_ALPHA") return io::ImageReadMode::RGB_ALPHA;
  return io::ImageReadMode::UNCHANGED;
}

Tensor decode(const DecodeCase& c) {
  Tensor data = io::read_file(io_image(c.image));
  const io::ImageReadMode mode = parse_mode(c.mode);
  return c.op == "png" ? io::decode_png(data, mode) : io::decode_jpeg(data, mode, c.exif);
}

// Same checksums as scripts/fixtures/io_images.py checksums().
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

void expect_same_pixels(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.sizes().vec(), want.sizes().vec()) << what;
  const Tensor g = got.contiguous(), w = want.contiguous();
  const uint8_t* gp = g.data_ptr<uint8_t>();
  const uint8_t* wp = w.data_ptr<uint8_t>();
  int64_t mismatches = 0, first = -1, max_diff = 0;
  for (int64_t i = 0; i < g.numel(); ++i) {
    if (gp[i] != wp[i]) {
      if (first < 0) first = i;
      ++mismatches;
      max_diff = std::max<int64_t>(max_diff, std::abs(int(gp[i]) - int(wp[i])));
    }
  }
  EXPECT_EQ(mismatches, 0) << what << ": first at flat index " << first << " (got "
                           << (first >= 0 ? int(gp[first]) : 0) << ", want "
                           << (first >= 0 ? int(wp[first]) : 0) << "), max diff " << max_diff;
}

class DecodeFixture : public ::testing::TestWithParam<DecodeCase> {};

TEST_P(DecodeFixture, MatchesTorchvision) {
  const DecodeCase& c = GetParam();
  if (c.expect == "error") {
    EXPECT_THROW(decode(c), Error) << c.stem();
    return;
  }
  Tensor got = decode(c);
  EXPECT_EQ(got.dtype(), kUInt8);
  // torchvision's layout: the [C, H, W] view of the decoder's interleaved rows
  // (EXIF-rotated images are copies, contiguous).
  EXPECT_TRUE(got.permute({1, 2, 0}).is_contiguous() || got.is_contiguous()) << got.strides();
  got = got.contiguous();
  const std::string base = io_data("io_images/" + c.stem());
  if (c.expect == "full") {
    expect_same_pixels(got, load_npy(base + ".npy"), c.stem());
    return;
  }
  ASSERT_EQ(got.sizes().vec(), int64s(load_npy(base + "__shape.npy"))) << c.stem();
  const int64_t h = got.size(1), w = got.size(2);
  expect_same_pixels(got.slice(1, 0, 32).slice(2, 0, 32), load_npy(base + "__crop0.npy"),
                     c.stem() + " top-left crop");
  expect_same_pixels(got.slice(1, h - 32, h).slice(2, w - 32, w), load_npy(base + "__crop1.npy"),
                     c.stem() + " bottom-right crop");
  EXPECT_EQ(checksums(got), int64s(load_npy(base + "__sums.npy"))) << c.stem();
}

std::string case_name(const ::testing::TestParamInfo<DecodeCase>& info) {
  std::string s = info.param.stem();
  std::replace_if(s.begin(), s.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '_');
  return s;
}

INSTANTIATE_TEST_SUITE_P(IoImage, DecodeFixture, ::testing::ValuesIn(load_manifest()), case_name);

TEST(IoImageManifest, CoversTheImageKinds) {
  const auto cases = load_manifest();
  EXPECT_GT(cases.size(), 400u);
  auto has = [&](const std::string& image) {
    return std::any_of(cases.begin(), cases.end(), [&](const DecodeCase& c) { return c.image == image; });
  };
  for (const char* image : {"hopper_progressive.jpg", "pil_sample_rgb.jpg", "cmyk_pytorch.jpg",
                            "pngsuite_basn3p01.png", "pngsuite_basn6a16.png", "pngsuite_ibasn2c08.png",
                            "orientation_8.jpg"})
    EXPECT_TRUE(has(image)) << image;
}

}  // namespace image_decode_fixtures_test
