// MP3 lengths through the FFmpeg backend (Note [MP3 length] in
// io/src/audio/ffmpeg/mp3_length.cpp; docs/io.md, "MP3 length"): a file with
// a LAME header decodes gaplessly to exactly the samples that were encoded, one
// without it to every frame; info().num_frames equals load()'s length either
// way; frame_offset / num_frames cut that decode. And the SoX backend's
// (torchaudio's) different rule, measured. The MP3s are encoded here, by
// Ember's own writer (libmp3lame; FFmpeg's muxer writes the LAME header) and by
// the ffmpeg command-line tool (for files without the header, and VBR).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <numbers>

#include "io/audio_test_util.h"
#include "io/video_test_util.h"

using namespace ember;
using namespace ember::testing;

namespace audio_mp3_length_test {

class Mp3Length : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!has_backend("ffmpeg")) GTEST_SKIP() << "built without FFmpeg (EMBER_WITH_FFMPEG=OFF)";
  }
};

// A chirp (no period, so that the alignment below has one answer) of n frames,
// [channels, n] float32; channel c is scaled and phase-shifted.
Tensor chirp(int64_t n, int64_t sample_rate, int64_t channels) {
  Tensor t = empty({channels, n}, kFloat32);
  float* p = t.data_ptr<float>();
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t i = 0; i < n; ++i) {
      const double s = static_cast<double>(i) / static_cast<double>(sample_rate);
      const double fade = std::min(1.0, static_cast<double>(i) / 64.0);
      p[c * n + i] = static_cast<float>(fade * (0.5 - 0.1 * static_cast<double>(c)) *
                                        std::sin(2 * std::numbers::pi * (150 * s + 2500 * s * s) + c));
    }
  }
  return t;
}

// The lag in [-max_lag, max_lag] at which decoded[0][i + lag] best matches
// source[0][i] (normalized cross-correlation over the overlap).
int64_t best_lag(const Tensor& decoded, const Tensor& source, int64_t max_lag) {
  const Tensor d = decoded[0].to(kFloat64).contiguous(), s = source[0].to(kFloat64).contiguous();
  const double* x = d.data_ptr<double>();
  const double* y = s.data_ptr<double>();
  const int64_t nx = d.numel(), ny = s.numel();
  int64_t best = 0;
  double best_score = -2;
  for (int64_t lag = -max_lag; lag <= max_lag; ++lag) {
    double xy = 0, xx = 0, yy = 0;
    for (int64_t i = std::max<int64_t>(0, -lag); i < ny && i + lag < nx; ++i) {
      xy += x[i + lag] * y[i];
      xx += x[i + lag] * x[i + lag];
      yy += y[i] * y[i];
    }
    const double score = xx > 0 && yy > 0 ? xy / std::sqrt(xx * yy) : -1;
    if (score > best_score) {
      best_score = score;
      best = lag;
    }
  }
  return best;
}

// Samples per MPEG audio frame of Layer III: 1152 (MPEG-1: 32-48 kHz), else 576.
int64_t samples_per_frame(int64_t sample_rate) { return sample_rate >= 32000 ? 1152 : 576; }

// LAME's encoder delay (576) plus the decoder's (529), which a LAME header
// tells the decoder to skip.
constexpr int64_t kLameDelay = 576 + 529;

// A Xing/Info header's frame count and its LAME extension's encoder delay and
// padding: "Xing" or "Info", 4 bytes of flags, the frame count (flag 1), the
// byte count (2), the 100-byte seek table (4), the quality (8), then the
// 9-byte encoder string, and the 12-bit delay and padding 21 bytes into it.
struct XingHeader {
  int64_t frames = -1, delay = -1, padding = -1;
};
XingHeader xing_header(const std::vector<uint8_t>& b) {
  XingHeader x;
  for (size_t i = 0; i + 12 <= std::min<size_t>(b.size(), 8192); ++i) {
    if ((b[i] == 'X' && b[i + 1] == 'i' && b[i + 2] == 'n' && b[i + 3] == 'g') ||
        (b[i] == 'I' && b[i + 1] == 'n' && b[i + 2] == 'f' && b[i + 3] == 'o')) {
      if (b[i + 7] & 1) x.frames = int64_t{b[i + 8]} << 24 | int64_t{b[i + 9]} << 16 | int64_t{b[i + 10]} << 8 | b[i + 11];
      const size_t lame = i + 120;
      if ((b[i + 7] & 0x0F) == 0x0F && lame + 24 <= b.size()) {
        x.delay = int64_t{b[lame + 21]} << 4 | b[lame + 22] >> 4;
        x.padding = int64_t{b[lame + 22] & 0x0F} << 8 | b[lame + 23];
      }
      return x;
    }
  }
  return x;
}

