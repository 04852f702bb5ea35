// Running out of memory in an image decoder is an ember::Error naming the
// operation, the file and what was being allocated, never a bare
// std::bad_alloc or the allocator's anonymous error (Note [Out of memory at
// the entry points]). The images are test files whose header is patched to
// declare 8000x8000 pixels (192 MB RGB, under the 2 GiB decode limit); each
// is decoded in a child process with 48 MiB of address space to spare
// (tests/core/oom_child.h), so the decoder's allocation fails.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "core/oom_child.h"
#include "io/io_test_util.h"

using namespace ember;
using namespace ember::testing;

namespace io_out_of_memory_test {

constexpr const char* kChild = "IoOutOfMemoryChild.Run";

// The child: EMBER_OOM_CASE "read_image", "decode_png"/"decode_jpeg" (the
// file's bytes decoded from memory) or "audio_load". (Video is not tested
// here: FFmpeg's decoder threads reserve their stacks in the address space,
// so where a limit fails depends on the machine's core count, and FFmpeg
// reports some of its allocation failures as "Invalid data found".)
TEST(IoOutOfMemoryChild, Run) {
  const char* which = std::getenv("EMBER_OOM_CASE");
  const char* file = std::getenv("EMBER_OOM_FILE");
  if (which == nullptr || file == nullptr) GTEST_SKIP() << "runs in the child process of IoOutOfMemory.*";
  const std::string path = file, mode = which;
  const Tensor bytes = mode.rfind("decode", 0) == 0 ? io::read_file(path) : Tensor();
  run_limited(uint64_t{48} << 20, [&] {
    if (mode == "read_image") io::read_image(path);
    else if (mode == "decode_png") io::decode_png(bytes);
    else if (mode == "decode_jpeg") io::decode_jpeg(bytes);
    else audio::load(path);
  });
}

class IoOutOfMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    if (under_asan()) GTEST_SKIP() << "an address-space limit means nothing under AddressSanitizer";
  }
  std::string path_ = std::filesystem::temp_directory_path() / ("ember_oom_" + std::to_string(::getpid()));
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  void write(const std::vector<uint8_t>& bytes) {
    std::ofstream(path_, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
};

// A 32x32 RGB PNG whose IHDR (CRC fixed) declares 8000x8000.
std::vector<uint8_t> huge_png() {
  std::vector<uint8_t> png = image_bytes("pngsuite_basn2c08.png");
  put_be32(png, 16, 8000);
  put_be32(png, 20, 8000);
  put_be32(png, 29, png_crc32(png.data() + 12, 17));
  return png;
}

TEST_F(IoOutOfMemory, DecodePng) {
  write(huge_png());
  const std::string line = outcome(run_oom_child(kChild, "decode_png", path_));
  EXPECT_TRUE(contains(line, "ERROR: decode_png: out of memory while decoding ") &&
              contains(line, " bytes of PNG: could not allocate 192000000 bytes of tensor data"))
      << line;
}

TEST_F(IoOutOfMemory, ReadImageNamesTheFile) {
  write(huge_png());
  const std::string line = outcome(run_oom_child(kChild, "read_image", path_));
  EXPECT_TRUE(contains(line, "ERROR: read_image: '" + path_ + "': decode_png: out of memory while decoding ") &&
              contains(line, "could not allocate 192000000 bytes"))
      << line;
}

// A 24x16 JPEG whose SOF0 declares 8000x8000: libjpeg's own buffers or the
// output tensor run out; either way an ember::Error from decode_jpeg.
TEST_F(IoOutOfMemory, DecodeJpeg) {
  std::vector<uint8_t> jpeg = image_bytes("orientation_6.jpg");
  ASSERT_EQ(jpeg[235], 0xFF);
  ASSERT_EQ(jpeg[236], 0xC0);
  for (size_t at : {240u, 242u}) {  // height, width (big-endian 16-bit)
    jpeg[at] = 8000 >> 8;
    jpeg[at + 1] = 8000 & 0xFF;
  }
  write(jpeg);
  const std::string line = outcome(run_oom_child(kChild, "decode_jpeg", path_));
  EXPECT_TRUE(contains(line, "ERROR: decode_jpeg") &&
              (contains(line, "out of memory") || contains(line, "Insufficient memory")))
      << line;
}

// A 32 MB 16-bit WAV: its float32 waveform (64 MB) does not fit (the SoX
// backend, the default).
TEST_F(IoOutOfMemory, AudioLoad) {
  const uint32_t samples = 16u << 20, data_bytes = samples * 2;
  std::vector<uint8_t> wav(44 + size_t(data_bytes), 0);
  auto put_le32 = [&](size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) wav[at + size_t(i)] = uint8_t(v >> (8 * i));
  };
  std::memcpy(wav.data(), "RIFF", 4);
  put_le32(4, 36 + data_bytes);
  std::memcpy(wav.data() + 8, "WAVEfmt ", 8);
  put_le32(16, 16);
  put_le32(20, 1 | (1u << 16));  // PCM, mono
  put_le32(24, 16000);           // sample rate
  put_le32(28, 32000);           // byte rate
  put_le32(32, 2 | (16u << 16)); // block align 2, 16 bits
  std::memcpy(wav.data() + 36, "data", 4);
  put_le32(40, data_bytes);
  write(wav);
  const std::string line = outcome(run_oom_child(kChild, "audio_load", path_));
  EXPECT_TRUE(contains(line, "ERROR: audio::load: '" + path_ + "': out of memory")) << line;
}

}  // namespace io_out_of_memory_test
