#pragma once
// Audio IO with torchaudio's semantics (torchaudio.load / save / info and
// torchaudio.sox_effects), through two backends behind one dispatch:
//   "sox"    libsox (torchaudio's sox_io backend: values identical to torchaudio 0.13)
//   "ffmpeg" libavformat + libavcodec (+ libavutil)
// Either backend may be missing from a build (EMBER_WITH_SOX / EMBER_WITH_FFMPEG);
// the default is "sox" when built, else "ffmpeg". See docs/io.md, "Audio".
//
// Namespace ember::audio (as torchaudio is a package of its own beside
// torchvision.io, whose functions live in ember::io). Every failure, including
// a corrupt or truncated file, is an ember::Error naming the function, the file
// and the reason.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::audio {

// A decoded signal. Supports structured bindings: auto [wav, sr] = audio::load(p);
struct Waveform {
  Tensor waveform;      // [channels, frames] (channels_first) or [frames, channels]
  int64_t sample_rate;  // Hz
};

// torchaudio.backend.common.AudioMetaData.
struct AudioMetaData {
  int64_t sample_rate = 0;
  // 0 when the container does not say (streams). MP3 through the FFmpeg backend:
  // exactly the length load() returns (gapless; docs/io.md, "MP3 length").
  int64_t num_frames = 0;
  int64_t num_channels = 0;
  int64_t bits_per_sample = 0;  // 0 for lossy codecs (MP3, Vorbis, Opus)
  // "PCM_S", "PCM_U", "PCM_F", "FLAC", "ULAW", "ALAW", "MP3", "VORBIS", "OPUS",
  // "AMR_NB", "AMR_WB", "GSM", "HTK" or "UNKNOWN" (torchaudio's strings).
  std::string encoding;
};

// Loads frames [frame_offset, frame_offset + num_frames) (num_frames = -1: to the
// end). normalize = true gives float32 in [-1, 1]; normalize = false keeps the
// integer PCM types of WAV files (8-bit -> uint8, 16-bit -> int16, 24/32-bit ->
// int32) and is ignored for other encodings (float32). format overrides the
// container detection ("wav", "flac", "mp3", "ogg", ...; "" = from the file).
Waveform load(const std::string& path, int64_t frame_offset = 0, int64_t num_frames = -1,
              bool normalize = true, bool channels_first = true, const std::string& format = "");

// The stream parameters without decoding (as torchaudio.info).
AudioMetaData info(const std::string& path, const std::string& format = "");

// Writes a 2-D float32, int32, int16 or uint8 tensor. format: "" = from the
// extension. encoding: "" (default for the dtype) or "PCM_S", "PCM_U", "PCM_F",
// "ULAW", "ALAW"; bits_per_sample: 0 (default) or 8, 16, 24, 32, 64.
// compression: format-specific (FLAC level 0..8, MP3 bit rate in kbps,
// Vorbis quality -1..10); nullopt = the library's default.
void save(const std::string& path, const Tensor& src, int64_t sample_rate,
          bool channels_first = true, const std::string& format = "",
          const std::string& encoding = "", int64_t bits_per_sample = 0,
          std::optional<double> compression = std::nullopt);

// Backend dispatch (torchaudio.set_audio_backend): "sox" (alias "sox_io") or
// "ffmpeg". Selecting a backend this build lacks raises. Process-wide.
void set_audio_backend(const std::string& backend);
std::string get_audio_backend();
std::vector<std::string> list_audio_backends();  // the backends this build has

// The same operations on one backend, whatever is selected (e.g. for a
// benchmark of FFmpeg decoding against torchaudio.load). A backend missing
// from the build raises ("Ember was built without SoX (EMBER_WITH_SOX=OFF)").
namespace sox_io {
Waveform load(const std::string& path, int64_t frame_offset = 0, int64_t num_frames = -1,
              bool normalize = true, bool channels_first = true, const std::string& format = "");
AudioMetaData info(const std::string& path, const std::string& format = "");
void save(const std::string& path, const Tensor& src, int64_t sample_rate,
          bool channels_first = true, const std::string& format = "",
          const std::string& encoding = "", int64_t bits_per_sample = 0,
          std::optional<double> compression = std::nullopt);
// Decodes a whole file held in memory (1-D uint8 tensor, e.g. from io::read_file)
// through sox_open_mem_read; format as in load.
Waveform load_bytes(const Tensor& data, bool normalize = true, bool channels_first = true,
                    const std::string& format = "");
}  // namespace sox_io

namespace ffmpeg {
Waveform load(const std::string& path, int64_t frame_offset = 0, int64_t num_frames = -1,
              bool normalize = true, bool channels_first = true, const std::string& format = "");
AudioMetaData info(const std::string& path, const std::string& format = "");
void save(const std::string& path, const Tensor& src, int64_t sample_rate,
          bool channels_first = true, const std::string& format = "",
          const std::string& encoding = "", int64_t bits_per_sample = 0,
          std::optional<double> compression = std::nullopt);
// Decodes a whole file held in memory (1-D uint8 tensor) through a custom AVIOContext.
Waveform load_bytes(const Tensor& data, bool normalize = true, bool channels_first = true,
                    const std::string& format = "");
}  // namespace ffmpeg

// SoX effects (torchaudio.sox_effects). effects: one {name, arg, ...} per
// effect, e.g. {{"gain", "-n"}, {"rate", "16000"}, {"channels", "1"}}, applied
// in order exactly as the sox command line would. Need the SoX backend.
//
// src: 2-D float32, int32, int16 or uint8; the result has src's dtype.
Waveform apply_effects_tensor(const Tensor& src, int64_t sample_rate,
                              const std::vector<std::vector<std::string>>& effects,
                              bool channels_first = true);
// Loads the file through the chain; normalize as in load.
Waveform apply_effects_file(const std::string& path,
                            const std::vector<std::vector<std::string>>& effects,
                            bool normalize = true, bool channels_first = true,
                            const std::string& format = "");
// The effect names apply_effects_* accept (libsox's, minus those torchaudio
// excludes: input, output, spectrogram, noiseprof, noisered, splice).
std::vector<std::string> effect_names();

}  // namespace ember::audio
