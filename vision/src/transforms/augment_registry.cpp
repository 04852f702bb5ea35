// Factories of AutoAugment, RandAugment, TrivialAugmentWide and AugMix, for
// transforms::load (the inverse of each transform's params()).
#include "ember/vision/transforms/autoaugment.h"
#include "transforms/geometry_options.h"
#include "transforms/registry.h"

namespace ember::vision::transforms::detail {

void register_augment_transforms(const AddTransform& add) {
  add("AutoAugment", [](const Params& p, std::vector<TransformPtr>) {
    const char* t = "AutoAugment";
    return std::make_shared<AutoAugmentImpl>(AutoAugmentOptions{
        autoaugment_policy_from_name(param<std::string>(p, "policy", t), t), interpolation_param(p, t),
        list_param_or_empty(p, "fill", t)});
  });
  add("RandAugment", [](const Params& p, std::vector<TransformPtr>) {
    const char* t = "RandAugment";
    return std::make_shared<RandAugmentImpl>(RandAugmentOptions{
        param<int64_t>(p, "num_ops", t), param<int64_t>(p, "magnitude", t), param<int64_t>(p, "num_magnitude_bins", t),
        interpolation_param(p, t), list_param_or_empty(p, "fill", t)});
  });
  add("TrivialAugmentWide", [](const Params& p, std::vector<TransformPtr>) {
    const char* t = "TrivialAugmentWide";
    return std::make_shared<TrivialAugmentWideImpl>(TrivialAugmentWideOptions{
        param<int64_t>(p, "num_magnitude_bins", t), interpolation_param(p, t), list_param_or_empty(p, "fill", t)});
  });
  add("AugMix", [](const Params& p, std::vector<TransformPtr>) {
    const char* t = "AugMix";
    return std::make_shared<AugMixImpl>(AugMixOptions{
        param<int64_t>(p, "severity", t), param<int64_t>(p, "mixture_width", t), param<int64_t>(p, "chain_depth", t),
        param<double>(p, "alpha", t), param<bool>(p, "all_ops", t), interpolation_param(p, t),
        list_param_or_empty(p, "fill", t)});
  });
}

}  // namespace ember::vision::transforms::detail
