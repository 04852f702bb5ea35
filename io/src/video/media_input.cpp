#include "media_input.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <ember/core/error.h>

#include "container_size.h"

namespace ember::io::detail {
namespace {

constexpr int kAvioBufferSize = 64 * 1024;

}  // namespace

MediaInput MediaInput::open_file(const std::string& path, bool generate_pts) {
  quiet_ffmpeg_logging();
  MediaInput in;
  in.name_ = "'" + path + "'";
  in.path_ = path;
  in.generate_pts_ = generate_pts;
  AVFormatContext* raw = allocated(avformat_alloc_context());
  if (generate_pts) raw->flags |= AVFMT_FLAG_GENPTS;
  // On failure avformat_open_input frees the context.
  const int r = avformat_open_input(&raw, path.c_str(), nullptr, nullptr);
  throw_if_out_of_memory(r);
  EMBER_CHECK(r >= 0, "video: cannot open ", in.name_, ": ", av_error_text(r));
  in.format_.reset(raw);
  in.probe();
  return in;
}

MediaInput MediaInput::open_memory(const Tensor& bytes) {
  quiet_ffmpeg_logging();
  EMBER_CHECK(bytes.defined() && bytes.dtype() == kUInt8 && bytes.dim() == 1 && bytes.is_cpu(),
              "VideoReader: expected the encoded video as a 1-D uint8 CPU tensor");
  MediaInput in;
  in.memory_ = std::make_unique<MemorySource>();
  MemorySource& m = *in.memory_;
  m.bytes = bytes.contiguous();
  m.data = m.bytes.numel() > 0 ? m.bytes.data_ptr<uint8_t>() : nullptr;
  m.size = m.bytes.numel();
  in.name_ = "in-memory video (" + std::to_string(m.size) + " bytes)";

  auto read = [](void* opaque, uint8_t* buf, int buf_size) -> int {
    auto* s = static_cast<MemorySource*>(opaque);
    const int64_t n = std::min<int64_t>(buf_size, s->size - s->pos);
    if (n <= 0) return AVERROR_EOF;
    std::memcpy(buf, s->data + s->pos, static_cast<size_t>(n));
    s->pos += n;
    return static_cast<int>(n);
  };
  auto seek = [](void* opaque, int64_t offset, int whence) -> int64_t {
    auto* s = static_cast<MemorySource*>(opaque);
    int64_t target = 0;
    switch (whence & ~AVSEEK_FORCE) {
      case AVSEEK_SIZE: return s->size;
      case SEEK_SET: target = offset; break;
      case SEEK_CUR: target = s->pos + offset; break;
      case SEEK_END: target = s->size + offset; break;
      default: return AVERROR(EINVAL);
    }
    if (target < 0 || target > s->size) return AVERROR(EINVAL);
    s->pos = target;
    return target;
  };
  auto* buffer = static_cast<uint8_t*>(allocated(av_malloc(kAvioBufferSize)));
  in.avio_.reset(avio_alloc_context(buffer, kAvioBufferSize, 0, &m, +read, nullptr, +seek));
  if (!in.avio_) {
    av_free(buffer);
    throw std::bad_alloc();
  }
  AVFormatContext* raw = allocated(avformat_alloc_context());
  raw->pb = in.avio_.get();
  raw->flags |= AVFMT_FLAG_CUSTOM_IO;
  // On failure avformat_open_input frees the context (not our AVIOContext).
  const int r = avformat_open_input(&raw, nullptr, nullptr, nullptr);
  throw_if_out_of_memory(r);
  EMBER_CHECK(r >= 0, "video: cannot open ", in.name_, ": ", av_error_text(r));
  in.format_.reset(raw);
  in.probe();
  return in;
}

MediaInput MediaInput::reopen() const {
  return memory_ ? open_memory(memory_->bytes) : open_file(path_, generate_pts_);
}

void MediaInput::probe() {
  const int r = avformat_find_stream_info(format_.get(), nullptr);
  throw_if_out_of_memory(r);
  EMBER_CHECK(r >= 0, "video: cannot read the stream information of ", name_, ": ",
              av_error_text(r));
}

std::optional<std::string> MediaInput::truncation() const {
  uint64_t size = 0;
  ReadAt read;
  std::ifstream file;
  if (memory_) {
    size = static_cast<uint64_t>(memory_->size);
    read = [m = memory_.get()](uint64_t offset, uint8_t* out, uint64_t n) -> uint64_t {
      const uint64_t total = static_cast<uint64_t>(m->size);
      if (offset >= total) return 0;
      const uint64_t take = std::min(n, total - offset);
      std::memcpy(out, m->data + offset, static_cast<size_t>(take));
      return take;
    };
  } else {
    std::error_code ec;
    size = std::filesystem::file_size(path_, ec);
    if (ec) return std::nullopt;  // not a regular file (a pipe, a device): cannot tell
    file.open(path_, std::ios::binary);
    if (!file) return std::nullopt;
    read = [&file](uint64_t offset, uint8_t* out, uint64_t n) -> uint64_t {
      file.clear();
      file.seekg(static_cast<std::streamoff>(offset));
      file.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(n));
      return static_cast<uint64_t>(file.gcount());
    };
  }
  const auto declared = truncated_container_size(format_->iformat->name, read, size);
  if (!declared) return std::nullopt;
  return "the file has " + std::to_string(size) + " bytes, its container declares " +
         std::to_string(*declared);
}

int MediaInput::find_stream(AVMediaType type, int64_t index_in_type) const {
  int64_t seen = 0;
  for (unsigned i = 0; i < format_->nb_streams; ++i) {
    if (format_->streams[i]->codecpar->codec_type != type) continue;
    if (index_in_type < 0 || seen == index_in_type) return static_cast<int>(i);
    ++seen;
  }
  return -1;
}

}  // namespace ember::io::detail
