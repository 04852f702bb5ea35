#pragma once
// Color and pixel transforms: torchvision.transforms' Normalize,
// ConvertImageDtype, Grayscale, RandomGrayscale, ColorJitter, GaussianBlur,
// RandomInvert, RandomPosterize, RandomSolarize, RandomAdjustSharpness,
// RandomAutocontrast and RandomEqualize, over the functionals of
// functional/color.h.
//
//   auto augment = transforms::Compose({
//       transforms::ColorJitter({.brightness = 0.4, .contrast = 0.4, .saturation = 0.4, .hue = 0.1}),
//       transforms::RandomGrayscale(0.2),
//       transforms::ConvertImageDtype(kFloat32),
//       transforms::Normalize({0.485, 0.456, 0.406}, {0.229, 0.224, 0.225})});
//
// Options keep torchvision's keyword names and defaults. Random transforms
// draw from default_generator() (one uniform draw for the probability p,
// then their parameters), and their static get_params take an optional
// generator as torchvision's take none. Every transform saves and loads
// (serialize.h). Bad arguments raise ember::Error naming the transform.
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include <ember/core/dtype.h>
#include <ember/core/generator.h>

#include "ember/vision/transforms/transform.h"

namespace ember::vision::transforms {

// ---- Normalize ----

struct NormalizeOptions {
  std::vector<double> mean;  // one per channel, or one for all channels
  std::vector<double> std;   // one per channel, or one for all; non-zero
  bool inplace = false;      // write into the input tensor
};

// (image - mean) / std per channel, on floating point images.
class NormalizeImpl : public TransformImpl {
 public:
  using Options = NormalizeOptions;
  explicit NormalizeImpl(Options options);
  NormalizeImpl(std::vector<double> mean, std::vector<double> std, bool inplace = false);
  Tensor forward(const Tensor& tensor) override;
  Params params() const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
};

class Normalize : public TransformHolder<NormalizeImpl> {
 public:
  using TransformHolder<NormalizeImpl>::TransformHolder;
  Normalize(std::vector<double> mean, std::vector<double> std, bool inplace = false)
      : TransformHolder(std::make_shared<NormalizeImpl>(std::move(mean), std::move(std), inplace)) {}
};

// ---- ConvertImageDtype ----


struct ConvertImageDtypeOptions {
  DType dtype = DType::Float32;  // the dtype to convert to (values rescaled)
};

// functional::convert_image_dtype. Followed by a Normalize, it is the
// classic "ToTensor + Normalize" preprocessing; functional::
// convert_image_dtype_normalize does both in one pass.
class ConvertImageDtypeImpl : public TransformImpl {
 public:
  using Options = ConvertImageDtypeOptions;
  explicit ConvertImageDtypeImpl(Options options);
  explicit ConvertImageDtypeImpl(DType dtype) : ConvertImageDtypeImpl(Options{dtype}) {}
  Tensor forward(const Tensor& image) override;
  // Followed by Normalize: fused_convert_normalize below.
  std::optional<Tensor> forward_fused(const TransformImpl& next, const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
};
EMBER_TRANSFORM(ConvertImageDtype);

// The pair ConvertImageDtype(float32 or float64) then Normalize (not in place)
// on a uint8 image, in one pass (functional::convert_image_dtype_normalize):
// the result equals applying the two in turn. Returns nullopt when `first`
// and `second` are not such a pair or the image is not uint8. Compose calls it
// for each adjacent pair, so ToTensor-style preprocessing costs one pass.
std::optional<Tensor> fused_convert_normalize(const TransformImpl& first, const TransformImpl& second,
                                              const Tensor& image);

// ---- Grayscale, RandomGrayscale ----

struct GrayscaleOptions {
  int64_t num_output_channels = 1;  // 1 or 3
};

class GrayscaleImpl : public TransformImpl {
 public:
  using Options = GrayscaleOptions;
  explicit GrayscaleImpl(Options options);
  explicit GrayscaleImpl(int64_t num_output_channels = 1) : GrayscaleImpl(Options{num_output_channels}) {}
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
};
EMBER_TRANSFORM(Grayscale);

struct RandomGrayscaleOptions {
  double p = 0.1;  // probability of converting
};

// Converts to grayscale with probability p, keeping the number of channels.
class RandomGrayscaleImpl : public TransformImpl {
 public:
  using Options = RandomGrayscaleOptions;
  explicit RandomGrayscaleImpl(Options options);
  explicit RandomGrayscaleImpl(double p = 0.1) : RandomGrayscaleImpl(Options{p}) {}
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
};
EMBER_TRANSFORM(RandomGrayscale);

// ---- ColorJitter ----

// How much ColorJitter varies one property: a number v, for factors drawn
// from [max(0, 1 - v), 1 + v] (hue: [-v, v]), or an explicit [min, max].
struct JitterRange {
  JitterRange(double amount = 0) : amount(amount) {}  // NOLINT: a number converts, as in torchvision
  JitterRange(double min, double max) : range(std::array<double, 2>{min, max}) {}
  double amount = 0;
  std::optional<std::array<double, 2>> range;
};

struct ColorJitterOptions {
  JitterRange brightness = 0;  // factors >= 0
  JitterRange contrast = 0;    // factors >= 0
  JitterRange saturation = 0;  // factors >= 0
  JitterRange hue = 0;         // within [-0.5, 0.5]
};

// What ColorJitter::get_params draws: the order in which the four
// adjustments run (a permutation of 0 = brightness, 1 = contrast,
// 2 = saturation, 3 = hue) and the factors (none for a property not jittered).
struct ColorJitterParams {
  std::array<int64_t, 4> fn_idx{0, 1, 2, 3};
  std::optional<double> brightness_factor, contrast_factor, saturation_factor, hue_factor;
};

// Randomly changes brightness, contrast, saturation and hue, in a random order.
class ColorJitterImpl : public TransformImpl {
 public:
  using Options = ColorJitterOptions;
  using Range = std::optional<std::array<double, 2>>;
  explicit ColorJitterImpl(Options options);
  explicit ColorJitterImpl(JitterRange brightness = 0, JitterRange contrast = 0, JitterRange saturation = 0,
                           JitterRange hue = 0)
      : ColorJitterImpl(Options{brightness, contrast, saturation, hue}) {}
  Tensor forward(const Tensor& image) override;
  Params params() const override;

