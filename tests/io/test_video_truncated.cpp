// Truncated videos (Note [Truncated and damaged media] in
// io/src/video/stream_damage.cpp): MP4, MKV, WebM and AVI files made here with
// the ffmpeg command-line tool and cut at several byte fractions. Every reading
// function returns the frames that decoded, identical to the complete file's,
// and warns (strict = false, the default), or raises naming the file and the
// last good pts (strict = true). Also: FFmpeg's unknown byte position (-1)
// never appears in an error.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <random>

#include "video_test_util.h"

namespace ember::testing {
namespace video_truncated_test {

struct Container {
  const char* ext;
  const char* args;  // ffmpeg encoding arguments
};

// 2 s at 25 fps (50 frames, small), with audio; MP4 with its moov box in
// front (+faststart), else any cut loses the index and nothing opens.
const std::vector<Container> kContainers = {
    {"mp4", "-c:v libx264 -g 10 -c:a aac -movflags +faststart"},
    {"mkv", "-c:v libx264 -g 10 -c:a flac"},
    {"webm", "-c:v libvpx-vp9 -g 10 -deadline realtime -cpu-used 8 -c:a libopus"},
    {"avi", "-c:v mpeg4 -g 10 -c:a libmp3lame"},
};
const std::vector<double> kCuts = {0.3, 0.5, 0.7, 0.9};

// A test video per container, made once per test program.
const std::string& made_video(const Container& c) {
  static std::map<std::string, std::unique_ptr<TempPath>> made;
  auto& slot = made[c.ext];
  if (!slot) {
    slot = std::make_unique<TempPath>(std::string("whole.") + c.ext);
    const bool ok = run_ffmpeg(
        "-f lavfi -i testsrc2=size=96x64:rate=25 -f lavfi -i sine=frequency=440:sample_rate=48000 "
        "-t 2 -pix_fmt yuv420p " + std::string(c.args) + " " + slot->str());
    EXPECT_TRUE(ok) << "ffmpeg could not write the test ." << c.ext;
  }
  return slot->path.native();
}

// The first `fraction` of the file's bytes, as a file.
std::unique_ptr<TempPath> cut_copy(const std::string& path, double fraction, const std::string& ext) {
  const std::vector<uint8_t> bytes = vector_of(io::read_file(path));
  const auto keep = static_cast<size_t>(static_cast<double>(bytes.size()) * fraction);
  auto out = std::make_unique<TempPath>("cut_" + std::to_string(static_cast<int>(fraction * 100)) + "." + ext);
  io::write_file(out->str(), bytes_of(std::vector<uint8_t>(bytes.begin(), bytes.begin() + keep)));
  return out;
}

std::vector<io::VideoFrame> read_frames(io::VideoReader& r) {
  std::vector<io::VideoFrame> out;
  for (const io::VideoFrame& f : r) out.push_back(f);
  return out;
}

// Each frame of `part` is a frame of `whole` (same pts, same pixels), in order.
// Not a prefix: a cut between a P frame and the B frames shown before it keeps
// the P frame and loses the B frames.
::testing::AssertionResult in_order_within(const std::vector<io::VideoFrame>& part,
                                           const std::vector<io::VideoFrame>& whole) {
  size_t j = 0;
  for (size_t i = 0; i < part.size(); ++i) {
    while (j < whole.size() && whole[j].pts != part[i].pts) ++j;
    if (j == whole.size()) return ::testing::AssertionFailure() << "frame " << i << " (pts " << part[i].pts << ") is not in order in the complete file";
    if (!equal(part[i].data, whole[j].data)) return ::testing::AssertionFailure() << "frame " << i << " (pts " << part[i].pts << ") differs";
  }
  return ::testing::AssertionSuccess();
}

// The same for stacked frames [T, H, W, 3] (read_video has no pts: matched by pixels).
::testing::AssertionResult in_order_within(const Tensor& part, const Tensor& whole) {
  int64_t j = 0;
  for (int64_t i = 0; i < part.size(0); ++i) {
    while (j < whole.size(0) && !equal(part[i], whole[j])) ++j;
    if (j == whole.size(0)) return ::testing::AssertionFailure() << "frame " << i << " is not in order in the complete file";
    ++j;
  }
  return ::testing::AssertionSuccess();
}

// The number after "has pts " in a message (the last good pts), or NaN.
double quoted_pts(const std::string& m) {
  const size_t at = m.find("has pts ");
  return at == std::string::npos ? std::nan("") : std::strtod(m.c_str() + at + 8, nullptr);
}

class VideoTruncated : public ::testing::TestWithParam<Container> {
 protected:
  void SetUp() override {
    EMBER_REQUIRE_VIDEO();
    EMBER_REQUIRE_FFMPEG_CLI();
    whole_ = made_video(GetParam());
    ASSERT_TRUE(std::filesystem::exists(whole_));
  }
  std::string whole_;
};

TEST_P(VideoTruncated, CompleteFileReadsWithoutWarning) {
  WarningCapture warnings;
  for (const char* stream : {"video", "audio"}) {
    io::VideoReader strict(whole_, stream, 0, /*strict=*/true);
    const auto frames = read_frames(strict);
    EXPECT_GT(frames.size(), 10u);
    if (std::string(stream) == "video") {
      EXPECT_EQ(frames.size(), 50u);
    }
  }
  const io::VideoClip clip = io::read_video(whole_, 0, std::nullopt, io::PtsUnit::SEC, /*strict=*/true);
  EXPECT_EQ(clip.video.size(0), 50);
  EXPECT_EQ(io::read_video_timestamps(whole_, io::PtsUnit::SEC, /*strict=*/true).pts.size(), 50u);
  EXPECT_TRUE(warnings.messages().empty()) << warnings.messages().front();
}

TEST_P(VideoTruncated, VideoReaderReturnsWhatDecodesAndWarnsOrRaises) {
  const std::string ext = GetParam().ext;
  for (const char* stream : {"video", "audio"}) {
    io::VideoReader whole(whole_, stream);
    const auto all = read_frames(whole);
    for (const double fraction : kCuts) {
      SCOPED_TRACE(std::string(stream) + ", cut at " + std::to_string(fraction));
      const auto cut = cut_copy(whole_, fraction, ext);
      std::vector<io::VideoFrame> lenient;
      WarningCapture warnings;
      {
        io::VideoReader r(cut->str(), stream);
        lenient = read_frames(r);
        EXPECT_FALSE(r.next());  // still at the end, and no second warning
      }
      // What decoded is the complete file's frames, unchanged, and fewer.
      ASSERT_GT(lenient.size(), 0u);
      ASSERT_LT(lenient.size(), all.size());
      EXPECT_TRUE(in_order_within(lenient, all));
      ASSERT_EQ(warnings.messages().size(), 1u);
      const std::string& w = warnings.messages()[0];
      EXPECT_TRUE(contains(w, "VideoReader: '" + cut->str() + "' is truncated or damaged")) << w;
      EXPECT_TRUE(contains(w, "strict = true raises instead")) << w;
      EXPECT_NEAR(quoted_pts(w), lenient.back().pts, 1e-5) << w;
      EXPECT_FALSE(contains(w, "byte -1")) << w;

      // strict: the same frames, then an error naming the file and the last good pts.
      io::VideoReader r(cut->str(), stream, 0, /*strict=*/true);
      std::vector<io::VideoFrame> strict;
      const std::string error = error_of([&] {
        while (auto f = r.next()) strict.push_back(*f);
      });
      EXPECT_EQ(strict.size(), lenient.size());
      EXPECT_TRUE(contains(error, cut->str())) << error;
      EXPECT_TRUE(contains(error, "truncated or damaged")) << error;
      EXPECT_TRUE(contains(error, "(strict = true)")) << error;
      EXPECT_NEAR(quoted_pts(error), lenient.back().pts, 1e-5) << error;
      EXPECT_FALSE(r.next());  // raised once; then at the end
      EXPECT_EQ(warnings.messages().size(), 1u);
      // A seek starts over and reaches the damage again.
      r.seek(0);
      EXPECT_THROW(read_frames(r), Error);
      if (fraction <= 0.5) {
        // A seek past the damage: nothing decodes there, and it says so.
        io::VideoReader past(cut->str(), stream);
        past.seek(1.5);
        EXPECT_FALSE(past.next());
        ASSERT_EQ(warnings.messages().size(), 2u);
        EXPECT_TRUE(contains(warnings.messages()[1], cut->str())) << warnings.messages()[1];
      }
    }
  }
}

TEST_P(VideoTruncated, ReadVideoAndTimestampsReturnWhatDecodes) {
  const std::string ext = GetParam().ext;
  const io::VideoClip whole = io::read_video(whole_, 0, std::nullopt, io::PtsUnit::SEC);
  const io::VideoTimestamps whole_ts = io::read_video_timestamps(whole_, io::PtsUnit::SEC);
  for (const double fraction : kCuts) {
    SCOPED_TRACE("cut at " + std::to_string(fraction));
    const auto cut = cut_copy(whole_, fraction, ext);
    WarningCapture warnings;
    const io::VideoClip clip = io::read_video(cut->str(), 0, std::nullopt, io::PtsUnit::SEC);
    const int64_t t = clip.video.size(0);
    ASSERT_GT(t, 0);
    ASSERT_LT(t, whole.video.size(0));
    EXPECT_TRUE(in_order_within(clip.video, whole.video));
    EXPECT_LE(clip.audio.size(1), whole.audio.size(1));
    // One warning per damaged stream (the cut reaches both).
    ASSERT_GE(warnings.messages().size(), 1u);
    ASSERT_LE(warnings.messages().size(), 2u);
    for (const std::string& w : warnings.messages()) {
      EXPECT_TRUE(contains(w, "read_video: '" + cut->str() + "' is truncated or damaged")) << w;
      EXPECT_TRUE(contains(w, "frames in range that decoded")) << w;
    }
    const std::string error = error_of([&] { io::read_video(cut->str(), 0, std::nullopt, io::PtsUnit::SEC, true); });
    EXPECT_TRUE(contains(error, cut->str()) && contains(error, "has pts")) << error;

    // A range that ends before the damage is complete: no warning, no error.
    const size_t before = warnings.messages().size();
    const io::VideoClip early = io::read_video(cut->str(), 0, 0.1, io::PtsUnit::SEC, /*strict=*/true);
    EXPECT_TRUE(equal(early.video, io::read_video(whole_, 0, 0.1, io::PtsUnit::SEC).video));
    EXPECT_EQ(warnings.messages().size(), before);

    const io::VideoTimestamps ts = io::read_video_timestamps(cut->str(), io::PtsUnit::SEC);
    ASSERT_GT(ts.pts.size(), 0u);
    ASSERT_LT(ts.pts.size(), whole_ts.pts.size());
    EXPECT_TRUE(std::includes(whole_ts.pts.begin(), whole_ts.pts.end(), ts.pts.begin(), ts.pts.end()));
    EXPECT_EQ(warnings.messages().size(), before + 1);
    EXPECT_TRUE(contains(warnings.messages().back(), "read_video_timestamps: '" + cut->str() + "'"));
    EXPECT_THROW(io::read_video_timestamps(cut->str(), io::PtsUnit::SEC, true), Error);
  }
}

INSTANTIATE_TEST_SUITE_P(Containers, VideoTruncated, ::testing::ValuesIn(kContainers),
                         [](const ::testing::TestParamInfo<Container>& info) { return std::string(info.param.ext); });

TEST(VideoTruncatedAt, CutBetweenPacketsIsFoundFromTheContainer) {
  // Matroska and AVI files cut exactly at a packet boundary end without any
  // damaged packet; the container's declared size tells (and a whole file does
  // not warn).
  EMBER_REQUIRE_VIDEO();
  EMBER_REQUIRE_FFMPEG_CLI();
  TempPath mkv("boundary.mkv");
  ASSERT_TRUE(run_ffmpeg("-f lavfi -i testsrc2=size=64x48:rate=10 -t 2 -c:v ffv1 " + mkv.str()));
  const std::vector<uint8_t> bytes = vector_of(io::read_file(mkv.str()));
  // Cut after the first cluster: find the second Cluster ID (1F 43 B6 75).
  std::vector<size_t> clusters;
  for (size_t i = 0; i + 4 <= bytes.size(); ++i) {
    if (bytes[i] == 0x1F && bytes[i + 1] == 0x43 && bytes[i + 2] == 0xB6 && bytes[i + 3] == 0x75) clusters.push_back(i);
  }
  ASSERT_GE(clusters.size(), 2u);
  TempPath cut("boundary_cut.mkv");
  io::write_file(cut.str(), bytes_of(std::vector<uint8_t>(bytes.begin(), bytes.begin() + clusters[1])));
  WarningCapture warnings;
  io::VideoReader r(cut.str());
  const auto frames = read_frames(r);
  EXPECT_GT(frames.size(), 0u);
  EXPECT_LT(frames.size(), 20u);
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_TRUE(contains(warnings.messages()[0], "its container declares " + std::to_string(bytes.size())))
      << warnings.messages()[0];
}

TEST(VideoTruncatedAt, UnknownBytePositionIsLeftOut) {
  // In MPEG-TS the AAC parser splits each PES packet into frames, and FFmpeg
  // does not know the byte position of all but the first (-1). Damaged bytes
  // in such frames make the decoder reject them: the error names the decoder
  // and leaves the unknown position out (it used to say "at byte -1").
  EMBER_REQUIRE_VIDEO();
  EMBER_REQUIRE_FFMPEG_CLI();
  TempPath ts("positions.ts");
  ASSERT_TRUE(run_ffmpeg("-f lavfi -i sine=frequency=440:sample_rate=16000 -t 3 -c:a aac " + ts.str()));
  const std::vector<uint8_t> bytes = vector_of(io::read_file(ts.str()));
  ASSERT_GT(bytes.size(), 4u * 188);
  std::mt19937 rng(5);
  int without_position = 0, with_position = 0;
  for (int trial = 0; trial < 20; ++trial) {
    // Flip 3 payload bytes (past the tables and each 188-byte packet's header).
    std::vector<uint8_t> damaged = bytes;
    for (int k = 0; k < 3; ++k) {
      size_t at = 0;
      do {
        at = 2 * 188 + rng() % (damaged.size() - 2 * 188);
      } while (at % 188 < 20);
      damaged[at] ^= 0xFF;
    }
    TempPath copy("positions_damaged.ts");
    io::write_file(copy.str(), bytes_of(damaged));
    const std::string error = error_of([&] {
      io::VideoReader r(copy.str(), "audio", 0, /*strict=*/true);
      read_frames(r);
    });
    EXPECT_FALSE(contains(error, "byte -1")) << error;
    if (contains(error, "the aac decoder rejected the data")) {
      ++(contains(error, "rejected the data at byte ") ? with_position : without_position);
    }
  }
  EXPECT_GT(without_position, 0) << "no damaged frame of unknown position was met";
  EXPECT_GT(with_position, 0) << "no damaged frame of known position was met";
}

}  // namespace ember::testing

}  // namespace video_truncated_test
