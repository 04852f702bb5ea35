// roi_pool and ps_roi_pool: checks, output shapes and the autograd nodes
// here; forward and backward loops behind their slots
// (kernels/cpu/roi_pool_kernels.cpp).
#include <ostream>

#include <ember/autograd/function.h>
#include <ember/core/error.h>
#include <ember/ops/factories.h>

#include "ember/vision/ops/roi_pooling.h"
#include "kernels/slots/detection_kernels.h"
#include "ops/roi_common.h"

namespace ember::vision {

EMBER_DEFINE_SLOT(roi_pool_forward_slot, RoiPoolForwardFn, "vision.roi_pool_forward");
EMBER_DEFINE_SLOT(roi_pool_backward_slot, RoiPoolBackwardFn, "vision.roi_pool_backward");
EMBER_DEFINE_SLOT(ps_roi_pool_forward_slot, PsRoiPoolForwardFn, "vision.ps_roi_pool_forward");
EMBER_DEFINE_SLOT(ps_roi_pool_backward_slot, PsRoiPoolBackwardFn, "vision.ps_roi_pool_backward");

}  // namespace ember::vision

namespace ember::vision::ops {
namespace {

using autograd::AutogradContext;
using autograd::variable_list;

struct RoiPoolFunction : autograd::Function<RoiPoolFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& input, const Tensor& rois, int64_t ph, int64_t pw,
                        double spatial_scale) {
    const Device device = input.device();
    EMBER_CHECK(roi_pool_forward_slot.supports(device, input.dtype()), "roi_pool: no kernel for ", input.dtype(),
                " on ", device);
    Tensor out = empty({rois.size(0), input.size(1), ph, pw}, input.options());
    Tensor argmax = empty({rois.size(0), input.size(1), ph, pw}, input.options().dtype(kInt64));
    roi_pool_forward_slot(device)(out, argmax, input.contiguous(), rois, spatial_scale);
    ctx->saved_data["input_shape"] = input.sizes().vec();
    ctx->save_for_backward({rois, argmax});
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    Tensor grad_input = zeros(ctx->saved_data["input_shape"].toIntVector(), grads[0].options());
    roi_pool_backward_slot(grads[0].device())(grad_input, grads[0].contiguous(), saved[1], saved[0]);
    return {grad_input, Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

struct PsRoiPoolFunction : autograd::Function<PsRoiPoolFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& input, const Tensor& rois, int64_t ph, int64_t pw,
                        double spatial_scale) {
    const Device device = input.device();
    EMBER_CHECK(ps_roi_pool_forward_slot.supports(device, input.dtype()), "ps_roi_pool: no kernel for ", input.dtype(),
                " on ", device);
    Tensor out = empty({rois.size(0), input.size(1) / (ph * pw), ph, pw}, input.options());
    ps_roi_pool_forward_slot(device)(out, input.contiguous(), rois, spatial_scale);
    ctx->saved_data["input_shape"] = input.sizes().vec();
    ctx->saved_data["spatial_scale"] = spatial_scale;
    ctx->save_for_backward({rois});
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const Tensor rois = ctx->get_saved_variables()[0];
    Tensor grad_input = zeros(ctx->saved_data["input_shape"].toIntVector(), grads[0].options());
    ps_roi_pool_backward_slot(grads[0].device())(grad_input, grads[0].contiguous(), rois,
                                                 ctx->saved_data["spatial_scale"].toDouble());
    return {grad_input, Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

}  // namespace

Tensor roi_pool(const Tensor& input, const Tensor& boxes, const ExpandingInts& output_size, double spatial_scale) {
  const std::vector<int64_t> size = detail::roi_output_size("roi_pool", output_size);
  const Tensor rois = detail::check_roi_arguments("roi_pool", input, boxes);
  return RoiPoolFunction::apply(input, rois, size[0], size[1], spatial_scale);
}

Tensor roi_pool(const Tensor& input, const std::vector<Tensor>& boxes, const ExpandingInts& output_size,
                double spatial_scale) {
  return roi_pool(input, detail::rois_from_list("roi_pool", boxes), output_size, spatial_scale);
}

Tensor ps_roi_pool(const Tensor& input, const Tensor& boxes, const ExpandingInts& output_size, double spatial_scale) {
  const std::vector<int64_t> size = detail::roi_output_size("ps_roi_pool", output_size);
  const Tensor rois = detail::check_roi_arguments("ps_roi_pool", input, boxes);
  EMBER_CHECK(input.size(1) % (size[0] * size[1]) == 0,
              "ps_roi_pool: input channels must be a multiple of pooling height * pooling width, got ", input.size(1),
              " channels for output size (", size[0], ", ", size[1], ")");
  return PsRoiPoolFunction::apply(input, rois, size[0], size[1], spatial_scale);
}

Tensor ps_roi_pool(const Tensor& input, const std::vector<Tensor>& boxes, const ExpandingInts& output_size,
                   double spatial_scale) {
  return ps_roi_pool(input, detail::rois_from_list("ps_roi_pool", boxes), output_size, spatial_scale);
}

RoIPoolImpl::RoIPoolImpl(const ExpandingInts& output_size, double spatial_scale)
    : nn::Module("RoIPool"),
      output_size(detail::roi_output_size("RoIPool", output_size)),
      spatial_scale(spatial_scale) {}

Tensor RoIPoolImpl::forward(const Tensor& input, const Tensor& rois) {
  return roi_pool(input, rois, output_size, spatial_scale);
}

Tensor RoIPoolImpl::forward(const Tensor& input, const std::vector<Tensor>& rois) {
  return roi_pool(input, rois, output_size, spatial_scale);
}

void RoIPoolImpl::pretty_print(std::ostream& os) const {
  os << "RoIPool(output_size=(" << output_size[0] << ", " << output_size[1] << "), spatial_scale=" << spatial_scale
     << ")";
}

PSRoIPoolImpl::PSRoIPoolImpl(const ExpandingInts& output_size, double spatial_scale)
    : nn::Module("PSRoIPool"),
      output_size(detail::roi_output_size("PSRoIPool", output_size)),
      spatial_scale(spatial_scale) {}

Tensor PSRoIPoolImpl::forward(const Tensor& input, const Tensor& rois) {
  return ps_roi_pool(input, rois, output_size, spatial_scale);
}

Tensor PSRoIPoolImpl::forward(const Tensor& input, const std::vector<Tensor>& rois) {
  return ps_roi_pool(input, rois, output_size, spatial_scale);
}

void PSRoIPoolImpl::pretty_print(std::ostream& os) const {
  os << "PSRoIPool(output_size=(" << output_size[0] << ", " << output_size[1] << "), spatial_scale=" << spatial_scale
     << ")";
}

}  // namespace ember::vision::ops