  // The ranges factors are drawn from; none where the property stays as it is.
  const Range& brightness() const { return brightness_; }
  const Range& contrast() const { return contrast_; }
  const Range& saturation() const { return saturation_; }
  const Range& hue() const { return hue_; }

  // torchvision's get_params: a permutation of 4, then one uniform factor
  // per range given, in the order brightness, contrast, saturation, hue.
  static ColorJitterParams get_params(const Range& brightness, const Range& contrast, const Range& saturation,
                                      const Range& hue, Generator* generator = nullptr);
  // Applies drawn parameters (what forward does after get_params).
  static Tensor apply(const Tensor& image, const ColorJitterParams& params);

 private:
  Range brightness_, contrast_, saturation_, hue_;
};
EMBER_TRANSFORM(ColorJitter);

// ---- GaussianBlur ----

struct GaussianBlurOptions {
  std::vector<int64_t> kernel_size;        // [k] or [kx, ky]: odd and positive
  std::vector<double> sigma = {0.1, 2.0};  // [s] (fixed) or [min, max] to draw from; > 0
};

// Blurs with a Gaussian whose sigma is drawn uniformly from [min, max] per call
// (the same sigma on both axes).
class GaussianBlurImpl : public TransformImpl {
 public:
  using Options = GaussianBlurOptions;
  explicit GaussianBlurImpl(Options options);
  GaussianBlurImpl(std::vector<int64_t> kernel_size, std::vector<double> sigma = {0.1, 2.0})
      : GaussianBlurImpl(Options{std::move(kernel_size), std::move(sigma)}) {}
  GaussianBlurImpl(int64_t kernel_size, std::vector<double> sigma = {0.1, 2.0})
      : GaussianBlurImpl(Options{{kernel_size}, std::move(sigma)}) {}
  GaussianBlurImpl(int64_t kernel_size, double sigma) : GaussianBlurImpl(Options{{kernel_size}, {sigma}}) {}
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  // [kx, ky] and [min, max], as torchvision stores them.
  const std::array<int64_t, 2>& kernel_size() const { return kernel_size_; }
  const std::array<double, 2>& sigma() const { return sigma_; }

