// The "ffmpeg" audio backend: against torchaudio 0.13 (sox_io) where both
// decoders are exact (PCM, FLAC, G.711), against the ffmpeg CLI's decode for
// every file (the same libavcodec), and against the sox backend.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "io/audio_test_util.h"

using namespace ember;
using namespace ember::testing;

namespace audio_ffmpeg_test {

class AudioFFmpeg : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!has_backend("ffmpeg")) GTEST_SKIP() << "built without FFmpeg (EMBER_WITH_FFMPEG=OFF)";
  }
};

// Files whose samples both libsox and libavcodec decode exactly (integers that
// fit a float32 exactly): the values must equal torchaudio's bit for bit.
const std::set<std::string> kExact = {"speech16k_u8.wav",  "speech16k_s16.wav", "speech16k_s24.wav",
                                      "speech16k_ulaw.wav", "speech16k_alaw.wav", "speech16k.flac",
                                      "stereo48k_s16.wav", "stereo48k_s24.flac"};
// 32-bit integer and float WAVs: libsox rounds every sample to 25 bits on the
// way (SOX_SAMPLE_TO_FLOAT_32BIT), FFmpeg does not.
const std::set<std::string> kNear = {"speech16k_s32.wav", "speech16k_f32.wav", "speech16k_f64.wav"};

TEST_F(AudioFFmpeg, InfoMatchesTorchaudio) {
  int n = 0;
  for (const auto& row : read_tsv(audio_fixture("info.tsv"))) {
    const std::string& file = row.at("file");
    SCOPED_TRACE(file);
    const audio::AudioMetaData m = audio::ffmpeg::info(audio_src(file));
    EXPECT_EQ(m.sample_rate, std::stoll(row.at("sample_rate")));
    EXPECT_EQ(m.num_channels, std::stoll(row.at("num_channels")));
    EXPECT_EQ(m.encoding, row.at("encoding"));
    if (kExact.count(file) || kNear.count(file)) {
      EXPECT_EQ(m.num_frames, std::stoll(row.at("num_frames")));
      EXPECT_EQ(m.bits_per_sample, std::stoll(row.at("bits_per_sample")));
      ++n;
    }
  }
  EXPECT_EQ(n, 11);
}

TEST_F(AudioFFmpeg, LoadMatchesTorchaudio) {
  int n = 0;
  for (const auto& row : read_tsv(audio_fixture("load.tsv"))) {
    const std::string& file = row.at("file");
    if (!kExact.count(file) && !kNear.count(file)) continue;
    SCOPED_TRACE(row.at("case"));
    const auto [wav, sr] = audio::ffmpeg::load(
        audio_src(file), std::stoll(row.at("frame_offset")), std::stoll(row.at("num_frames")),
        row.at("normalize") == "1", row.at("channels_first") == "1");
    EXPECT_EQ(sr, std::stoll(row.at("sample_rate")));
    const Tensor expected = load_npy(audio_fixture(row.at("case") + ".npy"));
    if (kExact.count(file) || expected.dtype() != kFloat32) {
      EXPECT_TRUE(same_tensor(expected, wav));
    } else {
      EXPECT_EQ(wav.dtype(), kFloat32);
      EXPECT_TRUE(close_tensor(expected, wav, 1.0 / (1 << 24)));
    }
    ++n;
  }
  EXPECT_GE(n, 45);
}

TEST_F(AudioFFmpeg, LoadMatchesFFmpegCli) {
  int n = 0;
  for (const auto& row : read_tsv(audio_fixture("ffmpeg.tsv"))) {
    std::string file = row.at("file"), stem = file;
    std::replace(stem.begin(), stem.end(), '.', '_');
    SCOPED_TRACE(file);
    Tensor expected = load_npy(audio_fixture("ffmpeg__" + stem + ".npy"));  // [frames, channels]
    if (file.ends_with(".ogg") || file.ends_with(".oga")) {
      // The CLI keeps the padding of the last Vorbis packet; Ember cuts at the
      // Ogg end position, as libsox (and torchaudio) do.
      expected = expected.narrow(0, 0, audio::ffmpeg::info(audio_src(file)).num_frames).contiguous();
    }
    const auto a = audio::ffmpeg::load(audio_src(file), 0, -1, true, /*channels_first=*/false);
    EXPECT_TRUE(same_tensor(expected, a.waveform));
    // frame_offset / num_frames cut the same decode.
    const int64_t frames = expected.size(0);
    const auto b = audio::ffmpeg::load(audio_src(file), frames / 3, frames / 4, true, false);
    EXPECT_TRUE(same_tensor(expected.narrow(0, frames / 3, frames / 4).contiguous(), b.waveform));
    const auto c = audio::ffmpeg::load(audio_src(file), frames + 5, -1);
    EXPECT_EQ(c.waveform.size(1), 0);
    ++n;
  }
  EXPECT_EQ(n, 14);
}

