// libFuzzer target: ember::io::VideoReader on arbitrary bytes, read from memory
// through the custom AVIOContext (io/src/video/media_input.cpp). Every stream type
// is opened, decoded for a bounded number of frames, and seeked in both modes;
// the video stream without strict (damage ends it with a warning, discarded
// here), the audio stream with it (damage raises). Any ember::Error is an
// accepted outcome; crashes, leaks, hangs and sanitizer reports are not.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <ember/core/error.h>
#include <ember/core/warning.h>
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
  const ember::WarningHandlerGuard quiet([](const std::string&) {});
  for (const char* stream : {"video", "audio"}) {
    try {
      const bool strict = std::strcmp(stream, "audio") == 0;
      ember::io::VideoReader reader(bytes, stream, /*num_threads=*/1, strict);
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
