// Bad input to the audio IO: missing, empty, truncated and corrupted files and
// invalid arguments raise ember::Error naming the function, the file and the
// reason, on both backends; nothing crashes, hangs or prints.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "io/audio_test_util.h"

using namespace ember;
using namespace ember::testing;

namespace audio_bad_input_test {

struct Backend {
  std::string name;
  audio::Waveform (*load)(const std::string&, int64_t, int64_t, bool, bool, const std::string&);
  audio::AudioMetaData (*info)(const std::string&, const std::string&);
};

std::vector<Backend> backends() {
  std::vector<Backend> out;
  if (has_backend("sox")) out.push_back({"sox", &audio::sox_io::load, &audio::sox_io::info});
  if (has_backend("ffmpeg")) out.push_back({"ffmpeg", &audio::ffmpeg::load, &audio::ffmpeg::info});
  return out;
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes, size_t n) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(n));
}

// The message of the ember::Error f throws ("" and a test failure if none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an ember::Error: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(AudioBadInput, MissingAndEmptyFiles) {
  TempPath empty("empty.wav"), text("text.wav");
  write_bytes(empty.str(), {}, 0);
  const std::string words = "this is not a RIFF file at all, just some words";
  write_bytes(text.str(), std::vector<uint8_t>(words.begin(), words.end()), words.size());
  for (const Backend& b : backends()) {
    SCOPED_TRACE(b.name);
    for (const std::string& path : {std::string("/nonexistent/x.wav"), empty.str(), text.str()}) {
      std::string m = error_of([&] { b.load(path, 0, -1, true, true, ""); });
      EXPECT_NE(m.find("audio::load"), std::string::npos) << m;
      EXPECT_NE(m.find(path), std::string::npos) << m;
      m = error_of([&] { b.info(path, ""); });
      EXPECT_NE(m.find(path), std::string::npos) << m;
    }
  }
}

TEST(AudioBadInput, TruncatedExactLengthFilesRaise) {
  // PCM and FLAC headers state the length: any cut in the data raises, naming the file.
  for (const char* name : {"speech16k_s16.wav", "speech16k_s24.wav", "stereo48k_s16.wav",
                           "speech16k_f32.wav", "speech16k.flac", "stereo48k_s24.flac"}) {
    const auto bytes = file_bytes(audio_src(name));
    TempPath cut(std::string("cut_") + name);
    for (const Backend& b : backends()) {
      SCOPED_TRACE(b.name + " " + name);
      for (size_t n : {bytes.size() / 2, bytes.size() * 9 / 10, bytes.size() - 100}) {
        write_bytes(cut.str(), bytes, n);
        const std::string m = error_of([&] { b.load(cut.str(), 0, -1, true, true, ""); });
        EXPECT_NE(m.find(cut.str()), std::string::npos) << m;
      }
    }
  }
}

