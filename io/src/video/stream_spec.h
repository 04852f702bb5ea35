#pragma once
// Stream strings as torchvision's VideoReader takes them: "video", "audio",
// "video:1" (the second video stream).
#include <cstdint>
#include <string>

extern "C" {
#include <libavutil/avutil.h>
}

namespace ember::io::detail {

struct StreamSpec {
  std::string type;    // "video" or "audio"
  AVMediaType media = AVMEDIA_TYPE_UNKNOWN;
  int64_t index = -1;  // among streams of the type; -1: the first
};

// Raises ember::Error for a malformed string or a type Ember does not decode
// (torchvision's "subtitle" and "cc" included).
StreamSpec parse_stream_spec(const std::string& s);

}  // namespace ember::io::detail
