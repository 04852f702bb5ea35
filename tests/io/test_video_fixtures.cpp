// VideoReader, read_video and read_video_timestamps against torchvision 0.14's own
// outputs (scripts/fixtures/io_video.py): every frame's pts (exact doubles) and a
// checksum of its pixels / samples, metadata, seeks in both modes, clips in
// seconds and in pts, timestamps. Identical values are expected throughout.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "video_test_util.h"

namespace ember::testing {
namespace video_fixtures_test {

using Records = std::vector<std::vector<std::string>>;

std::vector<std::string> fixture_videos() {
  std::vector<std::string> names;
  std::ifstream f(io_data("io_video/manifest.txt"));
  std::string line;
  while (std::getline(f, line)) {
    if (!line.empty()) names.push_back(line);
  }
  return names;
}

// "name" is in tests/data/io/videos; "shared:<path>" stays in the workplace's
// shared/data beside the checkout (or beside its worktree folder; EMBER_SHARED_DATA
// overrides), and is skipped when absent.
std::string resolve_video(const std::string& entry) {
  const std::string prefix = "shared:";
  if (entry.rfind(prefix, 0) != 0) return io_video(entry);
  return shared_data(entry.substr(prefix.size()));
}

std::string base_name(const std::string& entry) { return entry.substr(entry.find_last_of(":/") + 1); }

class VideoFixture : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    EMBER_REQUIRE_VIDEO();
    path_ = resolve_video(GetParam());
    if (!std::filesystem::exists(path_)) GTEST_SKIP() << path_ << " is not here (../shared/data)";
    records_ = read_records(io_data("io_video/" + base_name(GetParam()) + ".tsv"));
    ASSERT_FALSE(records_.empty());
  }
  Records select(const std::string& kind) const {
    Records out;
    for (const auto& r : records_) {
      if (r[0] == kind) out.push_back(r);
    }
    return out;
  }
  std::string path_;
  Records records_;
};

std::vector<double> values(const std::vector<std::string>& rec, size_t from) {
  std::vector<double> v;
  for (size_t i = from; i < rec.size(); ++i) v.push_back(parse_double(rec[i]));
  return v;
}

TEST_P(VideoFixture, Metadata) {
  io::VideoReader reader(path_);
  const io::VideoMetadata& m = reader.metadata();
  for (const auto& r : select("meta")) {
    const std::vector<double> expect = values(r, 2);
    const std::vector<double>& got = r[1] == "video_fps"         ? m.video_fps
                                     : r[1] == "video_duration"  ? m.video_duration
                                     : r[1] == "audio_framerate" ? m.audio_framerate
                                                                 : m.audio_duration;
    EXPECT_EQ(got, expect) << r[1];
  }
}

TEST_P(VideoFixture, SequentialFrames) {
  for (const std::string kind : {"video", "audio"}) {
    Records expect;
    for (const auto& r : select("frame")) {
      if (r[1] == kind) expect.push_back(r);
    }
    if (expect.empty()) continue;
    io::VideoReader reader(path_, kind);
    size_t i = 0;
    for (const io::VideoFrame& f : reader) {
      ASSERT_LT(i, expect.size()) << kind << ": more frames than torchvision";
      const auto& e = expect[i];
      EXPECT_EQ(f.pts, parse_double(e[3])) << kind << " frame " << i;
      EXPECT_EQ(shape_string(f.data), e[4]) << kind << " frame " << i;
      EXPECT_EQ(video_checksum(f.data), e[5]) << kind << " frame " << i << " pts " << f.pts;
      ++i;
    }
    EXPECT_EQ(i, expect.size()) << kind << " frame count";
  }
}

TEST_P(VideoFixture, Seek) {
  // Each seek is a run of records with k = 0, 1, ... (or "seekend" for no frame k).
  std::vector<Records> cases;
  for (const auto& r : records_) {
    if (r[0] != "seek" && r[0] != "seekend") continue;
    if (r[4] == "0") cases.emplace_back();
    cases.back().push_back(r);
  }
  std::map<std::string, std::unique_ptr<io::VideoReader>> readers;
  for (const Records& c : cases) {
    const std::string& kind = c[0][1];
    const std::string& t = c[0][2];
    const std::string& kf = c[0][3];
    auto& reader = readers[kind];
    if (!reader) reader = std::make_unique<io::VideoReader>(path_, kind);
    reader->seek(parse_double(t), kf == "1");
    for (const auto& r : c) {
      std::optional<io::VideoFrame> f = reader->next();
      const std::string what = kind + " seek(" + t + ", keyframes_only=" + kf + ") frame " + r[4];
      if (r[0] == "seekend") {
        EXPECT_FALSE(f.has_value()) << what << ": torchvision has no frame here";
        break;
      }
      ASSERT_TRUE(f.has_value()) << what;
      EXPECT_EQ(f->pts, parse_double(r[5])) << what;
      EXPECT_EQ(video_checksum(f->data), r[6]) << what;
    }
  }
}

TEST_P(VideoFixture, ReadVideo) {
  std::string name;
  std::optional<io::VideoClip> clip;
  int checked = 0;
  for (const auto& r : records_) {
    if (r[0] == "clip") {
      name = r[1];
      const double start = parse_double(r[2]);
      std::optional<double> end;
      if (r[3] != "inf") end = parse_double(r[3]);
      clip = io::read_video(path_, start, end, r[4] == "sec" ? io::PtsUnit::SEC : io::PtsUnit::PTS);
      ++checked;
    } else if (r[0] == "clipshape") {
      EXPECT_EQ(shape_string(clip->video), r[2]) << name;
    } else if (r[0] == "clipvid") {
      const int64_t i = std::stoll(r[2]);
      if (i < clip->video.size(0)) {
        EXPECT_EQ(video_checksum(clip->video.select(0, i)), r[3]) << name << " frame " << i;
      }
    } else if (r[0] == "clipaud") {
      EXPECT_EQ(shape_string(clip->audio), r[2]) << name << " audio";
      EXPECT_EQ(video_checksum(clip->audio), r[3]) << name << " audio";
    } else if (r[0] == "clipinfo") {
      const std::optional<double>& got = r[2] == "video_fps" ? clip->info.video_fps : clip->info.audio_fps;
      ASSERT_TRUE(got.has_value()) << name << " " << r[2];
      EXPECT_EQ(*got, parse_double(r[3])) << name << " " << r[2];
    }
  }
  EXPECT_GT(checked, 0);
}

TEST_P(VideoFixture, Timestamps) {
  for (const auto& r : select("ts")) {
    const io::VideoTimestamps ts =
        io::read_video_timestamps(path_, r[1] == "sec" ? io::PtsUnit::SEC : io::PtsUnit::PTS);
    ASSERT_TRUE(ts.video_fps.has_value());
    EXPECT_EQ(*ts.video_fps, parse_double(r[2])) << r[1];
    EXPECT_EQ(ts.pts, values(r, 3)) << r[1];
  }
}

INSTANTIATE_TEST_SUITE_P(Torchvision, VideoFixture, ::testing::ValuesIn(fixture_videos()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string s = base_name(info.param);
                           for (char& c : s) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return s;
                         });

}  // namespace ember::testing

}  // namespace video_fixtures_test
