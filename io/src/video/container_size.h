#pragma once
// The file size a container's own structure declares, to tell a truncated file
// from a complete one when the demuxer itself just reaches the end of the
// data (Note [Truncated and damaged media] in stream_decoder.cpp).
#include <cstdint>
#include <functional>
#include <optional>

namespace ember::io::detail {

// Reads up to n bytes at `offset` into `out`; returns how many it read.
using ReadAt = std::function<uint64_t(uint64_t offset, uint8_t* out, uint64_t n)>;

// For the demuxer `demuxer_name` (AVInputFormat::name), the size in bytes the
// file must have according to its container, when that is larger than
// `file_size` (the file is truncated); nullopt when the file is as long as its
// container says, or the container does not say (other formats; sizes left
// unknown by a writer that could not seek back). Walks the top-level
// structure only, a few bytes per element:
//   ISO BMFF (mp4, mov, ...)  top-level boxes
//   Matroska / WebM           the Segment element (or, of unknown size, its children)
//   AVI                       the RIFF chunks (RIFF AVI, then OpenDML's RIFF AVIX)
std::optional<uint64_t> truncated_container_size(const char* demuxer_name, const ReadAt& read,
                                                 uint64_t file_size);

}  // namespace ember::io::detail
