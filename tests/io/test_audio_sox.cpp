// The "sox" audio backend against torchaudio 0.13's sox_io backend
// (fixtures: scripts/fixtures/io_audio.py). Every value is compared bit for bit.
#include <gtest/gtest.h>

#include "io/audio_test_util.h"

using namespace ember;
using namespace ember::testing;

namespace audio_sox_test {

class AudioSox : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!has_backend("sox")) GTEST_SKIP() << "built without SoX (EMBER_WITH_SOX=OFF)";
  }
};

TEST_F(AudioSox, InfoMatchesTorchaudio) {
  int n = 0;
  for (const auto& row : read_tsv(audio_fixture("info.tsv"))) {
    SCOPED_TRACE(row.at("file"));
    const audio::AudioMetaData m = audio::sox_io::info(audio_src(row.at("file")));
    EXPECT_EQ(m.sample_rate, std::stoll(row.at("sample_rate")));
    EXPECT_EQ(m.num_frames, std::stoll(row.at("num_frames")));
    EXPECT_EQ(m.num_channels, std::stoll(row.at("num_channels")));
    EXPECT_EQ(m.bits_per_sample, std::stoll(row.at("bits_per_sample")));
    EXPECT_EQ(m.encoding, row.at("encoding"));
    ++n;
  }
  EXPECT_EQ(n, 14);
}

TEST_F(AudioSox, LoadMatchesTorchaudio) {
  int n = 0;
  for (const auto& row : read_tsv(audio_fixture("load.tsv"))) {
    SCOPED_TRACE(row.at("case"));
    const auto [wav, sr] = audio::sox_io::load(
        audio_src(row.at("file")), std::stoll(row.at("frame_offset")),
        std::stoll(row.at("num_frames")), row.at("normalize") == "1",
        row.at("channels_first") == "1");
    EXPECT_EQ(sr, std::stoll(row.at("sample_rate")));
    EXPECT_TRUE(same_tensor(load_npy(audio_fixture(row.at("case") + ".npy")), wav));
    ++n;
  }
  EXPECT_GE(n, 60);
}

TEST_F(AudioSox, DispatchUsesSelectedBackend) {
  audio::set_audio_backend("sox_io");
  EXPECT_EQ(audio::get_audio_backend(), "sox");
  const auto a = audio::load(audio_src("speech16k_s16.wav"), 0, -1, false);
  EXPECT_EQ(a.waveform.dtype(), kInt16);
  EXPECT_TRUE(same_tensor(load_npy(audio_fixture("load__speech16k_s16_wav__1.npy")), a.waveform));
}

TEST_F(AudioSox, LoadBytesMatchesLoad) {
  for (const char* name : {"speech16k_s24.wav", "speech16k.flac", "speech16k.mp3", "bell.oga"}) {
    SCOPED_TRACE(name);
    const auto a = audio::sox_io::load(audio_src(name));
    // libsox knows MP3 by its extension only.
    const std::string format = std::string(name).ends_with(".mp3") ? "mp3" : "";
    const auto b = audio::sox_io::load_bytes(io::read_file(audio_src(name)), true, true, format);
    EXPECT_EQ(a.sample_rate, b.sample_rate);
    EXPECT_TRUE(same_tensor(a.waveform, b.waveform));
  }
}

TEST_F(AudioSox, EffectsMatchTorchaudio) {
  const Tensor mono = audio::sox_io::load(audio_src("speech16k_s16.wav"), 0, 4000).waveform;
  const Tensor mono16 = audio::sox_io::load(audio_src("speech16k_s16.wav"), 0, 4000, false).waveform;
  const Tensor stereo = audio::sox_io::load(audio_src("stereo48k_s16.wav"), 0, 2400).waveform;
  int n = 0;
  for (const auto& row : read_tsv(audio_fixture("effects.tsv"))) {
    SCOPED_TRACE(row.at("case") + ": " + row.at("effects"));
    const auto effects = parse_effects(row.at("effects"));
    const std::string& source = row.at("source");
    audio::Waveform out;
    if (source.rfind("file:", 0) == 0) {
      out = audio::apply_effects_file(audio_src(source.substr(5)), effects);
    } else if (source == "stereo48k_s16.wav") {
      out = audio::apply_effects_tensor(stereo, 48000, effects);
    } else {
      out = audio::apply_effects_tensor(row.at("dtype") == "int16" ? mono16 : mono, 16000, effects);
    }
    EXPECT_EQ(out.sample_rate, std::stoll(row.at("sample_rate")));
    EXPECT_TRUE(same_tensor(load_npy(audio_fixture(row.at("case") + ".npy")), out.waveform));
    ++n;
  }
  EXPECT_EQ(n, 30);
}

TEST_F(AudioSox, EffectsChannelsLast) {
  const Tensor stereo = audio::sox_io::load(audio_src("stereo48k_s16.wav"), 0, 2400).waveform;
  const auto a = audio::apply_effects_tensor(stereo, 48000, {{"remix", "2", "1"}});
  const auto b = audio::apply_effects_tensor(stereo.transpose(0, 1), 48000, {{"remix", "2", "1"}},
                                             /*channels_first=*/false);
  EXPECT_TRUE(same_tensor(a.waveform.transpose(0, 1).contiguous(), b.waveform));
}

TEST_F(AudioSox, EffectNamesMatchTorchaudio) {
  std::ifstream f(audio_fixture("effect_names.txt"));
  std::vector<std::string> expected;
  for (std::string line; std::getline(f, line);) {
    if (!line.empty()) expected.push_back(line);
  }
  EXPECT_EQ(audio::effect_names(), expected);
}

TEST_F(AudioSox, SaveMatchesTorchaudio) {
  int n = 0;
  for (const auto& row : read_tsv(audio_fixture("save.tsv"))) {
    const std::string& c = row.at("case");
    SCOPED_TRACE(c);
    const Tensor input = load_npy(audio_fixture("save_input__" + row.at("input") + ".npy"));
    const std::string fmt = row.at("format");
    TempPath out("save_" + c + "." + fmt);
    const std::string enc = row.at("encoding") == "-" ? "" : row.at("encoding");
    std::optional<double> compression;
    if (row.at("compression") != "-") compression = std::stod(row.at("compression"));
    audio::sox_io::save(out.str(), input, 48000, true, "", enc, std::stoll(row.at("bits")), compression);
    if (row.at("compare") == "bytes") {
      EXPECT_EQ(file_bytes(out.str()), file_bytes(audio_fixture("save__" + c + "." + fmt)));
    } else {
      EXPECT_TRUE(same_tensor(load_npy(audio_fixture("save__" + c + ".npy")),
                              audio::sox_io::load(out.str()).waveform));
    }
    ++n;
  }
  EXPECT_EQ(n, 17);
}

TEST_F(AudioSox, SaveChannelsLastAndFormatOverride) {
  const Tensor x = load_npy(audio_fixture("save_input__int16.npy"));
  TempPath a("cl.wav"), b("override.bin");
  audio::sox_io::save(a.str(), x.transpose(0, 1), 48000, /*channels_first=*/false);
  audio::sox_io::save(b.str(), x, 48000, true, "wav");
  EXPECT_EQ(file_bytes(a.str()), file_bytes(audio_fixture("save__wav_int16.wav")));
  EXPECT_EQ(file_bytes(b.str()), file_bytes(audio_fixture("save__wav_int16.wav")));
  const auto back = audio::sox_io::load(b.str(), 0, -1, false, true, "wav");
  EXPECT_TRUE(same_tensor(x, back.waveform));
}

}  // namespace audio_sox_test
