// The "ffmpeg" audio backend, reading: load, load_bytes and info through
// libavformat and libavcodec. Semantics are the sox backend's (docs/io.md,
// "Audio"): the same dtypes, the same integer <-> float scaling, the same
// errors for truncated files. Writing (save) is in ffmpeg_audio_write.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>

#include <ember/core/checked_size.h>
#include <ember/core/error.h>
#include <ember/io/audio.h>
#include <ember/ops/factories.h>

#include "audio/audio_common.h"
#include "audio/ffmpeg/ffmpeg_messages.h"
#include "audio/ffmpeg/ffmpeg_raii.h"
#include "audio/ffmpeg/mp3_length.h"

extern "C" {
#include <libavutil/samplefmt.h>
}

namespace ember::audio::ffmpeg {
namespace {

using namespace ffmpeg_detail;

// ---- input ------------------------------------------------------------------

// For a RIFF WAVE file: the size its "data" chunk declares and the bytes the
// file holds after the chunk header. FFmpeg quietly reads what is there; Ember,
// as libsox, calls a shorter file truncated. nullopt when not found / streamed.
std::optional<std::pair<uint64_t, uint64_t>> wav_data_extent(const uint8_t* p, size_t n, uint64_t total) {
  auto u32 = [&](size_t at) {
    return uint32_t(p[at]) | uint32_t(p[at + 1]) << 8 | uint32_t(p[at + 2]) << 16 | uint32_t(p[at + 3]) << 24;
  };
  if (n < 12 || std::memcmp(p, "RIFF", 4) != 0 || std::memcmp(p + 8, "WAVE", 4) != 0) return std::nullopt;
  size_t at = 12;
  while (at + 8 <= n) {
    const uint32_t size = u32(at + 4);
    if (std::memcmp(p + at, "data", 4) == 0) {
      if (size == 0 || size == 0xFFFFFFFFu) return std::nullopt;  // streamed: length unknown
      return std::make_pair(uint64_t{size}, total - std::min<uint64_t>(total, at + 8));
    }
    at += 8 + size + (size & 1);
  }
  return std::nullopt;
}

struct MemoryReader {
  const uint8_t* data = nullptr;
  int64_t size = 0;
  int64_t pos = 0;
};

int memory_read(void* opaque, uint8_t* buf, int n) {
  auto* m = static_cast<MemoryReader*>(opaque);
  const int64_t left = m->size - m->pos;
  if (left <= 0) return AVERROR_EOF;
  const int take = static_cast<int>(std::min<int64_t>(n, left));
  std::memcpy(buf, m->data + m->pos, static_cast<size_t>(take));
  m->pos += take;
  return take;
}

int64_t memory_seek(void* opaque, int64_t offset, int whence) {
  auto* m = static_cast<MemoryReader*>(opaque);
  whence &= ~AVSEEK_FORCE;
  if (whence == AVSEEK_SIZE) return m->size;
  int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? m->pos : whence == SEEK_END ? m->size : -1;
  if (base < 0) return AVERROR(EINVAL);
  const int64_t to = base + offset;
  if (to < 0 || to > m->size) return AVERROR(EINVAL);
  m->pos = to;
  return to;
}

// An opened input with its audio stream and decoder. Not movable: the
// AVIOContext points at `memory`.
struct Input {
  const char* op;
  std::string label;
  MemoryReader memory;
  IoContext io;
  InputContext format;
  int stream_index = -1;
  AVStream* stream = nullptr;

  Input(const char* op_, std::string label_) : op(op_), label(std::move(label_)) {}
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;

