#pragma once
// Kernel slots of the detection ops (vision::ops: nms, the RoI poolings,
// deform_conv2d). The op files (src/ops/) check the arguments, allocate the
// outputs and call these; the kernels only compute. Tensors are contiguous,
// of one floating dtype, on one device; rois are [K, 5] (batch index, x1, y1,
// x2, y2) with batch indices already checked to lie in [0, N).
#include <cstdint>

#include <ember/core/tensor.h>

#include "kernels/slots/kernel_slot.h"

namespace ember::vision {

// Indices kept by NMS (int64 [kept], by decreasing score; CPU tensor).
using NmsFn = Tensor(const Tensor& boxes, const Tensor& scores, double iou_threshold);
extern KernelSlot<NmsFn> nms_slot;

// roi_align: out [K, C, PH, PW] from input [N, C, H, W]. sampling_ratio <= 0:
// adaptive (ceil(roi size / output size) samples per bin).
using RoiAlignForwardFn = void(Tensor& out, const Tensor& input, const Tensor& rois, double spatial_scale,
                               int64_t sampling_ratio, bool aligned);
// grad_input [N, C, H, W] (zeros on entry) += the gradient of out for grad [K, C, PH, PW].
using RoiAlignBackwardFn = void(Tensor& grad_input, const Tensor& grad, const Tensor& rois, double spatial_scale,
                                int64_t sampling_ratio, bool aligned);
extern KernelSlot<RoiAlignForwardFn> roi_align_forward_slot;
extern KernelSlot<RoiAlignBackwardFn> roi_align_backward_slot;

// roi_pool: out [K, C, PH, PW] and argmax (int64, the h * W + w of each
// maximum in its image plane, -1 for an empty bin).
using RoiPoolForwardFn = void(Tensor& out, Tensor& argmax, const Tensor& input, const Tensor& rois,
                              double spatial_scale);
using RoiPoolBackwardFn = void(Tensor& grad_input, const Tensor& grad, const Tensor& argmax, const Tensor& rois);
extern KernelSlot<RoiPoolForwardFn> roi_pool_forward_slot;
extern KernelSlot<RoiPoolBackwardFn> roi_pool_backward_slot;

// Position-sensitive variants: input [N, C_out * PH * PW, H, W], out
// [K, C_out, PH, PW]; bin (ph, pw) of output channel c reads input channel
// (c * PH + ph) * PW + pw.
using PsRoiAlignForwardFn = void(Tensor& out, const Tensor& input, const Tensor& rois, double spatial_scale,
                                 int64_t sampling_ratio);
using PsRoiAlignBackwardFn = void(Tensor& grad_input, const Tensor& grad, const Tensor& rois, double spatial_scale,
                                  int64_t sampling_ratio);
using PsRoiPoolForwardFn = void(Tensor& out, const Tensor& input, const Tensor& rois, double spatial_scale);
using PsRoiPoolBackwardFn = void(Tensor& grad_input, const Tensor& grad, const Tensor& rois, double spatial_scale);
extern KernelSlot<PsRoiAlignForwardFn> ps_roi_align_forward_slot;
extern KernelSlot<PsRoiAlignBackwardFn> ps_roi_align_backward_slot;
extern KernelSlot<PsRoiPoolForwardFn> ps_roi_pool_forward_slot;
extern KernelSlot<PsRoiPoolBackwardFn> ps_roi_pool_backward_slot;

// deform_conv2d's sampling (DCNv2): columns [C * KH * KW, N * OH * OW]
// (row (c, i, j), column (n, oh, ow)) from input [N, C, H, W], offset
// [N, 2 * G * KH * KW, OH, OW] and mask [N, G * KH * KW, OH, OW] (undefined:
// all ones); G offset groups of C / G channels each.
struct DeformGeometry {
  int64_t kh, kw, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, offset_groups;
};
using DeformIm2colFn = void(Tensor& columns, const Tensor& input, const Tensor& offset, const Tensor& mask,
                            const DeformGeometry& geometry);
// The backward of the sampling for grad_columns (same layout as columns):
// grad_input (zeros on entry, [N, C, H, W]) and grad_offset / grad_mask (of
// offset's / mask's shape; grad_mask undefined when mask is).
using DeformCol2imFn = void(Tensor& grad_input, Tensor& grad_offset, Tensor& grad_mask, const Tensor& grad_columns,
                            const Tensor& input, const Tensor& offset, const Tensor& mask,
                            const DeformGeometry& geometry);
extern KernelSlot<DeformIm2colFn> deform_im2col_slot;
extern KernelSlot<DeformCol2imFn> deform_col2im_slot;

// sigmoid_focal_loss (Note [Fused focal loss] in kernels/cpu/focal_loss_kernels.cpp):
// out [same shape] = the per-element loss of inputs and targets (one pass);
// alpha < 0: no class weighting.
using FocalLossForwardFn = void(Tensor& out, const Tensor& inputs, const Tensor& targets, double alpha, double gamma);
// grad_input = grad * d loss / d inputs, recomputed from inputs and targets;
// grad has the inputs' shape, or one element (a reduced loss's gradient),
// multiplied by scale (1 / numel for "mean").
using FocalLossBackwardFn = void(Tensor& grad_input, const Tensor& grad, const Tensor& inputs, const Tensor& targets,
                                 double alpha, double gamma, double scale);
extern KernelSlot<FocalLossForwardFn> focal_loss_forward_slot;
extern KernelSlot<FocalLossBackwardFn> focal_loss_backward_slot;

}  // namespace ember::vision
