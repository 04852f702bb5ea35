// functional::apply_augment_op: torchvision's autoaugment._apply_op.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>

#include <ember/core/error.h>
#include <ember/ops/factories.h>

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

// Note [Integer translations]
// TranslateX/Y translate by whole pixels with no rotation, scale or shear:
// torchvision's grid then samples on input pixels up to float rounding, so its
// warp is a shift of the image with the uncovered pixels set to the fill (zero
// without one) wherever that rounding cannot show:
// - nearest: always (the sample positions round to the pixels);
// - bilinear, uint8: the result is rounded, and a weight of ~1e-7 on a
//   neighbour or on the fill cannot move an integer across .5, unless the fill
//   itself is not an integer (7.5 * (1 - 1e-7) rounds down where 7.5 rounds up);
// - bilinear, float: the ~1e-7 weights do show (a few ulps), so the warp runs.
// Checked against torchvision's F.affine (translations of -150..150 pixels,
// images of 13x17 to 331x500, both modes, integer fills or none) and against
// Ember's warp in the tests. The shift is a copy instead of a grid sample
// (~15x faster at 224x224). The fill converts as in the warp: uint8 rounds half
// to even and clamps.
bool shift_applies(const Tensor& img, InterpolationMode interpolation, const std::vector<double>& fill) {
  const DType t = img.dtype();
  if (img.dim() < 2) return false;
  if (interpolation == InterpolationMode::Nearest) return t == DType::UInt8 || t == DType::Float32 || t == DType::Float64;
  if (t != DType::UInt8) return false;
  for (double v : fill) {
    const auto f = static_cast<double>(static_cast<float>(v));
    if (!std::isfinite(f) || f != std::trunc(f)) return false;
  }
  return true;
}

Tensor shift_image(const Tensor& img, int64_t dx, int64_t dy, const std::vector<double>& fill, AugmentOp op) {
  const int64_t channels = img.dim() == 2 ? 1 : img.size(-3);
  EMBER_CHECK(fill.size() <= 1 || static_cast<int64_t>(fill.size()) == channels, "apply_augment_op: ",
              augment_op_name(op), ": fill has ", fill.size(), " values, which cannot broadcast to the image's ",
              channels, " channels");
  auto fill_value = [&](size_t c) -> double {
    if (fill.empty()) return 0.0;
    const double v = fill.size() == 1 ? fill[0] : fill[c];
    if (img.dtype() == DType::UInt8)
      return std::clamp(std::nearbyint(static_cast<double>(static_cast<float>(v))), 0.0, 255.0);
    return v;
  };
  Tensor out = empty_like(img);
  if (fill.size() <= 1 || img.dim() == 2) {
    out.fill_(fill_value(0));
  } else {
    for (int64_t c = 0; c < channels; ++c) out.narrow(-3, c, 1).fill_(fill_value(static_cast<size_t>(c)));
  }
  const int64_t h = img.size(-2), w = img.size(-1);
  if (std::abs(dx) < w && std::abs(dy) < h) {
    // out[..., y, x] = img[..., y - dy, x - dx] where that lies inside the image.
    const int64_t rows = h - std::abs(dy), cols = w - std::abs(dx);
    out.narrow(-2, std::max<int64_t>(dy, 0), rows)
        .narrow(-1, std::max<int64_t>(dx, 0), cols)
        .copy_(img.narrow(-2, std::max<int64_t>(-dy, 0), rows).narrow(-1, std::max<int64_t>(-dx, 0), cols));
  }
  return out;
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
    // Whole-pixel translations (Note [Integer translations]).
    case AugmentOp::TranslateX:
    case AugmentOp::TranslateY: {
      const int64_t t = python_int(magnitude, op);
      const int64_t dx = op == AugmentOp::TranslateX ? t : 0, dy = op == AugmentOp::TranslateY ? t : 0;
      EMBER_CHECK(interpolation == InterpolationMode::Nearest || interpolation == InterpolationMode::Bilinear,
                  "apply_augment_op: ", augment_op_name(op), ": interpolation must be nearest or bilinear, got ",
                  interpolation_name(interpolation));
      if (shift_applies(img, interpolation, fill)) return shift_image(img, dx, dy, fill, op);
      return affine(img, 0.0, {static_cast<double>(dx), static_cast<double>(dy)}, 1.0, {0.0, 0.0}, interpolation,
                    fill);
    }
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
