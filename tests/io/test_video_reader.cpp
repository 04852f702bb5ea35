// VideoReader beyond the torchvision fixtures: iteration with standard
// algorithms, reading from memory, stream selection, files without audio or
// video, variable frame rate, odd sizes, and flat memory over a long video.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <numeric>
#include <ranges>

#include "video_test_util.h"

// EMBER_TEST_ASAN: 1 in an AddressSanitizer build (GCC and clang spell it differently).
#if defined(__SANITIZE_ADDRESS__)
#define EMBER_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMBER_TEST_ASAN 1
#endif
#endif
#ifndef EMBER_TEST_ASAN
#define EMBER_TEST_ASAN 0
#endif

namespace ember::testing {
namespace video_reader_test {

static_assert(std::input_iterator<io::VideoReader::iterator>);
static_assert(std::ranges::input_range<io::VideoReader>);

const char* kClip = "testsrc2_h264_aac.mp4";  // 75 frames at 25 fps, 48 kHz mono AAC

TEST(VideoReader, RangeForAndAlgorithms) {
  EMBER_REQUIRE_VIDEO();
  io::VideoReader reader(io_video(kClip));
  EXPECT_EQ(std::distance(reader.begin(), reader.end()), 75);
  reader.seek(0);
  const auto late = std::count_if(reader.begin(), reader.end(),
                                  [](const io::VideoFrame& f) { return f.pts >= 2.0; });
  EXPECT_EQ(late, 25);
  // A range algorithm and a view.
  reader.seek(1.0);
  auto first = std::ranges::find_if(reader, [](const io::VideoFrame& f) { return f.pts >= 1.5; });
  ASSERT_NE(first, reader.end());
  EXPECT_DOUBLE_EQ(first->pts, 1.52);
  EXPECT_EQ(first->data.sizes(), (std::vector<int64_t>{3, 240, 320}));
  EXPECT_TRUE(first->data.is_contiguous());
  EXPECT_EQ(first->data.dtype(), kUInt8);
  // The iterator is single-pass: the reader continues where the last one stopped.
  auto next = reader.next();
  ASSERT_TRUE(next);
  EXPECT_DOUBLE_EQ(next->pts, 1.56);
}

TEST(VideoReader, FromMemoryMatchesFile) {
  EMBER_REQUIRE_VIDEO();
  io::VideoReader from_file(io_video(kClip));
  io::VideoReader from_memory(io::read_file(io_video(kClip)));
  EXPECT_EQ(from_memory.metadata().video_fps, from_file.metadata().video_fps);
  from_file.seek(1.3);
  from_memory.seek(1.3);
  for (int i = 0; i < 5; ++i) {
    auto a = from_file.next(), b = from_memory.next();
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->pts, b->pts);
    EXPECT_EQ(video_checksum(a->data), video_checksum(b->data));
  }
}

TEST(VideoReader, StreamsAndSwitching) {
  EMBER_REQUIRE_VIDEO();
  io::VideoReader reader(io_video(kClip), "audio");
  EXPECT_EQ(reader.current_stream(), "audio:0");
  const io::VideoMetadata& m = reader.metadata();
  ASSERT_EQ(m.streams.size(), 2u);
  EXPECT_EQ(m.streams[0].type, "video");
  EXPECT_EQ(m.streams[0].codec, "h264");
  EXPECT_EQ(m.streams[0].width, 320);
  EXPECT_EQ(m.streams[1].type, "audio");
  EXPECT_EQ(m.streams[1].sample_rate, 48000);
  EXPECT_EQ(m.streams[1].channels, 1);
  auto a = reader.next();
  ASSERT_TRUE(a);
  EXPECT_EQ(a->data.sizes(), (std::vector<int64_t>{1024, 1}));
  EXPECT_EQ(a->data.dtype(), kFloat32);
  // Switching restarts at the beginning (torchvision's behaviour).
  reader.seek(1.0);
  reader.set_current_stream("video:0");
  auto v = reader.next();
  ASSERT_TRUE(v);
  EXPECT_EQ(v->pts, 0.0);
  EXPECT_EQ(v->data.size(0), 3);
  EXPECT_THROW(reader.set_current_stream("video:1"), Error);
  EXPECT_THROW(reader.set_current_stream("subtitle"), Error);
  EXPECT_THROW(reader.set_current_stream("video:x"), Error);
  EXPECT_THROW(io::VideoReader(io_video("testsrc2_h264_gop10_noB_noaudio.mp4"), "audio"), Error);
}

TEST(VideoReader, VariableFrameRate) {
  EMBER_REQUIRE_VIDEO();
  // 25 fps for 1 s, then 10 fps (make_testdata.sh): exact container timestamps.
  for (const char* name : {"vfr_h264.mkv", "vfr_h264.mp4"}) {
    io::VideoReader reader(io_video(name));
    std::vector<double> pts;
    for (const auto& f : reader) pts.push_back(f.pts);
    ASSERT_EQ(pts.size(), 50u) << name;
    EXPECT_DOUBLE_EQ(pts[1] - pts[0], 0.04) << name;
    EXPECT_NEAR(pts[49] - pts[48], 0.1, 1e-9) << name;
    reader.seek(2.05);
    auto f = reader.next();
    ASSERT_TRUE(f);
    EXPECT_NEAR(f->pts, 2.1, 1e-9) << name;
  }
}

TEST(VideoReader, OddSizes) {
  EMBER_REQUIRE_VIDEO();
  for (const char* name : {"odd_321x241_vp9.webm", "odd_321x241_h264_yuv444p.mp4"}) {
    io::VideoReader reader(io_video(name));
    auto f = reader.next();
    ASSERT_TRUE(f) << name;
    EXPECT_EQ(f->data.sizes(), (std::vector<int64_t>{3, 241, 321})) << name;
  }
}

TEST(VideoReader, AudioOnlyAndVideoOnlyFiles) {
  EMBER_REQUIRE_VIDEO();
  EMBER_REQUIRE_FFMPEG_CLI();
  TempPath audio_only("audio_only.mka"), video_only("video_only.avi");
  ASSERT_TRUE(run_ffmpeg("-f lavfi -i sine=frequency=440:duration=1:sample_rate=16000 -c:a flac " +
                         audio_only.str()));
  ASSERT_TRUE(run_ffmpeg("-f lavfi -i testsrc=size=97x61:rate=10:duration=1 -c:v mpeg4 " + video_only.str()));
  io::VideoReader a(audio_only.str(), "audio");
  EXPECT_TRUE(a.metadata().video_fps.empty());
  ASSERT_EQ(a.metadata().audio_framerate, std::vector<double>{16000.0});
  int64_t samples = 0;
  for (const auto& f : a) samples += f.data.size(0);
  EXPECT_EQ(samples, 16000);
  EXPECT_THROW(io::VideoReader(audio_only.str(), "video"), Error);

  io::VideoReader v(video_only.str());
  EXPECT_TRUE(v.metadata().audio_framerate.empty());
  int frames = 0;
  for (const auto& f : v) {
    EXPECT_EQ(f.data.sizes(), (std::vector<int64_t>{3, 61, 97}));
    ++frames;
  }
  EXPECT_EQ(frames, 10);
  const io::VideoClip clip = io::read_video(audio_only.str(), 0, std::nullopt, io::PtsUnit::SEC);
  EXPECT_EQ(clip.video.sizes(), (std::vector<int64_t>{0, 1, 1, 3}));
  EXPECT_EQ(clip.audio.sizes(), (std::vector<int64_t>{1, 16000}));
  EXPECT_FALSE(clip.info.video_fps);
  EXPECT_EQ(clip.info.audio_fps, 16000.0);
  EXPECT_TRUE(io::read_video_timestamps(audio_only.str()).pts.empty());
}

// Resident set size in kB (Linux), 0 elsewhere.
int64_t rss_kb() {
  std::ifstream f("/proc/self/status");
  std::string key;
  while (f >> key) {
    if (key == "VmRSS:") {
      int64_t kb = 0;
      f >> kb;
      return kb;
    }
    f.ignore(1 << 20, '\n');
  }
  return 0;
}

TEST(VideoReader, MemoryStaysFlat) {
#if EMBER_TEST_ASAN
  GTEST_SKIP() << "RSS says nothing under AddressSanitizer (freed memory sits in its "
                  "quarantine); LeakSanitizer checks for leaks in that build";
#endif
  EMBER_REQUIRE_VIDEO();
  EMBER_REQUIRE_FFMPEG_CLI();
  TempPath long_video("long.mp4");
  // 1500 frames (60 s at 25 fps), small so the test is quick; each frame is ~230 kB
  // decoded, so a leak of one frame per step would be ~350 MB.
  ASSERT_TRUE(run_ffmpeg("-f lavfi -i testsrc2=size=320x240:rate=25:duration=60 -f lavfi "
                         "-i sine=duration=60 -c:v mpeg4 -q:v 10 -c:a aac -shortest " +
                         long_video.str()));
  io::VideoReader reader(long_video.str());
  int64_t n = 0, rss_after_warmup = 0, peak = 0;
  for ([[maybe_unused]] const auto& f : reader) {
    if (++n == 100) rss_after_warmup = rss_kb();
    if (n > 100) peak = std::max(peak, rss_kb());
  }
  EXPECT_EQ(n, 1500);
  if (rss_after_warmup == 0) GTEST_SKIP() << "no /proc/self/status";
  EXPECT_LT(peak - rss_after_warmup, 20 * 1024) << "RSS grew while iterating (leak?)";
  // And across many readers opened and closed.
  const int64_t before = rss_kb();
  for (int i = 0; i < 30; ++i) {
    io::VideoReader r(long_video.str());
    r.seek(30.0);
    for (int k = 0; k < 5; ++k) ASSERT_TRUE(r.next());
  }
  EXPECT_LT(rss_kb() - before, 20 * 1024);
}

}  // namespace ember::testing

}  // namespace video_reader_test
