// AutoAugment, RandAugment and TrivialAugmentWide.
#include <ember/core/error.h>
#include <ember/ops/random.h>

#include "ember/vision/transforms/autoaugment.h"
#include "transforms/augment_options.h"
#include "transforms/geometry_options.h"

namespace ember::vision::transforms {
namespace {

using functional::AugmentOp;
using functional::AugmentStep;

// Saved fill: None or the list.
IValue fill_value(const std::vector<double>& fill) { return detail::list_or_none(fill); }

}  // namespace

// ---- AutoAugment ----

AutoAugmentImpl::AutoAugmentImpl(const Options& options) : TransformImpl("AutoAugment"), options_(options) {
  (void)autoaugment_policy_name(options_.policy);  // a valid enumerator
  detail::check_augment_interpolation(options_.interpolation, "AutoAugment");
  detail::check_augment_fill(options_.fill, "AutoAugment");
}

AutoAugmentImpl::AutoAugmentImpl(AutoAugmentPolicy policy, InterpolationMode interpolation, std::vector<double> fill)
    : AutoAugmentImpl(Options{policy, interpolation, std::move(fill)}) {}

AutoAugmentParams AutoAugmentImpl::get_params(int64_t transform_num, Generator* generator) {
  EMBER_CHECK(transform_num > 0, "AutoAugment: get_params needs at least one sub-policy, got ", transform_num);
  AutoAugmentParams p;
  p.transform_id = randint_scalar(0, transform_num, generator);
  for (double& prob : p.probs) prob = uniform_scalar(0.0, 1.0, generator);
  for (int64_t& sign : p.signs) sign = randint_scalar(0, 2, generator);
  return p;
}

std::vector<AugmentStep> AutoAugmentImpl::steps(const AutoAugmentParams& params, int64_t height,
                                                int64_t width) const {
  const auto& table = policies();
  EMBER_CHECK(params.transform_id >= 0 && params.transform_id < static_cast<int64_t>(table.size()),
              "AutoAugment: transform_id ", params.transform_id, " is outside the policy's ", table.size(),
              " sub-policies");
  const functional::AugmentationSpace space = functional::autoaugment_space(10, height, width);
  std::vector<AugmentStep> out;
  const AutoAugmentSubPolicy& sub = table[static_cast<size_t>(params.transform_id)];
  for (size_t i = 0; i < sub.size(); ++i) {
    const AutoAugmentPolicyOp& entry = sub[i];
    if (!(params.probs[i] <= entry.p)) continue;
    const functional::AugmentOpSpace* meta = nullptr;
    for (const auto& s : space)
      if (s.op == entry.op) meta = &s;
    EMBER_CHECK(meta != nullptr, "AutoAugment: ", functional::augment_op_name(entry.op),
                " is not in AutoAugment's augmentation space");
    double magnitude = 0.0;
    if (entry.magnitude_id) magnitude = meta->magnitudes.at(static_cast<size_t>(*entry.magnitude_id));
    if (meta->is_signed && params.signs[i] == 0) magnitude *= -1.0;
    out.push_back({entry.op, magnitude});
  }
  return out;
}

Tensor AutoAugmentImpl::forward(const Tensor& image) {
  detail::check_augment_image(image, options_.fill, "AutoAugment");
  const AutoAugmentParams p = get_params(static_cast<int64_t>(policies().size()));
  return functional::apply_augment_ops(image, steps(p, image.size(-2), image.size(-1)), options_.interpolation,
                                       options_.fill);
}

Params AutoAugmentImpl::params() const {
  return {{"policy", autoaugment_policy_name(options_.policy)},
          {"interpolation", interpolation_name(options_.interpolation)},
          {"fill", fill_value(options_.fill)}};
}

// ---- RandAugment ----

namespace {

void check_randaugment(int64_t num_ops, int64_t magnitude, int64_t num_magnitude_bins) {
  EMBER_CHECK(num_ops >= 0, "RandAugment: num_ops must be non-negative, got ", num_ops);
  EMBER_CHECK(num_magnitude_bins >= 2, "RandAugment: num_magnitude_bins must be at least 2, got ",
              num_magnitude_bins);
  EMBER_CHECK(magnitude >= 0 && magnitude < num_magnitude_bins, "RandAugment: magnitude must be in [0, ",
              num_magnitude_bins, ") (a bin of num_magnitude_bins = ", num_magnitude_bins, "), got ", magnitude);
}

}  // namespace

RandAugmentImpl::RandAugmentImpl(const Options& options) : TransformImpl("RandAugment"), options_(options) {
  check_randaugment(options_.num_ops, options_.magnitude, options_.num_magnitude_bins);
  detail::check_augment_interpolation(options_.interpolation, "RandAugment");
  detail::check_augment_fill(options_.fill, "RandAugment");
}

RandAugmentImpl::RandAugmentImpl(int64_t num_ops, int64_t magnitude, int64_t num_magnitude_bins,
                                 InterpolationMode interpolation, std::vector<double> fill)
    : RandAugmentImpl(Options{num_ops, magnitude, num_magnitude_bins, interpolation, std::move(fill)}) {}

std::vector<AugmentStep> RandAugmentImpl::get_params(int64_t num_ops, int64_t magnitude, int64_t num_magnitude_bins,
                                                     int64_t height, int64_t width, Generator* generator) {
  check_randaugment(num_ops, magnitude, num_magnitude_bins);
  const functional::AugmentationSpace space = functional::randaugment_space(num_magnitude_bins, height, width);
  std::vector<AugmentStep> out;
  for (int64_t i = 0; i < num_ops; ++i) {
    const auto& meta = space[static_cast<size_t>(randint_scalar(0, static_cast<int64_t>(space.size()), generator))];
    double m = meta.magnitudes.empty() ? 0.0 : meta.magnitudes[static_cast<size_t>(magnitude)];
    if (meta.is_signed && randint_scalar(0, 2, generator) != 0) m *= -1.0;
    out.push_back({meta.op, m});
  }
  return out;
}

Tensor RandAugmentImpl::forward(const Tensor& image) {
  detail::check_augment_image(image, options_.fill, "RandAugment");
  const auto steps = get_params(options_.num_ops, options_.magnitude, options_.num_magnitude_bins, image.size(-2),
                                image.size(-1));
  return functional::apply_augment_ops(image, steps, options_.interpolation, options_.fill);
}

Params RandAugmentImpl::params() const {
  return {{"num_ops", options_.num_ops},
          {"magnitude", options_.magnitude},
          {"num_magnitude_bins", options_.num_magnitude_bins},
          {"interpolation", interpolation_name(options_.interpolation)},
          {"fill", fill_value(options_.fill)}};
}

// ---- TrivialAugmentWide ----

TrivialAugmentWideImpl::TrivialAugmentWideImpl(const Options& options)
    : TransformImpl("TrivialAugmentWide"), options_(options) {
  EMBER_CHECK(options_.num_magnitude_bins >= 2, "TrivialAugmentWide: num_magnitude_bins must be at least 2, got ",
              options_.num_magnitude_bins);
  detail::check_augment_interpolation(options_.interpolation, "TrivialAugmentWide");
  detail::check_augment_fill(options_.fill, "TrivialAugmentWide");
}

TrivialAugmentWideImpl::TrivialAugmentWideImpl(int64_t num_magnitude_bins, InterpolationMode interpolation,
                                               std::vector<double> fill)
    : TrivialAugmentWideImpl(Options{num_magnitude_bins, interpolation, std::move(fill)}) {}

AugmentStep TrivialAugmentWideImpl::get_params(int64_t num_magnitude_bins, Generator* generator) {
  EMBER_CHECK(num_magnitude_bins >= 2, "TrivialAugmentWide: num_magnitude_bins must be at least 2, got ",
              num_magnitude_bins);
  const functional::AugmentationSpace space = functional::trivial_augment_wide_space(num_magnitude_bins);
  const auto& meta = space[static_cast<size_t>(randint_scalar(0, static_cast<int64_t>(space.size()), generator))];
  double m = 0.0;
  if (!meta.magnitudes.empty())
    m = meta.magnitudes[static_cast<size_t>(
        randint_scalar(0, static_cast<int64_t>(meta.magnitudes.size()), generator))];
  if (meta.is_signed && randint_scalar(0, 2, generator) != 0) m *= -1.0;
  return {meta.op, m};
}

Tensor TrivialAugmentWideImpl::forward(const Tensor& image) {
  detail::check_augment_image(image, options_.fill, "TrivialAugmentWide");
  const AugmentStep step = get_params(options_.num_magnitude_bins);
  return functional::apply_augment_op(image, step.op, step.magnitude, options_.interpolation, options_.fill);
}

Params TrivialAugmentWideImpl::params() const {
  return {{"num_magnitude_bins", options_.num_magnitude_bins},
          {"interpolation", interpolation_name(options_.interpolation)},
          {"fill", fill_value(options_.fill)}};
}

}  // namespace ember::vision::transforms
