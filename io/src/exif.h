#pragma once
// EXIF orientation: the tag (0x0112 in IFD0 of an APP1 "Exif" segment) and the
// eight flips/rotations it names.
#include <cstddef>
#include <cstdint>

#include <ember/core/tensor.h>

namespace ember::io::detail {

// The orientation (1..8) stored in an APP1 segment's payload (starting with
// "Exif\0\0"), or 1 (as stored, no change) when the segment is not EXIF, has no
// orientation tag, or is malformed. Every offset is bounds-checked.
int exif_orientation(const uint8_t* app1, size_t size);

// Applies an EXIF orientation to a [C, H, W] image so that it displays upright,
// as PIL's ImageOps.exif_transpose. Returns a contiguous tensor.
Tensor apply_exif_orientation(const Tensor& chw, int orientation);

}  // namespace ember::io::detail
