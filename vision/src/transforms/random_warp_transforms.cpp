// RandomRotation, RandomAffine and RandomPerspective.
#include <cmath>

#include <ember/ops/random.h>

#include "ember/vision/transforms/geometry.h"
#include "transforms/geometry_options.h"

namespace ember::vision::transforms {
namespace {

void check_warp_interpolation(InterpolationMode mode, const char* type) {
  EMBER_CHECK(mode != InterpolationMode::Bicubic, type, ": interpolation must be nearest or bilinear, got ",
              interpolation_name(mode));
}

void check_center(const std::vector<double>& center, const char* type) {
  EMBER_CHECK(center.empty() || center.size() == 2, type, ": center must be None or (x, y), got ",
              detail::format_list(center));
}

int64_t channels_of(const Tensor& image, const char* type) {
  EMBER_CHECK(image.defined() && image.dim() >= 2, type, ": expected an image [..., C, H, W], got ",
              image.defined() ? image.sizes() : IntArrayRef{});
  return image.dim() == 2 ? 1 : image.size(-3);
}

}  // namespace

// ---- RandomRotation ----

RandomRotationImpl::RandomRotationImpl(const Options& options) : TransformImpl("RandomRotation"), options_(options) {
  const auto d = detail::setup_angle(options_.degrees, "RandomRotation", "degrees", {2});
  degrees_ = {d[0], d[1]};
  check_warp_interpolation(options_.interpolation, "RandomRotation");
  check_center(options_.center, "RandomRotation");
  if (options_.fill.empty()) options_.fill = {0};  // torchvision: fill=None means 0
  detail::check_fill(options_.fill, "RandomRotation");
}

RandomRotationImpl::RandomRotationImpl(double degrees) : RandomRotationImpl(Options{{degrees}}) {}

double RandomRotationImpl::get_params(const std::array<double, 2>& degrees, Generator* generator) {
  detail::checked_range(degrees, "RandomRotation", "degrees");
  return uniform_scalar(degrees[0], degrees[1], generator);
}

Tensor RandomRotationImpl::forward(const Tensor& image) {
  detail::check_fill_channels(options_.fill, channels_of(image, "RandomRotation"), "RandomRotation");
  const double angle = get_params(degrees_);
  return functional::rotate(image, angle, options_.interpolation, options_.expand, options_.center, options_.fill);
}

Params RandomRotationImpl::params() const {
  return {{"degrees", std::vector<double>{degrees_[0], degrees_[1]}},
          {"interpolation", interpolation_name(options_.interpolation)},
          {"expand", options_.expand},
          {"center", detail::list_or_none(options_.center)},
          {"fill", options_.fill}};
}

// ---- RandomAffine ----

RandomAffineImpl::RandomAffineImpl(const Options& options) : TransformImpl("RandomAffine"), options_(options) {
  const auto d = detail::setup_angle(options_.degrees, "RandomAffine", "degrees", {2});
  degrees_ = {d[0], d[1]};
  const auto& t = options_.translate;
  EMBER_CHECK(t.empty() || t.size() == 2, "RandomAffine: translate must be None or (a, b), got ",
              detail::format_list(t));
  for (double v : t)
    EMBER_CHECK(v >= 0 && v <= 1, "RandomAffine: translation values should be between 0 and 1, got ",
                detail::format_list(t));
  const auto& s = options_.scale;
  EMBER_CHECK(s.empty() || s.size() == 2, "RandomAffine: scale must be None or (min, max), got ",
              detail::format_list(s));
  for (double v : s)
    EMBER_CHECK(v > 0 && std::isfinite(v), "RandomAffine: scale values should be positive, got ",
                detail::format_list(s));
  if (s.size() == 2) detail::checked_range({s[0], s[1]}, "RandomAffine", "scale");
  if (!options_.shear.empty()) shear_ = detail::setup_angle(options_.shear, "RandomAffine", "shear", {2, 4});
  check_warp_interpolation(options_.interpolation, "RandomAffine");
  check_center(options_.center, "RandomAffine");
  if (options_.fill.empty()) options_.fill = {0};  // torchvision: fill=None means 0
  detail::check_fill(options_.fill, "RandomAffine");
}

RandomAffineImpl::RandomAffineImpl(double degrees) : RandomAffineImpl(Options{{degrees}}) {}

AffineParams RandomAffineImpl::get_params(const std::array<double, 2>& degrees,
                                          const std::optional<std::array<double, 2>>& translate,
                                          const std::optional<std::array<double, 2>>& scale_ranges,
                                          const std::vector<double>& shears, const std::array<int64_t, 2>& img_size,
                                          Generator* generator) {
  detail::checked_range(degrees, "RandomAffine", "degrees");
  EMBER_CHECK(shears.empty() || shears.size() == 2 || shears.size() == 4,
              "RandomAffine: shears must hold 0, 2 or 4 values, got ", detail::format_list(shears));
  AffineParams out;
  out.angle = uniform_scalar(degrees[0], degrees[1], generator);
  if (translate) {
    const double max_dx = (*translate)[0] * static_cast<double>(img_size[0]);
    const double max_dy = (*translate)[1] * static_cast<double>(img_size[1]);
    // Python's int(round(x)): half to even.
    out.translate[0] = static_cast<int64_t>(std::nearbyint(uniform_scalar(-max_dx, max_dx, generator)));
    out.translate[1] = static_cast<int64_t>(std::nearbyint(uniform_scalar(-max_dy, max_dy, generator)));
  }
  if (scale_ranges) out.scale = uniform_scalar((*scale_ranges)[0], (*scale_ranges)[1], generator);
  if (!shears.empty()) {
    out.shear[0] = uniform_scalar(shears[0], shears[1], generator);
    if (shears.size() == 4) out.shear[1] = uniform_scalar(shears[2], shears[3], generator);
  }
  return out;
}

Tensor RandomAffineImpl::forward(const Tensor& image) {
  detail::check_fill_channels(options_.fill, channels_of(image, "RandomAffine"), "RandomAffine");
  std::optional<std::array<double, 2>> translate, scale;
  if (!options_.translate.empty()) translate = std::array<double, 2>{options_.translate[0], options_.translate[1]};
  if (!options_.scale.empty()) scale = std::array<double, 2>{options_.scale[0], options_.scale[1]};
  const AffineParams p = get_params(degrees_, translate, scale, shear_, {image.size(-1), image.size(-2)});
  return functional::affine(image, p.angle, {static_cast<double>(p.translate[0]), static_cast<double>(p.translate[1])},
                            p.scale, p.shear, options_.interpolation, options_.fill, options_.center);
}

Params RandomAffineImpl::params() const {
  return {{"degrees", std::vector<double>{degrees_[0], degrees_[1]}},
          {"translate", detail::list_or_none(options_.translate)},
          {"scale", detail::list_or_none(options_.scale)},
          {"shear", detail::list_or_none(shear_)},
          {"interpolation", interpolation_name(options_.interpolation)},
          {"fill", options_.fill},
          {"center", detail::list_or_none(options_.center)}};
}

// ---- RandomPerspective ----

RandomPerspectiveImpl::RandomPerspectiveImpl(const Options& options)
    : TransformImpl("RandomPerspective"), options_(options) {
  EMBER_CHECK(options_.distortion_scale >= 0 && options_.distortion_scale <= 1,
              "RandomPerspective: distortion_scale must be in [0, 1], got ", options_.distortion_scale);
  detail::check_probability(options_.p, "RandomPerspective");
  check_warp_interpolation(options_.interpolation, "RandomPerspective");
  if (options_.fill.empty()) options_.fill = {0};  // torchvision: fill=None means 0
  detail::check_fill(options_.fill, "RandomPerspective");
}

std::pair<std::vector<functional::Point>, std::vector<functional::Point>> RandomPerspectiveImpl::get_params(
    int64_t width, int64_t height, double distortion_scale, Generator* generator) {
  EMBER_CHECK(width > 0 && height > 0, "RandomPerspective: the image size must be positive, got ", width, "x",
              height);
  EMBER_CHECK(distortion_scale >= 0 && distortion_scale <= 1,
              "RandomPerspective: distortion_scale must be in [0, 1], got ", distortion_scale);
  const int64_t half_height = height / 2, half_width = width / 2;
  const int64_t dw = static_cast<int64_t>(distortion_scale * static_cast<double>(half_width));
  const int64_t dh = static_cast<int64_t>(distortion_scale * static_cast<double>(half_height));
  auto draw = [&](int64_t low, int64_t high) { return randint_scalar(low, high, generator); };
  // torchvision's order of draws: x then y, top-left, top-right, bottom-right, bottom-left.
  functional::Point topleft, topright, botright, botleft;
  topleft[0] = draw(0, dw + 1);
  topleft[1] = draw(0, dh + 1);
  topright[0] = draw(width - dw - 1, width);
  topright[1] = draw(0, dh + 1);
  botright[0] = draw(width - dw - 1, width);
  botright[1] = draw(height - dh - 1, height);
  botleft[0] = draw(0, dw + 1);
  botleft[1] = draw(height - dh - 1, height);
  std::vector<functional::Point> start = {{0, 0}, {width - 1, 0}, {width - 1, height - 1}, {0, height - 1}};
  return {start, {topleft, topright, botright, botleft}};
}

Tensor RandomPerspectiveImpl::forward(const Tensor& image) {
  detail::check_fill_channels(options_.fill, channels_of(image, "RandomPerspective"), "RandomPerspective");
  if (uniform_scalar(0, 1) < options_.p) {
    const auto [start, end] = get_params(image.size(-1), image.size(-2), options_.distortion_scale);
    return functional::perspective(image, start, end, options_.interpolation, options_.fill);
  }
  return image;
}

Params RandomPerspectiveImpl::params() const {
  return {{"distortion_scale", options_.distortion_scale},
          {"p", options_.p},
          {"interpolation", interpolation_name(options_.interpolation)},
          {"fill", options_.fill}};
}

}  // namespace ember::vision::transforms
