#pragma once
// The io suite's test picture, made at run time instead of stored.
#include <ATen/ATen.h>

#include <cstdint>

namespace ember_bench {

// A deterministic RGB picture, [3, height, width] uint8: smooth gradients
// (sky, lighting), shapes with soft edges (objects), a patch of fine texture
// (foliage, fabric) and sensor-like noise, so that JPEG and PNG spend their
// time and bytes on it roughly as on a photograph (a flat or synthetic image
// would compress far better and decode faster than real data).
at::Tensor make_test_image(int64_t height, int64_t width);

}  // namespace ember_bench
