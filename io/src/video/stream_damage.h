#pragma once
// How the video functions report a stream that ends at damaged data instead
// of at its end (Note [Truncated and damaged media] in stream_damage.cpp).
#include <cstdint>
#include <optional>
#include <string>

#include "media_input.h"

namespace ember::io::detail {

// Why a stream ended early, as StreamDecoder (or a packet loop) found it.
struct StreamDamage {
  std::string reason;               // "a packet is cut short at byte 48064", ...
  std::optional<double> last_pts;   // seconds: the last frame that decoded, if any
};

// " at byte N", or "" when FFmpeg does not know the position (N < 0).
std::string at_byte(int64_t pos);

// Reports that the `stream_type` stream ("video", "audio") of `input` ends at
// damage: with strict, raises an ember::Error naming the op, the file, the
// reason and the last good pts; otherwise warns (ember::warn) with the same
// facts and `outcome` ("returning the 21 frames that decoded").
void report_damage(const char* op, const MediaInput& input, const char* stream_type,
                   const StreamDamage& damage, bool strict, const std::string& outcome);

}  // namespace ember::io::detail
