// write_video with the encoder setup of torchvision.io.write_video (PyAV 10):
// the codec context gets PyAV's defaults (yuv420p, 1024 kbit/s, time base 1/fps,
// a global header where the container wants one), RGB frames are converted with
// swscale's SWS_BILINEAR as PyAV's reformatter does, frames are numbered 0, 1, ...
// in that time base, and the audio (one AudioFrame in torchvision) is cut into
// the encoder's frame size.
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include <ember/core/error.h>
#include <ember/io/video.h>

#include "ffmpeg_raii.h"

extern "C" {
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
}

namespace ember::io {
namespace {

using detail::av_error_text;

// PyAV's add_stream defaults for a video encoder.
constexpr int64_t kPyAvBitRate = 1024000;
constexpr int kPyAvBitRateTolerance = 128000;

// Owns an AVDictionary (avcodec_open2 replaces the pointer, hence no unique_ptr).
struct DictPtr {
  AVDictionary* d = nullptr;
  ~DictPtr() { av_dict_free(&d); }
};

// An output file being written. Owns every FFmpeg object; if anything throws
// midway the file is closed (and left incomplete) without leaks.
class Writer {
 public:
  explicit Writer(const std::string& path) : path_(path) {
    detail::quiet_ffmpeg_logging();
    AVFormatContext* raw = nullptr;
    const int r = avformat_alloc_output_context2(&raw, nullptr, nullptr, path.c_str());
    EMBER_CHECK(r >= 0 && raw != nullptr, "write_video: cannot choose a container for '", path,
                "' from its extension: ", av_error_text(r));
    fmt_.reset(raw);
    packet_ = detail::make_packet();
  }
  ~Writer() {
    if (fmt_ && fmt_->pb != nullptr && !(fmt_->oformat->flags & AVFMT_NOFILE)) avio_closep(&fmt_->pb);
  }

  struct Encoder {
    AVStream* stream = nullptr;
    detail::CodecContextPtr codec;
  };

  Encoder add_stream(const std::string& codec_name, const std::map<std::string, std::string>& options,
                     const std::function<void(AVCodecContext*)>& setup) {
    const AVCodec* codec = avcodec_find_encoder_by_name(codec_name.c_str());
    EMBER_CHECK(codec != nullptr, "write_video: unknown encoder '", codec_name,
                "' (this FFmpeg has no such encoder)");
    Encoder e;
    e.codec.reset(avcodec_alloc_context3(codec));
    EMBER_CHECK(e.codec, "write_video: out of memory");
    setup(e.codec.get());
    if (fmt_->oformat->flags & AVFMT_GLOBALHEADER) e.codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    DictPtr opts;
    for (const auto& [k, v] : options) av_dict_set(&opts.d, k.c_str(), v.c_str(), 0);
    int r = avcodec_open2(e.codec.get(), codec, &opts.d);
    EMBER_CHECK(r >= 0, "write_video: cannot open the ", codec_name, " encoder for '", path_, "': ",
                av_error_text(r));
    if (opts.d != nullptr) {
      const AVDictionaryEntry* unused = av_dict_get(opts.d, "", nullptr, AV_DICT_IGNORE_SUFFIX);
      EMBER_FAIL("write_video: the ", codec_name, " encoder has no option '", unused->key, "'");
    }
    e.stream = avformat_new_stream(fmt_.get(), nullptr);
    EMBER_CHECK(e.stream != nullptr, "write_video: out of memory");
    e.stream->time_base = e.codec->time_base;
    r = avcodec_parameters_from_context(e.stream->codecpar, e.codec.get());
    EMBER_CHECK(r >= 0, "write_video: ", av_error_text(r));
    return e;
  }

  void open() {
    if (!(fmt_->oformat->flags & AVFMT_NOFILE)) {
      const int r = avio_open(&fmt_->pb, path_.c_str(), AVIO_FLAG_WRITE);
      EMBER_CHECK(r >= 0, "write_video: cannot open '", path_, "' for writing: ", av_error_text(r));
    }
    const int r = avformat_write_header(fmt_.get(), nullptr);
    EMBER_CHECK(r >= 0, "write_video: cannot write the header of '", path_, "': ", av_error_text(r));
  }

