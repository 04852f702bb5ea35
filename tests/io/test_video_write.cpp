// write_video: round trips through each codec and container, with audio, at an
// odd frame rate; lossless codecs must give back the very pixels.
#include <cmath>
#include <map>
#include <sstream>

#include "video_test_util.h"

namespace ember::testing {
namespace video_write_test {

// [T, H, W, 3] moving gradients: smooth enough for lossy codecs to keep.
Tensor test_frames(int64_t t, int64_t h, int64_t w) {
  Tensor out = empty({t, h, w, 3}, kUInt8);
  auto* p = out.data_ptr<uint8_t>();
  for (int64_t i = 0; i < t; ++i)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        uint8_t* px = p + ((i * h + y) * w + x) * 3;
        px[0] = static_cast<uint8_t>((x * 255) / std::max<int64_t>(w - 1, 1));
        px[1] = static_cast<uint8_t>((y * 255) / std::max<int64_t>(h - 1, 1));
        px[2] = static_cast<uint8_t>((i * 40) % 256);
      }
  return out;
}

// Mean absolute difference of two uint8 tensors of the same shape.
double mean_abs_diff(const Tensor& a, const Tensor& b) {
  const Tensor x = a.contiguous(), y = b.contiguous();
  const auto* p = x.data_ptr<uint8_t>();
  const auto* q = y.data_ptr<uint8_t>();
  double s = 0;
  for (int64_t i = 0; i < x.numel(); ++i) s += std::abs(int(p[i]) - int(q[i]));
  return s / static_cast<double>(x.numel());
}

bool has_encoder(const std::string& name) {
  // write_video raises "unknown encoder" for encoders this FFmpeg lacks.
  TempPath probe("probe_" + name + ".mkv");
  try {
    io::write_video(probe.str(), test_frames(1, 16, 16), 10, name);
    return true;
  } catch (const Error& e) {
    return std::string(e.what()).find("unknown encoder") == std::string::npos;
  }
}

struct Case {
  const char* file;
  const char* codec;
  double max_diff;  // mean absolute pixel error allowed
};

TEST(VideoWrite, RoundTripCodecsAndContainers) {
  EMBER_REQUIRE_VIDEO();
  const Tensor frames = test_frames(12, 64, 96);
  for (const Case& c : {Case{"rt.mp4", "libx264", 3.0}, Case{"rt.mkv", "mpeg4", 6.0},
                        Case{"rt.avi", "mpeg4", 6.0}, Case{"rt.webm", "libvpx-vp9", 6.0}}) {
    if (!has_encoder(c.codec)) {
      ADD_FAILURE() << "this FFmpeg has no " << c.codec << " encoder";
      continue;
    }
    TempPath out(c.file);
    io::write_video(out.str(), frames, 24, c.codec);
    const io::VideoClip clip = io::read_video(out.str(), 0, std::nullopt, io::PtsUnit::SEC);
    ASSERT_EQ(clip.video.sizes(), frames.sizes()) << c.file;
    EXPECT_LT(mean_abs_diff(clip.video, frames), c.max_diff) << c.file;
    // (read_video's fps is FFmpeg's average rate, which for 12 frames in an MP4 is
    // not 24; the base rate is.)
    io::VideoReader reader(out.str());
    ASSERT_EQ(reader.metadata().video_fps.size(), 1u) << c.file;
    EXPECT_DOUBLE_EQ(reader.metadata().video_fps[0], 24.0) << c.file;
    int64_t n = 0;
    for (const auto& f : reader) {
      EXPECT_NEAR(f.pts, n / 24.0, 1e-3) << c.file;
      ++n;
    }
    EXPECT_EQ(n, 12) << c.file;
  }
}

TEST(VideoWrite, LosslessIsExact) {
  EMBER_REQUIRE_VIDEO();
  // libx264rgb keeps RGB, qp 0 is lossless: the frames must come back bit for bit.
  if (!has_encoder("libx264rgb")) GTEST_SKIP() << "no libx264rgb";
  const Tensor frames = test_frames(5, 61, 97);  // odd size works for RGB
  TempPath out("lossless.mkv");
  io::write_video(out.str(), frames, 10, "libx264rgb", {{"qp", "0"}});
  const io::VideoClip clip = io::read_video(out.str(), 0, std::nullopt, io::PtsUnit::SEC);
  ASSERT_EQ(clip.video.sizes(), frames.sizes());
  EXPECT_EQ(video_checksum(clip.video), video_checksum(frames));
}

TEST(VideoWrite, WithAudioAndNtscRate) {
  EMBER_REQUIRE_VIDEO();
  const int64_t rate = 16000, n = 16000;
  Tensor audio = empty({2, n}, kFloat32);
  auto* a = audio.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(0.5 * std::sin(2 * M_PI * 440 * i / rate));
    a[n + i] = static_cast<float>(0.25 * std::sin(2 * M_PI * 660 * i / rate));
  }
  TempPath out("with_audio.mkv");
  io::write_video(out.str(), test_frames(30, 48, 64), 30000.0 / 1001, "mpeg4", {},
                  io::AudioTrack{audio, rate, "flac", {}});
  io::VideoReader reader(out.str(), "audio");
  const io::VideoMetadata& m = reader.metadata();
  ASSERT_EQ(m.audio_framerate, std::vector<double>{16000.0});
  ASSERT_EQ(m.video_fps.size(), 1u);
  EXPECT_NEAR(m.video_fps[0], 29.97, 0.01);
  // FLAC at 16 bits: the samples come back to within 1 / 32768.
  std::vector<Tensor> parts;
  for (const auto& f : reader) parts.push_back(f.data);
  const Tensor got = cat(parts, 0);  // [samples, channels]
  ASSERT_EQ(got.size(0), n);
  ASSERT_EQ(got.size(1), 2);
  const auto* g = got.data_ptr<float>();
  double worst = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int c = 0; c < 2; ++c) worst = std::max(worst, double(std::abs(g[i * 2 + c] - a[c * n + i])));
  EXPECT_LT(worst, 1.0 / 32768 + 1e-7);
}

