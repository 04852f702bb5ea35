// functional::apply_augment_op: torchvision's autoaugment._apply_op.
#include <cmath>
#include <numbers>

#include <ember/core/error.h>

#include "ember/vision/transforms/functional/augment.h"
#include "ember/vision/transforms/functional/color.h"
#include "ember/vision/transforms/functional/geometry.h"

namespace ember::vision::transforms::functional {
namespace {

constexpr const char* kOpNames[] = {"Identity",   "ShearX",     "ShearY",    "TranslateX",   "TranslateY",
                                    "Rotate",     "Brightness", "Color",     "Contrast",     "Sharpness",
                                    "Posterize",  "Solarize",   "AutoContrast", "Equalize",  "Invert"};
static_assert(std::size(kOpNames) == kNumAugmentOps, "one name per AugmentOp");
static_assert(static_cast<int>(AugmentOp::Invert) + 1 == kNumAugmentOps, "kNumAugmentOps counts AugmentOp");

// Python's math.degrees(math.atan(m)): CPython multiplies by 180 / pi.
double atan_degrees(double magnitude) { return std::atan(magnitude) * (180.0 / std::numbers::pi); }

// Python's int(x) of a finite float: truncation towards zero.
int64_t python_int(double x, AugmentOp op) {
  EMBER_CHECK(std::isfinite(x) && std::abs(x) < 9.2e18, "apply_augment_op: ", augment_op_name(op),
              " needs a finite magnitude, got ", x);
  return static_cast<int64_t>(std::trunc(x));
}

}  // namespace

const char* augment_op_name(AugmentOp op) {
  const auto i = static_cast<int>(op);
  EMBER_CHECK(i >= 0 && i < kNumAugmentOps, "augment_op_name: invalid AugmentOp ", i);
  return kOpNames[i];
}

AugmentOp augment_op_from_name(std::string_view name, const std::string& who) {
  for (int i = 0; i < kNumAugmentOps; ++i)
    if (name == kOpNames[i]) return static_cast<AugmentOp>(i);
  EMBER_FAIL(who, ": the provided operator ", name, " is not recognized");
}

Tensor apply_augment_op(const Tensor& img, AugmentOp op, double magnitude, InterpolationMode interpolation,
                        const std::vector<double>& fill) {
  EMBER_CHECK(img.defined(), "apply_augment_op: the image is undefined");
  switch (op) {
    case AugmentOp::Identity: return img;
    // torchvision shears about the top-left corner (center [0, 0]) by
    // atan(magnitude), so that x' = x + magnitude * y as in the AutoAugment
    // paper's (1, level, 0, 0, 1, 0) matrix.
    case AugmentOp::ShearX:
      return affine(img, 0.0, {0.0, 0.0}, 1.0, {atan_degrees(magnitude), 0.0}, interpolation, fill, {0.0, 0.0});
    case AugmentOp::ShearY:
      return affine(img, 0.0, {0.0, 0.0}, 1.0, {0.0, atan_degrees(magnitude)}, interpolation, fill, {0.0, 0.0});
    case AugmentOp::TranslateX:
      return affine(img, 0.0, {static_cast<double>(python_int(magnitude, op)), 0.0}, 1.0, {0.0, 0.0},
                    interpolation, fill);
    case AugmentOp::TranslateY:
      return affine(img, 0.0, {0.0, static_cast<double>(python_int(magnitude, op))}, 1.0, {0.0, 0.0},
                    interpolation, fill);
    case AugmentOp::Rotate: return rotate(img, magnitude, interpolation, false, {}, fill);
    case AugmentOp::Brightness: return adjust_brightness(img, 1.0 + magnitude);
    case AugmentOp::Color: return adjust_saturation(img, 1.0 + magnitude);
    case AugmentOp::Contrast: return adjust_contrast(img, 1.0 + magnitude);
    case AugmentOp::Sharpness: return adjust_sharpness(img, 1.0 + magnitude);
    case AugmentOp::Posterize: return posterize(img, python_int(magnitude, op));
    case AugmentOp::Solarize: return solarize(img, magnitude);
    case AugmentOp::AutoContrast: return autocontrast(img);
    case AugmentOp::Equalize: return equalize(img);
    case AugmentOp::Invert: return invert(img);
  }
  EMBER_FAIL("apply_augment_op: invalid AugmentOp ", static_cast<int>(op));
}

Tensor apply_augment_ops(const Tensor& img, const std::vector<AugmentStep>& steps, InterpolationMode interpolation,
                         const std::vector<double>& fill) {
  Tensor out = img;
  for (const AugmentStep& s : steps) out = apply_augment_op(out, s.op, s.magnitude, interpolation, fill);
  return out;
}

}  // namespace ember::vision::transforms::functional
