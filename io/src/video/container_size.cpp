#include "container_size.h"

#include <cstring>

namespace ember::io::detail {
namespace {

// Bounds the walks on hostile input (each step reads a few bytes).
constexpr int kMaxElements = 1 << 20;

uint64_t big_endian(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}

std::optional<uint64_t> beyond(uint64_t end, uint64_t file_size) {
  return end > file_size ? std::optional<uint64_t>(end) : std::nullopt;
}

// ISO BMFF: boxes of [size32][type], size 1: a 64-bit size follows, size 0:
// the box runs to the end of the file.
std::optional<uint64_t> bmff(const ReadAt& read, uint64_t file_size) {
  uint64_t at = 0;
  for (int i = 0; i < kMaxElements && at + 8 <= file_size; ++i) {
    uint8_t h[16];
    if (read(at, h, 16) < 8) return std::nullopt;
    uint64_t size = big_endian(h, 4);
    if (size == 0) return std::nullopt;
    if (size == 1) {
      if (at + 16 > file_size) return std::nullopt;
      size = big_endian(h + 8, 8);
      if (size < 16) return std::nullopt;
    } else if (size < 8) {
      return std::nullopt;  // not a box: leave it to the demuxer
    }
    if (size > file_size - at) return at + size;  // (no overflow: size > file_size - at)
    at += size;
  }
  return std::nullopt;
}

// EBML variable-length integers: the number of leading zero bits of the first
// byte gives the length. For an element ID the marker bit stays; for a size
// it is removed, and all value bits set means "unknown".
struct Vint {
  uint64_t value = 0;
  int length = 0;
  bool unknown = false;
};

std::optional<Vint> read_vint(const ReadAt& read, uint64_t at, bool keep_marker) {
  uint8_t b[8];
  const uint64_t got = read(at, b, 8);
  if (got == 0 || b[0] == 0) return std::nullopt;
  int length = 1;
  while (!(b[0] & (0x80 >> (length - 1)))) ++length;
  if (static_cast<uint64_t>(length) > got) return std::nullopt;
  Vint v;
  v.length = length;
  v.value = keep_marker ? b[0] : b[0] & (0xFF >> length);
  bool all_ones = (b[0] & (0xFF >> length)) == (0xFF >> length);
  for (int i = 1; i < length; ++i) {
    v.value = v.value << 8 | b[i];
    all_ones = all_ones && b[i] == 0xFF;
  }
  v.unknown = !keep_marker && all_ones;
  return v;
}

struct Element {
  uint64_t id;
  uint64_t data;    // offset of the payload
  uint64_t size;    // payload size (meaningless when unknown)
  bool unknown;
};

std::optional<Element> read_element(const ReadAt& read, uint64_t at) {
  const auto id = read_vint(read, at, true);
  if (!id) return std::nullopt;
  const auto size = read_vint(read, at + id->length, false);
  if (!size) return std::nullopt;
  return Element{id->value, at + id->length + size->length, size->value, size->unknown};
}

constexpr uint64_t kEbmlHeader = 0x1A45DFA3, kSegment = 0x18538067;

std::optional<uint64_t> matroska(const ReadAt& read, uint64_t file_size) {
  const auto header = read_element(read, 0);
  if (!header || header->id != kEbmlHeader || header->unknown) return std::nullopt;
  const auto segment = read_element(read, header->data + header->size);
  if (!segment || segment->id != kSegment) return std::nullopt;
  if (!segment->unknown) {
    if (segment->size > UINT64_MAX - segment->data) return std::nullopt;
    return beyond(segment->data + segment->size, file_size);
  }
  // A segment of unknown size (written without seeking back): its children
  // (clusters, cues, ...) may still state theirs.
  uint64_t at = segment->data;
  for (int i = 0; i < kMaxElements && at < file_size; ++i) {
    const auto child = read_element(read, at);
    if (!child || child->unknown || child->size > UINT64_MAX - child->data) return std::nullopt;
    if (child->data + child->size > file_size) return child->data + child->size;
    at = child->data + child->size;
  }
  return std::nullopt;
}

// RIFF: "RIFF" [size32 little-endian] "AVI " (then "RIFF" .. "AVIX" for OpenDML
// files over 1 GB); a chunk of odd size is padded to even. A size of 0 is an
// unfinished file whose writer never came back to it: unknown.
std::optional<uint64_t> avi(const ReadAt& read, uint64_t file_size) {
  uint64_t at = 0;
  for (int i = 0; i < kMaxElements && at + 12 <= file_size; ++i) {
    uint8_t h[12];
    if (read(at, h, 12) < 12 || std::memcmp(h, "RIFF", 4) != 0) return std::nullopt;
    const uint64_t size = uint64_t{h[4]} | uint64_t{h[5]} << 8 | uint64_t{h[6]} << 16 | uint64_t{h[7]} << 24;
    if (size == 0) return std::nullopt;
    const uint64_t end = at + 8 + size + (size & 1);
    // The pad byte of the last chunk is often left out: not a truncation.
    if (at + 8 + size > file_size) return at + 8 + size;
    at = end;
  }
  return std::nullopt;
}

}  // namespace

std::optional<uint64_t> truncated_container_size(const char* demuxer_name, const ReadAt& read,
                                                 uint64_t file_size) {
  if (demuxer_name == nullptr) return std::nullopt;
  if (std::strstr(demuxer_name, "mp4") != nullptr || std::strstr(demuxer_name, "mov") != nullptr) {
    return bmff(read, file_size);
  }
  if (std::strstr(demuxer_name, "matroska") != nullptr) return matroska(read, file_size);
  if (std::strcmp(demuxer_name, "avi") == 0) return avi(read, file_size);
  return std::nullopt;
}

}  // namespace ember::io::detail
