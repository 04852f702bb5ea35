#include "stream_spec.h"

#include <regex>

#include <ember/core/error.h>

namespace ember::io::detail {

StreamSpec parse_stream_spec(const std::string& s) {
  static const std::regex pattern("([a-zA-Z_]+)(?::([1-9][0-9]*|0))?");
  std::smatch m;
  EMBER_CHECK(std::regex_match(s, m, pattern), "VideoReader: invalid stream string '", s,
              "' (expected \"video\", \"audio\" or e.g. \"video:1\")");
  StreamSpec spec;
  spec.type = m[1].str();
  if (spec.type == "video") {
    spec.media = AVMEDIA_TYPE_VIDEO;
  } else if (spec.type == "audio") {
    spec.media = AVMEDIA_TYPE_AUDIO;
  } else if (spec.type == "subtitle" || spec.type == "cc") {
    EMBER_FAIL("VideoReader: stream type '", spec.type, "' is not supported (only video and audio)");
  } else {
    EMBER_FAIL("VideoReader: unknown stream type '", spec.type, "' in '", s,
               "' (expected video or audio)");
  }
  if (m[2].matched) {
    EMBER_CHECK(m[2].length() <= 9, "VideoReader: stream index too large in '", s, "'");
    spec.index = std::stoll(m[2].str());
  }
  return spec;
}

}  // namespace ember::io::detail
