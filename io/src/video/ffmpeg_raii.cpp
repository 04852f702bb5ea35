#include "ffmpeg_raii.h"

#include <mutex>

#include <ember/core/error.h>

namespace ember::io::detail {

FramePtr make_frame() { return FramePtr(allocated(av_frame_alloc())); }

PacketPtr make_packet() { return PacketPtr(allocated(av_packet_alloc())); }

void throw_if_out_of_memory(int code) {
  if (code == AVERROR(ENOMEM)) throw std::bad_alloc();
}

std::string av_error_text(int code) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {};
  if (av_strerror(code, buf, sizeof(buf)) < 0) return "FFmpeg error " + std::to_string(code);
  return buf;
}

void quiet_ffmpeg_logging() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (av_log_get_level() == AV_LOG_INFO) av_log_set_level(AV_LOG_FATAL);  // INFO: the default
  });
}

}  // namespace ember::io::detail
