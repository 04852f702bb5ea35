// RandomInvert, RandomPosterize, RandomSolarize, RandomAdjustSharpness,
// RandomAutocontrast, RandomEqualize: a functional applied with probability p
// (one uniform draw per call, `torch.rand(1).item() < p` in torchvision).
#include <cmath>

#include <ember/ops/random.h>

#include "ember/vision/transforms/color.h"
#include "ember/vision/transforms/functional/color.h"

namespace ember::vision::transforms {

namespace F = functional;

namespace {

double checked_probability(double p, const char* type) {
  EMBER_CHECK(p >= 0 && p <= 1, type, ": p must be in [0, 1], got ", p);
  return p;
}

bool happens(double p) { return uniform_scalar(0, 1) < p; }

}  // namespace

RandomInvertImpl::RandomInvertImpl(Options options) : TransformImpl("RandomInvert"), options_(options) {
  checked_probability(options_.p, "RandomInvert");
}
Tensor RandomInvertImpl::forward(const Tensor& image) { return happens(options_.p) ? F::invert(image) : image; }
Params RandomInvertImpl::params() const { return {{"p", options_.p}}; }

RandomPosterizeImpl::RandomPosterizeImpl(Options options) : TransformImpl("RandomPosterize"), options_(options) {
  EMBER_CHECK(options_.bits >= 0 && options_.bits <= 8, "RandomPosterize: bits must be between 0 and 8, got ",
              options_.bits);
  checked_probability(options_.p, "RandomPosterize");
}
Tensor RandomPosterizeImpl::forward(const Tensor& image) {
  return happens(options_.p) ? F::posterize(image, options_.bits) : image;
}
Params RandomPosterizeImpl::params() const { return {{"bits", options_.bits}, {"p", options_.p}}; }

RandomSolarizeImpl::RandomSolarizeImpl(Options options) : TransformImpl("RandomSolarize"), options_(options) {
  EMBER_CHECK(!std::isnan(options_.threshold), "RandomSolarize: threshold must be a number, got NaN");
  checked_probability(options_.p, "RandomSolarize");
}
Tensor RandomSolarizeImpl::forward(const Tensor& image) {
  return happens(options_.p) ? F::solarize(image, options_.threshold) : image;
}
Params RandomSolarizeImpl::params() const { return {{"threshold", options_.threshold}, {"p", options_.p}}; }

RandomAdjustSharpnessImpl::RandomAdjustSharpnessImpl(Options options)
    : TransformImpl("RandomAdjustSharpness"), options_(options) {
  EMBER_CHECK(options_.sharpness_factor >= 0 && std::isfinite(options_.sharpness_factor),
              "RandomAdjustSharpness: sharpness_factor must be finite and non-negative, got ",
              options_.sharpness_factor);
  checked_probability(options_.p, "RandomAdjustSharpness");
}
Tensor RandomAdjustSharpnessImpl::forward(const Tensor& image) {
  return happens(options_.p) ? F::adjust_sharpness(image, options_.sharpness_factor) : image;
}
Params RandomAdjustSharpnessImpl::params() const {
  return {{"sharpness_factor", options_.sharpness_factor}, {"p", options_.p}};
}

RandomAutocontrastImpl::RandomAutocontrastImpl(Options options)
    : TransformImpl("RandomAutocontrast"), options_(options) {
  checked_probability(options_.p, "RandomAutocontrast");
}
Tensor RandomAutocontrastImpl::forward(const Tensor& image) {
  return happens(options_.p) ? F::autocontrast(image) : image;
}
Params RandomAutocontrastImpl::params() const { return {{"p", options_.p}}; }

RandomEqualizeImpl::RandomEqualizeImpl(Options options) : TransformImpl("RandomEqualize"), options_(options) {
  checked_probability(options_.p, "RandomEqualize");
}
Tensor RandomEqualizeImpl::forward(const Tensor& image) { return happens(options_.p) ? F::equalize(image) : image; }
Params RandomEqualizeImpl::params() const { return {{"p", options_.p}}; }

}  // namespace ember::vision::transforms
