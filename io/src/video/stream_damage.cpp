#include "stream_damage.h"

#include <cstdio>

#include <ember/core/error.h>
#include <ember/core/warning.h>

namespace ember::io::detail {

// Note [Truncated and damaged media]: a file cut short (a download or a
// recording that stopped) shows differently per container: the MP4 demuxer
// returns a last packet flagged AV_PKT_FLAG_CORRUPT (read short) and then read
// errors ("partial file"); AVI the flagged packet and a clean end of file;
// Matroska/WebM drop the incomplete block and end cleanly (logging "File
// ended prematurely"); MPEG-TS hands the decoder a broken last packet, which it
// rejects. Ember treats them alike. A stream ends at its first damaged point:
//   * a packet the demuxer flags as corrupt (it is not decoded: its frame
//     would be partly garbage),
//   * a read error other than the end of the file,
//   * a packet or frame the decoder rejects,
//   * the end of the data in a file shorter than its container declares
//     (MediaInput::truncation(): MP4 boxes, the Matroska Segment, AVI's RIFF
//     chunks), which catches a cut that falls between two packets.
// The frames the decoder already holds are drained first (they decoded from
// intact packets). Then the caller chooses: strict = true raises an
// ember::Error naming the file, the reason and the pts of the last frame
// that decoded; strict = false (the default, as torchvision returns what it
// decoded) returns the frames and reports the same facts through
// ember::warn. Files that cannot be opened at all (an MP4 cut before its
// moov box) raise either way: there is nothing to return.
std::string at_byte(int64_t pos) { return pos >= 0 ? " at byte " + std::to_string(pos) : ""; }

void report_damage(const char* op, const MediaInput& input, const char* stream_type,
                   const StreamDamage& damage, bool strict, const std::string& outcome) {
  std::string last;
  if (damage.last_pts) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.6f", *damage.last_pts);
    last = "the last frame of its " + std::string(stream_type) + " stream that decoded has pts " + buf + " s";
  } else {
    last = "no frame of its " + std::string(stream_type) + " stream decoded";
  }
  const std::string facts = std::string(op) + ": " + input.name() + " is truncated or damaged (" +
                            damage.reason + "); " + last;
  if (strict) EMBER_FAIL(facts, " (strict = true)");
  warn(facts + "; " + outcome + " (strict = true raises instead)");
}

}  // namespace ember::io::detail
