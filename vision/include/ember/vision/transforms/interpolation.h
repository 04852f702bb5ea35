#pragma once
// torchvision.transforms.InterpolationMode, the modes of the tensor path.
// (torchvision's BOX, HAMMING and LANCZOS exist for PIL images only.)
#include <string>

namespace ember::vision::transforms {

enum class InterpolationMode { Nearest, Bilinear, Bicubic };

// "nearest", "bilinear", "bicubic": torchvision's InterpolationMode values.
const char* interpolation_name(InterpolationMode mode);
// The inverse; an unknown name is an ember::Error naming `who` and the name.
InterpolationMode interpolation_from_name(const std::string& name, const std::string& who);

}  // namespace ember::vision::transforms
