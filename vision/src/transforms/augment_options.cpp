// Argument checks of the automatic augmentation transforms.
#include "transforms/augment_options.h"

#include <ember/core/error.h>

#include "transforms/geometry_options.h"

namespace ember::vision::transforms::detail {

void check_augment_interpolation(InterpolationMode mode, const char* type) {
  EMBER_CHECK(mode == InterpolationMode::Nearest || mode == InterpolationMode::Bilinear, type,
              ": interpolation must be nearest or bilinear for tensors, got ", interpolation_name(mode));
}

void check_augment_fill(const std::vector<double>& fill, const char* type) { check_fill(fill, type); }

void check_augment_image(const Tensor& image, const std::vector<double>& fill, const char* type) {
  EMBER_CHECK(image.defined() && image.dim() >= 3, type, ": expected an image [..., 1 or 3, H, W], got ",
              image.defined() ? image.sizes() : IntArrayRef{});
  const int64_t c = image.size(-3);
  EMBER_CHECK(c == 1 || c == 3, type, ": expected 1 or 3 channels, got ", c, " (image ", image.sizes(), ")");
  EMBER_CHECK(image.size(-2) > 0 && image.size(-1) > 0, type, ": the image is empty: ", image.sizes());
  // torchvision's tensor transforms need uint8: Posterize and Equalize exist for
  // uint8 only and Solarize's thresholds go up to 255, so a float image fails
  // whenever one of them is drawn. Refusing it up front is the reproducible choice.
  EMBER_CHECK(image.dtype() == DType::UInt8, type, ": expected a uint8 image, got ", image.dtype(),
              " (torchvision's tensor ", type,
              " is defined on uint8 images; convert with ConvertImageDtype(uint8) or apply the ops with "
              "functional::apply_augment_op)");
  check_fill_channels(fill, c, type);
}

}  // namespace ember::vision::transforms::detail
