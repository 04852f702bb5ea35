// Truncated, corrupt and non-video input: an ember::Error (or, for damage met
// while reading without strict, a warning) naming the file and the reason,
// never a crash or a hang (the fuzzer, fuzz/fuzz_video_reader.cpp, covers
// arbitrary bytes).
#include <fstream>
#include <random>

#include "video_test_util.h"

namespace ember::testing {
namespace video_bad_input_test {

// Reads every frame of the video stream; returns the frame count.
int64_t read_all(const std::string& path, bool strict) {
  int64_t n = 0;
  io::VideoReader r(path, "video", 0, strict);
  for ([[maybe_unused]] const auto& f : r) ++n;
  return n;
}

TEST(VideoBadInput, MissingFileNamesIt) {
  EMBER_REQUIRE_VIDEO();
  const std::string msg = error_of([] { io::VideoReader r("/nonexistent/clip.mp4"); });
  EXPECT_NE(msg.find("/nonexistent/clip.mp4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("No such file"), std::string::npos) << msg;
  EXPECT_THROW(io::read_video("/nonexistent/clip.mp4"), Error);
  EXPECT_THROW(io::read_video_timestamps("/nonexistent/clip.mp4"), Error);
}

TEST(VideoBadInput, TruncatedFileWarnsOrRaisesNamingIt) {
  // The fixture: the first 60% of a 75-frame MP4 (moov in front). More
  // containers and cuts: test_video_truncated.cpp.
  EMBER_REQUIRE_VIDEO();
  const std::string path = io_video("truncated_h264_aac.mp4");
  const std::string msg = error_of([&] { read_all(path, /*strict=*/true); });
  ASSERT_FALSE(msg.empty()) << "a truncated file read without error";
  EXPECT_NE(msg.find("truncated_h264_aac.mp4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
  EXPECT_NE(msg.find("has pts"), std::string::npos) << msg;
  EXPECT_THROW(io::read_video(path, 0, std::nullopt, io::PtsUnit::SEC, /*strict=*/true), Error);

  WarningCapture warnings;
  const int64_t n = read_all(path, /*strict=*/false);
  EXPECT_GT(n, 0);
  EXPECT_LT(n, 75);
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_NE(warnings.messages()[0].find("truncated_h264_aac.mp4"), std::string::npos);
  const io::VideoClip clip = io::read_video(path, 0, std::nullopt, io::PtsUnit::SEC);
  EXPECT_GT(clip.video.size(0), 0);
  EXPECT_LT(clip.video.size(0), 75);
}

TEST(VideoBadInput, NotAVideo) {
  EMBER_REQUIRE_VIDEO();
  TempPath text("not_a_video.mp4"), empty_file("empty.mp4");
  { std::ofstream(text.str()) << "this is not a video, just some text\n"; }
  { std::ofstream(empty_file.str()); }
  for (const std::string& p : {text.str(), empty_file.str()}) {
    const std::string msg = error_of([&] { io::VideoReader r(p); });
    EXPECT_NE(msg.find(p), std::string::npos) << msg;
  }
  EXPECT_THROW(io::VideoReader(io::read_file(text.str())), Error);
  EXPECT_THROW(io::VideoReader(bytes_of({})), Error);
  EXPECT_THROW(io::VideoReader(io_video("testsrc2_h264_aac.mp4"), "bogus"), Error);
}

// Cut at many points and with flipped bytes: either frames or an ember::Error.
TEST(VideoBadInput, DamagedCopiesNeverCrash) {
  EMBER_REQUIRE_VIDEO();
  for (const char* name : {"testsrc2_h264_aac.mp4", "odd_321x241_vp9.webm", "smptebars_mpeg4_mp3.avi",
                           "vfr_h264.mkv"}) {
    const std::vector<uint8_t> bytes = vector_of(io::read_file(io_video(name)));
    std::mt19937 rng(7);
    for (int trial = 0; trial < 12; ++trial) {
      std::vector<uint8_t> damaged = bytes;
      if (trial % 2 == 0) {
        damaged.resize(damaged.size() * (trial + 1) / 13);
      } else {
        for (int k = 0; k < 20; ++k) damaged[rng() % damaged.size()] = static_cast<uint8_t>(rng());
      }
      for (const char* stream : {"video", "audio"}) {
        // Without strict, damage ends the stream with a warning naming the input.
        WarningCapture warnings;
        try {
          io::VideoReader r(bytes_of(damaged), stream, 0, /*strict=*/trial % 4 < 2);
          for ([[maybe_unused]] const auto& f : r) {
          }
          r.seek(0.5);
          (void)r.next();
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("in-memory video"), std::string::npos) << e.what();
        }
        for (const std::string& w : warnings.messages()) {
          EXPECT_NE(w.find("in-memory video"), std::string::npos) << w;
          EXPECT_EQ(w.find("byte -1"), std::string::npos) << w;
        }
      }
    }
  }
}

}  // namespace ember::testing

}  // namespace video_bad_input_test