TEST_F(Mp3Length, LameHeaderGivesTheEncodedSamplesExactly) {
  struct Case {
    int64_t rate, channels, frames;
    double kbps;
  };
  // MPEG-1 (44.1, 48 kHz), MPEG-2 (16, 22.05, 24 kHz), MPEG-2.5 (8 kHz); lengths
  // shorter than the delay, than a frame, and several frames long.
  const std::vector<Case> cases = {{44100, 1, 10000, 64}, {48000, 2, 12345, 128}, {16000, 1, 8000, 32},
                                   {22050, 2, 20001, 64}, {24000, 1, 1000, 48},   {8000, 1, 4321, 16},
                                   {44100, 1, 700, 64},   {16000, 1, 1, 32}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.rate) + " Hz, " + std::to_string(c.channels) + " ch, " +
                 std::to_string(c.frames) + " frames");
    const Tensor src = chirp(c.frames, c.rate, c.channels);
    TempPath mp3("gapless_" + std::to_string(c.rate) + "_" + std::to_string(c.frames) + ".mp3");
    audio::ffmpeg::save(mp3.str(), src, c.rate, true, "", "", 0, c.kbps);
    const auto [wav, sr] = audio::ffmpeg::load(mp3.str());
    EXPECT_EQ(sr, c.rate);
    EXPECT_EQ(wav.size(0), c.channels);
    EXPECT_EQ(wav.size(1), c.frames);
    EXPECT_EQ(audio::ffmpeg::info(mp3.str()).num_frames, c.frames);
    // The samples line up with the source (no delay left at the start).
    if (c.frames >= 4000) {
      EXPECT_EQ(best_lag(wav, src, 1200), 0);
    }
    // What the header records: frames x spf = delay + signal + padding.
    const XingHeader x = xing_header(file_bytes(mp3.str()));
    EXPECT_EQ(x.delay, 576);
    EXPECT_EQ(x.frames * samples_per_frame(c.rate), x.delay + c.frames + x.padding);
  }
}

TEST_F(Mp3Length, SavedLengthsRoundTripExactly) {
  // Every length class: the encoder's padding ends inside the last frame, or
  // spans into a frame with no signal at all (Note [MP3 end padding]).
  for (const int64_t rate : {44100, 16000}) {
    for (int64_t n = 900; n < 900 + 2 * samples_per_frame(rate); n += 41) {
      SCOPED_TRACE(std::to_string(rate) + " Hz, " + std::to_string(n) + " frames");
      TempPath mp3("sweep.mp3");
      audio::ffmpeg::save(mp3.str(), chirp(n, rate, 1), rate);
      EXPECT_EQ(audio::ffmpeg::load(mp3.str()).waveform.size(1), n);
      EXPECT_EQ(audio::ffmpeg::info(mp3.str()).num_frames, n);
    }
  }
}

TEST_F(Mp3Length, WithoutLameHeaderEveryFrameDecodes) {
  EMBER_REQUIRE_FFMPEG_CLI();
  // The same encoder output with and without the header (ffmpeg's mp3 muxer,
  // -write_xing 0): the frames are the same, so the header-less decode is the
  // gapless one plus the delay in front and the padding behind, bit for bit.
  for (const int64_t rate : {44100, 16000}) {
    SCOPED_TRACE(rate);
    const int64_t n = 10000, spf = samples_per_frame(rate);
    const Tensor src = chirp(n, rate, 1);
    TempPath wav("src_" + std::to_string(rate) + ".wav"), tagged("tagged.mp3"), bare("bare.mp3");
    audio::ffmpeg::save(wav.str(), src, rate);
    ASSERT_TRUE(run_ffmpeg("-i " + wav.str() + " -c:a libmp3lame -b:a 64k " + tagged.str()));
    ASSERT_TRUE(run_ffmpeg("-i " + wav.str() + " -c:a libmp3lame -b:a 64k -write_xing 0 " + bare.str()));
    const Tensor gapless = audio::ffmpeg::load(tagged.str()).waveform;
    const Tensor all = audio::ffmpeg::load(bare.str()).waveform;
    ASSERT_EQ(gapless.size(1), n);
    EXPECT_EQ(all.size(1) % spf, 0);
    EXPECT_GE(all.size(1), n + kLameDelay);
    EXPECT_LT(all.size(1), n + kLameDelay + 2 * spf);
    EXPECT_TRUE(same_tensor(gapless, all.narrow(1, kLameDelay, n).contiguous()));
    EXPECT_EQ(best_lag(all, src, 2000), kLameDelay);
    EXPECT_EQ(audio::ffmpeg::info(bare.str()).num_frames, all.size(1));
    EXPECT_EQ(audio::ffmpeg::info(tagged.str()).num_frames, n);
  }
}

