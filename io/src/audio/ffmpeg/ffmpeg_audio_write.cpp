// The "ffmpeg" audio backend, writing: save through libavformat and
// libavcodec, with the sox backend's encodings and errors (docs/io.md,
// "Audio"). Reading is in ffmpeg_audio_read.cpp.
#include <algorithm>
#include <cstring>
#include <optional>

#include <ember/core/error.h>
#include <ember/io/audio.h>
#include <ember/ops/factories.h>

#include "audio/audio_common.h"
#include "audio/ffmpeg/ffmpeg_messages.h"
#include "audio/ffmpeg/ffmpeg_raii.h"
#include "audio/ffmpeg/mp3_length.h"

extern "C" {
#include <libavutil/channel_layout.h>
#include <libavutil/intreadwrite.h>
#include <libavutil/samplefmt.h>
}

namespace ember::audio::ffmpeg {
namespace {

using namespace ffmpeg_detail;

// ---- output -----------------------------------------------------------------

struct Target {
  AVCodecID codec = AV_CODEC_ID_NONE;
  const char* encoder_name = nullptr;   // preferred encoder, if any
  AVSampleFormat sample_fmt = AV_SAMPLE_FMT_NONE;  // NONE: the encoder's first
  int bits_per_raw_sample = 0;
};

Target choose_target(const std::string& format, DType dtype, const std::string& encoding, int64_t bits) {
  const char* op = "audio::save";
  EMBER_CHECK(bits == 0 || bits == 8 || bits == 16 || bits == 24 || bits == 32 || bits == 64, op,
              ": bits_per_sample must be 8, 16, 24, 32 or 64 (0 = default), got ", bits);
  EMBER_CHECK(encoding.empty() || encoding == "PCM_S" || encoding == "PCM_U" ||
                  encoding == "PCM_F" || encoding == "ULAW" || encoding == "ALAW",
              op, ": encoding must be PCM_S, PCM_U, PCM_F, ULAW or ALAW (\"\" = default), got \"",
              encoding, "\"");
  if (format == "wav") {
    std::string enc = encoding;
    int64_t b = bits;
    if (enc.empty()) {
      if (b == 0) {
        enc = dtype == kFloat32 ? "PCM_F" : dtype == kUInt8 ? "PCM_U" : "PCM_S";
        b = dtype == kInt16 ? 16 : dtype == kUInt8 ? 8 : 32;
      } else {
        enc = b == 8 ? "PCM_U" : "PCM_S";
      }
    }
    if (enc == "PCM_S") {
      EMBER_CHECK(b != 8 && b != 64, op, ": wav does not support ", b, "-bit signed PCM encoding");
      if (b == 16) return {AV_CODEC_ID_PCM_S16LE};
      if (b == 24) return {AV_CODEC_ID_PCM_S24LE, nullptr, AV_SAMPLE_FMT_S32, 24};
      return {AV_CODEC_ID_PCM_S32LE};
    }
    if (enc == "PCM_U") {
      EMBER_CHECK(b == 0 || b == 8, op, ": wav only supports 8-bit for unsigned PCM encoding");
      return {AV_CODEC_ID_PCM_U8};
    }
    if (enc == "PCM_F") {
      EMBER_CHECK(b == 0 || b == 32 || b == 64, op,
                  ": wav only supports 32-bit or 64-bit for floating-point PCM encoding");
      return {b == 64 ? AV_CODEC_ID_PCM_F64LE : AV_CODEC_ID_PCM_F32LE};
    }
    EMBER_CHECK(b == 0 || b == 8, op, ": wav only supports 8-bit for ", enc == "ULAW" ? "mu-law" : "a-law",
                " encoding");
    return {enc == "ULAW" ? AV_CODEC_ID_PCM_MULAW : AV_CODEC_ID_PCM_ALAW};
  }
  if (format == "flac") {
    EMBER_CHECK(encoding.empty(), op, ": flac does not support the encoding option");
    EMBER_CHECK(bits == 0 || bits == 16 || bits == 24, op,
                ": the ffmpeg backend writes 16- or 24-bit FLAC, got bits_per_sample ", bits);
    if (bits == 16) return {AV_CODEC_ID_FLAC, nullptr, AV_SAMPLE_FMT_S16, 16};
    return {AV_CODEC_ID_FLAC, nullptr, AV_SAMPLE_FMT_S32, 24};  // as sox: 24-bit by default
  }
  EMBER_CHECK(encoding.empty(), op, ": ", format, " does not support the encoding option");
  EMBER_CHECK(bits == 0, op, ": ", format, " does not support the bits_per_sample option");
  if (format == "mp3") return {AV_CODEC_ID_MP3, "libmp3lame"};
  if (format == "ogg" || format == "vorbis" || format == "oga") return {AV_CODEC_ID_VORBIS, "libvorbis"};
  if (format == "opus") return {AV_CODEC_ID_OPUS, "libopus"};
  return {};  // the container's default audio codec
}

// Samples of the tensor in the encoder's format, written into an AVFrame.
struct SampleSource {
  Tensor fc;                     // [frames, channels] contiguous
  std::vector<int32_t> as_int32; // torchaudio's int32 scale (integer targets)
  int channels;