  // torchvision's get_params: sigma uniform on [sigma_min, sigma_max].
  static double get_params(double sigma_min, double sigma_max, Generator* generator = nullptr);

 private:
  std::array<int64_t, 2> kernel_size_{};
  std::array<double, 2> sigma_{};
};

class GaussianBlur : public TransformHolder<GaussianBlurImpl> {
 public:
  using TransformHolder<GaussianBlurImpl>::TransformHolder;
  GaussianBlur(std::vector<int64_t> kernel_size, std::vector<double> sigma = {0.1, 2.0})
      : TransformHolder(std::make_shared<GaussianBlurImpl>(std::move(kernel_size), std::move(sigma))) {}
  GaussianBlur(int64_t kernel_size, std::vector<double> sigma = {0.1, 2.0})
      : TransformHolder(std::make_shared<GaussianBlurImpl>(kernel_size, std::move(sigma))) {}
  GaussianBlur(int64_t kernel_size, double sigma)
      : TransformHolder(std::make_shared<GaussianBlurImpl>(kernel_size, sigma)) {}
};

// ---- Random pixel transforms: each applies its functional with probability p ----

struct RandomInvertOptions {
  double p = 0.5;
};
class RandomInvertImpl : public TransformImpl {
 public:
  using Options = RandomInvertOptions;
  explicit RandomInvertImpl(Options options);
  explicit RandomInvertImpl(double p = 0.5) : RandomInvertImpl(Options{p}) {}
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
};
EMBER_TRANSFORM(RandomInvert);

struct RandomPosterizeOptions {
  int64_t bits = 8;  // bits kept per channel, 0..8 (torchvision: required)
  double p = 0.5;
};
class RandomPosterizeImpl : public TransformImpl {
 public:
  using Options = RandomPosterizeOptions;
  explicit RandomPosterizeImpl(Options options);
  explicit RandomPosterizeImpl(int64_t bits, double p = 0.5) : RandomPosterizeImpl(Options{bits, p}) {}
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
};
EMBER_TRANSFORM(RandomPosterize);

struct RandomSolarizeOptions {
  double threshold = 0;  // values >= threshold are inverted (torchvision: required)
  double p = 0.5;
};
class RandomSolarizeImpl : public TransformImpl {
 public:
  using Options = RandomSolarizeOptions;
  explicit RandomSolarizeImpl(Options options);
  explicit RandomSolarizeImpl(double threshold, double p = 0.5) : RandomSolarizeImpl(Options{threshold, p}) {}
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
};
EMBER_TRANSFORM(RandomSolarize);

struct RandomAdjustSharpnessOptions {
  double sharpness_factor = 1;  // >= 0; 0 blurs, 1 keeps, 2 sharpens (torchvision: required)
  double p = 0.5;
};
class RandomAdjustSharpnessImpl : public TransformImpl {
 public:
  using Options = RandomAdjustSharpnessOptions;
  explicit RandomAdjustSharpnessImpl(Options options);
  explicit RandomAdjustSharpnessImpl(double sharpness_factor, double p = 0.5)
      : RandomAdjustSharpnessImpl(Options{sharpness_factor, p}) {}
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
};
EMBER_TRANSFORM(RandomAdjustSharpness);

struct RandomAutocontrastOptions {
  double p = 0.5;
};
class RandomAutocontrastImpl : public TransformImpl {
 public:
  using Options = RandomAutocontrastOptions;
  explicit RandomAutocontrastImpl(Options options);
  explicit RandomAutocontrastImpl(double p = 0.5) : RandomAutocontrastImpl(Options{p}) {}
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
};
EMBER_TRANSFORM(RandomAutocontrast);

struct RandomEqualizeOptions {
  double p = 0.5;
};
class RandomEqualizeImpl : public TransformImpl {
 public:
  using Options = RandomEqualizeOptions;
  explicit RandomEqualizeImpl(Options options);
  explicit RandomEqualizeImpl(double p = 0.5) : RandomEqualizeImpl(Options{p}) {}
  Tensor forward(const Tensor& image) override;
  Params params() const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
};
EMBER_TRANSFORM(RandomEqualize);

}  // namespace ember::vision::transforms
