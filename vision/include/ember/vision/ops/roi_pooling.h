#pragma once
// RoI poolings of torchvision.ops: roi_align (Mask R-CNN), roi_pool (Fast
// R-CNN), ps_roi_align and ps_roi_pool (position-sensitive, R-FCN), and their
// modules RoIAlign, RoIPool, PSRoIAlign, PSRoIPool. Same arguments and
// numerics as torchvision's CPU kernels; forward and backward are kernels of
// their own (differentiable in input, not in the boxes; no double backward).
//
//   Tensor rois = ...;                                     // [K, 5]: image index, x1, y1, x2, y2
//   Tensor y = vision::ops::roi_align(features, rois, {7, 7}, 1.0 / 16, -1, /*aligned=*/true);
//   Tensor y = vision::ops::roi_align(features, {boxes_img0, boxes_img1}, 7, 0.25, 2);  // [Ki, 4] each
#include <cstdint>
#include <iosfwd>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/nn/functional/expanding.h>
#include <ember/nn/module.h>

namespace ember::vision::ops {

using nn::functional::ExpandingInts;

// input [N, C, H, W] (float32 or float64); boxes [K, 5] with the image index
// in column 0 (an integral value in [0, N)), or one [Ki, 4] tensor per image.
// output_size: (PH, PW) or one value for both; box coordinates are multiplied
// by spatial_scale. Returns [K, C, PH, PW] (K = sum Ki for a list).
//
// roi_align: each bin averages sampling_ratio^2 bilinear samples (<= 0:
// ceil(roi size / output size) per dim, torchvision's adaptive -1). aligned:
// shift the box by -0.5 pixel (pixel centres at integer + 0.5); without it,
// boxes smaller than a pixel are stretched to one pixel, as in torchvision.
Tensor roi_align(const Tensor& input, const Tensor& boxes, const ExpandingInts& output_size, double spatial_scale = 1.0,
                 int64_t sampling_ratio = -1, bool aligned = false);
Tensor roi_align(const Tensor& input, const std::vector<Tensor>& boxes, const ExpandingInts& output_size,
                 double spatial_scale = 1.0, int64_t sampling_ratio = -1, bool aligned = false);

// roi_pool: the maximum over each bin of the box rounded to whole pixels
// (0 for an empty bin).
Tensor roi_pool(const Tensor& input, const Tensor& boxes, const ExpandingInts& output_size, double spatial_scale = 1.0);
Tensor roi_pool(const Tensor& input, const std::vector<Tensor>& boxes, const ExpandingInts& output_size,
                double spatial_scale = 1.0);

// Position-sensitive: input has C_out * PH * PW channels; returns
// [K, C_out, PH, PW], bin (ph, pw) of channel c pooled from input channel
// (c * PH + ph) * PW + pw. ps_roi_align averages bilinear samples (boxes
// shifted by -0.5 pixel), ps_roi_pool averages the whole pixels of the bin.
Tensor ps_roi_align(const Tensor& input, const Tensor& boxes, const ExpandingInts& output_size,
                    double spatial_scale = 1.0, int64_t sampling_ratio = -1);
Tensor ps_roi_align(const Tensor& input, const std::vector<Tensor>& boxes, const ExpandingInts& output_size,
                    double spatial_scale = 1.0, int64_t sampling_ratio = -1);
Tensor ps_roi_pool(const Tensor& input, const Tensor& boxes, const ExpandingInts& output_size,
                   double spatial_scale = 1.0);
Tensor ps_roi_pool(const Tensor& input, const std::vector<Tensor>& boxes, const ExpandingInts& output_size,
                   double spatial_scale = 1.0);

// torchvision's convert_boxes_to_roi_format: [sum Ki, 5] with each box's image index.
Tensor convert_boxes_to_roi_format(const std::vector<Tensor>& boxes);

// The modules hold the arguments; forward(input, rois) as the functions.
class RoIAlignImpl : public nn::Module {
 public:
  RoIAlignImpl(const ExpandingInts& output_size, double spatial_scale, int64_t sampling_ratio, bool aligned = false);
  Tensor forward(const Tensor& input, const Tensor& rois);
  Tensor forward(const Tensor& input, const std::vector<Tensor>& rois);
  void pretty_print(std::ostream& os) const override;
  std::vector<int64_t> output_size;
  double spatial_scale;
  int64_t sampling_ratio;
  bool aligned;
};
EMBER_MODULE(RoIAlign);

class RoIPoolImpl : public nn::Module {
 public:
  RoIPoolImpl(const ExpandingInts& output_size, double spatial_scale);
  Tensor forward(const Tensor& input, const Tensor& rois);
  Tensor forward(const Tensor& input, const std::vector<Tensor>& rois);
  void pretty_print(std::ostream& os) const override;
  std::vector<int64_t> output_size;
  double spatial_scale;
};
EMBER_MODULE(RoIPool);

class PSRoIAlignImpl : public nn::Module {
 public:
  PSRoIAlignImpl(const ExpandingInts& output_size, double spatial_scale, int64_t sampling_ratio);
  Tensor forward(const Tensor& input, const Tensor& rois);
  Tensor forward(const Tensor& input, const std::vector<Tensor>& rois);
  void pretty_print(std::ostream& os) const override;
  std::vector<int64_t> output_size;
  double spatial_scale;
  int64_t sampling_ratio;
};
EMBER_MODULE(PSRoIAlign);

class PSRoIPoolImpl : public nn::Module {
 public:
  PSRoIPoolImpl(const ExpandingInts& output_size, double spatial_scale);
  Tensor forward(const Tensor& input, const Tensor& rois);
  Tensor forward(const Tensor& input, const std::vector<Tensor>& rois);
  void pretty_print(std::ostream& os) const override;
  std::vector<int64_t> output_size;
  double spatial_scale;
};
EMBER_MODULE(PSRoIPool);

}  // namespace ember::vision::ops