TEST_F(Mp3Length, FrameOffsetAndNumFramesCutTheGaplessDecode) {
  const int64_t n = 15000;
  const Tensor src = chirp(n, 44100, 2);
  TempPath mp3("range.mp3");
  audio::ffmpeg::save(mp3.str(), src, 44100);
  const Tensor all = audio::ffmpeg::load(mp3.str()).waveform;
  ASSERT_EQ(all.size(1), n);
  // Across frame boundaries (1152) and the skipped start, up to the end.
  for (const auto& [offset, count] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 1}, {0, 1152}, {1, 2000}, {1151, 3}, {5000, 4608}, {n - 5, 100}, {n - 1, -1}, {1234, -1}}) {
    SCOPED_TRACE(std::to_string(offset) + "+" + std::to_string(count));
    const Tensor part = audio::ffmpeg::load(mp3.str(), offset, count).waveform;
    const int64_t expected = count < 0 ? n - offset : std::min(count, n - offset);
    EXPECT_TRUE(same_tensor(all.narrow(1, offset, expected).contiguous(), part));
  }
  EXPECT_EQ(audio::ffmpeg::load(mp3.str(), n).waveform.size(1), 0);
  EXPECT_EQ(audio::ffmpeg::load(mp3.str(), n + 10, 5).waveform.size(1), 0);
}

TEST_F(Mp3Length, InfoEqualsLoadOnEveryKindOfFile) {
  EMBER_REQUIRE_FFMPEG_CLI();
  const Tensor src = chirp(30000, 22050, 2);
  TempPath wav("kinds.wav");
  audio::ffmpeg::save(wav.str(), src, 22050);
  // VBR, ID3v2 + ID3v1 tags, no ID3 at all, joint stereo at a low rate, mono
  // MPEG-1 with and without the header, CBR re-encoded to 8 kHz (MPEG-2.5).
  const std::vector<std::string> encodings = {
      "-c:a libmp3lame -q:a 4",
      "-c:a libmp3lame -b:a 96k -write_id3v1 1 -metadata title=ember -metadata artist=test",
      "-c:a libmp3lame -b:a 96k -id3v2_version 0",
      "-c:a libmp3lame -b:a 32k -write_xing 0 -id3v2_version 0",
      "-ac 1 -ar 44100 -c:a libmp3lame -b:a 128k",
      "-ac 1 -ar 44100 -c:a libmp3lame -b:a 128k -write_xing 0",
      "-ac 1 -ar 8000 -c:a libmp3lame -b:a 16k"};
  int i = 0;
  for (const std::string& e : encodings) {
    SCOPED_TRACE(e);
    TempPath mp3("kind" + std::to_string(i++) + ".mp3");
    ASSERT_TRUE(run_ffmpeg("-i " + wav.str() + " " + e + " " + mp3.str()));
    const int64_t length = audio::ffmpeg::load(mp3.str()).waveform.size(1);
    EXPECT_GT(length, 0);
    EXPECT_EQ(audio::ffmpeg::info(mp3.str()).num_frames, length);
    // The same file cut short at a few places: what is left, counted the same.
    const std::vector<uint8_t> bytes = file_bytes(mp3.str());
    for (double fraction = 0.05; fraction < 1; fraction += 0.05) {
      TempPath cut("cut.mp3");
      std::vector<uint8_t> head(bytes.begin(), bytes.begin() + static_cast<int64_t>(bytes.size() * fraction));
      io::write_file(cut.str(), bytes_of(head));
      // Cut inside the first frames, the file may not open: then both raise.
      int64_t cut_length = -1, info_length = -1;
      try {
        cut_length = audio::ffmpeg::load(cut.str()).waveform.size(1);
      } catch (const Error&) {
      }
      try {
        info_length = audio::ffmpeg::info(cut.str()).num_frames;
      } catch (const Error&) {
      }
      EXPECT_EQ(info_length, cut_length) << fraction;
      EXPECT_LT(cut_length, length) << fraction;
      if (fraction > 0.2) {
        EXPECT_GT(cut_length, 0) << fraction;
      }
    }
  }
}

