#pragma once
// Checks and helpers shared by the JPEG and PNG codecs.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <ember/core/tensor.h>
#include <ember/io/image.h>

namespace ember::io::detail {

std::string_view mode_name(ImageReadMode mode);

// An encoded image: a non-empty 1-D uint8 CPU tensor. Returns it contiguous
// (the caller keeps it alive while decoding from its bytes).
Tensor check_encoded(std::string_view op, const Tensor& data);

// An image to encode: a [C, H, W] uint8 CPU tensor with C in [min_c, max_c] and
// H, W > 0 (any strides). Returns it unchanged; InterleavedRows feeds it to a codec.
Tensor check_image_to_encode(std::string_view op, const Tensor& image, int64_t min_c,
                             int64_t max_c);

// Throws when width or height is 0 or width * height * channels exceeds
// image_decode_limit(): checked before anything is allocated, so a hostile
// header cannot make a decoder allocate without bound.
void check_decoded_size(std::string_view op, uint64_t width, uint64_t height, uint64_t channels);

// The C x H x W view of an interleaved H x W x C buffer (strides (1, W*C, C)),
// without a copy: torchvision's decoders return the same view.
Tensor hwc_to_chw(const Tensor& hwc);

}  // namespace ember::io::detail
