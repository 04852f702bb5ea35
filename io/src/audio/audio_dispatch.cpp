// audio::load / info / save: the process-wide backend choice, and the stand-ins
// for a backend this build lacks (EMBER_WITH_SOX / EMBER_WITH_FFMPEG = OFF).
#include <atomic>

#include <ember/core/error.h>
#include <ember/core/out_of_memory.h>
#include <ember/io/audio.h>

namespace ember::audio {
namespace {

enum class Backend { Sox, FFmpeg };

Backend default_backend() { return EMBER_HAVE_SOX ? Backend::Sox : Backend::FFmpeg; }

std::atomic<Backend>& selected() {
  static std::atomic<Backend> backend{default_backend()};
  return backend;
}

[[noreturn]] void missing(const char* op, const char* backend, const char* option) {
  EMBER_FAIL(op, ": Ember was built without ", backend, " (", option,
             "=OFF or the library was not found); install it (scripts/install_deps.sh) and "
             "rebuild, or use another backend (audio::list_audio_backends())");
}

}  // namespace

void set_audio_backend(const std::string& backend) {
  if (backend == "sox" || backend == "sox_io") {
    if (!EMBER_HAVE_SOX) missing("audio::set_audio_backend(\"sox\")", "SoX", "EMBER_WITH_SOX");
    selected() = Backend::Sox;
  } else if (backend == "ffmpeg") {
    if (!EMBER_HAVE_FFMPEG) missing("audio::set_audio_backend(\"ffmpeg\")", "FFmpeg", "EMBER_WITH_FFMPEG");
    selected() = Backend::FFmpeg;
  } else {
    EMBER_FAIL("audio::set_audio_backend: unknown backend \"", backend,
               "\" (expected \"sox\" or \"ffmpeg\")");
  }
}

std::string get_audio_backend() { return selected() == Backend::Sox ? "sox" : "ffmpeg"; }

std::vector<std::string> list_audio_backends() {
  std::vector<std::string> out;
  if (EMBER_HAVE_SOX) out.push_back("sox");
  if (EMBER_HAVE_FFMPEG) out.push_back("ffmpeg");
  return out;
}

// Running out of memory is an ember::Error naming the file (Note [Out of
// memory at the entry points]).
Waveform load(const std::string& path, int64_t frame_offset, int64_t num_frames, bool normalize,
              bool channels_first, const std::string& format) {
  return with_out_of_memory_context("audio::load: '" + path + "'", "decoding the audio", [&] {
    if (selected() == Backend::Sox) {
      return sox_io::load(path, frame_offset, num_frames, normalize, channels_first, format);
    }
    return ffmpeg::load(path, frame_offset, num_frames, normalize, channels_first, format);
  });
}

AudioMetaData info(const std::string& path, const std::string& format) {
  return with_out_of_memory_context("audio::info: '" + path + "'", "reading the header", [&] {
    return selected() == Backend::Sox ? sox_io::info(path, format) : ffmpeg::info(path, format);
  });
}

void save(const std::string& path, const Tensor& src, int64_t sample_rate, bool channels_first,
          const std::string& format, const std::string& encoding, int64_t bits_per_sample,
          std::optional<double> compression) {
  if (selected() == Backend::Sox) {
    sox_io::save(path, src, sample_rate, channels_first, format, encoding, bits_per_sample,
                 compression);
  } else {
    ffmpeg::save(path, src, sample_rate, channels_first, format, encoding, bits_per_sample,
                 compression);
  }
}

#if !EMBER_HAVE_SOX
namespace sox_io {
Waveform load(const std::string&, int64_t, int64_t, bool, bool, const std::string&) {
  missing("audio::sox_io::load", "SoX", "EMBER_WITH_SOX");
}
AudioMetaData info(const std::string&, const std::string&) {
  missing("audio::sox_io::info", "SoX", "EMBER_WITH_SOX");
}
void save(const std::string&, const Tensor&, int64_t, bool, const std::string&, const std::string&,
          int64_t, std::optional<double>) {
  missing("audio::sox_io::save", "SoX", "EMBER_WITH_SOX");
}
Waveform load_bytes(const Tensor&, bool, bool, const std::string&) {
  missing("audio::sox_io::load_bytes", "SoX", "EMBER_WITH_SOX");
}
}  // namespace sox_io

Waveform apply_effects_tensor(const Tensor&, int64_t, const std::vector<std::vector<std::string>>&,
                              bool) {
  missing("audio::apply_effects_tensor", "SoX", "EMBER_WITH_SOX");
}
Waveform apply_effects_file(const std::string&, const std::vector<std::vector<std::string>>&, bool,
                            bool, const std::string&) {
  missing("audio::apply_effects_file", "SoX", "EMBER_WITH_SOX");
}
std::vector<std::string> effect_names() { return {}; }
#endif

#if !EMBER_HAVE_FFMPEG
namespace ffmpeg {
Waveform load(const std::string&, int64_t, int64_t, bool, bool, const std::string&) {
  missing("audio::ffmpeg::load", "FFmpeg", "EMBER_WITH_FFMPEG");
}
AudioMetaData info(const std::string&, const std::string&) {
  missing("audio::ffmpeg::info", "FFmpeg", "EMBER_WITH_FFMPEG");
}
void save(const std::string&, const Tensor&, int64_t, bool, const std::string&, const std::string&,
          int64_t, std::optional<double>) {
  missing("audio::ffmpeg::save", "FFmpeg", "EMBER_WITH_FFMPEG");
}
Waveform load_bytes(const Tensor&, bool, bool, const std::string&) {
  missing("audio::ffmpeg::load_bytes", "FFmpeg", "EMBER_WITH_FFMPEG");
}
}  // namespace ffmpeg
#endif

}  // namespace ember::audio