TEST_F(AudioFFmpeg, LoadBytesMatchesLoad) {
  for (const char* name : {"speech16k_s24.wav", "speech16k.flac", "speech16k.mp3", "bell.oga"}) {
    SCOPED_TRACE(name);
    const auto a = audio::ffmpeg::load(audio_src(name));
    const auto b = audio::ffmpeg::load_bytes(io::read_file(audio_src(name)));
    EXPECT_EQ(a.sample_rate, b.sample_rate);
    EXPECT_TRUE(same_tensor(a.waveform, b.waveform));
  }
}

TEST_F(AudioFFmpeg, BackendsAgree) {
  if (!has_backend("sox")) GTEST_SKIP() << "built without SoX";
  for (const auto& row : read_tsv(audio_fixture("info.tsv"))) {
    const std::string& file = row.at("file");
    // MP3: libmad drops the last frame, FFmpeg decodes every frame of this
    // header-less file (8640 vs 9216 frames; docs/io.md, "MP3 length",
    // test_audio_mp3_length.cpp).
    if (file.ends_with(".mp3")) continue;
    SCOPED_TRACE(file);
    const auto s = audio::sox_io::load(audio_src(file));
    const auto f = audio::ffmpeg::load(audio_src(file));
    EXPECT_EQ(s.sample_rate, f.sample_rate);
    const double tol = kExact.count(file) ? 0.0 : kNear.count(file) ? 1.0 / (1 << 24) : 1e-4;
    EXPECT_TRUE(close_tensor(s.waveform, f.waveform, tol));
    const auto si = audio::sox_io::info(audio_src(file));
    const auto fi = audio::ffmpeg::info(audio_src(file));
    EXPECT_EQ(si.num_channels, fi.num_channels);
    EXPECT_EQ(si.encoding, fi.encoding);
  }
}

TEST_F(AudioFFmpeg, SaveRoundTrips) {
  // Every save case of torchaudio's fixture: Ember's FFmpeg writer, read back,
  // equals torchaudio's file read back (PCM and FLAC: bit for bit; float WAV:
  // libsox quantized torchaudio's samples to 25 bits, FFmpeg keeps float32).
  int n = 0;
  for (const auto& row : read_tsv(audio_fixture("save.tsv"))) {
    const std::string& c = row.at("case");
    const std::string fmt = row.at("format");
    SCOPED_TRACE(c);
    const Tensor input = load_npy(audio_fixture("save_input__" + row.at("input") + ".npy"));
    TempPath out("ffsave_" + c + "." + fmt);
    const std::string enc = row.at("encoding") == "-" ? "" : row.at("encoding");
    std::optional<double> compression;
    if (row.at("compression") != "-") compression = std::stod(row.at("compression"));
    audio::ffmpeg::save(out.str(), input, 48000, true, "", enc, std::stoll(row.at("bits")), compression);
    const auto mine = audio::ffmpeg::load(out.str(), 0, -1, false);
    EXPECT_EQ(mine.sample_rate, 48000);
    if (row.at("compare") == "bytes") {
      const auto theirs = audio::ffmpeg::load(audio_fixture("save__" + c + "." + fmt), 0, -1, false);
      if (c == "wav_f32") {
        EXPECT_TRUE(same_tensor(input, mine.waveform));  // float32 exactly
        EXPECT_TRUE(close_tensor(theirs.waveform, mine.waveform, 1.0 / (1 << 24)));
      } else if (enc == "ULAW" || enc == "ALAW") {
        // libsox and FFmpeg round to the G.711 grid differently (a step at most).
        EXPECT_TRUE(close_tensor(theirs.waveform, mine.waveform, 1024.0 / 32768));
      } else {
        EXPECT_TRUE(same_tensor(theirs.waveform, mine.waveform));
      }
      const auto mi = audio::ffmpeg::info(out.str());
      const auto ti = audio::ffmpeg::info(audio_fixture("save__" + c + "." + fmt));
      EXPECT_EQ(mi.encoding, ti.encoding);
      EXPECT_EQ(mi.bits_per_sample, ti.bits_per_sample);
    } else {
      // Lossy: the same channels and about the same length and level.
      const Tensor theirs = load_npy(audio_fixture("save__" + c + ".npy"));
      EXPECT_EQ(mine.waveform.size(0), theirs.size(0));
      EXPECT_NEAR(static_cast<double>(mine.waveform.size(1)), static_cast<double>(theirs.size(1)), 2400);
      const double rms_in = input.pow(2).mean().item<double>();
      const double rms_out = mine.waveform.pow(2).mean().item<double>();
      EXPECT_NEAR(rms_out / rms_in, 1.0, 0.25);
    }
    ++n;
  }
  EXPECT_EQ(n, 17);
}