// torchvision.io.write_video wrote the same frames with the same codec and options
// (scripts/fixtures/io_video.py); read back, the frames must be identical, i.e. the
// encoders got the same pixels (same RGB -> YUV conversion) and settings.
TEST(VideoWrite, SameFramesAsTorchvision) {
  EMBER_REQUIRE_VIDEO();
  const Tensor frames = test_frames(12, 64, 96);
  int cases = 0;
  for (const auto& r : read_records(io_data("io_video/write.tsv"))) {
    const std::string& file = r[0];
    const std::string& codec = r[1];
    std::map<std::string, std::string> options;
    if (r[2] != "-") {
      std::stringstream ss(r[2]);
      std::string kv;
      while (std::getline(ss, kv, ',')) options[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    }
    if (!has_encoder(codec)) {
      ADD_FAILURE() << "no " << codec << " encoder";
      continue;
    }
    TempPath out(file);
    io::write_video(out.str(), frames, 24, codec, options);
    const io::VideoClip clip = io::read_video(out.str(), 0, std::nullopt, io::PtsUnit::SEC);
    ASSERT_EQ(shape_string(clip.video), r[3]) << file;
    for (int64_t i = 0; i < clip.video.size(0); ++i) {
      EXPECT_EQ(video_checksum(clip.video.select(0, i)), r[4 + i]) << file << " frame " << i;
    }
    ++cases;
  }
  EXPECT_EQ(cases, 4);
}

TEST(VideoWrite, BadArguments) {
  EMBER_REQUIRE_VIDEO();
  TempPath out("bad.mp4");
  EXPECT_THROW(io::write_video(out.str(), empty({2, 8, 8}, kUInt8), 10), Error);
  EXPECT_THROW(io::write_video(out.str(), empty({2, 8, 8, 3}, kFloat32), 10), Error);
  EXPECT_THROW(io::write_video(out.str(), test_frames(2, 16, 16), 0), Error);
  EXPECT_THROW(io::write_video(out.str(), test_frames(2, 16, 16), 10, "no_such_codec"), Error);
  EXPECT_THROW(io::write_video(out.str(), test_frames(2, 16, 16), 10, "mpeg4", {{"no_such_option", "1"}}),
               Error);
  EXPECT_THROW(io::write_video("/nonexistent/dir/x.mp4", test_frames(2, 16, 16), 10, "mpeg4"), Error);
}

}  // namespace ember::testing

}  // namespace video_write_test
