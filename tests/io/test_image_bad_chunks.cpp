// Forged PNG chunks and JPEG markers: CRC errors, bad chunk lengths, unknown
// critical chunks, zero sizes. Critical damage raises ember::Error naming
// decode_png / decode_jpeg and libpng's / libjpeg's reason; damage in
// ancillary chunks is dropped, as libpng (and so torchvision) does.
#include <gtest/gtest.h>

#include "io/io_test_util.h"

using namespace ember;
using namespace ember::testing;

namespace image_bad_chunks_test {

// Offset of the first chunk of `type` in a PNG (its length field), or 0.
size_t find_chunk(const std::vector<uint8_t>& png, const char* type) {
  for (size_t at = 8; at + 12 <= png.size(); at += 12 + get_be32(png, at))
    if (std::memcmp(png.data() + at + 4, type, 4) == 0) return at;
  return 0;
}

// Recomputes the CRC of the chunk at `at` (after editing its type or data).
void fix_crc(std::vector<uint8_t>& png, size_t at) {
  const uint32_t length = get_be32(png, at);
  put_be32(png, at + 8 + length, png_crc32(png.data() + at + 4, 4 + length));
}

// pngsuite_basn2c08.png: IHDR, gAMA, IDAT, IEND.
std::vector<uint8_t> basn2c08() { return image_bytes("pngsuite_basn2c08.png"); }

// Offset of the first JPEG marker FF <code> (the FF byte).
size_t find_marker(const std::vector<uint8_t>& jpeg, uint8_t code) {
  for (size_t at = 2; at + 1 < jpeg.size(); ++at)
    if (jpeg[at] == 0xFF && jpeg[at + 1] == code) return at;
  return 0;
}

// decode_png's error message, or "" when it decodes.
std::string error_of_png(const std::vector<uint8_t>& v) {
  try {
    io::decode_png(bytes_of(v));
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

TEST(IoImageBadChunks, PngCrcErrorInCriticalChunksRaise) {
  for (const char* type : {"IHDR", "IDAT"}) {
    std::vector<uint8_t> v = basn2c08();
    const size_t at = find_chunk(v, type);
    ASSERT_NE(at, 0u);
    v[at + 8 + get_be32(v, at)] ^= 0x01;  // first CRC byte
    const std::string msg = decode_error(bytes_of(v));
    EXPECT_TRUE(contains(msg, "decode_png") && contains(msg, "CRC")) << type << ": " << msg;
  }
}

TEST(IoImageBadChunks, PngCrcErrorInAncillaryChunkIsDropped) {
  const Tensor clean = io::decode_png(bytes_of(basn2c08()));
  std::vector<uint8_t> v = basn2c08();
  const size_t at = find_chunk(v, "gAMA");
  ASSERT_NE(at, 0u);
  v[at + 8] ^= 0xFF;  // gamma value, CRC left stale
  EXPECT_TRUE(io::decode_png(bytes_of(v)).equal(clean));
}

TEST(IoImageBadChunks, PngBadChunkLengthsRaise) {
  // IDAT claiming more bytes than the file has: truncated (or, past libpng's
  // bound for the image size, "chunk data is too large").
  std::vector<uint8_t> v = basn2c08();
  size_t at = find_chunk(v, "IDAT");
  for (uint32_t length : {1000u, 1000000u}) {
    put_be32(v, at, length);
    const std::string msg = decode_error(bytes_of(v));
    EXPECT_TRUE(contains(msg, "decode_png")) << msg;
  }
  // Over 2^31 - 1: not a PNG length at all.
  v = basn2c08();
  put_be32(v, find_chunk(v, "gAMA"), 0x80000000u);
  std::string msg = decode_error(bytes_of(v));
  EXPECT_TRUE(contains(msg, "decode_png")) << msg;
  // IHDR of the wrong length.
  v = basn2c08();
  put_be32(v, 8, 12);
  EXPECT_TRUE(contains(decode_error(bytes_of(v)), "decode_png"));
}

TEST(IoImageBadChunks, PngUnknownCriticalChunkRaises) {
  // gAMA renamed to "XAMA": an upper-case first letter marks a critical chunk.
  std::vector<uint8_t> v = basn2c08();
  const size_t at = find_chunk(v, "gAMA");
  std::memcpy(v.data() + at + 4, "XAMA", 4);
  fix_crc(v, at);
  const std::string msg = decode_error(bytes_of(v));
  EXPECT_TRUE(contains(msg, "decode_png") && contains(msg, "unhandled critical chunk")) << msg;
  // An unknown ancillary chunk (lower-case first letter) is skipped.
  v = basn2c08();
  std::memcpy(v.data() + at + 4, "xAMA", 4);
  fix_crc(v, at);
  EXPECT_EQ(decode_error(bytes_of(v)), "");
}

TEST(IoImageBadChunks, PngMissingOrEmptyImageDataRaises) {
  std::vector<uint8_t> v = basn2c08();
  const size_t idat = find_chunk(v, "IDAT");
  // IDAT shortened to 10 bytes of its zlib stream: "Not enough image data" or similar.
  std::vector<uint8_t> cut(v.begin(), v.begin() + idat + 8 + 10);
  put_be32(cut, idat, 10);
  cut.resize(cut.size() + 4);
  fix_crc(cut, idat);
  const std::vector<uint8_t> iend(v.end() - 12, v.end());
  cut.insert(cut.end(), iend.begin(), iend.end());
  EXPECT_TRUE(contains(decode_error(bytes_of(cut)), "decode_png"));
  // No IDAT at all: IHDR, gAMA, IEND.
  std::vector<uint8_t> none(v.begin(), v.begin() + idat);
  none.insert(none.end(), iend.begin(), iend.end());
  EXPECT_TRUE(contains(decode_error(bytes_of(none)), "decode_png"));
}

TEST(IoImageBadChunks, PngBadHeaderFieldsRaise) {
  // PngSuite's corrupted files, forged (they are not in ../shared/data):
  // xd0/xd3/xd9 bit depth 0, 3, 99; xc1/xc9 color type 1, 9; plus color type 5,
  // compression method 1, filter method 1, interlace method 7.
  const std::pair<int, int> fields[] = {{24, 0}, {24, 3}, {24, 99}, {25, 1}, {25, 9}, {25, 5},
                                        {26, 1}, {27, 1}, {28, 7}};
  for (auto [offset, value] : fields) {
    std::vector<uint8_t> v = basn2c08();
    v[offset] = uint8_t(value);
    fix_crc(v, 8);
    const std::string msg = decode_error(bytes_of(v));
    EXPECT_TRUE(contains(msg, "decode_png")) << offset << ": " << msg;
  }
}

TEST(IoImageBadChunks, JpegZeroDimensionsRaise) {
  for (int field : {0, 2}) {  // height, width
    std::vector<uint8_t> v = image_bytes("hopper.jpg");
    const size_t sof = find_marker(v, 0xC0);
    ASSERT_NE(sof, 0u);
    v[sof + 5 + field] = 0, v[sof + 6 + field] = 0;
    const std::string msg = decode_error(bytes_of(v));
    EXPECT_TRUE(contains(msg, "decode_jpeg")) << msg;
  }
}

TEST(IoImageBadChunks, JpegBadSegmentLengthsRaise) {
  // A DQT segment claiming to run past the end of the file: truncated.
  std::vector<uint8_t> v = image_bytes("hopper.jpg");
  const size_t dqt = find_marker(v, 0xDB);
  ASSERT_NE(dqt, 0u);
  v[dqt + 2] = 0xFF, v[dqt + 3] = 0xFF;
  std::string msg = decode_error(bytes_of(v));
  EXPECT_TRUE(contains(msg, "decode_jpeg")) << msg;
  // A segment length below 2 (the length field itself).
  v = image_bytes("hopper.jpg");
  v[dqt + 2] = 0, v[dqt + 3] = 1;
  msg = decode_error(bytes_of(v));
  EXPECT_TRUE(contains(msg, "decode_jpeg")) << msg;
}

TEST(IoImageBadChunks, JpegWithoutImageDataRaises) {
  // SOI then EOI; and the headers with the scan cut off at SOS.
  EXPECT_TRUE(contains(decode_error(bytes_of({0xFF, 0xD8, 0xFF, 0xD9})), "decode_jpeg"));
  std::vector<uint8_t> v = image_bytes("hopper.jpg");
  const size_t sos = find_marker(v, 0xDA);
  ASSERT_NE(sos, 0u);
  v.resize(sos);
  v.push_back(0xFF), v.push_back(0xD9);
  EXPECT_TRUE(contains(decode_error(bytes_of(v)), "decode_jpeg"));
}

// basn2c08 with a chunk of `type` declaring `length` bytes (holding `data`,
// with a correct CRC when it is all there) inserted before IDAT.
std::vector<uint8_t> with_chunk_before_idat(const char* type, uint32_t length, const std::string& data) {
  std::vector<uint8_t> v = basn2c08();
  const size_t idat = find_chunk(v, "IDAT");
  std::vector<uint8_t> chunk(8 + data.size() + 4);
  put_be32(chunk, 0, length);
  std::memcpy(chunk.data() + 4, type, 4);
  std::memcpy(chunk.data() + 8, data.data(), data.size());
  put_be32(chunk, 8 + data.size(), png_crc32(chunk.data() + 4, 4 + data.size()));
  v.insert(v.begin() + idat, chunk.begin(), chunk.end());
  return v;
}

TEST(IoImageBadChunks, PngTextChunksAreSkipped) {
  const Tensor clean = io::decode_png(bytes_of(basn2c08()));
  const std::string text = std::string("Comment") + '\0' + std::string(20000, 'x');
  for (const char* type : {"tEXt", "iTXt", "zTXt", "eXIf", "sPLT"}) {
    const std::vector<uint8_t> v = with_chunk_before_idat(type, uint32_t(text.size()), text);
    EXPECT_TRUE(io::decode_png(bytes_of(v), io::ImageReadMode::RGB).equal(clean)) << type;
  }
}

TEST(IoImageBadChunks, PngHugeDeclaredChunkIsNotAllocated) {
  // A tEXt declaring 2 GB in a 200-byte file: libpng 1.6.39 mallocs the declared
  // length before reading (fuzz_decode_png found it); Ember skips text chunks,
  // so the read runs out of data instead. (The allocation itself is caught by
  // the fuzz targets' -malloc_limit_mb replaying tests/data/io/fuzz_regressions/.)
  const std::vector<uint8_t> v = with_chunk_before_idat("tEXt", 0x7FFFFFF0u, "Comment");
  const std::string msg = decode_error(bytes_of(v));
  EXPECT_TRUE(contains(msg, "decode_png") && contains(msg, "truncated")) << msg;
}

TEST(IoImageBadChunks, CutAfterTheImageDataMatchesTorchvision) {
  // torchvision 0.14: a JPEG without EOI raises "Image is incomplete or
  // truncated"; a PNG without IEND decodes.
  std::vector<uint8_t> jpeg = image_bytes("hopper.jpg");
  jpeg.resize(jpeg.size() - 2);
  EXPECT_TRUE(contains(decode_error(bytes_of(jpeg)), "truncated"));
  std::vector<uint8_t> png = basn2c08();
  const Tensor clean = io::decode_png(bytes_of(png));
  png.resize(png.size() - 12);
  EXPECT_TRUE(io::decode_png(bytes_of(png)).equal(clean));
}

TEST(IoImageBadChunks, PngBadSignaturesRaise) {
  // PngSuite's xs1n0g01 / xs2n0g01 / xs4n0g01 / xs7n0g01 (a signature byte
  // changed), xcrn0g04 (CR LF turned into LF by a text-mode copy) and xlfn0g04
  // (LF turned into CR LF).
  for (auto [at, value] : std::vector<std::pair<size_t, uint8_t>>{{0, 0x88}, {1, 'p'}, {3, 'g'}, {7, 0x0D}}) {
    std::vector<uint8_t> v = basn2c08();
    v[at] = value;
    EXPECT_TRUE(contains(decode_error(bytes_of(v)), "unsupported image format")) << at;
    EXPECT_TRUE(contains(error_of_png(v), "not a PNG file")) << at;
  }
  std::vector<uint8_t> lf = basn2c08();
  lf.erase(lf.begin() + 4);  // \r\n\x1a\n -> \n\x1a\n
  EXPECT_TRUE(contains(error_of_png(lf), "not a PNG file"));
  std::vector<uint8_t> crlf = basn2c08();
  crlf.insert(crlf.begin() + 7, 0x0D);  // ... \x1a\r\n
  EXPECT_TRUE(contains(error_of_png(crlf), "not a PNG file"));
}

}  // namespace image_bad_chunks_test
