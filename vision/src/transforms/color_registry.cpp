// The factories that load saved color transforms (registry.h).
#include <string_view>

#include "ember/vision/transforms/color.h"
#include "transforms/registry.h"

namespace ember::vision::transforms::detail {
namespace {

DType dtype_from_name(const std::string& name) {
  for (int i = 0; i < kNumDTypes; ++i) {
    const auto t = static_cast<DType>(i);
    if (dtype_name(t) == name) return t;
  }
  EMBER_FAIL("ConvertImageDtype: unknown saved dtype '", name, "'");
}

// A saved ColorJitter range: None, or [min, max].
JitterRange saved_range(const Params& p, const char* key) {
  const auto range = param<std::optional<std::vector<double>>>(p, key, "ColorJitter");
  if (!range) return JitterRange(0.0);
  EMBER_CHECK(range->size() == 2, "ColorJitter: saved parameter '", key, "' must be None or [min, max], got ",
              range->size(), " values");
  return JitterRange((*range)[0], (*range)[1]);
}

}  // namespace

void register_color_transforms(const AddTransform& add) {
  add("Normalize", [](const Params& p, std::vector<TransformPtr>) {
    return std::make_shared<NormalizeImpl>(param<std::vector<double>>(p, "mean", "Normalize"),
                                           param<std::vector<double>>(p, "std", "Normalize"),
                                           param<bool>(p, "inplace", "Normalize"));
  });
  add("ConvertImageDtype", [](const Params& p, std::vector<TransformPtr>) {
    const auto name = param<std::string>(p, "dtype", "ConvertImageDtype");
    return std::make_shared<ConvertImageDtypeImpl>(dtype_from_name(name));
  });
  add("Grayscale", [](const Params& p, std::vector<TransformPtr>) {
    return std::make_shared<GrayscaleImpl>(param<int64_t>(p, "num_output_channels", "Grayscale"));
  });
  add("RandomGrayscale", [](const Params& p, std::vector<TransformPtr>) {
    return std::make_shared<RandomGrayscaleImpl>(param<double>(p, "p", "RandomGrayscale"));
  });
  add("ColorJitter", [](const Params& p, std::vector<TransformPtr>) {
    return std::make_shared<ColorJitterImpl>(ColorJitterOptions{saved_range(p, "brightness"),
                                                                saved_range(p, "contrast"),
                                                                saved_range(p, "saturation"), saved_range(p, "hue")});
  });
  add("GaussianBlur", [](const Params& p, std::vector<TransformPtr>) {
    return std::make_shared<GaussianBlurImpl>(param<std::vector<int64_t>>(p, "kernel_size", "GaussianBlur"),
                                              param<std::vector<double>>(p, "sigma", "GaussianBlur"));
  });
  add("RandomInvert", [](const Params& p, std::vector<TransformPtr>) {
    return std::make_shared<RandomInvertImpl>(param<double>(p, "p", "RandomInvert"));
  });
  add("RandomPosterize", [](const Params& p, std::vector<TransformPtr>) {
    return std::make_shared<RandomPosterizeImpl>(param<int64_t>(p, "bits", "RandomPosterize"),
                                                 param<double>(p, "p", "RandomPosterize"));
  });
  add("RandomSolarize", [](const Params& p, std::vector<TransformPtr>) {
    return std::make_shared<RandomSolarizeImpl>(param<double>(p, "threshold", "RandomSolarize"),
                                                param<double>(p, "p", "RandomSolarize"));
  });
  add("RandomAdjustSharpness", [](const Params& p, std::vector<TransformPtr>) {
    return std::make_shared<RandomAdjustSharpnessImpl>(
        param<double>(p, "sharpness_factor", "RandomAdjustSharpness"), param<double>(p, "p", "RandomAdjustSharpness"));
  });
  add("RandomAutocontrast", [](const Params& p, std::vector<TransformPtr>) {
    return std::make_shared<RandomAutocontrastImpl>(param<double>(p, "p", "RandomAutocontrast"));
  });
  add("RandomEqualize", [](const Params& p, std::vector<TransformPtr>) {
    return std::make_shared<RandomEqualizeImpl>(param<double>(p, "p", "RandomEqualize"));
  });
}

}  // namespace ember::vision::transforms::detail
