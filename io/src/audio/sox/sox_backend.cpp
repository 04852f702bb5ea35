// The "sox" backend: load / info / save through libsox, as torchaudio 0.13's
// sox_io backend (the same libsox calls, so the same values).
#include <cmath>

#include <ember/core/error.h>
#include <ember/io/audio.h>

#include "audio/audio_common.h"
#include "audio/sox/sox_chain.h"

namespace ember::audio::sox_io {
namespace {

using namespace sox_detail;

// torchaudio's load: a "trim" effect selects the frames.
std::vector<std::vector<std::string>> trim_effects(int64_t frame_offset, int64_t num_frames) {
  if (num_frames != -1) {
    std::string count = "+";
    count += std::to_string(num_frames);
    count += "s";
    return {{"trim", std::to_string(frame_offset) + "s", count}};
  }
  if (frame_offset != 0) return {{"trim", std::to_string(frame_offset) + "s"}};
  return {};
}

// torchaudio's get_save_encoding: (encoding, bits) for a format, dtype and options.
std::pair<sox_encoding_t, unsigned> save_encoding(const std::string& format, DType dtype,
                                                  const std::string& encoding, int64_t bits) {
  const char* op = "audio::save";
  EMBER_CHECK(bits == 0 || bits == 8 || bits == 16 || bits == 24 || bits == 32 || bits == 64, op,
              ": bits_per_sample must be 8, 16, 24, 32 or 64 (0 = default), got ", bits);
  EMBER_CHECK(encoding.empty() || encoding == "PCM_S" || encoding == "PCM_U" ||
                  encoding == "PCM_F" || encoding == "ULAW" || encoding == "ALAW",
              op, ": encoding must be PCM_S, PCM_U, PCM_F, ULAW or ALAW (\"\" = default), got \"",
              encoding, "\"");
  const unsigned b = static_cast<unsigned>(bits);
  if (format == "wav" || format == "amb") {
    if (encoding.empty()) {
      if (bits == 0) {
        if (dtype == kFloat32) return {SOX_ENCODING_FLOAT, 32};
        if (dtype == kInt32) return {SOX_ENCODING_SIGN2, 32};
        if (dtype == kInt16) return {SOX_ENCODING_SIGN2, 16};
        return {SOX_ENCODING_UNSIGNED, 8};
      }
      if (bits == 8) return {SOX_ENCODING_UNSIGNED, 8};
      return {SOX_ENCODING_SIGN2, b};
    }
    if (encoding == "PCM_S") {
      EMBER_CHECK(bits != 8, op, ": ", format, " does not support 8-bit signed PCM encoding");
      return {SOX_ENCODING_SIGN2, bits == 0 ? 32u : b};
    }
    if (encoding == "PCM_U") {
      EMBER_CHECK(bits == 0 || bits == 8, op, ": ", format,
                  " only supports 8-bit for unsigned PCM encoding");
      return {SOX_ENCODING_UNSIGNED, 8};
    }
    if (encoding == "PCM_F") {
      EMBER_CHECK(bits == 0 || bits == 32 || bits == 64, op, ": ", format,
                  " only supports 32-bit or 64-bit for floating-point PCM encoding");
      return {SOX_ENCODING_FLOAT, bits == 0 ? 32u : b};
    }
    EMBER_CHECK(bits == 0 || bits == 8, op, ": ", format, " only supports 8-bit for ",
                encoding == "ULAW" ? "mu-law" : "a-law", " encoding");
    return {encoding == "ULAW" ? SOX_ENCODING_ULAW : SOX_ENCODING_ALAW, 8};
  }
  auto no_options = [&](const char* name) {
    EMBER_CHECK(encoding.empty(), op, ": ", name, " does not support the encoding option");
    EMBER_CHECK(bits == 0, op, ": ", name, " does not support the bits_per_sample option");
  };
  if (format == "mp3") { no_options("mp3"); return {SOX_ENCODING_MP3, 16}; }
  if (format == "htk") { no_options("htk"); return {SOX_ENCODING_SIGN2, 16}; }
  if (format == "ogg" || format == "vorbis") { no_options("vorbis"); return {SOX_ENCODING_VORBIS, 0}; }
  if (format == "amr-nb") { no_options("amr-nb"); return {SOX_ENCODING_AMR_NB, 16}; }
  if (format == "gsm") { no_options("gsm"); return {SOX_ENCODING_GSM, 16}; }
  if (format == "flac") {
    EMBER_CHECK(encoding.empty(), op, ": flac does not support the encoding option");
    EMBER_CHECK(bits <= 24, op, ": flac does not support bits_per_sample larger than 24");
    return {SOX_ENCODING_FLAC, b};
  }
  if (format == "sph") {
    if (encoding.empty() || encoding == "PCM_S") return {SOX_ENCODING_SIGN2, bits == 0 ? 32u : b};
    EMBER_CHECK(encoding != "PCM_U", op, ": sph does not support unsigned integer PCM");
    EMBER_CHECK(encoding != "PCM_F", op, ": sph does not support floating point PCM");
    if (encoding == "ULAW") {
      EMBER_CHECK(bits == 0 || bits == 8, op, ": sph only supports 8-bit for mu-law encoding");
      return {SOX_ENCODING_ULAW, 8};
    }
    return {SOX_ENCODING_ALAW, bits == 0 ? 8u : b};
  }
  EMBER_FAIL(op, ": unsupported format \"", format,
             "\" (sox backend: wav, amb, flac, mp3, ogg/vorbis, sph, htk, gsm, amr-nb)");
}

// torchaudio's get_precision: the precision libsox is told for the signal.
unsigned save_precision(const std::string& format, DType dtype) {
  if (format == "mp3" || format == "ogg" || format == "vorbis") return SOX_UNSPEC;
  if (format == "flac") return 24;
  if (format == "wav" || format == "amb") return tensor_precision(dtype);
  if (format == "sph") return 32;
  return 16;  // amr-nb, gsm, htk
}

}  // namespace

Waveform load(const std::string& path, int64_t frame_offset, int64_t num_frames, bool normalize,
              bool channels_first, const std::string& format) {
  const auto lock = sox_detail::sox_lock();  // Note [SoX is single-threaded]
  const char* op = "audio::load";
  detail::check_frame_range(op, frame_offset, num_frames);
  SoxFormat sf = open_read(op, path, format);
  return read_through_effects(op, sf.get(), path, trim_effects(frame_offset, num_frames),
                              normalize, channels_first);
}

Waveform load_bytes(const Tensor& data, bool normalize, bool channels_first,
                    const std::string& format) {
  const auto lock = sox_detail::sox_lock();  // Note [SoX is single-threaded]
  const char* op = "audio::sox_io::load_bytes";
  const Tensor bytes = detail::check_bytes(op, data);
  SoxFormat sf = open_mem_read(op, bytes, format);
  return read_through_effects(op, sf.get(), "<memory>", {}, normalize, channels_first);
}

AudioMetaData info(const std::string& path, const std::string& format) {
  const auto lock = sox_detail::sox_lock();  // Note [SoX is single-threaded]
  const char* op = "audio::info";
  SoxFormat sf = open_read(op, path, format);
  const unsigned channels = sf->signal.channels;
  EMBER_CHECK(channels > 0, op, ": '", path, "': no channels");
  AudioMetaData m;
  m.sample_rate = static_cast<int64_t>(sf->signal.rate);
  m.num_frames = static_cast<int64_t>(sf->signal.length / channels);
  m.num_channels = channels;
  m.bits_per_sample = sf->encoding.bits_per_sample;
  m.encoding = encoding_name(sf->encoding.encoding);
  return m;
}

void save(const std::string& path, const Tensor& src, int64_t sample_rate, bool channels_first,
          const std::string& format, const std::string& encoding, int64_t bits_per_sample,
          std::optional<double> compression) {
  const auto lock = sox_detail::sox_lock();  // Note [SoX is single-threaded]
  const char* op = "audio::save";
  const Tensor fc = detail::frames_major(op, src, sample_rate, channels_first);
  const std::string filetype = detail::save_format(path, format);
  if (filetype == "amr-nb") {
    EMBER_CHECK(fc.size(1) == 1, op, ": amr-nb format only supports single channel audio");
  }
  const auto [enc, bits] = save_encoding(filetype, fc.dtype(), encoding, bits_per_sample);
  const std::vector<sox_sample_t> samples = to_sox_samples(fc);

  sox_signalinfo_t signal{};
  signal.rate = static_cast<sox_rate_t>(sample_rate);
  signal.channels = static_cast<unsigned>(fc.size(1));
  signal.precision = save_precision(filetype, fc.dtype());
  signal.length = static_cast<sox_uint64_t>(samples.size());
  sox_encodinginfo_t encoding_info = tensor_encoding(fc.dtype());
  encoding_info.encoding = enc;
  encoding_info.bits_per_sample = bits;
  encoding_info.compression = compression.value_or(HUGE_VAL);

  ensure_sox();
  clear_messages();
  SoxFormat sf(sox_open_write(path.c_str(), &signal, &encoding_info, filetype.c_str(), nullptr,
                              nullptr));
  EMBER_CHECK(sf, op, ": cannot open '", path, "' for writing as ", filetype,
              last_message().empty() ? "" : ": ", last_message());
  EffectsChain chain(op, tensor_encoding(fc.dtype()), sf->encoding);
  sox_signalinfo_t input_signal = signal;  // torchaudio describes the tensor as a WAV
  input_signal.precision = tensor_precision(fc.dtype());
  chain.add_input_samples(&samples, input_signal);
  chain.add_output_file(sf.get());
  chain.set_label(path);
  chain.run();
  clear_messages();
  EMBER_CHECK(sox_close(sf.release()) == SOX_SUCCESS, op, ": cannot finish writing '", path, "'",
              last_message().empty() ? "" : ": ", last_message());
}

}  // namespace ember::audio::sox_io