  // path, or bytes when data is non-null.
  void open(const std::string& path, const uint8_t* data, int64_t size, const std::string& fmt) {
    ensure_ffmpeg();
    const AVInputFormat* input_format = nullptr;
    if (!fmt.empty()) {
      input_format = av_find_input_format(fmt == "ogg" || fmt == "vorbis" || fmt == "opus" ? "ogg"
                                                                                        : fmt.c_str());
      EMBER_CHECK(input_format, op, ": '", label, "': FFmpeg has no demuxer for format \"", fmt, "\"");
    }
    AVFormatContext* raw = allocated(avformat_alloc_context());
    if (data) {
      memory = {data, size, 0};
      auto* buffer = static_cast<unsigned char*>(av_malloc(1 << 16));
      io.reset(avio_alloc_context(buffer, 1 << 16, 0, &memory, memory_read, nullptr, memory_seek));
      if (!io) {
        av_free(buffer);
        avformat_free_context(raw);
        throw std::bad_alloc();
      }
      raw->pb = io.get();
      raw->flags |= AVFMT_FLAG_CUSTOM_IO;
    }
    const int rc = avformat_open_input(&raw, data ? nullptr : path.c_str(), input_format, nullptr);
    throw_if_out_of_memory(rc);
    EMBER_CHECK(rc >= 0, op, ": cannot open '", label, "': ", why(rc));  // raw freed on failure
    format.reset(raw);
    const int info = avformat_find_stream_info(raw, nullptr);
    throw_if_out_of_memory(info);
    EMBER_CHECK(info >= 0, op, ": '", label, "': cannot read the stream parameters: ", why(info));
    stream_index = av_find_best_stream(raw, AVMEDIA_TYPE_AUDIO, -1, -1, nullptr, 0);
    EMBER_CHECK(stream_index >= 0, op, ": '", label, "' has no audio stream");
    stream = raw->streams[stream_index];
    const AVCodecParameters* par = stream->codecpar;
    EMBER_CHECK(par->sample_rate > 0 && par->ch_layout.nb_channels > 0, op, ": '", label,
                "': invalid audio stream (", par->ch_layout.nb_channels, " channels at ",
                par->sample_rate, " Hz)");
  }

