// libsox setup and message capture (Note [SoX messages] in sox_raii.h).
#include "audio/sox/sox_raii.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>

#include <ember/core/error.h>

namespace ember::audio::sox_detail {
namespace {

thread_local std::string t_message;
thread_local unsigned t_level = 0;  // level of t_message; 0 = none

void keep_message(unsigned level, const char* /*source_file*/, const char* fmt, va_list ap) {
  if (level > 2) return;  // 1 = failure, 2 = warning; reports and debug output are dropped
  char buf[1024];
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  // Keep the first failure (later ones are usually its consequences), else the
  // first warning.
  if (t_level == 0 || (level == 1 && t_level != 1)) {
    t_message = buf;
    // Effect usage texts run over many lines: the first says enough.
    if (const size_t nl = t_message.find('\n'); nl != std::string::npos) t_message.resize(nl);
    t_level = level;
  }
}

}  // namespace

void ensure_sox() {
  static std::once_flag once;
  static int status = SOX_SUCCESS;
  std::call_once(once, [] {
    sox_globals_t* g = sox_get_globals();
    g->output_message_handler = keep_message;
    g->verbosity = 2;
    status = sox_init();
  });
  EMBER_CHECK(status == SOX_SUCCESS, "audio: sox_init failed (", sox_strerror(status), ")");
}

std::unique_lock<std::recursive_mutex> sox_lock() {
  static std::recursive_mutex mutex;
  return std::unique_lock<std::recursive_mutex>(mutex);
}

const std::string& last_message() { return t_message; }
void clear_messages() {
  t_message.clear();
  t_level = 0;
}

std::string encoding_name(sox_encoding_t encoding) {
  switch (encoding) {
    case SOX_ENCODING_UNKNOWN: return "UNKNOWN";
    case SOX_ENCODING_SIGN2: return "PCM_S";
    case SOX_ENCODING_UNSIGNED: return "PCM_U";
    case SOX_ENCODING_FLOAT: return "PCM_F";
    case SOX_ENCODING_FLAC: return "FLAC";
    case SOX_ENCODING_ULAW: return "ULAW";
    case SOX_ENCODING_ALAW: return "ALAW";
    case SOX_ENCODING_MP3: return "MP3";
    case SOX_ENCODING_VORBIS: return "VORBIS";
    case SOX_ENCODING_AMR_WB: return "AMR_WB";
    case SOX_ENCODING_AMR_NB: return "AMR_NB";
    case SOX_ENCODING_OPUS: return "OPUS";
    case SOX_ENCODING_GSM: return "GSM";
    default: return "UNKNOWN";
  }
}

}  // namespace ember::audio::sox_detail
