#pragma once
// RAII owners for the FFmpeg objects of the audio backend, and FFmpeg's error text.
#include <memory>
#include <new>
#include <string>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
}

namespace ember::audio::ffmpeg_detail {

// FFmpeg's failed allocations as std::bad_alloc, which audio::load/info's
// with_out_of_memory_context reports with the file (as the video code's Note
// [FFmpeg out of memory]).
inline void throw_if_out_of_memory(int code) {
  if (code == AVERROR(ENOMEM)) throw std::bad_alloc();
}
template <class T>
T* allocated(T* p) {
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

// av_strerror's text for an AVERROR code.
inline std::string av_error(int code) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, buf, sizeof buf);
  return buf;
}

struct InputCloser {
  void operator()(AVFormatContext* c) const { avformat_close_input(&c); }
};
using InputContext = std::unique_ptr<AVFormatContext, InputCloser>;

struct OutputCloser {
  void operator()(AVFormatContext* c) const {
    if (c->pb && !(c->oformat->flags & AVFMT_NOFILE)) avio_closep(&c->pb);
    avformat_free_context(c);
  }
};
using OutputContext = std::unique_ptr<AVFormatContext, OutputCloser>;

struct CodecCloser {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
using CodecContext = std::unique_ptr<AVCodecContext, CodecCloser>;

struct FrameFree {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
using Frame = std::unique_ptr<AVFrame, FrameFree>;

struct PacketFree {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
using Packet = std::unique_ptr<AVPacket, PacketFree>;

// An AVIOContext over bytes in memory (its internal buffer is av_malloc'd).
struct IoFree {
  void operator()(AVIOContext* io) const {
    if (io) av_freep(&io->buffer);
    avio_context_free(&io);
  }
};
using IoContext = std::unique_ptr<AVIOContext, IoFree>;

}  // namespace ember::audio::ffmpeg_detail
