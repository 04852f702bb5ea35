#include "exif.h"

#include <cstring>

#include <ember/ops/shape.h>

namespace ember::io::detail {
namespace {

// Reads TIFF integers in the byte order the TIFF header names ("II" little, "MM" big).
struct TiffReader {
  const uint8_t* data;
  size_t size;
  bool little;

  bool u16(size_t at, uint16_t& v) const {
    if (at > size || size - at < 2) return false;
    v = little ? uint16_t(data[at] | data[at + 1] << 8) : uint16_t(data[at] << 8 | data[at + 1]);
    return true;
  }
  bool u32(size_t at, uint32_t& v) const {
    if (at > size || size - at < 4) return false;
    const uint8_t* p = data + at;
    v = little ? uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24
               : uint32_t(p[3]) | uint32_t(p[2]) << 8 | uint32_t(p[1]) << 16 | uint32_t(p[0]) << 24;
    return true;
  }
};

constexpr uint16_t kOrientationTag = 0x0112;
constexpr uint16_t kTypeShort = 3;

}  // namespace

int exif_orientation(const uint8_t* app1, size_t size) {
  static constexpr char kExifHeader[6] = {'E', 'x', 'i', 'f', 0, 0};
  if (size < 6 + 8 || std::memcmp(app1, kExifHeader, 6) != 0) return 1;
  const uint8_t* tiff = app1 + 6;
  TiffReader r{tiff, size - 6, true};
  if (tiff[0] == 'I' && tiff[1] == 'I') r.little = true;
  else if (tiff[0] == 'M' && tiff[1] == 'M') r.little = false;
  else return 1;
  uint16_t magic;
  uint32_t ifd0;
  if (!r.u16(2, magic) || magic != 42 || !r.u32(4, ifd0)) return 1;
  uint16_t entries;
  if (!r.u16(ifd0, entries)) return 1;
  for (uint32_t i = 0; i < entries; ++i) {
    const size_t entry = size_t{ifd0} + 2 + size_t{i} * 12;
    uint16_t tag, type, value;
    uint32_t count;
    if (!r.u16(entry, tag) || !r.u16(entry + 2, type) || !r.u32(entry + 4, count)) return 1;
    if (tag != kOrientationTag) continue;
    // A single SHORT sits in the first two bytes of the value field.
    if (type != kTypeShort || count != 1 || !r.u16(entry + 8, value)) return 1;
    return value >= 1 && value <= 8 ? value : 1;
  }
  return 1;
}

Tensor apply_exif_orientation(const Tensor& chw, int orientation) {
  // Dims: 1 = rows (H), 2 = columns (W). Transposing swaps them; the flips
  // after a transpose turn it into a rotation (see PIL's Image.Transpose).
  switch (orientation) {
    case 2: return flip(chw, {2});                       // mirror left-right
    case 3: return flip(chw, {1, 2});                    // rotate 180
    case 4: return flip(chw, {1});                       // mirror top-bottom
    case 5: return chw.transpose(1, 2).contiguous();     // transpose
    case 6: return flip(chw.transpose(1, 2), {2});       // rotate 90 clockwise
    case 7: return flip(chw.transpose(1, 2), {1, 2});    // transverse
    case 8: return flip(chw.transpose(1, 2), {1});       // rotate 90 counter-clockwise
    default: return chw;
  }
}

}  // namespace ember::io::detail
