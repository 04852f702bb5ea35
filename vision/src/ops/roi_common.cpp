// Argument checks of the RoI poolings (roi_common.h), with torchvision's
// messages where it has one.
#include "ops/roi_common.h"

#include <cmath>

#include <ember/core/error.h>
#include <ember/ops/factories.h>
#include <ember/ops/shape.h>

#include "ember/vision/ops/roi_pooling.h"

namespace ember::vision::ops {
namespace detail {

std::vector<int64_t> roi_output_size(const char* op, const nn::functional::ExpandingInts& output_size) {
  std::vector<int64_t> size = output_size.expand(2, op, "output_size");
  EMBER_CHECK(size[0] > 0 && size[1] > 0, op, ": output_size should be positive, got (", size[0], ", ", size[1], ")");
  return size;
}

Tensor check_roi_arguments(const char* op, const Tensor& input, const Tensor& rois) {
  EMBER_CHECK(input.defined() && rois.defined(), op, ": input and boxes must be defined");
  EMBER_CHECK(input.dim() == 4, op, ": input should be a 4d tensor [N, C, H, W], got ", input.dim(), "D ",
              input.sizes());
  EMBER_CHECK(input.dtype() == kFloat32 || input.dtype() == kFloat64, op, ": input should be float32 or float64, got ",
              input.dtype());
  EMBER_CHECK(rois.dim() == 2, op, ": boxes should be a 2d tensor, got ", rois.dim(), "D");
  EMBER_CHECK(rois.size(1) == 5, op, ": The boxes tensor shape is not correct as Tensor[K, 5], got ", rois.sizes());
  EMBER_CHECK(rois.dtype() == input.dtype(), op, ": boxes (", rois.dtype(), ") and input (", input.dtype(),
              ") should have the same dtype");
  EMBER_CHECK(rois.device() == input.device(), op, ": boxes (", rois.device(), ") and input (", input.device(),
              ") should be on the same device");
  const Tensor host = rois.select(1, 0).to(kCPU).to(kFloat64).contiguous();
  const double* idx = host.data_ptr<double>();
  const int64_t n = input.size(0);
  for (int64_t k = 0; k < host.numel(); ++k) {
    EMBER_CHECK(idx[k] >= 0 && idx[k] < static_cast<double>(n) && std::floor(idx[k]) == idx[k], op, ": box ", k,
                " has image index ", idx[k], ", but the input holds ", n, " images (indices 0 to ", n - 1, ")");
  }
  return rois.contiguous();
}

Tensor rois_from_list(const char* op, const std::vector<Tensor>& boxes) {
  for (size_t i = 0; i < boxes.size(); ++i) {
    EMBER_CHECK(boxes[i].defined() && boxes[i].dim() == 2 && boxes[i].size(1) == 4, op,
                ": The shape of the tensor in the boxes list is not correct as List[Tensor[L, 4]]: boxes[", i,
                "] has shape ", boxes[i].defined() ? boxes[i].sizes() : IntArrayRef{});
  }
  return convert_boxes_to_roi_format(boxes);
}

}  // namespace detail

Tensor convert_boxes_to_roi_format(const std::vector<Tensor>& boxes) {
  EMBER_CHECK(!boxes.empty(), "convert_boxes_to_roi_format: the list of boxes is empty");
  std::vector<Tensor> rows;
  for (size_t i = 0; i < boxes.size(); ++i) {
    EMBER_CHECK(boxes[i].defined() && boxes[i].dim() == 2 && boxes[i].size(1) == 4,
                "convert_boxes_to_roi_format: boxes[", i, "] should be a [L, 4] tensor");
    const Tensor ids = full({boxes[i].size(0), 1}, static_cast<double>(i), boxes[i].options());
    rows.push_back(cat({ids, boxes[i]}, 1));
  }
  return rows.size() == 1 ? rows[0] : cat(rows, 0);
}

}  // namespace ember::vision::ops
