// RandomErasing.
#include <cmath>

#include <ember/ops/factories.h>
#include <ember/ops/random.h>

#include "ember/vision/transforms/geometry.h"
#include "transforms/geometry_options.h"

namespace ember::vision::transforms {

RandomErasingImpl::RandomErasingImpl(const Options& options) : TransformImpl("RandomErasing"), options_(options) {
  detail::check_probability(options_.p, "RandomErasing");
  detail::checked_range(options_.scale, "RandomErasing", "scale");
  detail::checked_range(options_.ratio, "RandomErasing", "ratio");
  EMBER_CHECK(options_.scale[0] >= 0 && options_.scale[1] <= 1, "RandomErasing: scale should be between 0 and 1, got (",
              options_.scale[0], ", ", options_.scale[1], ")");
  EMBER_CHECK(options_.ratio[0] > 0, "RandomErasing: ratio must be positive, got (", options_.ratio[0], ", ",
              options_.ratio[1], ")");
  for (double v : options_.value)
    EMBER_CHECK(std::isfinite(v), "RandomErasing: value must be finite, got ", detail::format_list(options_.value));
}

ErasingParams RandomErasingImpl::get_params(const Tensor& image, const std::array<double, 2>& scale,
                                            const std::array<double, 2>& ratio,
                                            const std::optional<std::vector<double>>& value, Generator* generator) {
  EMBER_CHECK(image.defined() && image.dim() >= 3, "RandomErasing: expected an image [..., C, H, W], got ",
              image.defined() ? image.sizes() : IntArrayRef{});
  detail::checked_range(scale, "RandomErasing", "scale");
  detail::checked_range(ratio, "RandomErasing", "ratio");
  const int64_t img_c = image.size(-3), img_h = image.size(-2), img_w = image.size(-1);
  if (value) detail::check_fill_channels(*value, img_c, "RandomErasing");
  EMBER_CHECK(!value || !value->empty(), "RandomErasing: value must hold one value or one per channel");
  const double area = static_cast<double>(img_h * img_w);
  const double log_lo = std::log(ratio[0]), log_hi = std::log(ratio[1]);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double erase_area = area * uniform_scalar(scale[0], scale[1], generator);
    const double aspect_ratio = std::exp(uniform_scalar(log_lo, log_hi, generator));
    const int64_t h = static_cast<int64_t>(std::nearbyint(std::sqrt(erase_area * aspect_ratio)));
    const int64_t w = static_cast<int64_t>(std::nearbyint(std::sqrt(erase_area / aspect_ratio)));
    if (!(h < img_h && w < img_w)) continue;
    ErasingParams p;
    if (value) {
      p.v = tensor(std::vector<float>(value->begin(), value->end())).view({-1, 1, 1});
    } else {
      p.v = randn({img_c, h, w}, kFloat32, generator);
    }
    p.i = randint_scalar(0, img_h - h + 1, generator);
    p.j = randint_scalar(0, img_w - w + 1, generator);
    p.h = h;
    p.w = w;
    return p;
  }
  // No region fits: the whole image, erased with itself.
  ErasingParams p;
  p.h = img_h;
  p.w = img_w;
  p.v = image;
  return p;
}

Tensor RandomErasingImpl::forward(const Tensor& image) {
  if (uniform_scalar(0, 1) < options_.p) {
    std::optional<std::vector<double>> value;
    if (!options_.value.empty()) value = options_.value;
    const ErasingParams p = get_params(image, options_.scale, options_.ratio, value);
    return functional::erase(image, p.i, p.j, p.h, p.w, p.v, options_.inplace);
  }
  return image;
}

Params RandomErasingImpl::params() const {
  return {{"p", options_.p},
          {"scale", std::vector<double>{options_.scale[0], options_.scale[1]}},
          {"ratio", std::vector<double>{options_.ratio[0], options_.ratio[1]}},
          {"value", options_.value.empty() ? IValue("random") : IValue(options_.value)},
          {"inplace", options_.inplace}};
}

}  // namespace ember::vision::transforms
