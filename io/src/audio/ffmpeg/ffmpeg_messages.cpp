// The FFmpeg audio backend's log callback: FFmpeg's messages are kept, not
// printed (ffmpeg_messages.h).
#include "audio/ffmpeg/ffmpeg_messages.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>

#include "audio/ffmpeg/ffmpeg_raii.h"

namespace ember::audio::ffmpeg_detail {

// Note [FFmpeg messages]: libav* print warnings and errors through av_log. The
// backend installs (once, process-wide) a callback that prints nothing and keeps
// the calling thread's first error-level message, which errors then quote.
namespace {

thread_local std::string t_av_message;

void keep_av_message(void*, int level, const char* fmt, va_list ap) {
  if (level > AV_LOG_ERROR || !t_av_message.empty()) return;
  char buf[512];
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  t_av_message = buf;
  while (!t_av_message.empty() && (t_av_message.back() == '\n' || t_av_message.back() == ' ')) {
    t_av_message.pop_back();
  }
}

}  // namespace

void ensure_ffmpeg() {
  static std::once_flag once;
  std::call_once(once, [] { av_log_set_callback(keep_av_message); });
  t_av_message.clear();
}

std::string why(int code) {
  std::string s = av_error(code);
  if (!t_av_message.empty()) s += " (" + t_av_message + ")";
  return s;
}

}  // namespace ember::audio::ffmpeg_detail