TEST_F(Mp3Length, CommonVoiceStyleClips) {
  // The clips of the issue (48 kHz mono, libmp3lame 64 kbit/s, LAME header):
  // info and load agree, and the decode is the frames the header counts less
  // its recorded delay and padding.
  const std::string dir = shared_data("generated/speech/CommonVoice/en/clips");
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " is not here (../shared/data)";
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".mp3") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const auto [wav, sr] = audio::ffmpeg::load(entry.path().string());
    EXPECT_EQ(sr, 48000);
    EXPECT_EQ(audio::ffmpeg::info(entry.path().string()).num_frames, wav.size(1));
    const XingHeader x = xing_header(file_bytes(entry.path().string()));
    ASSERT_GT(x.frames, 0);
    EXPECT_EQ(wav.size(1), x.frames * 1152 - x.delay - x.padding);
    if (++n == 20) break;  // enough; they are made alike
  }
  EXPECT_GT(n, 0);
}

TEST_F(Mp3Length, SoxBackendKeepsTheInfoFrameAndTheDelay) {
  // torchaudio 0.13's rule (the SoX backend, libmad), measured: every MPEG
  // frame but the last, the Xing/Info frame included (as a frame of silence),
  // nothing skipped, the length rounded down to whole milliseconds. With the
  // header the signal starts spf + 576 + 529 samples in (2,257 at 44.1 kHz,
  // 1,681 at 16 kHz) and its end is cut off; without it, 1,105 samples in, as
  // in the FFmpeg backend's decode.
  if (!has_backend("sox")) GTEST_SKIP() << "built without SoX";
  for (const int64_t rate : {44100, 16000}) {
    SCOPED_TRACE(rate);
    const int64_t n = 10000, spf = samples_per_frame(rate);
    const double one_ms = static_cast<double>(rate) / 1000.0;
    const Tensor src = chirp(n, rate, 1);
    TempPath mp3("sox_" + std::to_string(rate) + ".mp3");
    audio::ffmpeg::save(mp3.str(), src, rate);
    const Tensor sox = audio::sox_io::load(mp3.str()).waveform;
    const Tensor ff = audio::ffmpeg::load(mp3.str()).waveform;
    ASSERT_EQ(ff.size(1), n);
    EXPECT_EQ(best_lag(sox, src, 3000), spf + kLameDelay);
    // The header counts the audio frames; with it, the file holds one more.
    const int64_t frames = xing_header(file_bytes(mp3.str())).frames;
    ASSERT_GT(frames, 0);
    EXPECT_LE(sox.size(1), frames * spf);
    EXPECT_GT(static_cast<double>(sox.size(1)), static_cast<double>(frames * spf) - one_ms);
    EXPECT_LT(sox.size(1), spf + kLameDelay + n);  // the signal's end is missing
    // The two decoders (libmad's fixed point, FFmpeg's float) agree where both
    // hold the signal.
    const int64_t overlap = sox.size(1) - (spf + kLameDelay);
    ASSERT_GT(overlap, n / 2);
    EXPECT_TRUE(close_tensor(ff.narrow(1, 0, overlap), sox.narrow(1, spf + kLameDelay, overlap).contiguous(), 2e-3));

    if (!have_ffmpeg_cli()) continue;
    TempPath wav("sox_src.wav"), bare("sox_bare.mp3");
    audio::ffmpeg::save(wav.str(), src, rate);
    ASSERT_TRUE(run_ffmpeg("-i " + wav.str() + " -c:a libmp3lame -write_xing 0 " + bare.str()));
    const Tensor sox_bare = audio::sox_io::load(bare.str()).waveform;
    const int64_t all = audio::ffmpeg::load(bare.str()).waveform.size(1);  // every frame
    EXPECT_EQ(best_lag(sox_bare, src, 3000), kLameDelay);
    EXPECT_LE(sox_bare.size(1), all - spf);
    EXPECT_GT(static_cast<double>(sox_bare.size(1)), static_cast<double>(all - spf) - one_ms);
  }
}

}  // namespace audio_mp3_length_test
