#pragma once
// The augmentation ops of AutoAugment, RandAugment, TrivialAugmentWide and
// AugMix (torchvision 0.14's torchvision.transforms.autoaugment): the shared
// `_apply_op` as a public functional, so one op can be applied
// deterministically, and each class's augmentation space (the ops it draws
// from, their magnitude bins and whether the magnitude's sign is drawn).
//
//   using namespace ember::vision::transforms;
//   Tensor sheared = functional::apply_augment_op(img, functional::AugmentOp::ShearX, -0.3);
//   auto space = functional::randaugment_space(31, img.size(-2), img.size(-1));
//   // space[k].op, space[k].magnitudes[9], space[k].is_signed
//
// Images are [..., C, H, W] as for the other functionals; each op takes what
// the functional it calls takes (Posterize and Equalize need uint8, Solarize's
// threshold must not exceed the image's bound: 255 or 1.0).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <ember/core/tensor.h>

#include "ember/vision/transforms/interpolation.h"

namespace ember::vision::transforms::functional {

// torchvision's op names, in no particular order (the spaces give the order
// the transforms draw in).
enum class AugmentOp {
  Identity,
  ShearX,
  ShearY,
  TranslateX,
  TranslateY,
  Rotate,
  Brightness,
  Color,
  Contrast,
  Sharpness,
  Posterize,
  Solarize,
  AutoContrast,
  Equalize,
  Invert,
};
inline constexpr int kNumAugmentOps = 15;

// "ShearX", ... (torchvision's op_name strings).
const char* augment_op_name(AugmentOp op);
// The inverse; an unknown name is an ember::Error naming `who` and the name.
AugmentOp augment_op_from_name(std::string_view name, const std::string& who = "augment_op_from_name");

// torchvision's _apply_op(img, op_name, magnitude, interpolation, fill):
//   ShearX / ShearY   affine with shear atan(magnitude) in degrees on x / y, about the
//                     top-left corner (center [0, 0]), no rotation, scale or translation
//   TranslateX / Y    affine translated by int(magnitude) pixels (truncated) on x / y
//   Rotate            rotate by magnitude degrees (counter-clockwise, not expanded)
//   Brightness, Color, Contrast, Sharpness
//                     adjust_brightness / saturation / contrast / sharpness(1 + magnitude)
//   Posterize         posterize(int(magnitude)) bits
//   Solarize          solarize(magnitude) (the threshold)
//   AutoContrast, Equalize, Invert
//                     autocontrast, equalize, invert (magnitude unused)
//   Identity          the image itself
// interpolation (nearest or bilinear) and fill ({} = None: zeros, no fill
// mask; one value or one per channel) are those of the geometric ops.
Tensor apply_augment_op(const Tensor& img, AugmentOp op, double magnitude,
                        InterpolationMode interpolation = InterpolationMode::Nearest,
                        const std::vector<double>& fill = {});

// One _apply_op call: an op and its magnitude (sign included).
struct AugmentStep {
  AugmentOp op = AugmentOp::Identity;
  double magnitude = 0;
  bool operator==(const AugmentStep&) const = default;
};

// apply_augment_op of each step in turn.
Tensor apply_augment_ops(const Tensor& img, const std::vector<AugmentStep>& steps,
                         InterpolationMode interpolation = InterpolationMode::Nearest,
                         const std::vector<double>& fill = {});

// One entry of an augmentation space (torchvision's `op_name: (magnitudes,
// signed)`). magnitudes holds torchvision's float32 bins (torch.linspace as
// torch 1.13 computes it on an AVX2 CPU; Posterize's integer bins) as doubles,
// or is empty where torchvision has the 0-d tensor(0.0): the op takes no
// magnitude (0.0) and draws no bin. is_signed: the magnitude is negated with
// probability 1/2.
struct AugmentOpSpace {
  AugmentOp op = AugmentOp::Identity;
  std::vector<double> magnitudes;
  bool is_signed = false;
};
// The ops in torchvision's dict order, the order in which a drawn op index
// picks them.
using AugmentationSpace = std::vector<AugmentOpSpace>;

// AutoAugment._augmentation_space(num_bins, (height, width)): 14 ops, no
// Identity, with Invert (AutoAugment uses 10 bins).
AugmentationSpace autoaugment_space(int64_t num_bins, int64_t height, int64_t width);
// RandAugment._augmentation_space: 14 ops, Identity first, no Invert.
AugmentationSpace randaugment_space(int64_t num_bins, int64_t height, int64_t width);
// TrivialAugmentWide._augmentation_space: RandAugment's ops with wider
// ranges, independent of the image size.
AugmentationSpace trivial_augment_wide_space(int64_t num_bins);
// AugMix._augmentation_space: 9 ops, then Brightness, Color, Contrast and
// Sharpness when all_ops (AugMix uses 10 bins).
AugmentationSpace augmix_space(int64_t num_bins, int64_t height, int64_t width, bool all_ops = true);

}  // namespace ember::vision::transforms::functional
