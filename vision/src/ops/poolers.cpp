// MultiScaleRoIAlign and LevelMapper, after torchvision 0.14's poolers.py
// (scale inference in float32 as torch.tensor(...).log2().round() does).
#include "ember/vision/ops/poolers.h"

#include <algorithm>
#include <cmath>
#include <ostream>

#include <ember/core/error.h>
#include <ember/ops/elementwise.h>
#include <ember/ops/factories.h>
#include <ember/ops/indexing.h>
#include <ember/ops/shape.h>

#include "ember/vision/ops/boxes.h"
#include "ops/roi_common.h"

namespace ember::vision::ops {
namespace {

// torchvision's _infer_scale: 2 ** round(log2(feature / image)) from the
// height, computed on a float32 tensor (round half to even).
double infer_scale(const Tensor& feature, const std::array<int64_t, 2>& original_size) {
  const double approx = static_cast<double>(feature.size(-2)) / static_cast<double>(original_size[0]);
  const float lg = std::nearbyint(std::log2(static_cast<float>(approx)));
  return std::pow(2.0, static_cast<double>(lg));
}

}  // namespace

Tensor LevelMapper::operator()(const std::vector<Tensor>& boxes) const {
  std::vector<Tensor> areas;
  for (const Tensor& b : boxes) areas.push_back(box_area(b));
  const Tensor s = cat(areas, 0).sqrt();
  const Tensor lvls = ((canonical_level + (s / canonical_scale).log2()) + full({}, eps, s.options())).floor();
  const Tensor clamped = lvls.clamp(static_cast<double>(k_min), static_cast<double>(k_max));
  return clamped.to(kInt64) - k_min;
}

MultiScaleRoIAlignImpl::MultiScaleRoIAlignImpl(std::vector<std::string> featmap_names, const ExpandingInts& output_size,
                                               int64_t sampling_ratio, double canonical_scale, double canonical_level)
    : nn::Module("MultiScaleRoIAlign"),
      featmap_names(std::move(featmap_names)),
      output_size(detail::roi_output_size("MultiScaleRoIAlign", output_size)),
      sampling_ratio(sampling_ratio),
      canonical_scale(canonical_scale),
      canonical_level(canonical_level) {}

Tensor MultiScaleRoIAlignImpl::forward(const OrderedDict<Tensor>& x, const std::vector<Tensor>& boxes,
                                       const std::vector<std::array<int64_t, 2>>& image_shapes) {
  std::vector<Tensor> levels;
  for (const auto& [name, t] : x)
    if (std::find(featmap_names.begin(), featmap_names.end(), name) != featmap_names.end()) levels.push_back(t);
  EMBER_CHECK(!levels.empty(), "MultiScaleRoIAlign: none of the feature maps is named in featmap_names");
  EMBER_CHECK(!boxes.empty(), "MultiScaleRoIAlign: the list of boxes is empty (one [K, 4] tensor per image)");
  if (!map_levels) {
    EMBER_CHECK(!image_shapes.empty(), "MultiScaleRoIAlign: images list should not be empty");
    std::array<int64_t, 2> original{0, 0};
    for (const auto& shape : image_shapes) {
      original[0] = std::max(original[0], shape[0]);
      original[1] = std::max(original[1], shape[1]);
    }
    scales.clear();
    for (const Tensor& level : levels) scales.push_back(infer_scale(level, original));
    const double lvl_min = -static_cast<double>(std::log2(static_cast<float>(scales.front())));
    const double lvl_max = -static_cast<double>(std::log2(static_cast<float>(scales.back())));
    map_levels =
        LevelMapper{static_cast<int64_t>(lvl_min), static_cast<int64_t>(lvl_max), canonical_scale, canonical_level};
  }
  EMBER_CHECK(scales.size() == levels.size(), "MultiScaleRoIAlign: ", levels.size(),
              " feature maps, but the scales were inferred for ", scales.size());
  const Tensor rois = detail::rois_from_list("MultiScaleRoIAlign", boxes);
  if (levels.size() == 1) return roi_align(levels[0], rois, output_size, scales[0], sampling_ratio);
  const Tensor level_of = (*map_levels)(boxes);
  const Tensor& first = levels[0];
  Tensor result = zeros({rois.size(0), first.size(1), output_size[0], output_size[1]}, first.options());
  for (size_t level = 0; level < levels.size(); ++level) {
    const Tensor idx = where(level_of.eq(static_cast<int64_t>(level)))[0];
    const Tensor pooled = roi_align(levels[level], rois.index({idx}), output_size, scales[level], sampling_ratio);
    result = index_put(result, {std::optional<Tensor>(idx)}, pooled.to(result.dtype()));
  }
  return result;
}

void MultiScaleRoIAlignImpl::pretty_print(std::ostream& os) const {
  os << "MultiScaleRoIAlign(featmap_names=[";
  for (size_t i = 0; i < featmap_names.size(); ++i) os << (i ? ", '" : "'") << featmap_names[i] << "'";
  os << "], output_size=(" << output_size[0] << ", " << output_size[1] << "), sampling_ratio=" << sampling_ratio << ")";
}

}  // namespace ember::vision::ops