  double as_double(int64_t i) const {
    if (fc.dtype() == kFloat32) return fc.data_ptr<float>()[i];
    return static_cast<double>(as_int32[static_cast<size_t>(i)]) / 2147483648.0;
  }
  // int32 rounded to `bits` (libsox's rounding, with clipping), left-aligned.
  int32_t rounded(int64_t i, int bits) const {
    const int64_t v = as_int32[static_cast<size_t>(i)];
    if (bits >= 32) return static_cast<int32_t>(v);
    const int shift = 32 - bits;
    const int64_t max = (int64_t{1} << (bits - 1)) - 1;
    const int64_t r = std::min((v + (int64_t{1} << (shift - 1))) >> shift, max);
    return static_cast<int32_t>(r);
  }

  void fill(AVFrame* f, int64_t first_frame, int bits_per_raw) const {
    const auto fmt = static_cast<AVSampleFormat>(f->format);
    const bool planar = av_sample_fmt_is_planar(fmt);
    const AVSampleFormat packed = av_get_packed_sample_fmt(fmt);
    for (int c = 0; c < channels; ++c) {
      for (int i = 0; i < f->nb_samples; ++i) {
        const int64_t src = (first_frame + i) * channels + c;
        const int64_t dst = planar ? i : static_cast<int64_t>(i) * channels + c;
        uint8_t* base = f->extended_data[planar ? c : 0];
        switch (packed) {
          case AV_SAMPLE_FMT_U8:
            base[dst] = static_cast<uint8_t>(rounded(src, 8) + 128);
            break;
          case AV_SAMPLE_FMT_S16:
            reinterpret_cast<int16_t*>(base)[dst] = static_cast<int16_t>(rounded(src, 16));
            break;
          case AV_SAMPLE_FMT_S32:
            reinterpret_cast<int32_t*>(base)[dst] =
                bits_per_raw > 0 && bits_per_raw < 32
                    ? static_cast<int32_t>(static_cast<uint32_t>(rounded(src, bits_per_raw)) << (32 - bits_per_raw))
                    : rounded(src, 32);
            break;
          case AV_SAMPLE_FMT_FLT:
            reinterpret_cast<float*>(base)[dst] = static_cast<float>(as_double(src));
            break;
          case AV_SAMPLE_FMT_DBL:
            reinterpret_cast<double*>(base)[dst] = as_double(src);
            break;
          default:
            EMBER_FAIL("audio::save: unsupported encoder sample format ", av_get_sample_fmt_name(fmt));
        }
      }
    }
  }
};

}  // namespace

void save(const std::string& path, const Tensor& src, int64_t sample_rate, bool channels_first,
          const std::string& format, const std::string& encoding, int64_t bits_per_sample,
          std::optional<double> compression) {
  const char* op = "audio::save";
  ensure_ffmpeg();
  SampleSource source{detail::frames_major(op, src, sample_rate, channels_first), {}, 0};
  source.channels = static_cast<int>(source.fc.size(1));
  const std::string fmt = detail::save_format(path, format);
  Target target = choose_target(fmt, source.fc.dtype(), encoding, bits_per_sample);

  const char* muxer = fmt == "vorbis" || fmt == "oga" ? "ogg" : fmt.c_str();
  AVFormatContext* raw = nullptr;
  int rc = avformat_alloc_output_context2(&raw, nullptr, muxer, path.c_str());
  EMBER_CHECK(rc >= 0 && raw, op, ": FFmpeg cannot write format \"", fmt, "\" ('", path, "'): ",
              av_error(rc));
  OutputContext out(raw);
  if (target.codec == AV_CODEC_ID_NONE) target.codec = out->oformat->audio_codec;
  EMBER_CHECK(target.codec != AV_CODEC_ID_NONE, op, ": format \"", fmt, "\" has no audio codec");
  const AVCodec* codec = target.encoder_name ? avcodec_find_encoder_by_name(target.encoder_name) : nullptr;
  if (!codec) codec = avcodec_find_encoder(target.codec);
  EMBER_CHECK(codec, op, ": this FFmpeg has no ", avcodec_get_name(target.codec), " encoder");

  CodecContext enc(avcodec_alloc_context3(codec));
  EMBER_CHECK(enc, op, ": out of memory");
  enc->sample_rate = static_cast<int>(sample_rate);
  av_channel_layout_default(&enc->ch_layout, source.channels);
  enc->time_base = AVRational{1, static_cast<int>(sample_rate)};
  enc->sample_fmt = target.sample_fmt != AV_SAMPLE_FMT_NONE ? target.sample_fmt
                    : codec->sample_fmts                    ? codec->sample_fmts[0]
                                                            : AV_SAMPLE_FMT_S16;
  if (codec->sample_fmts && target.sample_fmt == AV_SAMPLE_FMT_NONE) {
    // Prefer a float format when the encoder takes one (keeps float input exact).
    for (const AVSampleFormat* f = codec->sample_fmts; *f != AV_SAMPLE_FMT_NONE; ++f) {
      if (av_get_packed_sample_fmt(*f) == AV_SAMPLE_FMT_FLT) enc->sample_fmt = *f;
    }
  }
  if (target.bits_per_raw_sample) enc->bits_per_raw_sample = target.bits_per_raw_sample;
  if (compression) {
    if (target.codec == AV_CODEC_ID_FLAC) {
      enc->compression_level = static_cast<int>(*compression);
    } else if (target.codec == AV_CODEC_ID_VORBIS) {
      enc->flags |= AV_CODEC_FLAG_QSCALE;
      enc->global_quality = static_cast<int>(*compression * FF_QP2LAMBDA);
    } else {
      enc->bit_rate = static_cast<int64_t>(*compression * 1000);  // kbps, as sox's MP3 option
    }
  }
  if (out->oformat->flags & AVFMT_GLOBALHEADER) enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  rc = avcodec_open2(enc.get(), codec, nullptr);
  EMBER_CHECK(rc >= 0, op, ": cannot open the ", codec->name, " encoder (", sample_rate, " Hz, ",
              source.channels, " channels): ", av_error(rc));
  const AVSampleFormat packed = av_get_packed_sample_fmt(enc->sample_fmt);
  if (packed != AV_SAMPLE_FMT_FLT && packed != AV_SAMPLE_FMT_DBL) {
    source.as_int32 = detail::to_int32_samples(source.fc);
  } else if (source.fc.dtype() != kFloat32) {
    source.as_int32 = detail::to_int32_samples(source.fc);
  }

  AVStream* st = avformat_new_stream(out.get(), nullptr);
  EMBER_CHECK(st, op, ": out of memory");
  rc = avcodec_parameters_from_context(st->codecpar, enc.get());
  EMBER_CHECK(rc >= 0, op, ": ", av_error(rc));
  st->time_base = enc->time_base;
  if (!(out->oformat->flags & AVFMT_NOFILE)) {
    rc = avio_open(&out->pb, path.c_str(), AVIO_FLAG_WRITE);
    EMBER_CHECK(rc >= 0, op, ": cannot open '", path, "' for writing: ", av_error(rc));
  }
  AVDictionary* opts = nullptr;
  rc = avformat_write_header(out.get(), &opts);
  av_dict_free(&opts);
  EMBER_CHECK(rc >= 0, op, ": cannot write the header of '", path, "': ", av_error(rc));

  Packet pkt(av_packet_alloc());
  Frame frame(av_frame_alloc());
  EMBER_CHECK(pkt && frame, op, ": out of memory");
  // Note [MP3 end padding]: FFmpeg 5.1's mp3 muxer writes the LAME header's
  // end padding from the discard of the last packet alone. When libmp3lame's
  // last frame holds no signal (the padding spans two frames; at 44.1 kHz for
  // lengths with N mod 1152 < 47), the discard of the frame before it is lost
  // and the header says that many samples too little, so a gapless decoder
  // returns them as padding. Giving each of the trailing discarding packets
  // the running total makes the last one carry all of it: then load()
  // returns exactly the frames saved (Mp3Length.SavedLengthsRoundTripExactly).
  const bool mp3_header = std::strcmp(out->oformat->name, "mp3") == 0;
  uint32_t trailing_discard = 0;
  auto drain = [&]() {
    for (;;) {
      const int r = avcodec_receive_packet(enc.get(), pkt.get());
      if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return;
      EMBER_CHECK(r >= 0, op, ": encoding '", path, "' failed: ", av_error(r));
      if (mp3_header) {
        size_t size = 0;
        uint8_t* side = av_packet_get_side_data(pkt.get(), AV_PKT_DATA_SKIP_SAMPLES, &size);
        if (side != nullptr && size >= 10 && AV_RL32(side + 4) > 0) {
          trailing_discard += AV_RL32(side + 4);
          AV_WL32(side + 4, trailing_discard);
        } else {
          trailing_discard = 0;
        }
      }
      av_packet_rescale_ts(pkt.get(), enc->time_base, st->time_base);
      pkt->stream_index = st->index;
      const int w = av_interleaved_write_frame(out.get(), pkt.get());
      EMBER_CHECK(w >= 0, op, ": writing '", path, "' failed: ", av_error(w));
    }
  };
  const int64_t frames = source.fc.size(0);
  const bool variable = codec->capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE;
  const int64_t chunk = enc->frame_size > 0 && !variable ? enc->frame_size : 4096;
  for (int64_t at = 0; at < frames; at += chunk) {
    const int n = static_cast<int>(std::min(chunk, frames - at));
    frame->nb_samples = n;
    frame->format = enc->sample_fmt;
    frame->sample_rate = enc->sample_rate;
    av_channel_layout_copy(&frame->ch_layout, &enc->ch_layout);
    rc = av_frame_get_buffer(frame.get(), 0);
    EMBER_CHECK(rc >= 0, op, ": out of memory");
    source.fill(frame.get(), at, target.bits_per_raw_sample);
    frame->pts = at;
    rc = avcodec_send_frame(enc.get(), frame.get());
    av_frame_unref(frame.get());
    EMBER_CHECK(rc >= 0, op, ": encoding '", path, "' failed: ", av_error(rc));
    drain();
  }
  avcodec_send_frame(enc.get(), nullptr);
  drain();
  rc = av_write_trailer(out.get());
  EMBER_CHECK(rc >= 0, op, ": cannot finish '", path, "': ", av_error(rc));
  if (out->pb && !(out->oformat->flags & AVFMT_NOFILE)) {
    rc = avio_closep(&out->pb);
    EMBER_CHECK(rc >= 0, op, ": cannot finish writing '", path, "': ", av_error(rc));
  }
}

}  // namespace ember::audio::ffmpeg