  // Raises for a WAV whose data chunk is shorter than its header says (load
  // only: info reports the header, as libsox does). path / data as in open().
  void check_complete(const std::string& path, const uint8_t* data, int64_t size) const {
    if (std::strcmp(format->iformat->name, "wav") == 0) {
      std::vector<uint8_t> head;
      uint64_t total = 0;
      if (data) {
        head.assign(data, data + std::min<int64_t>(size, 1 << 16));
        total = static_cast<uint64_t>(size);
      } else {
        std::error_code ec;
        total = std::filesystem::file_size(path, ec);
        if (ec) return;
        std::ifstream f(path, std::ios::binary);
        head.resize(1 << 16);
        f.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
        head.resize(static_cast<size_t>(f.gcount()));
      }
      if (const auto extent = wav_data_extent(head.data(), head.size(), total)) {
        EMBER_CHECK(extent->second >= extent->first, op, ": '", label,
                    "' is truncated: its header declares ", extent->first,
                    " bytes of samples, the file holds ", extent->second);
      }
    }
  }
};

bool is_integer_pcm(AVCodecID id) {
  switch (id) {
    case AV_CODEC_ID_PCM_U8:
    case AV_CODEC_ID_PCM_S16LE:
    case AV_CODEC_ID_PCM_S16BE:
    case AV_CODEC_ID_PCM_S24LE:
    case AV_CODEC_ID_PCM_S24BE:
    case AV_CODEC_ID_PCM_S32LE:
    case AV_CODEC_ID_PCM_S32BE:
      return true;
    default:
      return false;
  }
}

// Codecs whose container states the exact length (a shorter decode = truncated).
bool exact_length(AVCodecID id) {
  if (id == AV_CODEC_ID_FLAC || id == AV_CODEC_ID_PCM_MULAW || id == AV_CODEC_ID_PCM_ALAW) return true;
  const AVCodecDescriptor* d = avcodec_descriptor_get(id);
  return d && d->name && std::strncmp(d->name, "pcm_", 4) == 0;
}

std::string encoding_of(AVCodecID id) {
  switch (id) {
    case AV_CODEC_ID_PCM_U8: return "PCM_U";
    case AV_CODEC_ID_PCM_S8: case AV_CODEC_ID_PCM_S16LE: case AV_CODEC_ID_PCM_S16BE:
    case AV_CODEC_ID_PCM_S24LE: case AV_CODEC_ID_PCM_S24BE: case AV_CODEC_ID_PCM_S32LE:
    case AV_CODEC_ID_PCM_S32BE: return "PCM_S";
    case AV_CODEC_ID_PCM_F32LE: case AV_CODEC_ID_PCM_F32BE: case AV_CODEC_ID_PCM_F64LE:
    case AV_CODEC_ID_PCM_F64BE: return "PCM_F";
    case AV_CODEC_ID_PCM_MULAW: return "ULAW";
    case AV_CODEC_ID_PCM_ALAW: return "ALAW";
    case AV_CODEC_ID_FLAC: return "FLAC";
    case AV_CODEC_ID_MP3: return "MP3";
    case AV_CODEC_ID_VORBIS: return "VORBIS";
    case AV_CODEC_ID_OPUS: return "OPUS";
    case AV_CODEC_ID_AMR_NB: return "AMR_NB";
    case AV_CODEC_ID_AMR_WB: return "AMR_WB";
    case AV_CODEC_ID_GSM: case AV_CODEC_ID_GSM_MS: return "GSM";
    default: return "UNKNOWN";
  }
}

int64_t bits_of(const AVCodecParameters* par) {
  if (par->codec_id == AV_CODEC_ID_FLAC) return par->bits_per_raw_sample;
  const AVCodecDescriptor* d = avcodec_descriptor_get(par->codec_id);
  if (d && d->name && std::strncmp(d->name, "pcm_", 4) == 0) return av_get_bits_per_sample(par->codec_id);
  if (d && (d->props & AV_CODEC_PROP_LOSSY)) return 0;
  const int b = av_get_bits_per_sample(par->codec_id);
  return b > 0 ? b : par->bits_per_raw_sample;
}

// Stream length in frames from the container, 0 when unknown.
int64_t declared_frames(const AVFormatContext* fmt, const AVStream* st) {
  const int sr = st->codecpar->sample_rate;
  if (st->duration != AV_NOPTS_VALUE && st->duration > 0) {
    return av_rescale_q(st->duration, st->time_base, AVRational{1, sr});
  }
  if (fmt->duration != AV_NOPTS_VALUE && fmt->duration > 0) {
    return av_rescale_q(fmt->duration, AVRational{1, AV_TIME_BASE}, AVRational{1, sr});
  }
  return 0;
}

// One decoded sample of format F (packed or planar) converted to Out.
template <class Out, class In>
Out convert_sample(In x) {
  if constexpr (std::is_same_v<Out, float>) {
    if constexpr (std::is_same_v<In, uint8_t>) return (static_cast<float>(x) - 128.0f) / 128.0f;
    if constexpr (std::is_same_v<In, int16_t>) return static_cast<float>(x) / 32768.0f;
    if constexpr (std::is_same_v<In, int32_t>) return static_cast<float>(static_cast<double>(x) / 2147483648.0);
    if constexpr (std::is_same_v<In, int64_t>) return static_cast<float>(static_cast<double>(x) / 9223372036854775808.0);
    if constexpr (std::is_same_v<In, float>) return x;
    if constexpr (std::is_same_v<In, double>) return static_cast<float>(x);
  } else {
    return static_cast<Out>(x);  // raw PCM: Out is the decoder's own type
  }
}

template <class Out, class In>
void append_frames(const AVFrame* f, int channels, bool planar, int first, int count, Out* dst) {
  if (planar) {
    for (int c = 0; c < channels; ++c) {
      const In* src = reinterpret_cast<const In*>(f->extended_data[c]) + first;
      for (int i = 0; i < count; ++i) dst[static_cast<int64_t>(i) * channels + c] = convert_sample<Out>(src[i]);
    }
  } else {
    const In* src = reinterpret_cast<const In*>(f->data[0]) + static_cast<int64_t>(first) * channels;
    const int64_t n = static_cast<int64_t>(count) * channels;
    for (int64_t i = 0; i < n; ++i) dst[i] = convert_sample<Out>(src[i]);
  }
}

template <class Out>
void append_any(const char* op, const std::string& label, const AVFrame* f, int channels, int first,
                int count, Out* dst) {
  const auto fmt = static_cast<AVSampleFormat>(f->format);
  const bool planar = av_sample_fmt_is_planar(fmt);
  switch (av_get_packed_sample_fmt(fmt)) {
    case AV_SAMPLE_FMT_U8: return append_frames<Out, uint8_t>(f, channels, planar, first, count, dst);
    case AV_SAMPLE_FMT_S16: return append_frames<Out, int16_t>(f, channels, planar, first, count, dst);
    case AV_SAMPLE_FMT_S32: return append_frames<Out, int32_t>(f, channels, planar, first, count, dst);
    case AV_SAMPLE_FMT_S64: return append_frames<Out, int64_t>(f, channels, planar, first, count, dst);
    case AV_SAMPLE_FMT_FLT: return append_frames<Out, float>(f, channels, planar, first, count, dst);
    case AV_SAMPLE_FMT_DBL: return append_frames<Out, double>(f, channels, planar, first, count, dst);
    default: EMBER_FAIL(op, ": '", label, "': unsupported decoded sample format ", f->format);
  }
}

// Decodes the selected stream of `in` into a [frames, channels] tensor.
template <class Out>
Tensor decode(Input& in, AVCodecContext* dec, DType dtype, int64_t frame_offset, int64_t num_frames,
              bool channels_first) {
  const int channels = dec->ch_layout.nb_channels;
  const int sample_rate = dec->sample_rate;
  std::vector<Out> out;
  const int64_t declared = declared_frames(in.format.get(), in.stream);
  // A header's frame count is only a hint (checked: Note [Checked sizes]);
  // the buffer grows with what really decodes.
  int64_t declared_samples = 0;
  if (declared > 0 && !mul_overflows(declared, channels, &declared_samples) &&
      declared_samples < (int64_t{1} << 26)) {
    out.reserve(static_cast<size_t>((num_frames > 0 ? std::min(num_frames, declared) : declared) * channels));
  }
  int64_t position = 0;   // frames of the signal decoded so far (before frame_offset / num_frames)
  int64_t kept = 0;
  // MP3: the encoder delay and padding are dropped here (Note [MP3 length]).
  const bool gapless = dec->flags2 & AV_CODEC_FLAG2_SKIP_MANUAL;
  GaplessTrim trim;
  // Ogg states the exact end (the last granule position); this FFmpeg does not
  // drop the padding of the last Vorbis packet, so Ember does, as libsox does.
  const bool ogg = std::strcmp(in.format->iformat->name, "ogg") == 0;
  const int64_t end = ogg && declared > 0 ? declared : std::numeric_limits<int64_t>::max();
  bool done = false;
  Packet pkt(av_packet_alloc());
  Frame frame(av_frame_alloc());
  if (!pkt || !frame) throw std::bad_alloc();

  auto receive = [&]() {
    for (;;) {
      const int rc = avcodec_receive_frame(dec, frame.get());
      if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return;
      throw_if_out_of_memory(rc);
      EMBER_CHECK(rc >= 0, in.op, ": '", in.label, "': decoding failed: ", why(rc));
      const AVFrame* f = frame.get();
      EMBER_CHECK(f->ch_layout.nb_channels == channels && f->sample_rate == sample_rate, in.op,
                  ": '", in.label, "': the stream changes its channels or sample rate mid-way (",
                  channels, " ch ", sample_rate, " Hz -> ", f->ch_layout.nb_channels, " ch ",
                  f->sample_rate, " Hz)");
      // [lo, lo + n): the frame's samples that belong to the signal.
      int64_t lo = 0, n = f->nb_samples;
      if (gapless) {
        const AVFrameSideData* side = av_frame_get_side_data(f, AV_FRAME_DATA_SKIP_SAMPLES);
        std::tie(lo, n) = trim.keep(n, side ? side->data : nullptr, side ? side->size : 0);
      }
      int64_t first = std::clamp<int64_t>(frame_offset - position, 0, n);
      int64_t count = std::min(n, std::max<int64_t>(end - position, 0)) - first;
      if (num_frames > 0) count = std::min(count, num_frames - kept);
      if (count > 0) {
        const size_t at = out.size();
        out.resize(at + static_cast<size_t>(count * channels));
        append_any<Out>(in.op, in.label, f, channels, static_cast<int>(lo + first), static_cast<int>(count),
                        out.data() + at);
        kept += count;
      }
      position += n;
      av_frame_unref(frame.get());
      if (num_frames > 0 && kept >= num_frames) {
        done = true;
        return;
      }
    }
  };

  bool reached_end = false;
  while (!done) {
    const int rc = av_read_frame(in.format.get(), pkt.get());
    if (rc == AVERROR_EOF) {
      reached_end = true;
      break;
    }
    throw_if_out_of_memory(rc);
    EMBER_CHECK(rc >= 0, in.op, ": '", in.label, "': cannot read: ", why(rc));
    if (pkt->stream_index == in.stream_index && gapless && mp3_frame_cut_short(pkt.get())) {
      av_packet_unref(pkt.get());  // the partial last frame of a cut file (Note [MP3 length])
    } else if (pkt->stream_index == in.stream_index) {
      const int sent = avcodec_send_packet(dec, pkt.get());
      av_packet_unref(pkt.get());
      throw_if_out_of_memory(sent);
      EMBER_CHECK(sent >= 0 || sent == AVERROR(EAGAIN), in.op, ": '", in.label,
                  "': decoding failed: ", why(sent));
      receive();
    } else {
      av_packet_unref(pkt.get());
    }
  }
  if (!done) {
    avcodec_send_packet(dec, nullptr);  // flush the decoder's delayed frames
    receive();
  }
  if (reached_end && !done && declared > 0 && position < declared &&
      exact_length(in.stream->codecpar->codec_id)) {
    EMBER_FAIL(in.op, ": '", in.label, "' is truncated: its header declares ", declared,
               " frames, the data holds ", position);
  }
  return detail::from_interleaved<Out>(out.data(), static_cast<int64_t>(out.size()) / channels,
                                       channels, dtype, channels_first);
}

Waveform load_input(Input& in, int64_t frame_offset, int64_t num_frames, bool normalize,
                    bool channels_first) {
  const AVCodecParameters* par = in.stream->codecpar;
  const AVCodec* codec = avcodec_find_decoder(par->codec_id);
  EMBER_CHECK(codec, in.op, ": '", in.label, "': FFmpeg has no decoder for ",
              avcodec_get_name(par->codec_id));
  CodecContext dec(allocated(avcodec_alloc_context3(codec)));
  int rc = avcodec_parameters_to_context(dec.get(), par);
  throw_if_out_of_memory(rc);
  EMBER_CHECK(rc >= 0, in.op, ": '", in.label, "': ", av_error(rc));
  dec->pkt_timebase = in.stream->time_base;
  if (trims_gaplessly(par->codec_id)) dec->flags2 |= AV_CODEC_FLAG2_SKIP_MANUAL;  // Note [MP3 length]
  rc = avcodec_open2(dec.get(), codec, nullptr);
  throw_if_out_of_memory(rc);
  EMBER_CHECK(rc >= 0, in.op, ": '", in.label, "': cannot open the ", codec->name, " decoder: ",
              av_error(rc));
  EMBER_CHECK(dec->ch_layout.nb_channels > 0 && dec->sample_rate > 0, in.op, ": '", in.label,
              "': invalid audio stream");

  // normalize = false keeps integer PCM (WAV-style) samples, as the sox backend.
  DType dtype = kFloat32;
  if (!normalize && is_integer_pcm(par->codec_id)) {
    switch (av_get_packed_sample_fmt(dec->sample_fmt)) {
      case AV_SAMPLE_FMT_U8: dtype = kUInt8; break;
      case AV_SAMPLE_FMT_S16: dtype = kInt16; break;
      case AV_SAMPLE_FMT_S32: dtype = kInt32; break;
      default: break;
    }
  }
  const bool cf = channels_first;
  Tensor t;
  if (dtype == kUInt8) t = decode<uint8_t>(in, dec.get(), dtype, frame_offset, num_frames, cf);
  else if (dtype == kInt16) t = decode<int16_t>(in, dec.get(), dtype, frame_offset, num_frames, cf);
  else if (dtype == kInt32) t = decode<int32_t>(in, dec.get(), dtype, frame_offset, num_frames, cf);
  else t = decode<float>(in, dec.get(), dtype, frame_offset, num_frames, cf);
  return {t, dec->sample_rate};
}

}  // namespace

Waveform load(const std::string& path, int64_t frame_offset, int64_t num_frames, bool normalize,
              bool channels_first, const std::string& format) {
  const char* op = "audio::load";
  detail::check_frame_range(op, frame_offset, num_frames);
  Input in(op, path);
  in.open(path, nullptr, 0, format);
  in.check_complete(path, nullptr, 0);
  return load_input(in, frame_offset, num_frames, normalize, channels_first);
}

Waveform load_bytes(const Tensor& data, bool normalize, bool channels_first, const std::string& format) {
  const char* op = "audio::ffmpeg::load_bytes";
  const Tensor bytes = detail::check_bytes(op, data);
  Input in(op, "<memory>");
  in.open("", bytes.data_ptr<uint8_t>(), bytes.numel(), format);
  in.check_complete("", bytes.data_ptr<uint8_t>(), bytes.numel());
  return load_input(in, 0, -1, normalize, channels_first);
}

AudioMetaData info(const std::string& path, const std::string& format) {
  Input in("audio::info", path);
  in.open(path, nullptr, 0, format);
  const AVCodecParameters* par = in.stream->codecpar;
  AudioMetaData m;
  m.sample_rate = par->sample_rate;
  m.num_channels = par->ch_layout.nb_channels;
  // An MP3's container length includes the encoder delay and padding that
  // load() drops (or is a bit-rate estimate): count what load() returns
  // (Note [MP3 length] in mp3_length.cpp).
  m.num_frames = std::strcmp(in.format->iformat->name, "mp3") == 0 && trims_gaplessly(par->codec_id)
                     ? decoded_length(in.format.get(), in.stream_index)
                     : declared_frames(in.format.get(), in.stream);
  m.bits_per_sample = bits_of(par);
  m.encoding = encoding_of(par->codec_id);
  return m;
}

}  // namespace ember::audio::ffmpeg
