// libFuzzer target: ember::io::VideoReader on arbitrary bytes, read from memory
// through the custom AVIOContext (io/src/video/media_input.cpp). Every stream type
// is opened, decoded for a bounded number of frames, and seeked in both modes.
// Any ember::Error is an accepted outcome; crashes, leaks, hangs and sanitizer
// reports are not.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <ember/core/error.h>
#include <ember/io/video.h>
#include <ember/ops/factories.h>

namespace {

// Enough to cover decoding and frame conversion without slow inputs dominating.
constexpr int kMaxFrames = 32;

void read_some(ember::io::VideoReader& reader) {
  int n = 0;
  for (const ember::io::VideoFrame& f : reader) {
    (void)f;
    if (++n >= kMaxFrames) break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ember::Tensor bytes = ember::empty({static_cast<int64_t>(size)}, ember::kUInt8);
  if (size > 0) std::memcpy(bytes.data_ptr(), data, size);
  for (const char* stream : {"video", "audio"}) {
    try {
      ember::io::VideoReader reader(bytes, stream, /*num_threads=*/1);
      (void)reader.metadata();
      read_some(reader);
      reader.seek(0.5, /*keyframes_only=*/false);
      read_some(reader);
      reader.seek(0.25, /*keyframes_only=*/true);
      (void)reader.next();
    } catch (const ember::Error&) {
      // Rejected cleanly.
    }
  }
  return 0;
}
