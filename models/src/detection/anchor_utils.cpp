#include "ember/models/detection/anchor_utils.h"

#include <cmath>
#include <ostream>

#include <ember/core/error.h>
#include <ember/ops/elementwise.h>
#include <ember/ops/factories.h>
#include <ember/ops/shape.h>

namespace ember::models::detection {

AnchorGeneratorOptions retinanet_anchor_generator() {
  AnchorGeneratorOptions o;
  o.sizes.clear();
  for (double x : {32.0, 64.0, 128.0, 256.0, 512.0})
    // Python's int(): truncation of x * 2 ** (k / 3) computed in double.
    o.sizes.push_back({x, std::trunc(x * std::pow(2.0, 1.0 / 3)), std::trunc(x * std::pow(2.0, 2.0 / 3))});
  o.aspect_ratios = {{0.5, 1.0, 2.0}};
  return o;
}

AnchorGeneratorImpl::AnchorGeneratorImpl(AnchorGeneratorOptions opts) : Module("AnchorGenerator"), options(std::move(opts)) {
  EMBER_CHECK(!options.sizes.empty(), "AnchorGenerator: sizes is empty");
  if (options.aspect_ratios.size() == 1 && options.sizes.size() > 1)
    options.aspect_ratios.assign(options.sizes.size(), options.aspect_ratios[0]);
  EMBER_CHECK(options.aspect_ratios.size() == options.sizes.size(),
              "AnchorGenerator: sizes and aspect_ratios must have one entry per feature map, got ",
              options.sizes.size(), " and ", options.aspect_ratios.size());
  for (size_t l = 0; l < options.sizes.size(); ++l) {
    EMBER_CHECK(!options.sizes[l].empty() && !options.aspect_ratios[l].empty(), "AnchorGenerator: level ", l,
                " has no sizes or no aspect ratios");
    for (double r : options.aspect_ratios[l])
      EMBER_CHECK(r > 0, "AnchorGenerator: aspect ratios must be positive, got ", r, " at level ", l);
    cell_anchors_.push_back(generate_anchors(options.sizes[l], options.aspect_ratios[l]));
  }
}

Tensor AnchorGeneratorImpl::generate_anchors(const std::vector<double>& scales_v,
                                             const std::vector<double>& ratios_v) {
  // float32 throughout, as torchvision (the sizes and ratios become float32 tensors first).
  Tensor scales = tensor<double>(scales_v).to(kFloat32);
  Tensor ratios = tensor<double>(ratios_v).to(kFloat32);
  Tensor h_ratios = ratios.sqrt();
  Tensor w_ratios = h_ratios.reciprocal();  // Python's 1 / t is t.reciprocal() * 1
  Tensor ws = (w_ratios.unsqueeze(1) * scales.unsqueeze(0)).reshape({-1});
  Tensor hs = (h_ratios.unsqueeze(1) * scales.unsqueeze(0)).reshape({-1});
  return (stack({ws.neg(), hs.neg(), ws, hs}, 1) / 2).round();
}

std::vector<int64_t> AnchorGeneratorImpl::num_anchors_per_location() const {
  std::vector<int64_t> n;
  for (size_t l = 0; l < options.sizes.size(); ++l)
    n.push_back(static_cast<int64_t>(options.sizes[l].size() * options.aspect_ratios[l].size()));
  return n;
}

std::vector<Tensor> AnchorGeneratorImpl::grid_anchors(const std::vector<std::pair<int64_t, int64_t>>& grid_sizes,
                                                      const std::vector<std::pair<int64_t, int64_t>>& strides,
                                                      DType dtype) const {
  EMBER_CHECK(grid_sizes.size() == strides.size() && grid_sizes.size() == cell_anchors_.size(),
              "AnchorGenerator: Anchors should be Tuple[Tuple[int]] because each feature map could potentially "
              "have different sizes and aspect ratios. There needs to be a match between the number of feature "
              "maps passed and the number of sizes / aspect ratios specified (got ",
              grid_sizes.size(), " feature maps for ", cell_anchors_.size(), " levels)");
  std::vector<Tensor> anchors;
  for (size_t l = 0; l < grid_sizes.size(); ++l) {
    const auto [grid_h, grid_w] = grid_sizes[l];
    const auto [stride_h, stride_w] = strides[l];
    Tensor shifts_x = arange(0, grid_w, kInt64) * stride_w;
    Tensor shifts_y = arange(0, grid_h, kInt64) * stride_h;
    // meshgrid(shifts_y, shifts_x, indexing="ij"), flattened y-major.
    Tensor shift_x = shifts_x.unsqueeze(0).expand({grid_h, grid_w}).reshape({-1});
    Tensor shift_y = shifts_y.unsqueeze(1).expand({grid_h, grid_w}).reshape({-1});
    Tensor shifts = stack({shift_x, shift_y, shift_x, shift_y}, 1);
    Tensor base = cell_anchors_[l].to(dtype);
    anchors.push_back((shifts.view({-1, 1, 4}) + base.view({1, -1, 4})).reshape({-1, 4}));
  }
  return anchors;
}

std::vector<Tensor> AnchorGeneratorImpl::forward(const ImageList& image_list,
                                                 const std::vector<Tensor>& feature_maps) const {
  EMBER_CHECK(image_list.tensors.dim() >= 2, "AnchorGenerator: image_list.tensors must be [N, C, H, W], got ",
              image_list.tensors.sizes());
  EMBER_CHECK(!feature_maps.empty(), "AnchorGenerator: no feature maps");
  const int64_t image_h = image_list.tensors.size(-2), image_w = image_list.tensors.size(-1);
  std::vector<std::pair<int64_t, int64_t>> grids, strides;
  for (const Tensor& f : feature_maps) {
    EMBER_CHECK(f.dim() >= 2 && f.size(-2) > 0 && f.size(-1) > 0,
                "AnchorGenerator: feature maps must be [N, C, H, W] with H, W > 0, got ", f.sizes());
    grids.emplace_back(f.size(-2), f.size(-1));
    strides.emplace_back(image_h / f.size(-2), image_w / f.size(-1));
  }
  const DType dtype = feature_maps[0].dtype();
  EMBER_CHECK(is_floating_point(dtype), "AnchorGenerator: feature maps must be floating point, got ", dtype);
  Tensor all = cat(grid_anchors(grids, strides, dtype), 0);
  return std::vector<Tensor>(image_list.image_sizes.size(), all);
}

void AnchorGeneratorImpl::pretty_print(std::ostream& os) const { os << "AnchorGenerator()"; }

}  // namespace ember::models::detection
