#pragma once
// RAII owners for FFmpeg's C objects, and FFmpeg error codes as text.
// Every FFmpeg allocation in Ember::io is held by one of these from the line that
// makes it, so an ember::Error thrown anywhere in between leaks nothing.
#include <memory>
#include <new>
#include <string>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
}

namespace ember::io::detail {

struct InputFormatCloser {
  void operator()(AVFormatContext* c) const { avformat_close_input(&c); }
};
// An output context: its file (pb) is closed by the writer, which must flush
// the trailer first; this only frees the context.
struct OutputFormatFreer {
  void operator()(AVFormatContext* c) const { avformat_free_context(c); }
};
struct CodecContextFreer {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct FrameFreer {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct PacketFreer {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct SwsFreer {
  void operator()(SwsContext* c) const { sws_freeContext(c); }
};
struct SwrFreer {
  void operator()(SwrContext* c) const { swr_free(&c); }
};
// A custom AVIOContext and its buffer (which FFmpeg may have reallocated).
struct AvioFreer {
  void operator()(AVIOContext* c) const {
    if (c != nullptr) av_freep(&c->buffer);
    avio_context_free(&c);
  }
};

using InputFormatPtr = std::unique_ptr<AVFormatContext, InputFormatCloser>;
using OutputFormatPtr = std::unique_ptr<AVFormatContext, OutputFormatFreer>;
using CodecContextPtr = std::unique_ptr<AVCodecContext, CodecContextFreer>;
using FramePtr = std::unique_ptr<AVFrame, FrameFreer>;
using PacketPtr = std::unique_ptr<AVPacket, PacketFreer>;
using SwsPtr = std::unique_ptr<SwsContext, SwsFreer>;
using SwrPtr = std::unique_ptr<SwrContext, SwrFreer>;
using AvioPtr = std::unique_ptr<AVIOContext, AvioFreer>;

// Note [FFmpeg out of memory]: FFmpeg reports a failed allocation as a null
// pointer or as AVERROR(ENOMEM), and a decoder whose allocation failed inside
// may go on to report "Invalid data found" at its next call. Both reports
// become std::bad_alloc at once, which the entry points'
// with_out_of_memory_context (Note [Out of memory at the entry points]) turns
// into "<op>: '<file>': out of memory ... while <activity>" instead of an
// error that names no file, or a file wrongly called damaged.
// (Test: tests/io/test_ffmpeg_out_of_memory.cpp, through av_max_alloc.)
void throw_if_out_of_memory(int code);
// p, unless FFmpeg's allocation returned null (std::bad_alloc).
template <class T>
T* allocated(T* p) {
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

// Allocating constructors that raise on out-of-memory.
FramePtr make_frame();
PacketPtr make_packet();

// FFmpeg's description of an AVERROR code ("Invalid data found when processing input").
std::string av_error_text(int code);

// Quiets FFmpeg's own logging to AV_LOG_FATAL once per process, unless the
// application already chose a level: failures reach the caller as ember::Error
// with the reason, so FFmpeg's stderr lines would only duplicate them.
void quiet_ffmpeg_logging();

}  // namespace ember::io::detail
