#pragma once
// An opened (demuxed) media file: from a path, or from the encoded bytes in
// memory through a custom AVIOContext (used by VideoReader(Tensor) and the fuzzer).
#include <cstdint>
#include <optional>
#include <string>

#include <ember/core/tensor.h>

#include "ffmpeg_raii.h"

namespace ember::io::detail {

class MediaInput {
 public:
  // Opens and probes the file (avformat_find_stream_info); raises ember::Error
  // naming the file and FFmpeg's reason.
  // generate_pts: let the demuxer fill in missing packet timestamps
  // (AVFMT_FLAG_GENPTS), as PyAV opens every file; torchvision's C++ reader does not.
  static MediaInput open_file(const std::string& path, bool generate_pts = false);
  static MediaInput open_memory(const Tensor& bytes);

  MediaInput(MediaInput&&) noexcept = default;
  MediaInput& operator=(MediaInput&&) = delete;  // member order matters on teardown

  // The same source opened afresh (torchvision reopens the file on every seek).
  MediaInput reopen() const;

  AVFormatContext* format() const { return format_.get(); }
  // "'clip.mp4'" or "in-memory video (1234 bytes)", for error messages.
  const std::string& name() const { return name_; }

  // When the file is shorter than its container declares (a truncated MP4,
  // Matroska/WebM or AVI): "the file has N bytes, its container declares M".
  // Reads the container's top-level structure separately from the demuxer.
  std::optional<std::string> truncation() const;

  // The file's streams as torchvision labels them: "video:0" is stream `index`
  // of av streams of type video. Returns -1 when there is no such stream.
  int find_stream(AVMediaType type, int64_t index_in_type) const;

 private:
  MediaInput() = default;
  void probe();

  // Memory input state, read by the AVIO callbacks. Declared before format_ so
  // that it outlives the format context (members are destroyed in reverse order).
  struct MemorySource {
    Tensor bytes;            // keeps the data alive
    const uint8_t* data = nullptr;
    int64_t size = 0;
    int64_t pos = 0;
  };
  std::unique_ptr<MemorySource> memory_;
  std::string path_;          // for a file
  bool generate_pts_ = false;
  AvioPtr avio_;
  InputFormatPtr format_;
  std::string name_;
};

}  // namespace ember::io::detail
