// InterpolationMode names.
#include "ember/vision/transforms/interpolation.h"

#include <ember/core/error.h>

namespace ember::vision::transforms {

const char* interpolation_name(InterpolationMode mode) {
  switch (mode) {
    case InterpolationMode::Nearest: return "nearest";
    case InterpolationMode::Bilinear: return "bilinear";
    case InterpolationMode::Bicubic: return "bicubic";
  }
  return "unknown";
}

InterpolationMode interpolation_from_name(const std::string& name, const std::string& who) {
  if (name == "nearest") return InterpolationMode::Nearest;
  if (name == "bilinear") return InterpolationMode::Bilinear;
  if (name == "bicubic") return InterpolationMode::Bicubic;
  EMBER_FAIL(who, ": unknown interpolation mode '", name, "' (tensors support nearest, bilinear and bicubic)");
}

}  // namespace ember::vision::transforms
