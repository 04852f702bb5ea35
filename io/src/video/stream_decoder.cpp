#include "stream_decoder.h"

#include <algorithm>

#include <ember/core/error.h>

namespace ember::io::detail {
namespace {

const char* type_name(AVMediaType t) {
  const char* s = av_get_media_type_string(t);
  return s != nullptr ? s : "unknown";
}

}  // namespace

StreamDecoder::StreamDecoder(MediaInput& input, int stream_index, int64_t num_threads,
                             bool torchvision_timing)
    : input_(input), torchvision_timing_(torchvision_timing), packet_(make_packet()), frame_(make_frame()) {
  AVFormatContext* fmt = input.format();
  EMBER_CHECK(stream_index >= 0 && stream_index < static_cast<int>(fmt->nb_streams),
              "video: no stream ", stream_index, " in ", input.name());
  stream_ = fmt->streams[stream_index];
  for (unsigned i = 0; i < fmt->nb_streams; ++i) {
    fmt->streams[i]->discard = static_cast<int>(i) == stream_index ? AVDISCARD_DEFAULT : AVDISCARD_ALL;
  }
  num_threads_ = num_threads;
  open_codec();
}

void StreamDecoder::open_codec() {
  const AVCodec* decoder = avcodec_find_decoder(stream_->codecpar->codec_id);
  EMBER_CHECK(decoder != nullptr, "video: no decoder for the ", type_name(stream_->codecpar->codec_type),
              " codec '", avcodec_get_name(stream_->codecpar->codec_id), "' of ", input_.name());
  codec_.reset(allocated(avcodec_alloc_context3(decoder)));
  int r = avcodec_parameters_to_context(codec_.get(), stream_->codecpar);
  throw_if_out_of_memory(r);
  EMBER_CHECK(r >= 0, "video: bad codec parameters in ", input_.name(), ": ", av_error_text(r));
  if (!torchvision_timing_) codec_->pkt_timebase = stream_->time_base;
  codec_->thread_count = static_cast<int>(num_threads_);
  r = avcodec_open2(codec_.get(), decoder, nullptr);
  throw_if_out_of_memory(r);
  EMBER_CHECK(r >= 0, "video: cannot open the ", decoder->name, " decoder for ", input_.name(),
              ": ", av_error_text(r));
  flushed_ = false;
  last_pts_ = AV_NOPTS_VALUE;
  damage_.reset();
  last_decoded_s_.reset();
  failed_ = false;
}

void StreamDecoder::flush() {
  const int s = avcodec_send_packet(codec_.get(), nullptr);
  throw_if_out_of_memory(s);
  if (s < 0 && s != AVERROR_EOF) {
    check_memory_after_failure();
    // After damage the stream ends there whatever the decoder says now.
    EMBER_CHECK(damage_.has_value(), "video: decoding ", input_.name(), " failed at its end: ", av_error_text(s));
    failed_ = true;
  }
  flushed_ = true;
}

void StreamDecoder::check_memory_after_failure() const {
  // One decoded frame's worth (4 bytes per pixel covers every planar format
  // FFmpeg's decoders allocate for), at least 1 MiB.
  const size_t frame = static_cast<size_t>(std::max(codec_->width, 1)) * static_cast<size_t>(std::max(codec_->height, 1)) * 4;
  void* probe = av_malloc(std::max<size_t>(frame, size_t{1} << 20));
  if (probe == nullptr) throw std::bad_alloc();
  av_free(probe);
}

void StreamDecoder::end_at_damage(std::string reason) {
  damage_ = std::move(reason);
  flush();
}

void StreamDecoder::feed() {
  AVFormatContext* fmt = input_.format();
  while (true) {
    const int r = av_read_frame(fmt, packet_.get());
    if (r == AVERROR_EOF) {
      // The end of the data; of the file's too, unless its container says
      // there should be more.
      if (auto cut = input_.truncation()) {
        end_at_damage("the data ends early: " + *cut);
      } else {
        flush();
      }
      return;
    }
    if (r < 0) {
      throw_if_out_of_memory(r);
      end_at_damage("reading failed: " + av_error_text(r));
      return;
    }
    if (packet_->stream_index != stream_->index) {
      av_packet_unref(packet_.get());
      continue;
    }
    const int64_t pos = packet_->pos;
    if (packet_->flags & AV_PKT_FLAG_CORRUPT) {
      // Read short (the file ends inside it) or marked broken by the demuxer.
      av_packet_unref(packet_.get());
      std::string reason = "a packet" + at_byte(pos) + " is cut short or corrupt";
      if (auto cut = input_.truncation()) reason += "; " + *cut;
      end_at_damage(std::move(reason));
      return;
    }
    const int s = avcodec_send_packet(codec_.get(), packet_.get());
    av_packet_unref(packet_.get());
    if (s < 0) {
      throw_if_out_of_memory(s);
      check_memory_after_failure();
      end_at_damage("the " + std::string(codec_->codec->name) + " decoder rejected the data" + at_byte(pos) +
                    ": " + av_error_text(s));
    }
    return;
  }
}

AVFrame* StreamDecoder::next_frame() {
  if (failed_) return nullptr;
  while (true) {
    const int r = avcodec_receive_frame(codec_.get(), frame_.get());
    if (r >= 0) {
      int64_t ts = frame_->best_effort_timestamp;
      if (ts == AV_NOPTS_VALUE) ts = frame_->pts;
      if (ts != AV_NOPTS_VALUE) last_decoded_s_ = static_cast<double>(ts) * av_q2d(stream_->time_base);
      return frame_.get();
    }
    if (r == AVERROR_EOF) return nullptr;
    if (r != AVERROR(EAGAIN)) {
      // The decoder failed on data it had accepted: what it returned so far
      // stands; the rest of the stream is lost.
      throw_if_out_of_memory(r);
      check_memory_after_failure();
      if (!damage_) damage_ = "decoding failed: " + av_error_text(r);
      failed_ = true;
      return nullptr;
    }
    if (flushed_) return nullptr;  // (a decoder that never reports EOF)
    feed();
  }
}

std::optional<StreamDamage> StreamDecoder::take_damage() {
  if (!damage_) return std::nullopt;
  StreamDamage d{std::move(*damage_), last_decoded_s_};
  damage_.reset();
  return d;
}

int64_t StreamDecoder::frame_pts(const AVFrame* frame) {
  int64_t ts = frame->best_effort_timestamp;
  if (ts == AV_NOPTS_VALUE) ts = frame->pts;
  if (ts == AV_NOPTS_VALUE) ts = frame->pkt_dts;
  if (ts == AV_NOPTS_VALUE) {
    // No timestamp at all: one frame after the previous one.
    int64_t step = frame->pkt_duration;
    if (step <= 0 && stream_->avg_frame_rate.num > 0) {
      step = av_rescale_q(1, av_inv_q(stream_->avg_frame_rate), stream_->time_base);
    }
    ts = last_pts_ == AV_NOPTS_VALUE ? 0 : last_pts_ + std::max<int64_t>(step, 1);
  }
  last_pts_ = ts;
  return ts;
}

int64_t StreamDecoder::frame_pts_us(const AVFrame* frame) {
  return av_rescale_q(frame_pts(frame), stream_->time_base, AV_TIME_BASE_Q);
}

void StreamDecoder::seek_ticks(int64_t ticks) {
  AVFormatContext* fmt = input_.format();
  int r = av_seek_frame(fmt, stream_->index, ticks, AVSEEK_FLAG_BACKWARD);
  if (r < 0) {
    // Some demuxers only seek by bytes; going back to the start is always right
    // (the caller drops frames before its target).
    r = av_seek_frame(fmt, stream_->index, 0, AVSEEK_FLAG_BYTE | AVSEEK_FLAG_BACKWARD);
  }
  EMBER_CHECK(r >= 0, "video: cannot seek in ", input_.name(), ": ", av_error_text(r));
  avcodec_flush_buffers(codec_.get());
  flushed_ = false;
  last_pts_ = AV_NOPTS_VALUE;
  damage_.reset();
  last_decoded_s_.reset();
  failed_ = false;
}

void StreamDecoder::seek_us(int64_t time_us) {
  // As torchvision's decoder: seek the file's default stream (the video, if any)
  // in microseconds, then decode with a fresh decoder. The fresh decoder matters
  // for audio: a flushed AAC decoder and a new one give different first frames.
  AVFormatContext* fmt = input_.format();
  // FFmpeg's own default stream (av_seek_frame with -1) prefers streams that are
  // not discarded, i.e. ours; torchvision discards nothing, so its seeks follow
  // the video's keyframes even when it reads the audio.
  const AVStream* by = stream_;
  for (unsigned i = 0; i < fmt->nb_streams; ++i) {
    const AVStream* s = fmt->streams[i];
    if (s->codecpar->codec_type == AVMEDIA_TYPE_VIDEO && !(s->disposition & AV_DISPOSITION_ATTACHED_PIC)) {
      by = s;
      break;
    }
  }
  int r = av_seek_frame(fmt, by->index, av_rescale_q(time_us, AV_TIME_BASE_Q, by->time_base),
                        AVSEEK_FLAG_BACKWARD);
  if (r < 0) r = av_seek_frame(fmt, stream_->index, 0, AVSEEK_FLAG_BYTE | AVSEEK_FLAG_BACKWARD);
  EMBER_CHECK(r >= 0, "video: cannot seek in ", input_.name(), ": ", av_error_text(r));
  open_codec();
}

}  // namespace ember::io::detail
