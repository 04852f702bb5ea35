#pragma once
// Automatic augmentation policies, as torchvision 0.14's
// torchvision.transforms.autoaugment on tensors: AutoAugment (the learned
// IMAGENET, CIFAR10 and SVHN policies), RandAugment, TrivialAugmentWide and
// AugMix, over functional::apply_augment_op (functional/augment.h).
//
//   namespace T = ember::vision::transforms;
//   T::Compose train({T::RandomResizedCrop(224), T::RandomHorizontalFlip(), T::TrivialAugmentWide(),
//                     T::ConvertImageDtype(kFloat32), T::Normalize({0.485, 0.456, 0.406}, {0.229, 0.224, 0.225})});
//   T::AutoAugment aa(T::AutoAugmentPolicy::CIFAR10);
//   T::RandAugment ra({.num_ops = 2, .magnitude = 9, .interpolation = T::InterpolationMode::Bilinear});
//   T::AugMix mix({.severity = 3, .mixture_width = 3});
//
// The transforms take uint8 images [..., 1 or 3, H, W] (any number of leading
// dims: one draw for the whole batch, as torchvision; AugMix's weights are
// drawn per entry of the first dim). Options keep torchvision's keyword names
// and defaults; fill is {} (None), one value or one per channel. Random draws
// come from default_generator() in torchvision's order; the static
// get_params(..., Generator* generator = nullptr) make the same draws from a
// given generator and forward equals applying what they return. Every
// transform saves and loads (serialize.h).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ember/core/generator.h>

#include "ember/vision/transforms/functional/augment.h"
#include "ember/vision/transforms/interpolation.h"
#include "ember/vision/transforms/transform.h"

namespace ember::vision::transforms {

// ---- AutoAugment ----

// The policies learned on ImageNet, CIFAR-10 and SVHN.
enum class AutoAugmentPolicy { IMAGENET, CIFAR10, SVHN };

// "imagenet", "cifar10", "svhn" (torchvision's enum values).
const char* autoaugment_policy_name(AutoAugmentPolicy policy);
// The inverse; an unknown name is an ember::Error naming `who` and the name.
AutoAugmentPolicy autoaugment_policy_from_name(const std::string& name, const std::string& who);

// One op of a sub-policy: applied with probability p, at the magnitude of bin
// magnitude_id of AutoAugment's space (none: an op without magnitude).
struct AutoAugmentPolicyOp {
  functional::AugmentOp op;
  double p;
  std::optional<int64_t> magnitude_id;
};
using AutoAugmentSubPolicy = std::array<AutoAugmentPolicyOp, 2>;

// torchvision's AutoAugment._get_policies: the 25 sub-policies of a policy.
const std::vector<AutoAugmentSubPolicy>& autoaugment_policies(AutoAugmentPolicy policy);

struct AutoAugmentOptions {
  AutoAugmentPolicy policy = AutoAugmentPolicy::IMAGENET;
  InterpolationMode interpolation = InterpolationMode::Nearest;  // nearest or bilinear
  std::vector<double> fill = {};  // None, one value, or one per channel
};

// What AutoAugment.get_params draws: a sub-policy, a uniform number per op
// (the op runs when it is <= the op's p) and a sign per op (0: the magnitude
// is negated, for signed ops).
struct AutoAugmentParams {
  int64_t transform_id = 0;
  std::array<double, 2> probs{};
  std::array<int64_t, 2> signs{};
};

// Applies one random sub-policy of a learned policy (two ops, each with its
// probability, magnitude and a random sign).
class AutoAugmentImpl : public TransformImpl {
 public:
  using Options = AutoAugmentOptions;
  explicit AutoAugmentImpl(const Options& options = {});
  explicit AutoAugmentImpl(AutoAugmentPolicy policy, InterpolationMode interpolation = InterpolationMode::Nearest,
                           std::vector<double> fill = {});
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }
  const std::vector<AutoAugmentSubPolicy>& policies() const { return autoaugment_policies(options_.policy); }

  // torchvision's get_params: randint(transform_num), then two uniform
  // numbers, then two signs (randint(2) each).
  static AutoAugmentParams get_params(int64_t transform_num, Generator* generator = nullptr);
  // The ops forward applies for these draws to an image of height x width
  // (magnitudes from autoaugment_space(10, height, width)).
  std::vector<functional::AugmentStep> steps(const AutoAugmentParams& params, int64_t height, int64_t width) const;

 private:
  Options options_;
};
EMBER_TRANSFORM(AutoAugment);

// ---- RandAugment ----

struct RandAugmentOptions {
  int64_t num_ops = 2;              // ops applied in turn (>= 0)
  int64_t magnitude = 9;            // the bin of every op's magnitude, in [0, num_magnitude_bins)
  int64_t num_magnitude_bins = 31;  // >= 2
  InterpolationMode interpolation = InterpolationMode::Nearest;
  std::vector<double> fill = {};
};

