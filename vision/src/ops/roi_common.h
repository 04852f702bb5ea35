#pragma once
// Argument checks shared by the RoI poolings (roi_align.cpp, roi_pool.cpp,
// ps_roi.cpp): once per op, before any kernel runs.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/nn/functional/expanding.h>

namespace ember::vision::ops::detail {

// (PH, PW) from an int or a pair, each > 0.
std::vector<int64_t> roi_output_size(const char* op, const nn::functional::ExpandingInts& output_size);

// Checks input [N, C, H, W] (float32/float64) and rois [K, 5] of input's dtype
// and device, each batch index an integer in [0, N) (copied to the host for
// that: rois are small). Returns rois contiguous.
Tensor check_roi_arguments(const char* op, const Tensor& input, const Tensor& rois);

// torchvision's check_roi_boxes_shape for a list, then its conversion to [K, 5].
Tensor rois_from_list(const char* op, const std::vector<Tensor>& boxes);

}  // namespace ember::vision::ops::detail
