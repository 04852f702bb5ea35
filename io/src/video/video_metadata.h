#pragma once
// The metadata of an opened file, as VideoReader::metadata() reports it.
#include <ember/io/video.h>

#include "media_input.h"

namespace ember::io::detail {

VideoMetadata read_metadata(const MediaInput& input);

// A stream's duration in seconds: its own, else the container's, else 0.
double stream_duration(const AVFormatContext* fmt, const AVStream* s);

}  // namespace ember::io::detail
