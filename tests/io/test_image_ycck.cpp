// YCCK JPEGs (Adobe transform 2), written here with libjpeg since neither PIL
// nor the test assets have one: UNCHANGED gives back the CMYK values (JPEG
// loss aside), and RGB / GRAY are the CMYK conversion of those values.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include <jpeglib.h>

#include "io/io_test_util.h"

using namespace ember;
using namespace ember::testing;

namespace image_ycck_test {

// Encodes interleaved H x W x 4 CMYK bytes as a YCCK JPEG (no error handling
// beyond libjpeg's default exit: the input is always valid).
std::vector<uint8_t> encode_ycck(const std::vector<uint8_t>& cmyk, int h, int w) {
  jpeg_compress_struct cinfo{};
  jpeg_error_mgr jerr{};
  cinfo.err = jpeg_std_error(&jerr);
  jpeg_create_compress(&cinfo);
  unsigned char* out = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&cinfo, &out, &size);
  cinfo.image_width = w;
  cinfo.image_height = h;
  cinfo.input_components = 4;
  cinfo.in_color_space = JCS_CMYK;
  jpeg_set_defaults(&cinfo);
  jpeg_set_colorspace(&cinfo, JCS_YCCK);
  jpeg_set_quality(&cinfo, 98, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<uint8_t*>(cmyk.data() + size_t(cinfo.next_scanline) * w * 4);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  std::vector<uint8_t> v(out, out + size);
  std::free(out);
  return v;
}

int cmyk_to_rgb(int k, int cmy) {
  int v = k * (255 - cmy) + 128;
  v = ((v >> 8) + v) >> 8;
  return std::clamp(k - v, 0, 255);
}

TEST(IoImageYcck, DecodesAndConverts) {
  const int h = 24, w = 32;
  std::vector<uint8_t> cmyk(size_t(h) * w * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = &cmyk[(size_t(y) * w + x) * 4];
      p[0] = uint8_t(40 + x * 5), p[1] = uint8_t(200 - y * 6), p[2] = uint8_t(100 + x + y), p[3] = uint8_t(220 - x);
    }
  const Tensor data = bytes_of(encode_ycck(cmyk, h, w));

  const Tensor raw = io::decode_jpeg(data).contiguous();
  ASSERT_EQ(raw.sizes().vec(), (std::vector<int64_t>{4, h, w}));
  double err = 0;
  for (int c = 0; c < 4; ++c)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        err += std::abs(raw.data_ptr<uint8_t>()[(size_t(c) * h + y) * w + x] - cmyk[(size_t(y) * w + x) * 4 + c]);
  EXPECT_LT(err / (4.0 * h * w), 2.0);

  const Tensor rgb = io::decode_jpeg(data, io::ImageReadMode::RGB).contiguous();
  const Tensor gray = io::decode_image(data, io::ImageReadMode::GRAY).contiguous();
  ASSERT_EQ(rgb.sizes().vec(), (std::vector<int64_t>{3, h, w}));
  ASSERT_EQ(gray.sizes().vec(), (std::vector<int64_t>{1, h, w}));
  const uint8_t* q = raw.data_ptr<uint8_t>();
  const size_t plane = size_t(h) * w;
  for (size_t i = 0; i < plane; ++i) {
    const int k = q[3 * plane + i];
    const int r = cmyk_to_rgb(k, q[i]), g = cmyk_to_rgb(k, q[plane + i]), b = cmyk_to_rgb(k, q[2 * plane + i]);
    ASSERT_EQ(rgb.data_ptr<uint8_t>()[i], r) << i;
    ASSERT_EQ(rgb.data_ptr<uint8_t>()[plane + i], g) << i;
    ASSERT_EQ(rgb.data_ptr<uint8_t>()[2 * plane + i], b) << i;
    ASSERT_EQ(gray.data_ptr<uint8_t>()[i], (r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16) << i;
  }
}

}  // namespace image_ycck_test