  // Sends `frame` (nullptr: flush) to the encoder and muxes what comes out.
  void encode(Encoder& e, const AVFrame* frame) {
    int r = avcodec_send_frame(e.codec.get(), frame);
    EMBER_CHECK(r >= 0, "write_video: encoding '", path_, "' failed: ", av_error_text(r));
    while (true) {
      r = avcodec_receive_packet(e.codec.get(), packet_.get());
      if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return;
      EMBER_CHECK(r >= 0, "write_video: encoding '", path_, "' failed: ", av_error_text(r));
      av_packet_rescale_ts(packet_.get(), e.codec->time_base, e.stream->time_base);
      packet_->stream_index = e.stream->index;
      r = av_interleaved_write_frame(fmt_.get(), packet_.get());
      EMBER_CHECK(r >= 0, "write_video: writing '", path_, "' failed: ", av_error_text(r));
    }
  }

  void finish() {
    const int r = av_write_trailer(fmt_.get());
    EMBER_CHECK(r >= 0, "write_video: cannot finish '", path_, "': ", av_error_text(r));
  }

 private:
  std::string path_;
  detail::OutputFormatPtr fmt_;
  detail::PacketPtr packet_;
};

void write_frames(Writer& w, Writer::Encoder& e, const Tensor& frames) {
  const int64_t t = frames.size(0), h = frames.size(1), wd = frames.size(2);
  AVCodecContext* c = e.codec.get();
  detail::SwsPtr sws(sws_getContext(static_cast<int>(wd), static_cast<int>(h), AV_PIX_FMT_RGB24, c->width,
                                    c->height, c->pix_fmt, SWS_BILINEAR, nullptr, nullptr, nullptr));
  EMBER_CHECK(sws, "write_video: cannot convert RGB to ", av_get_pix_fmt_name(c->pix_fmt));
  detail::FramePtr frame = detail::make_frame();
  frame->format = c->pix_fmt;
  frame->width = c->width;
  frame->height = c->height;
  const uint8_t* src = frames.data_ptr<uint8_t>();
  for (int64_t i = 0; i < t; ++i) {
    // A fresh buffer each time: the encoder may still hold the previous one.
    av_frame_unref(frame.get());
    frame->format = c->pix_fmt;
    frame->width = c->width;
    frame->height = c->height;
    int r = av_frame_get_buffer(frame.get(), 0);
    EMBER_CHECK(r >= 0, "write_video: out of memory");
    const uint8_t* planes[1] = {src + i * h * wd * 3};
    const int strides[1] = {static_cast<int>(wd * 3)};
    sws_scale(sws.get(), planes, strides, 0, static_cast<int>(h), frame->data, frame->linesize);
    frame->pts = i;
    frame->pict_type = AV_PICTURE_TYPE_NONE;
    w.encode(e, frame.get());
  }
  w.encode(e, nullptr);
}

void write_audio(Writer& w, Writer::Encoder& e, const Tensor& samples) {
  AVCodecContext* c = e.codec.get();
  const auto channels = static_cast<int>(samples.size(0));
  const int64_t n = samples.size(1);
  // Float planar in, the encoder's format out; same rate and layout.
  SwrContext* raw = nullptr;
  int r = swr_alloc_set_opts2(&raw, &c->ch_layout, c->sample_fmt, c->sample_rate, &c->ch_layout,
                              AV_SAMPLE_FMT_FLTP, c->sample_rate, 0, nullptr);
  detail::SwrPtr swr(raw);
  EMBER_CHECK(r >= 0 && swr_init(swr.get()) >= 0, "write_video: cannot convert audio to ",
              av_get_sample_fmt_name(c->sample_fmt));
  // Encoders with a fixed frame size (AAC: 1024) get exactly that many samples per
  // frame; the others (PCM, FLAC accepts any) get 1024 too.
  const int chunk = c->frame_size > 0 && !(c->codec->capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE)
                        ? c->frame_size
                        : 1024;
  detail::FramePtr frame = detail::make_frame();
  std::vector<const uint8_t*> in(channels);
  for (int64_t start = 0; start < n; start += chunk) {
    const auto count = static_cast<int>(std::min<int64_t>(chunk, n - start));
    av_frame_unref(frame.get());
    frame->format = c->sample_fmt;
    frame->sample_rate = c->sample_rate;
    r = av_channel_layout_copy(&frame->ch_layout, &c->ch_layout);
    EMBER_CHECK(r >= 0, "write_video: out of memory");
    // A short last frame is allowed only where the encoder says so; else pad with silence.
    const bool pad = count < chunk && !(c->codec->capabilities & AV_CODEC_CAP_SMALL_LAST_FRAME) &&
                     !(c->codec->capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE);
    frame->nb_samples = pad ? chunk : count;
    r = av_frame_get_buffer(frame.get(), 0);
    EMBER_CHECK(r >= 0, "write_video: out of memory");
    if (pad) av_samples_set_silence(frame->extended_data, 0, chunk, channels, c->sample_fmt);
    for (int ch = 0; ch < channels; ++ch) {
      in[ch] = reinterpret_cast<const uint8_t*>(samples.data_ptr<float>() + ch * n + start);
    }
    const int got = swr_convert(swr.get(), frame->extended_data, count, in.data(), count);
    EMBER_CHECK(got == count, "write_video: converting audio failed");
    frame->pts = start;
    w.encode(e, frame.get());
  }
  w.encode(e, nullptr);
}

// fps as a rational: exact for integers, 1001-based for NTSC rates (29.97),
// otherwise the closest with a denominator up to 1001.
AVRational frame_rate(double fps) {
  const double rounded = std::round(fps);
  if (std::abs(fps - rounded) < 1e-9) return {static_cast<int>(rounded), 1};
  return av_d2q(fps, 1001 * 1000);
}

}  // namespace

void write_video(const std::string& path, const Tensor& frames, double fps, const std::string& codec,
                 const std::map<std::string, std::string>& options, const std::optional<AudioTrack>& audio) {
  EMBER_CHECK(frames.defined() && frames.dtype() == kUInt8 && frames.dim() == 4 && frames.size(3) == 3,
              "write_video: expected [T, H, W, 3] uint8 RGB frames, got ",
              frames.defined() ? frames.sizes() : IntArrayRef{});
  EMBER_CHECK(frames.is_cpu(), "write_video: expected CPU frames");
  EMBER_CHECK(frames.size(1) > 0 && frames.size(2) > 0 && frames.size(1) <= 16384 && frames.size(2) <= 16384,
              "write_video: bad frame size ", frames.size(2), "x", frames.size(1));
  EMBER_CHECK(std::isfinite(fps) && fps > 0 && fps <= 1000, "write_video: fps must be in (0, 1000], got ", fps);
  const Tensor video = frames.contiguous();
  Tensor audio_samples;
  if (audio) {
    const Tensor& a = audio->samples;
    EMBER_CHECK(a.defined() && a.dim() == 2 && a.size(0) >= 1 && a.size(0) <= 8 && a.is_cpu(),
                "write_video: expected audio samples as [channels, samples] with 1 to 8 channels");
    EMBER_CHECK(audio->sample_rate > 0 && audio->sample_rate <= 768000,
                "write_video: bad audio sample rate ", audio->sample_rate);
    audio_samples = a.to(kFloat32).contiguous();
  }

  Writer w(path);
  const AVRational rate = frame_rate(fps);
  Writer::Encoder v = w.add_stream(codec, options, [&](AVCodecContext* c) {
    c->width = static_cast<int>(video.size(2));
    c->height = static_cast<int>(video.size(1));
    c->pix_fmt = codec == "libx264rgb" ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_YUV420P;
    c->time_base = av_inv_q(rate);
    c->framerate = rate;
    c->bit_rate = kPyAvBitRate;
    c->bit_rate_tolerance = kPyAvBitRateTolerance;
    // PyAV's threading: automatic thread count, slice threads (option "threads" overrides).
    c->thread_count = 0;
    c->thread_type = FF_THREAD_SLICE;
  });
  std::optional<Writer::Encoder> a;
  if (audio) {
    a = w.add_stream(audio->codec, audio->options, [&](AVCodecContext* c) {
      const AVCodec* enc = c->codec;
      // The first sample format the encoder takes, float planar if it can.
      c->sample_fmt = enc->sample_fmts != nullptr ? enc->sample_fmts[0] : AV_SAMPLE_FMT_FLTP;
      for (const AVSampleFormat* f = enc->sample_fmts; f != nullptr && *f != AV_SAMPLE_FMT_NONE; ++f) {
        if (*f == AV_SAMPLE_FMT_FLTP) c->sample_fmt = *f;
      }
      c->sample_rate = static_cast<int>(audio->sample_rate);
      av_channel_layout_default(&c->ch_layout, static_cast<int>(audio_samples.size(0)));
      c->time_base = AVRational{1, c->sample_rate};
    });
  }
  w.open();
  if (a) write_audio(w, *a, audio_samples);
  write_frames(w, v, video);
  w.finish();
}

}  // namespace ember::io
