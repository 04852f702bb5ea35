// FFmpeg running out of memory while a video or (through the FFmpeg backend)
// an audio file is opened or decoded is an ember::Error naming the entry
// point and the file, saying "out of memory"
// (Note [FFmpeg out of memory]), never a file called damaged or an error that
// names no file. FFmpeg's allocations are capped with av_max_alloc, which is
// deterministic (an address-space limit is not: FFmpeg's decoder threads
// reserve their stacks in it, tests/io/test_io_out_of_memory.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>

#include <ember/io/audio.h>
#include <ember/io/video.h>

#include "io/video_test_util.h"

#if EMBER_TEST_HAVE_FFMPEG
extern "C" {
#include <libavutil/mem.h>
}

namespace {

using namespace ember;
using namespace ember::testing;

const char* kClip = "testsrc2_h264_aac.mp4";  // 320x240 H.264 + AAC, 75 frames

// Caps every FFmpeg allocation at `bytes` while it lives.
struct FfmpegAllocationCap {
  explicit FfmpegAllocationCap(size_t bytes) { av_max_alloc(bytes); }
  ~FfmpegAllocationCap() { av_max_alloc(INT_MAX); }  // FFmpeg's default
};

std::string error_text(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

class VideoOutOfMemory : public ::testing::TestWithParam<size_t> {
 protected:
  void SetUp() override { EMBER_REQUIRE_VIDEO(); }
  const std::string path_ = io_video(kClip);
};

TEST_P(VideoOutOfMemory, ReadVideoNamesTheFile) {
  const std::string message = error_text([&] {
    FfmpegAllocationCap cap(GetParam());
    io::read_video(path_);
  });
  EXPECT_NE(message.find("read_video: '" + path_ + "': out of memory"), std::string::npos) << message;
}

TEST_P(VideoOutOfMemory, VideoReaderOpeningNamesTheFile) {
  const std::string message = error_text([&] {
    FfmpegAllocationCap cap(GetParam());
    io::VideoReader reader(path_);
    for (auto& frame : reader) (void)frame;
  });
  EXPECT_NE(message.find("VideoReader: '" + path_ + "': out of memory"), std::string::npos) << message;
}

TEST_P(VideoOutOfMemory, VideoReaderDecodingNamesTheFile) {
  io::VideoReader reader(path_);
  const std::string message = error_text([&] {
    FfmpegAllocationCap cap(GetParam());
    for (auto& frame : reader) (void)frame;
  });
  // Not "damaged", not "Invalid data found": the decoder's failed allocation.
  EXPECT_NE(message.find("VideoReader: '" + path_ + "': out of memory"), std::string::npos) << message;
  EXPECT_EQ(message.find("Invalid data"), std::string::npos) << message;
}

// With the cap lifted the same file decodes completely (no state is left behind).
TEST(VideoOutOfMemoryRecovery, DecodesAfterTheCapIsLifted) {
  EMBER_REQUIRE_VIDEO();
  const std::string path = io_video(kClip);
  {
    FfmpegAllocationCap cap(size_t{1} << 16);
    EXPECT_THROW(io::read_video(path), Error);
  }
  EXPECT_EQ(io::read_video(path).video.size(0), 75);
}

// The FFmpeg audio backend: load and info.
TEST(AudioOutOfMemory, FfmpegBackendNamesTheFile) {
  const std::vector<std::string> backends = audio::list_audio_backends();
  if (std::find(backends.begin(), backends.end(), "ffmpeg") == backends.end()) GTEST_SKIP() << "no FFmpeg backend";
  const std::string saved = audio::get_audio_backend();
  audio::set_audio_backend("ffmpeg");
  const std::string path = io_data("audio/speech16k.mp3");
  for (const size_t cap : {size_t{1} << 10, size_t{1} << 14}) {
    const std::string load = error_text([&] {
      FfmpegAllocationCap limit(cap);
      audio::load(path);
    });
    EXPECT_NE(load.find("audio::load: '" + path + "': out of memory"), std::string::npos) << load;
    const std::string info = error_text([&] {
      FfmpegAllocationCap limit(cap);
      audio::info(path);
    });
    EXPECT_NE(info.find("audio::info: '" + path + "': out of memory"), std::string::npos) << info;
  }
  EXPECT_GT(audio::load(path).waveform.size(1), 0);  // the cap lifted: decodes
  audio::set_audio_backend(saved);
}

// 4 KiB fails while opening, 64 and 256 KiB while decoding the 320x240 frames.
INSTANTIATE_TEST_SUITE_P(Caps, VideoOutOfMemory, ::testing::Values(size_t{1} << 12, size_t{1} << 16, size_t{1} << 18),
                         [](const auto& info) { return std::to_string(info.param / 1024) + "KiB"; });

}  // namespace
#endif