// Applies num_ops ops drawn uniformly (with replacement) from RandAugment's
// space, all at the same magnitude bin, each signed op with a random sign.
class RandAugmentImpl : public TransformImpl {
 public:
  using Options = RandAugmentOptions;
  explicit RandAugmentImpl(const Options& options = {});
  explicit RandAugmentImpl(int64_t num_ops, int64_t magnitude = 9, int64_t num_magnitude_bins = 31,
                           InterpolationMode interpolation = InterpolationMode::Nearest, std::vector<double> fill = {});
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

  // forward's draws for an image of height x width: per op, randint over the
  // space's 14 ops, then randint(2) for signed ops (1: negated).
  static std::vector<functional::AugmentStep> get_params(int64_t num_ops, int64_t magnitude,
                                                         int64_t num_magnitude_bins, int64_t height, int64_t width,
                                                         Generator* generator = nullptr);

 private:
  Options options_;
};
EMBER_TRANSFORM(RandAugment);

// ---- TrivialAugmentWide ----

struct TrivialAugmentWideOptions {
  int64_t num_magnitude_bins = 31;  // >= 2
  InterpolationMode interpolation = InterpolationMode::Nearest;
  std::vector<double> fill = {};
};

// Applies one op drawn uniformly from TrivialAugmentWide's space at a
// uniformly drawn magnitude bin, with a random sign for signed ops.
class TrivialAugmentWideImpl : public TransformImpl {
 public:
  using Options = TrivialAugmentWideOptions;
  explicit TrivialAugmentWideImpl(const Options& options = {});
  explicit TrivialAugmentWideImpl(int64_t num_magnitude_bins,
                                  InterpolationMode interpolation = InterpolationMode::Nearest,
                                  std::vector<double> fill = {});
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

  // forward's draws: randint over the 14 ops, randint(num_magnitude_bins) for
  // ops with magnitudes, randint(2) for signed ops (1: negated).
  static functional::AugmentStep get_params(int64_t num_magnitude_bins, Generator* generator = nullptr);

 private:
  Options options_;
};
EMBER_TRANSFORM(TrivialAugmentWide);

// ---- AugMix ----

struct AugMixOptions {
  int64_t severity = 3;       // ops' magnitude bins are drawn from [0, severity), in [1, 10]
  int64_t mixture_width = 3;  // the number of augmentation chains (>= 1)
  int64_t chain_depth = -1;   // ops per chain; <= 0: 1 to 3, drawn per chain
  double alpha = 1.0;         // the Dirichlet / Beta concentration (> 0)
  bool all_ops = true;        // also Brightness, Color, Contrast, Sharpness
  InterpolationMode interpolation = InterpolationMode::Bilinear;
  std::vector<double> fill = {};
};

// What AugMix draws for an image batch of batch_size entries (the first dim of
// the image seen as at least 4-d).
struct AugMixParams {
  // [batch_size, 2] float32: torchvision's m, Dirichlet(alpha, alpha); column 0
  // weighs the original image, column 1 the chains together.
  Tensor beta_weights;
  // [batch_size, mixture_width] float32: Dirichlet(alpha, ..., alpha), the
  // chains' shares (forward multiplies them by beta_weights[:, 1]).
  Tensor mixing_weights;
  // mixture_width chains of ops (magnitude bins drawn in [0, severity)).
  std::vector<std::vector<functional::AugmentStep>> chains;
};

// Mixes the image with mixture_width augmented versions of it:
//   out = m0 * image + sum_i (w_i * m1) * chain_i(image), cast back to the
// image's dtype (truncated, as torchvision's .to(uint8)).
class AugMixImpl : public TransformImpl {
 public:
  using Options = AugMixOptions;
  explicit AugMixImpl(const Options& options = {});
  explicit AugMixImpl(int64_t severity, int64_t mixture_width = 3, int64_t chain_depth = -1, double alpha = 1.0,
                      bool all_ops = true, InterpolationMode interpolation = InterpolationMode::Bilinear,
                      std::vector<double> fill = {});
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

  // forward's draws, in torchvision's order: the Beta weights, the mixing
  // weights, then per chain its depth (when chain_depth <= 0) and per op:
  // randint over the ops, randint(severity), randint(2) for signed ops.
  static AugMixParams get_params(const Options& options, int64_t batch_size, int64_t height, int64_t width,
                                 Generator* generator = nullptr);
  // Applies drawn parameters: the mix in float32 (float64 for float64
  // images) with torchvision's operations in its order, then the cast.
  static Tensor apply(const Tensor& image, const AugMixParams& params,
                      InterpolationMode interpolation = InterpolationMode::Bilinear,
                      const std::vector<double>& fill = {});

 private:
  Options options_;
};
EMBER_TRANSFORM(AugMix);

}  // namespace ember::vision::transforms
