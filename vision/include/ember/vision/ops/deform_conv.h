#pragma once
// Deformable convolution v1 / v2 (torchvision.ops.deform_conv2d): every
// kernel tap samples the input bilinearly at its grid position plus a learned
// offset, scaled by a modulation mask in DCNv2
// (https://arxiv.org/abs/1703.06211, https://arxiv.org/abs/1811.11168).
//
//   // x [N, C, H, W], weight [O, C / groups, KH, KW]
//   Tensor y = vision::ops::deform_conv2d(x, offset, weight, bias, {.padding = 1, .mask = mask});
#include <optional>

#include <ember/core/tensor.h>
#include <ember/nn/functional/expanding.h>

namespace ember::vision::ops {

struct DeformConv2dOptions {
  nn::functional::ExpandingInts stride = 1;
  nn::functional::ExpandingInts padding = 0;
  nn::functional::ExpandingInts dilation = 1;
  // [N, G * KH * KW, OH, OW]: each sample's modulation (DCNv2); none: 1.
  std::optional<Tensor> mask = std::nullopt;
};

// input [N, C, H, W]; offset [N, 2 * G * KH * KW, OH, OW], G offset groups of
// C / G channels each, (dy, dx) per tap in row-major tap order; weight
// [O, C / groups, KH, KW] (groups = C / weight.size(1)); bias [O] or
// undefined. OH, OW as a convolution's. Returns [N, O, OH, OW]. float32 or
// float64; differentiable in input, offset, mask, weight and bias (first
// order, as torchvision). Computed as torchvision: the sampled columns
// (deform_im2col_slot) times the weight, one matrix product per group.
Tensor deform_conv2d(const Tensor& input, const Tensor& offset, const Tensor& weight, const Tensor& bias = {},
                     const DeformConv2dOptions& options = {});

}  // namespace ember::vision::ops