TEST(AudioBadInput, TruncatedAndMutatedFilesNeverCrash) {
  // Every cut length (in steps) and random byte flips of each format: the
  // result is an ember::Error or a well-formed waveform, never a crash or hang.
  if (backends().empty()) GTEST_SKIP() << "built without SoX and FFmpeg";
  std::mt19937 rng(7);
  int errors = 0, decoded = 0;
  for (const char* name : {"speech16k_s16.wav", "speech16k_u8.wav", "speech16k_ulaw.wav",
                           "speech16k.flac", "speech16k.mp3", "speech16k.ogg", "bell.oga"}) {
    const auto bytes = file_bytes(audio_src(name));
    const std::string ext = std::string(name).substr(std::string(name).find('.'));
    TempPath bad(std::string("bad") + ext);
    auto attempt = [&](const Backend& b) {
      try {
        const auto w = b.load(bad.str(), 0, -1, true, true, "");
        EXPECT_EQ(w.waveform.dim(), 2);
        ++decoded;
      } catch (const Error&) {
        ++errors;
      }
    };
    for (const Backend& b : backends()) {
      SCOPED_TRACE(b.name + " " + name);
      for (size_t n = 0; n < bytes.size(); n += std::max<size_t>(bytes.size() / 40, 1)) {
        write_bytes(bad.str(), bytes, n);
        attempt(b);
      }
      for (int k = 0; k < 40; ++k) {
        auto mutated = bytes;
        for (int j = 0; j < 4; ++j) mutated[rng() % mutated.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
        write_bytes(bad.str(), mutated, mutated.size());
        attempt(b);
      }
    }
  }
  EXPECT_GT(errors, 0);
  EXPECT_GT(decoded, 0);
}

TEST(AudioBadInput, InvalidArguments) {
  const std::string wav = audio_src("speech16k_s16.wav");
  for (const Backend& b : backends()) {
    SCOPED_TRACE(b.name);
    EXPECT_NE(error_of([&] { b.load(wav, -1, -1, true, true, ""); }).find("frame_offset"), std::string::npos);
    EXPECT_NE(error_of([&] { b.load(wav, 0, 0, true, true, ""); }).find("num_frames"), std::string::npos);
  }
  EXPECT_NE(error_of([] { audio::set_audio_backend("gstreamer"); }).find("unknown backend"), std::string::npos);

  const Tensor x = zeros({2, 100});
  TempPath out("bad_args.wav");
  for (auto save : {&audio::sox_io::save, &audio::ffmpeg::save}) {
    if (save == &audio::sox_io::save && !has_backend("sox")) continue;
    if (save == &audio::ffmpeg::save && !has_backend("ffmpeg")) continue;
    EXPECT_NE(error_of([&] { save(out.str(), zeros({2, 3, 4}), 8000, true, "", "", 0, {}); }).find("2-D"),
              std::string::npos);
    EXPECT_NE(error_of([&] { save(out.str(), zeros({2, 10}, kFloat64), 8000, true, "", "", 0, {}); })
                  .find("float64"), std::string::npos);
    EXPECT_NE(error_of([&] { save(out.str(), x, 0, true, "", "", 0, {}); }).find("sample_rate"), std::string::npos);
    EXPECT_NE(error_of([&] { save(out.str(), x, 8000, true, "", "PCM_X", 0, {}); }).find("encoding"), std::string::npos);
    EXPECT_NE(error_of([&] { save(out.str(), x, 8000, true, "", "PCM_S", 8, {}); }).find("8-bit"), std::string::npos);
    EXPECT_NE(error_of([&] { save(out.str(), x, 8000, true, "", "", 12, {}); }).find("bits_per_sample"), std::string::npos);
    EXPECT_NE(error_of([&] { save("/tmp/ember_no_extension", x, 8000, true, "", "", 0, {}); }).find("format"),
              std::string::npos);
    EXPECT_NE(error_of([&] { save("/nonexistent/dir/x.wav", x, 8000, true, "", "", 0, {}); })
                  .find("/nonexistent/dir/x.wav"), std::string::npos);
  }
}

TEST(AudioBadInput, BadEffects) {
  if (!has_backend("sox")) GTEST_SKIP() << "built without SoX";
  const Tensor x = zeros({1, 1000});
  auto apply = [&](std::vector<std::vector<std::string>> effects) {
    return error_of([&] { audio::apply_effects_tensor(x, 8000, effects); });
  };
  EXPECT_NE(apply({{"nosuchfx"}}).find("unknown SoX effect \"nosuchfx\""), std::string::npos);
  EXPECT_NE(apply({{"rate", "abc"}}).find("invalid options for SoX effect \"rate abc\""), std::string::npos);
  EXPECT_NE(apply({{"gain", "-n", "x", "y"}}).find("gain -n x y"), std::string::npos);
  EXPECT_NE(apply({{}}).find("empty effect"), std::string::npos);
  EXPECT_NE(apply({{"spectrogram"}}).find("not supported"), std::string::npos);
  EXPECT_NE(apply({{"splice", "1"}}).find("not supported"), std::string::npos);
  const std::string m = error_of([] { audio::apply_effects_file("/nonexistent.wav", {{"gain", "-1"}}); });
  EXPECT_NE(m.find("/nonexistent.wav"), std::string::npos) << m;
  // A chain that starts but whose effect refuses the signal.
  EXPECT_FALSE(apply({{"channels", "0"}}).empty());
}

TEST(AudioBadInput, BadBytes) {
  const Tensor junk = empty({300}, kUInt8).fill_(7);
  if (has_backend("sox")) {
    EXPECT_NE(error_of([&] { audio::sox_io::load_bytes(junk); }).find("load_bytes"), std::string::npos);
    EXPECT_NE(error_of([&] { audio::sox_io::load_bytes(empty({0}, kUInt8)); }).find("empty"), std::string::npos);
  }
  if (has_backend("ffmpeg")) {
    EXPECT_NE(error_of([&] { audio::ffmpeg::load_bytes(junk); }).find("load_bytes"), std::string::npos);
    EXPECT_NE(error_of([&] { audio::ffmpeg::load_bytes(zeros({4})); }).find("uint8"), std::string::npos);
  }
}

TEST(AudioDispatch, MissingBackendRaisesClearly) {
  // The default is "sox" when built, else "ffmpeg" (tests that switch restore it).
  EXPECT_EQ(audio::get_audio_backend(), has_backend("sox") ? "sox" : "ffmpeg");
  const Tensor x = zeros({1, 100});
  if (!has_backend("sox")) {
    for (const std::string& m :
         {error_of([] { audio::set_audio_backend("sox"); }),
          error_of([] { audio::sox_io::load(audio_src("speech16k_s16.wav")); }),
          error_of([&] { audio::apply_effects_tensor(x, 8000, {{"gain", "-1"}}); })}) {
      EXPECT_NE(m.find("built without SoX (EMBER_WITH_SOX"), std::string::npos) << m;
    }
    EXPECT_TRUE(audio::effect_names().empty());
  }
  if (!has_backend("ffmpeg")) {
    for (const std::string& m : {error_of([] { audio::set_audio_backend("ffmpeg"); }),
                                 error_of([] { audio::ffmpeg::info(audio_src("speech16k_s16.wav")); })}) {
      EXPECT_NE(m.find("built without FFmpeg (EMBER_WITH_FFMPEG"), std::string::npos) << m;
    }
  }
  // Whatever the build has, load works through the default backend.
  if (!audio::list_audio_backends().empty()) {
    EXPECT_EQ(audio::load(audio_src("speech16k_s16.wav")).waveform.size(1), 8000);
  }
}

}  // namespace audio_bad_input_test
