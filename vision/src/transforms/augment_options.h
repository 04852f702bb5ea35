#pragma once
// Argument checks shared by AutoAugment, RandAugment, TrivialAugmentWide and AugMix.
#include <vector>

#include <ember/core/tensor.h>

#include "ember/vision/transforms/interpolation.h"

namespace ember::vision::transforms::detail {

// Nearest or bilinear (the tensor warps' modes).
void check_augment_interpolation(InterpolationMode mode, const char* type);

// fill: {} (None), one value or one per channel, finite.
void check_augment_fill(const std::vector<double>& fill, const char* type);

// A uint8 image [..., 1 or 3, H, W] (H, W > 0) whose channels fit fill.
void check_augment_image(const Tensor& image, const std::vector<double>& fill, const char* type);

}  // namespace ember::vision::transforms::detail
