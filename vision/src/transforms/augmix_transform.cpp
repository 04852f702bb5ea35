// AugMix: augmentation chains mixed with Dirichlet / Beta weights.
#include <cmath>

#include <ember/core/error.h>
#include <ember/ops/factories.h>
#include <ember/ops/random.h>

#include "ember/vision/transforms/autoaugment.h"
#include "ember/vision/transforms/random_sampling.h"
#include "transforms/augment/mix.h"
#include "transforms/augment_options.h"
#include "transforms/geometry_options.h"

namespace ember::vision::transforms {
namespace {

constexpr int64_t kParameterMax = 10;  // torchvision's _PARAMETER_MAX: AugMix's number of bins

void check_augmix(const AugMixOptions& o) {
  EMBER_CHECK(o.severity >= 1 && o.severity <= kParameterMax, "AugMix: the severity must be between [1, ",
              kParameterMax, "], got ", o.severity);
  EMBER_CHECK(o.mixture_width >= 1, "AugMix: mixture_width must be at least 1, got ", o.mixture_width);
  EMBER_CHECK(std::isfinite(o.alpha) && o.alpha > 0, "AugMix: alpha must be positive and finite, got ", o.alpha);
  detail::check_augment_interpolation(o.interpolation, "AugMix");
  detail::check_augment_fill(o.fill, "AugMix");
}

// The image with leading dims of size 1 up to 4 dims (torchvision's `batch` view).
Tensor as_batch(const Tensor& image) {
  Tensor b = image;
  while (b.dim() < 4) b = b.unsqueeze(0);
  return b;
}

}  // namespace

AugMixImpl::AugMixImpl(const Options& options) : TransformImpl("AugMix"), options_(options) { check_augmix(options_); }

AugMixImpl::AugMixImpl(int64_t severity, int64_t mixture_width, int64_t chain_depth, double alpha, bool all_ops,
                       InterpolationMode interpolation, std::vector<double> fill)
    : AugMixImpl(Options{severity, mixture_width, chain_depth, alpha, all_ops, interpolation, std::move(fill)}) {}

AugMixParams AugMixImpl::get_params(const Options& options, int64_t batch_size, int64_t height, int64_t width,
                                    Generator* generator) {
  check_augmix(options);
  EMBER_CHECK(batch_size >= 1, "AugMix: batch_size must be positive, got ", batch_size);
  const functional::AugmentationSpace space =
      functional::augmix_space(kParameterMax, height, width, options.all_ops);
  AugMixParams p;
  p.beta_weights = sample_dirichlet(full({batch_size, 2}, options.alpha, DType::Float32), generator);
  p.mixing_weights =
      sample_dirichlet(full({batch_size, options.mixture_width}, options.alpha, DType::Float32), generator);
  for (int64_t c = 0; c < options.mixture_width; ++c) {
    const int64_t depth = options.chain_depth > 0 ? options.chain_depth : randint_scalar(1, 4, generator);
    std::vector<functional::AugmentStep> chain;
    for (int64_t d = 0; d < depth; ++d) {
      const auto& meta =
          space[static_cast<size_t>(randint_scalar(0, static_cast<int64_t>(space.size()), generator))];
      double m = 0.0;
      if (!meta.magnitudes.empty())
        m = meta.magnitudes[static_cast<size_t>(randint_scalar(0, options.severity, generator))];
      if (meta.is_signed && randint_scalar(0, 2, generator) != 0) m *= -1.0;
      chain.push_back({meta.op, m});
    }
    p.chains.push_back(std::move(chain));
  }
  return p;
}

Tensor AugMixImpl::apply(const Tensor& image, const AugMixParams& params, InterpolationMode interpolation,
                         const std::vector<double>& fill) {
  EMBER_CHECK(image.defined() && image.dim() >= 3, "AugMix: expected an image [..., C, H, W], got ",
              image.defined() ? image.sizes() : IntArrayRef{});
  const Tensor batch = as_batch(image);
  const int64_t b = batch.size(0);
  const int64_t width = static_cast<int64_t>(params.chains.size());
  // The weights are drawn on the host; the mix runs where the image is.
  const Tensor m = params.beta_weights.defined() ? params.beta_weights.to(image.device()) : Tensor();
  const Tensor w = params.mixing_weights.defined() ? params.mixing_weights.to(image.device()) : Tensor();
  EMBER_CHECK(m.defined() && m.dim() == 2 && m.size(0) == b && m.size(1) == 2 && m.dtype() == DType::Float32,
              "AugMix: beta_weights must be float32 [", b, ", 2] for this image ", image.sizes(), ", got ",
              m.defined() ? m.sizes() : IntArrayRef{});
  EMBER_CHECK(w.defined() && w.dim() == 2 && w.size(0) == b && w.size(1) == width && w.dtype() == DType::Float32,
              "AugMix: mixing_weights must be float32 [", b, ", ", width, "] (one column per chain), got ",
              w.defined() ? w.sizes() : IntArrayRef{});
  if (image.dtype() == DType::UInt8) {
    std::vector<Tensor> augs;
    for (const auto& chain : params.chains)
      augs.push_back(functional::apply_augment_ops(batch, chain, interpolation, fill));
    return detail::augmix_mix_uint8(batch, augs, m, w).view(image.sizes());
  }
  // Other dtypes: torchvision, step for step (each a tensor op, one rounding each):
  //   combined = dirichlet * m[:, 1]; mix = m[:, 0] * batch; mix += combined[:, i] * aug_i; mix.to(dtype)
  std::vector<int64_t> weight_shape(static_cast<size_t>(batch.dim()), 1);
  weight_shape[0] = b;
  const Tensor combined = w * m.select(1, 1).contiguous().view({b, 1});
  Tensor mix = m.select(1, 0).contiguous().view(weight_shape) * batch;
  for (int64_t i = 0; i < width; ++i) {
    const Tensor aug = functional::apply_augment_ops(batch, params.chains[static_cast<size_t>(i)], interpolation, fill);
    mix.add_(combined.select(1, i).contiguous().view(weight_shape) * aug);
  }
  return mix.view(image.sizes()).to(image.dtype());
}

Tensor AugMixImpl::forward(const Tensor& image) {
  detail::check_augment_image(image, options_.fill, "AugMix");
  const AugMixParams p = get_params(options_, as_batch(image).size(0), image.size(-2), image.size(-1));
  return apply(image, p, options_.interpolation, options_.fill);
}

Params AugMixImpl::params() const {
  return {{"severity", options_.severity},
          {"mixture_width", options_.mixture_width},
          {"chain_depth", options_.chain_depth},
          {"alpha", options_.alpha},
          {"all_ops", options_.all_ops},
          {"interpolation", interpolation_name(options_.interpolation)},
          {"fill", detail::list_or_none(options_.fill)}};
}

}  // namespace ember::vision::transforms
