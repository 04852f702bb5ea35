// torchaudio.sox_effects: apply_effects_tensor / apply_effects_file / effect_names,
// and the file-reading chain that load shares.
#include <cstring>

#include <ember/core/error.h>
#include <ember/io/audio.h>

#include "audio/audio_common.h"
#include "audio/sox/sox_chain.h"

namespace ember::audio {
namespace sox_detail {

SoxFormat open_read(const char* op, const std::string& path, const std::string& format) {
  ensure_sox();
  clear_messages();
  SoxFormat sf(sox_open_read(path.c_str(), nullptr, nullptr,
                             format.empty() ? nullptr : format.c_str()));
  EMBER_CHECK(sf, op, ": cannot open '", path, "'",
              last_message().empty() ? "" : ": ", last_message());
  return sf;
}

SoxFormat open_mem_read(const char* op, const Tensor& bytes, const std::string& format) {
  ensure_sox();
  clear_messages();
  SoxFormat sf(sox_open_mem_read(bytes.data_ptr(), static_cast<size_t>(bytes.numel()), nullptr,
                                 nullptr, format.empty() ? nullptr : format.c_str()));
  EMBER_CHECK(sf, op, ": cannot read the ", bytes.numel(), " bytes as audio",
              last_message().empty() ? "" : ": ", last_message());
  return sf;
}

namespace {

// torchaudio's output dtype for a file (get_dtype), used when normalize = false.
DType file_dtype(const char* op, const std::string& label, const sox_format_t* sf, bool normalize) {
  switch (sf->encoding.encoding) {
    case SOX_ENCODING_UNSIGNED:
      return kUInt8;
    case SOX_ENCODING_SIGN2:
      switch (sf->signal.precision) {
        case 16: return kInt16;
        case 24:
        case 32: return kInt32;
        default:
          // torchaudio refuses these; normalized floats are well defined.
          EMBER_CHECK(normalize, op, ": '", label, "': normalize=false supports 16, 24 and 32-bit "
                      "signed PCM, got ", sf->signal.precision, "-bit");
          return kFloat32;
      }
    default:
      return kFloat32;
  }
}

// Encodings whose header gives the exact length, so that a shorter read means a
// truncated file. (MP3 lengths are estimates; Vorbis / Opus ones come from the
// last page present.)
bool exact_length(sox_encoding_t e) {
  switch (e) {
    case SOX_ENCODING_SIGN2:
    case SOX_ENCODING_UNSIGNED:
    case SOX_ENCODING_FLOAT:
    case SOX_ENCODING_FLAC:
    case SOX_ENCODING_ULAW:
    case SOX_ENCODING_ALAW:
      return true;
    default:
      return false;
  }
}

}  // namespace

Waveform read_through_effects(const char* op, sox_format_t* sf, const std::string& label,
                              const std::vector<std::vector<std::string>>& effects,
                              bool normalize, bool channels_first) {
  EMBER_CHECK(sf->encoding.encoding != SOX_ENCODING_UNKNOWN, op, ": '", label,
              "': unknown encoding");
  EMBER_CHECK(sf->signal.channels > 0 && sf->signal.rate > 0, op, ": '", label,
              "': invalid stream (", sf->signal.channels, " channels at ", sf->signal.rate, " Hz)");
  const DType dtype = file_dtype(op, label, sf, normalize);
  std::vector<sox_sample_t> out;
  const uint64_t declared = sf->signal.length;  // samples (all channels); 0 = unknown
  if (declared > 0 && declared != SOX_UNKNOWN_LEN && declared < (uint64_t{1} << 26)) {
    out.reserve(static_cast<size_t>(declared));
  }
  EffectsChain chain(op, sf->encoding, tensor_encoding(dtype));
  chain.add_input_file(sf);
  for (const auto& effect : effects) chain.add_effect(effect);
  chain.add_output_samples(&out);
  chain.set_label(label);
  chain.run();
  if (chain.input_ended() && exact_length(sf->encoding.encoding) && declared > 0 &&
      declared != SOX_UNKNOWN_LEN && chain.samples_read() < declared) {
    const std::string& why = last_message();
    EMBER_FAIL(op, ": '", label, "' is truncated: its header declares ",
               declared / sf->signal.channels, " frames, the data holds ",
               chain.samples_read() / sf->signal.channels, why.empty() ? "" : " (", why,
               why.empty() ? "" : ")");
  }
  const DType out_dtype = normalize ? kFloat32 : dtype;
  return {from_sox_samples(out, chain.out_channels(), out_dtype, channels_first), chain.out_rate()};
}

}  // namespace sox_detail

Waveform apply_effects_tensor(const Tensor& src, int64_t sample_rate,
                              const std::vector<std::vector<std::string>>& effects,
                              bool channels_first) {
  const auto lock = sox_detail::sox_lock();  // Note [SoX is single-threaded]
  using namespace sox_detail;
  const char* op = "audio::apply_effects_tensor";
  const Tensor fc = detail::frames_major(op, src, sample_rate, channels_first);
  const DType dtype = fc.dtype();
  const std::vector<sox_sample_t> in = to_sox_samples(fc);
  sox_signalinfo_t signal{};
  signal.rate = static_cast<sox_rate_t>(sample_rate);
  signal.channels = static_cast<unsigned>(fc.size(1));
  signal.precision = tensor_precision(dtype);
  signal.length = static_cast<sox_uint64_t>(in.size());
  std::vector<sox_sample_t> out;
  out.reserve(in.size());
  EffectsChain chain(op, tensor_encoding(dtype), tensor_encoding(dtype));
  chain.add_input_samples(&in, signal);
  for (const auto& effect : effects) chain.add_effect(effect);
  chain.add_output_samples(&out);
  chain.run();
  return {from_sox_samples(out, chain.out_channels(), dtype, channels_first), chain.out_rate()};
}

Waveform apply_effects_file(const std::string& path,
                            const std::vector<std::vector<std::string>>& effects, bool normalize,
                            bool channels_first, const std::string& format) {
  const auto lock = sox_detail::sox_lock();  // Note [SoX is single-threaded]
  const char* op = "audio::apply_effects_file";
  sox_detail::SoxFormat sf = sox_detail::open_read(op, path, format);
  return sox_detail::read_through_effects(op, sf.get(), path, effects, normalize, channels_first);
}

std::vector<std::string> effect_names() {
  const auto lock = sox_detail::sox_lock();  // Note [SoX is single-threaded]
  sox_detail::ensure_sox();
  static const char* const kUnsupported[] = {"input", "output", "spectrogram", "noiseprof",
                                             "noisered", "splice"};
  std::vector<std::string> names;
  for (const sox_effect_fn_t* fns = sox_get_effect_fns(); *fns; ++fns) {
    const sox_effect_handler_t* h = (*fns)();
    if (!h || !h->name) continue;
    bool skip = false;
    for (const char* u : kUnsupported) skip = skip || std::strcmp(h->name, u) == 0;
    if (!skip) names.emplace_back(h->name);
  }
  return names;
}

}  // namespace ember::audio
