// roi_align and ps_roi_align: checks, output shapes and the autograd nodes
// here; forward and backward loops behind their slots
// (kernels/cpu/roi_align_kernels.cpp).
#include <cmath>
#include <ostream>

#include <ember/autograd/function.h>
#include <ember/core/error.h>
#include <ember/ops/factories.h>

#include "ember/vision/ops/roi_pooling.h"
#include "kernels/slots/detection_kernels.h"
#include "ops/roi_common.h"

namespace ember::vision {

EMBER_DEFINE_SLOT(roi_align_forward_slot, RoiAlignForwardFn, "vision.roi_align_forward");
EMBER_DEFINE_SLOT(roi_align_backward_slot, RoiAlignBackwardFn, "vision.roi_align_backward");
EMBER_DEFINE_SLOT(ps_roi_align_forward_slot, PsRoiAlignForwardFn, "vision.ps_roi_align_forward");
EMBER_DEFINE_SLOT(ps_roi_align_backward_slot, PsRoiAlignBackwardFn, "vision.ps_roi_align_backward");

}  // namespace ember::vision

namespace ember::vision::ops {
namespace {

using autograd::AutogradContext;
using autograd::variable_list;

void save_input_shape(AutogradContext* ctx, const Tensor& input) {
  ctx->saved_data["input_shape"] = input.sizes().vec();
}

Tensor zeros_of_input(AutogradContext* ctx, const Tensor& grad) {
  return zeros(ctx->saved_data["input_shape"].toIntVector(), grad.options());
}

struct RoiAlignFunction : autograd::Function<RoiAlignFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& input, const Tensor& rois, int64_t ph, int64_t pw,
                        double spatial_scale, int64_t sampling_ratio, bool aligned) {
    const Device device = input.device();
    EMBER_CHECK(roi_align_forward_slot.supports(device, input.dtype()), "roi_align: no kernel for ", input.dtype(),
                " on ", device);
    Tensor out = empty({rois.size(0), input.size(1), ph, pw}, input.options());
    roi_align_forward_slot(device)(out, input.contiguous(), rois, spatial_scale, sampling_ratio, aligned);
    save_input_shape(ctx, input);
    ctx->saved_data["spatial_scale"] = spatial_scale;
    ctx->saved_data["sampling_ratio"] = sampling_ratio;
    ctx->saved_data["aligned"] = aligned;
    ctx->save_for_backward({rois});
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const Tensor rois = ctx->get_saved_variables()[0];
    Tensor grad_input = zeros_of_input(ctx, grads[0]);
    roi_align_backward_slot(grads[0].device())(
        grad_input, grads[0].contiguous(), rois, ctx->saved_data["spatial_scale"].toDouble(),
        ctx->saved_data["sampling_ratio"].toInt(), ctx->saved_data["aligned"].toBool());
    return {grad_input, Tensor(), Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

struct PsRoiAlignFunction : autograd::Function<PsRoiAlignFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& input, const Tensor& rois, int64_t ph, int64_t pw,
                        double spatial_scale, int64_t sampling_ratio) {
    const Device device = input.device();
    EMBER_CHECK(ps_roi_align_forward_slot.supports(device, input.dtype()), "ps_roi_align: no kernel for ",
                input.dtype(), " on ", device);
    Tensor out = empty({rois.size(0), input.size(1) / (ph * pw), ph, pw}, input.options());
    ps_roi_align_forward_slot(device)(out, input.contiguous(), rois, spatial_scale, sampling_ratio);
    save_input_shape(ctx, input);
    ctx->saved_data["spatial_scale"] = spatial_scale;
    ctx->saved_data["sampling_ratio"] = sampling_ratio;
    ctx->save_for_backward({rois});
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const Tensor rois = ctx->get_saved_variables()[0];
    Tensor grad_input = zeros_of_input(ctx, grads[0]);
    ps_roi_align_backward_slot(grads[0].device())(grad_input, grads[0].contiguous(), rois,
                                                  ctx->saved_data["spatial_scale"].toDouble(),
                                                  ctx->saved_data["sampling_ratio"].toInt());
    return {grad_input, Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

// Note [Adaptive sampling of inverted boxes]: with aligned=True a box with
// x2 < x1 (or y2 < y1) has a negative size, and the adaptive sampling grid
// ceil(size / output_size) per dim can be negative. Where the two grid sizes
// have opposite signs, torchvision's kernel sizes a buffer by their product
// and fails ("cannot create std::vector larger than max_size()"); Ember
// raises an ember::Error naming the box instead. Elsewhere a non-positive
// grid samples nothing and the bin is 0, as torchvision's.
void check_inverted_boxes(const Tensor& rois, int64_t ph, int64_t pw, double spatial_scale, int64_t sampling_ratio,
                          bool aligned) {
  if (!aligned || sampling_ratio > 0 || rois.size(0) == 0) return;
  const Tensor host = rois.to(kCPU).to(kFloat64).contiguous();
  const double* r = host.data_ptr<double>();
  for (int64_t k = 0; k < rois.size(0); ++k) {
    const double w = (r[k * 5 + 3] - r[k * 5 + 1]) * spatial_scale, h = (r[k * 5 + 4] - r[k * 5 + 2]) * spatial_scale;
    const double grid_w = std::ceil(w / static_cast<double>(pw)), grid_h = std::ceil(h / static_cast<double>(ph));
    EMBER_CHECK(grid_w * grid_h >= 0, "roi_align: box ", k, " has x2 < x1 or y2 < y1 (width ", w, ", height ", h,
                "), which aligned=True cannot sample adaptively; pass a sampling_ratio > 0");
  }
}

}  // namespace

Tensor roi_align(const Tensor& input, const Tensor& boxes, const ExpandingInts& output_size, double spatial_scale,
                 int64_t sampling_ratio, bool aligned) {
  const std::vector<int64_t> size = detail::roi_output_size("roi_align", output_size);
  const Tensor rois = detail::check_roi_arguments("roi_align", input, boxes);
  check_inverted_boxes(rois, size[0], size[1], spatial_scale, sampling_ratio, aligned);
  return RoiAlignFunction::apply(input, rois, size[0], size[1], spatial_scale, sampling_ratio, aligned);
}

Tensor roi_align(const Tensor& input, const std::vector<Tensor>& boxes, const ExpandingInts& output_size,
                 double spatial_scale, int64_t sampling_ratio, bool aligned) {
  return roi_align(input, detail::rois_from_list("roi_align", boxes), output_size, spatial_scale, sampling_ratio,
                   aligned);
}

Tensor ps_roi_align(const Tensor& input, const Tensor& boxes, const ExpandingInts& output_size, double spatial_scale,
                    int64_t sampling_ratio) {
  const std::vector<int64_t> size = detail::roi_output_size("ps_roi_align", output_size);
  const Tensor rois = detail::check_roi_arguments("ps_roi_align", input, boxes);
  EMBER_CHECK(input.size(1) % (size[0] * size[1]) == 0,
              "ps_roi_align: input channels must be a multiple of pooling height * pooling width, got ", input.size(1),
              " channels for output size (", size[0], ", ", size[1], ")");
  return PsRoiAlignFunction::apply(input, rois, size[0], size[1], spatial_scale, sampling_ratio);
}

Tensor ps_roi_align(const Tensor& input, const std::vector<Tensor>& boxes, const ExpandingInts& output_size,
                    double spatial_scale, int64_t sampling_ratio) {
  return ps_roi_align(input, detail::rois_from_list("ps_roi_align", boxes), output_size, spatial_scale, sampling_ratio);
}

RoIAlignImpl::RoIAlignImpl(const ExpandingInts& output_size, double spatial_scale, int64_t sampling_ratio, bool aligned)
    : nn::Module("RoIAlign"),
      output_size(detail::roi_output_size("RoIAlign", output_size)),
      spatial_scale(spatial_scale),
      sampling_ratio(sampling_ratio),
      aligned(aligned) {}

Tensor RoIAlignImpl::forward(const Tensor& input, const Tensor& rois) {
  return roi_align(input, rois, output_size, spatial_scale, sampling_ratio, aligned);
}

Tensor RoIAlignImpl::forward(const Tensor& input, const std::vector<Tensor>& rois) {
  return roi_align(input, rois, output_size, spatial_scale, sampling_ratio, aligned);
}

void RoIAlignImpl::pretty_print(std::ostream& os) const {
  os << "RoIAlign(output_size=(" << output_size[0] << ", " << output_size[1] << "), spatial_scale=" << spatial_scale
     << ", sampling_ratio=" << sampling_ratio << ", aligned=" << (aligned ? "True" : "False") << ")";
}

PSRoIAlignImpl::PSRoIAlignImpl(const ExpandingInts& output_size, double spatial_scale, int64_t sampling_ratio)
    : nn::Module("PSRoIAlign"),
      output_size(detail::roi_output_size("PSRoIAlign", output_size)),
      spatial_scale(spatial_scale),
      sampling_ratio(sampling_ratio) {}

Tensor PSRoIAlignImpl::forward(const Tensor& input, const Tensor& rois) {
  return ps_roi_align(input, rois, output_size, spatial_scale, sampling_ratio);
}

Tensor PSRoIAlignImpl::forward(const Tensor& input, const std::vector<Tensor>& rois) {
  return ps_roi_align(input, rois, output_size, spatial_scale, sampling_ratio);
}

void PSRoIAlignImpl::pretty_print(std::ostream& os) const {
  os << "PSRoIAlign(output_size=(" << output_size[0] << ", " << output_size[1] << "), spatial_scale=" << spatial_scale
     << ", sampling_ratio=" << sampling_ratio << ")";
}

}  // namespace ember::vision::ops