TEST_F(AudioFFmpeg, DispatchAndChannelsLast) {
  const std::string before = audio::get_audio_backend();
  audio::set_audio_backend("ffmpeg");
  EXPECT_EQ(audio::get_audio_backend(), "ffmpeg");
  const Tensor x = load_npy(audio_fixture("save_input__int16.npy"));
  TempPath p("dispatch.wav");
  audio::save(p.str(), x.transpose(0, 1), 48000, /*channels_first=*/false);
  const auto back = audio::load(p.str(), 0, -1, false, false);
  EXPECT_TRUE(same_tensor(x.transpose(0, 1).contiguous(), back.waveform));
  EXPECT_EQ(audio::info(p.str()).encoding, "PCM_S");
  audio::set_audio_backend(before);
}

TEST(AudioThreads, ConcurrentLoadsAgree) {
  // Both backends from several threads at once (SoX calls are serialized,
  // Note [SoX is single-threaded]; FFmpeg's run in parallel).
  const std::vector<std::string> files = {"speech16k_s16.wav", "speech16k.flac", "bell.oga",
                                          "stereo48k_s24.flac"};
  for (const std::string& backend : audio::list_audio_backends()) {
    SCOPED_TRACE(backend);
    auto load = [&](const std::string& f) {
      return backend == "sox" ? audio::sox_io::load(audio_src(f)) : audio::ffmpeg::load(audio_src(f));
    };
    std::vector<Tensor> expected;
    for (const auto& f : files) expected.push_back(load(f).waveform);
    std::vector<std::vector<Tensor>> got(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (int r = 0; r < 5; ++r) {
          for (const auto& f : files) got[t].push_back(load(f).waveform);
        }
      });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < 4; ++t) {
      ASSERT_EQ(got[t].size(), files.size() * 5);
      for (size_t i = 0; i < got[t].size(); ++i) {
        EXPECT_TRUE(same_tensor(expected[i % files.size()], got[t][i]));
      }
    }
  }
}

TEST_F(AudioFFmpeg, FormatOverride) {
  TempPath bin("flac_as.bin");
  io::write_file(bin.str(), io::read_file(audio_src("speech16k.flac")));
  const auto a = audio::ffmpeg::load(bin.str(), 0, -1, true, true, "flac");
  EXPECT_TRUE(same_tensor(audio::ffmpeg::load(audio_src("speech16k.flac")).waveform, a.waveform));
  EXPECT_EQ(audio::ffmpeg::info(bin.str(), "flac").encoding, "FLAC");
  TempPath out("wav_as.bin");
  audio::ffmpeg::save(out.str(), a.waveform, 16000, true, "wav", "PCM_S", 16);
  EXPECT_TRUE(same_tensor(a.waveform, audio::ffmpeg::load(out.str(), 0, -1, true, true, "wav").waveform));
}

}  // namespace audio_ffmpeg_test
