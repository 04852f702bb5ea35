// Normalize, ConvertImageDtype, Grayscale, RandomGrayscale, ColorJitter,
// GaussianBlur.
#include <cmath>
#include <limits>
#include <numeric>

#include <ember/ops/random.h>

#include "ember/vision/transforms/color.h"
#include "ember/vision/transforms/functional/color.h"

namespace ember::vision::transforms {

namespace F = functional;

namespace {

void check_probability(double p, const char* type) {
  EMBER_CHECK(p >= 0 && p <= 1, type, ": p must be in [0, 1], got ", p);
}

std::vector<double> as_list(const std::array<double, 2>& a) { return {a[0], a[1]}; }

}  // namespace

// ---- Normalize ----

NormalizeImpl::NormalizeImpl(Options options) : TransformImpl("Normalize"), options_(std::move(options)) {
  EMBER_CHECK(!options_.mean.empty() && !options_.std.empty(), "Normalize: mean and std must not be empty (got ",
              options_.mean.size(), " means and ", options_.std.size(), " stds)");
  for (size_t i = 0; i < options_.std.size(); ++i)
    EMBER_CHECK(options_.std[i] != 0 && std::isfinite(options_.std[i]), "Normalize: std[", i,
                "] must be finite and non-zero, got ", options_.std[i]);
  for (size_t i = 0; i < options_.mean.size(); ++i)
    EMBER_CHECK(std::isfinite(options_.mean[i]), "Normalize: mean[", i, "] must be finite, got ", options_.mean[i]);
}

NormalizeImpl::NormalizeImpl(std::vector<double> mean, std::vector<double> std, bool inplace)
    : NormalizeImpl(Options{std::move(mean), std::move(std), inplace}) {}

Tensor NormalizeImpl::forward(const Tensor& tensor) {
  return F::normalize(tensor, options_.mean, options_.std, options_.inplace);
}

Params NormalizeImpl::params() const {
  return {{"mean", options_.mean}, {"std", options_.std}, {"inplace", options_.inplace}};
}

// ---- ConvertImageDtype ----

ConvertImageDtypeImpl::ConvertImageDtypeImpl(Options options)
    : TransformImpl("ConvertImageDtype"), options_(options) {
  EMBER_CHECK(options_.dtype != DType::Bool && !is_complex(options_.dtype),
              "ConvertImageDtype: dtype must be an integer or floating point type, got ", options_.dtype);
}

Tensor ConvertImageDtypeImpl::forward(const Tensor& image) { return F::convert_image_dtype(image, options_.dtype); }

std::optional<Tensor> ConvertImageDtypeImpl::forward_fused(const TransformImpl& next, const Tensor& image) {
  return fused_convert_normalize(*this, next, image);
}

Params ConvertImageDtypeImpl::params() const { return {{"dtype", std::string(dtype_name(options_.dtype))}}; }

std::optional<Tensor> fused_convert_normalize(const TransformImpl& first, const TransformImpl& second,
                                              const Tensor& image) {
  const auto* convert = dynamic_cast<const ConvertImageDtypeImpl*>(&first);
  const auto* normalize = dynamic_cast<const NormalizeImpl*>(&second);
  if (!convert || !normalize || normalize->options().inplace || !image.defined() ||
      image.dtype() != DType::UInt8)
    return std::nullopt;
  const DType dtype = convert->options().dtype;
  if (dtype != DType::Float32 && dtype != DType::Float64) return std::nullopt;
  return F::convert_image_dtype_normalize(image, normalize->options().mean, normalize->options().std, dtype);
}

// ---- Grayscale, RandomGrayscale ----

GrayscaleImpl::GrayscaleImpl(Options options) : TransformImpl("Grayscale"), options_(options) {
  EMBER_CHECK(options_.num_output_channels == 1 || options_.num_output_channels == 3,
              "Grayscale: num_output_channels must be 1 or 3, got ", options_.num_output_channels);
}

Tensor GrayscaleImpl::forward(const Tensor& image) {
  return F::rgb_to_grayscale(image, options_.num_output_channels);
}

Params GrayscaleImpl::params() const { return {{"num_output_channels", options_.num_output_channels}}; }

RandomGrayscaleImpl::RandomGrayscaleImpl(Options options) : TransformImpl("RandomGrayscale"), options_(options) {
  check_probability(options_.p, "RandomGrayscale");
}

Tensor RandomGrayscaleImpl::forward(const Tensor& image) {
  EMBER_CHECK(image.defined() && image.dim() >= 3, "RandomGrayscale: expected an image [..., C, H, W], got shape ",
              image.defined() ? image.sizes() : IntArrayRef{});
  const int64_t channels = image.size(-3);
  if (uniform_scalar(0, 1) < options_.p) return F::rgb_to_grayscale(image, channels);
  return image;
}

Params RandomGrayscaleImpl::params() const { return {{"p", options_.p}}; }

// ---- ColorJitter ----

namespace {

// torchvision's ColorJitter._check_input: a number v becomes [center - v,
// center + v] (clipped at 0 for the factors), a pair must lie within the
// bounds; a range that is only the center means "leave as it is" (none).
ColorJitterImpl::Range jitter_range(const JitterRange& value, const char* name, double center, double lower,
                                    double upper, bool clip_first_on_zero) {
  std::array<double, 2> range{};
  if (value.range) {
    range = *value.range;
    EMBER_CHECK(lower <= range[0] && range[0] <= range[1] && range[1] <= upper, "ColorJitter: ", name,
                " values should be between ", lower, " and ", upper, " as [min, max] with min <= max, got [",
                range[0], ", ", range[1], "]");
  } else {
    EMBER_CHECK(value.amount >= 0, "ColorJitter: ", name, ", if a single number, must be non-negative, got ",
                value.amount);
    range = {center - value.amount, center + value.amount};
    if (clip_first_on_zero) range[0] = std::max(range[0], 0.0);
    // torchvision 0.14 accepts any hue number and fails when a draw falls
    // outside [-0.5, 0.5]; Ember rejects it here.
    EMBER_CHECK(range[0] >= lower && range[1] <= upper, "ColorJitter: ", name, " (", value.amount,
                ") gives the range [", range[0], ", ", range[1], "], outside [", lower, ", ", upper, "]");
  }
  EMBER_CHECK(std::isfinite(range[0]) && std::isfinite(range[1]), "ColorJitter: ", name,
              " must be finite, got [", range[0], ", ", range[1], "]");
  if (range[0] == center && range[1] == center) return std::nullopt;
  return range;
}

std::optional<double> draw(const ColorJitterImpl::Range& range, Generator* generator) {
  if (!range) return std::nullopt;
  return uniform_scalar((*range)[0], (*range)[1], generator);
}

Params::mapped_type range_param(const ColorJitterImpl::Range& range) {
  if (!range) return IValue();
  return as_list(*range);
}

}  // namespace

ColorJitterImpl::ColorJitterImpl(Options options) : TransformImpl("ColorJitter") {
  const double inf = std::numeric_limits<double>::infinity();
  brightness_ = jitter_range(options.brightness, "brightness", 1, 0, inf, true);
  contrast_ = jitter_range(options.contrast, "contrast", 1, 0, inf, true);
  saturation_ = jitter_range(options.saturation, "saturation", 1, 0, inf, true);
  hue_ = jitter_range(options.hue, "hue", 0, -0.5, 0.5, false);
}

ColorJitterParams ColorJitterImpl::get_params(const Range& brightness, const Range& contrast,
                                              const Range& saturation, const Range& hue, Generator* generator) {
  ColorJitterParams p;
  // torch.randperm(4): a uniform permutation (Fisher-Yates, one draw per position).
  std::iota(p.fn_idx.begin(), p.fn_idx.end(), int64_t{0});
  for (int64_t i = 3; i > 0; --i)
    std::swap(p.fn_idx[static_cast<size_t>(i)],
              p.fn_idx[static_cast<size_t>(randint_scalar(0, i + 1, generator))]);
  p.brightness_factor = draw(brightness, generator);
  p.contrast_factor = draw(contrast, generator);
  p.saturation_factor = draw(saturation, generator);
  p.hue_factor = draw(hue, generator);
  return p;
}

Tensor ColorJitterImpl::apply(const Tensor& image, const ColorJitterParams& params) {
  Tensor x = image;
  for (int64_t fn : params.fn_idx) {
    if (fn == 0 && params.brightness_factor) x = F::adjust_brightness(x, *params.brightness_factor);
    if (fn == 1 && params.contrast_factor) x = F::adjust_contrast(x, *params.contrast_factor);
    if (fn == 2 && params.saturation_factor) x = F::adjust_saturation(x, *params.saturation_factor);
    if (fn == 3 && params.hue_factor) x = F::adjust_hue(x, *params.hue_factor);
  }
  return x;
}

Tensor ColorJitterImpl::forward(const Tensor& image) {
  return apply(image, get_params(brightness_, contrast_, saturation_, hue_));
}

Params ColorJitterImpl::params() const {
  return {{"brightness", range_param(brightness_)},
          {"contrast", range_param(contrast_)},
          {"saturation", range_param(saturation_)},
          {"hue", range_param(hue_)}};
}

// ---- GaussianBlur ----

GaussianBlurImpl::GaussianBlurImpl(Options options) : TransformImpl("GaussianBlur") {
  const auto& k = options.kernel_size;
  EMBER_CHECK(k.size() == 1 || k.size() == 2, "GaussianBlur: kernel_size must hold one or two values, got ",
              k.size());
  kernel_size_ = {k[0], k.back()};
  for (int64_t v : kernel_size_)
    EMBER_CHECK(v > 0 && v % 2 == 1, "GaussianBlur: kernel size values must be odd and positive, got [",
                kernel_size_[0], ", ", kernel_size_[1], "]");
  const auto& s = options.sigma;
  EMBER_CHECK(s.size() == 1 || s.size() == 2,
              "GaussianBlur: sigma must be a single number or a [min, max] pair, got ", s.size(), " values");
  sigma_ = {s[0], s.back()};
  EMBER_CHECK(sigma_[0] > 0 && sigma_[0] <= sigma_[1] && std::isfinite(sigma_[1]),
              "GaussianBlur: sigma values must be positive and of the form [min, max], got [", sigma_[0], ", ",
              sigma_[1], "]");
}

double GaussianBlurImpl::get_params(double sigma_min, double sigma_max, Generator* generator) {
  return uniform_scalar(sigma_min, sigma_max, generator);
}

Tensor GaussianBlurImpl::forward(const Tensor& image) {
  const double sigma = get_params(sigma_[0], sigma_[1]);
  return F::gaussian_blur(image, {kernel_size_[0], kernel_size_[1]}, {sigma, sigma});
}

Params GaussianBlurImpl::params() const {
  const std::vector<double> kernel_size{static_cast<double>(kernel_size_[0]), static_cast<double>(kernel_size_[1])};
  return {{"kernel_size", kernel_size},
          {"sigma", as_list(sigma_)}};
}

}  // namespace ember::vision::transforms
