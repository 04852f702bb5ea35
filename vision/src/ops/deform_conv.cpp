// deform_conv2d: torchvision's checks (and messages) once, then the sampled
// columns (deform_im2col_slot) times the weight per group; the backward
// multiplies back to column gradients and scatters them to the input, offset
// and mask (deform_col2im_slot). Loops: kernels/cpu/deform_conv_kernels.cpp.
#include "ember/vision/ops/deform_conv.h"

#include <ember/autograd/function.h>
#include <ember/core/error.h>
#include <ember/ops/factories.h>
#include <ember/ops/linalg.h>

#include "kernels/slots/detection_kernels.h"

namespace ember::vision {

EMBER_DEFINE_SLOT(deform_im2col_slot, DeformIm2colFn, "vision.deform_im2col");
EMBER_DEFINE_SLOT(deform_col2im_slot, DeformCol2imFn, "vision.deform_col2im");

}  // namespace ember::vision

namespace ember::vision::ops {
namespace {

using autograd::AutogradContext;
using autograd::variable_list;

DeformGeometry geometry_from(AutogradContext* ctx) {
  const std::vector<int64_t> g = ctx->saved_data["geometry"].toIntVector();
  return DeformGeometry{g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8]};
}

struct DeformConv2dFunction : autograd::Function<DeformConv2dFunction> {
  static Tensor forward(AutogradContext* ctx, const Tensor& input, const Tensor& offset, const Tensor& mask,
                        const Tensor& weight, const Tensor& bias, DeformGeometry geo, int64_t groups) {
    const int64_t n = input.size(0), out_c = weight.size(0);
    const int64_t oh = offset.size(2), ow = offset.size(3);
    const Device device = input.device();
    Tensor columns = empty({input.size(1) * geo.kh * geo.kw, n * oh * ow}, input.options());
    deform_im2col_slot(device)(columns, input, offset, mask, geo);
    // [G, O / G, C / G * K] x [G, C / G * K, N * L] -> [O, N, OH, OW].
    const Tensor w = weight.reshape({groups, out_c / groups, -1});
    Tensor out = bmm(w, columns.view({groups, -1, n * oh * ow})).reshape({out_c, n, oh, ow}).permute({1, 0, 2, 3});
    if (bias.defined()) out = out + bias.view({1, out_c, 1, 1});
    ctx->save_for_backward({input, offset, mask, weight, columns});
    ctx->saved_data["geometry"] = std::vector<int64_t>{geo.kh,    geo.kw,    geo.stride_h, geo.stride_w,     geo.pad_h,
                                                       geo.pad_w, geo.dil_h, geo.dil_w,    geo.offset_groups};
    ctx->saved_data["groups"] = groups;
    ctx->saved_data["has_bias"] = bias.defined();
    return out.contiguous();
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const Tensor &input = saved[0], &offset = saved[1], &mask = saved[2], &weight = saved[3], &columns = saved[4];
    const DeformGeometry geo = geometry_from(ctx);
    const int64_t groups = ctx->saved_data["groups"].toInt();
    const int64_t n = input.size(0), out_c = weight.size(0), oh = offset.size(2), ow = offset.size(3);
    const Tensor grad = grads[0];
    // [N, O, OH, OW] -> [G, O / G, N * L]
    const Tensor go = grad.permute({1, 0, 2, 3}).reshape({groups, out_c / groups, n * oh * ow});
    const Tensor w = weight.reshape({groups, out_c / groups, -1});
    Tensor grad_weight, grad_bias, grad_input, grad_offset, grad_mask;
    if (ctx->needs_input_grad(3))
      grad_weight = bmm(go, columns.view({groups, -1, n * oh * ow}).transpose(1, 2)).view(weight.sizes());
    if (ctx->saved_data["has_bias"].toBool()) grad_bias = grad.sum({0, 2, 3});
    if (ctx->needs_input_grad(0) || ctx->needs_input_grad(1) || (mask.defined() && ctx->needs_input_grad(2))) {
      const Tensor grad_columns = bmm(w.transpose(1, 2), go).reshape({-1, n * oh * ow}).contiguous();
      grad_input = zeros(input.sizes(), input.options());
      grad_offset = empty(offset.sizes(), offset.options());
      if (mask.defined()) grad_mask = empty(mask.sizes(), mask.options());
      deform_col2im_slot(input.device())(grad_input, grad_offset, grad_mask, grad_columns, input, offset, mask, geo);
    }
    return {grad_input, grad_offset, grad_mask, grad_weight, grad_bias, Tensor(), Tensor()};
  }
};

}  // namespace

Tensor deform_conv2d(const Tensor& input, const Tensor& offset, const Tensor& weight, const Tensor& bias,
                     const DeformConv2dOptions& options) {
  constexpr const char* op = "deform_conv2d";
  EMBER_CHECK(input.defined() && offset.defined() && weight.defined(), op,
              ": input, offset and weight must be defined");
  const Tensor mask = options.mask ? *options.mask : Tensor();
  EMBER_CHECK(input.dim() == 4, op, ": input should be 4d [N, C, H, W], got ", input.dim(), "D");
  EMBER_CHECK(offset.dim() == 4, op, ": offset should be 4d [N, 2 * G * KH * KW, OH, OW], got ", offset.dim(), "D");
  EMBER_CHECK(weight.dim() == 4, op, ": weight should be 4d [O, C / groups, KH, KW], got ", weight.dim(), "D");
  EMBER_CHECK(!mask.defined() || mask.dim() == 4, op, ": mask should be 4d [N, G * KH * KW, OH, OW], got ",
              mask.defined() ? mask.dim() : 0, "D");
  EMBER_CHECK(input.dtype() == kFloat32 || input.dtype() == kFloat64, op, ": input should be float32 or float64, got ",
              input.dtype());
  for (const Tensor* t : {&offset, &weight, &bias, &mask}) {
    if (!t->defined()) continue;
    EMBER_CHECK(t->dtype() == input.dtype() && t->device() == input.device(), op,
                ": offset, weight, bias and mask should have input's dtype and device (", input.dtype(), ", ",
                input.device(), "), got ", t->dtype(), ", ", t->device());
  }
  const std::vector<int64_t> stride = options.stride.expand(2, op, "stride");
  const std::vector<int64_t> pad = options.padding.expand(2, op, "padding");
  const std::vector<int64_t> dil = options.dilation.expand(2, op, "dilation");
  const int64_t kh = weight.size(2), kw = weight.size(3);
  EMBER_CHECK(kh > 0 && kw > 0, op, ": weight_h: ", kh, " weight_w: ", kw);
  EMBER_CHECK(stride[0] > 0 && stride[1] > 0, op, ": stride_h: ", stride[0], " stride_w: ", stride[1]);
  EMBER_CHECK(pad[0] >= 0 && pad[1] >= 0, op, ": pad_h: ", pad[0], " pad_w: ", pad[1]);
  EMBER_CHECK(dil[0] > 0 && dil[1] > 0, op, ": dilation_h: ", dil[0], " dilation_w: ", dil[1]);
  const int64_t channels = input.size(1);
  EMBER_CHECK(weight.size(1) > 0 && channels % weight.size(1) == 0, op, ": input has ", channels,
              " channels, which is not a multiple of weight.size(1) = ", weight.size(1));
  const int64_t groups = channels / weight.size(1);
  EMBER_CHECK(weight.size(0) % groups == 0, op, ": weight.size(0) = ", weight.size(0),
              " is not a multiple of the groups (", groups, ")");
  const int64_t offset_groups = offset.size(1) / (2 * kh * kw);
  EMBER_CHECK(offset_groups > 0 && offset.size(1) == offset_groups * 2 * kh * kw, op,
              ": the shape of the offset tensor at dimension 1 is not valid. It should be a multiple of 2 * "
              "weight.size[2] * weight.size[3].\nGot offset.shape[1]=",
              offset.size(1), ", while 2 * weight.size[2] * weight.size[3]=", 2 * kh * kw);
  EMBER_CHECK(channels % offset_groups == 0, op, ": input channels (", channels,
              ") are not a multiple of the offset groups (", offset_groups, ")");
  EMBER_CHECK(!mask.defined() || mask.size(1) == offset_groups * kh * kw, op,
              ": mask.shape[1] is not valid: got: ", mask.defined() ? mask.size(1) : 0,
              " expected: ", offset_groups * kh * kw);
  const int64_t oh = (input.size(2) + 2 * pad[0] - (dil[0] * (kh - 1) + 1)) / stride[0] + 1;
  const int64_t ow = (input.size(3) + 2 * pad[1] - (dil[1] * (kw - 1) + 1)) / stride[1] + 1;
  EMBER_CHECK(oh > 0 && ow > 0, op, ": Calculated output size too small - out_h: ", oh, " out_w: ", ow);
  EMBER_CHECK(offset.size(0) == input.size(0), op, ": invalid batch size of offset: ", offset.size(0), " for ",
              input.size(0), " images");
  EMBER_CHECK(offset.size(2) == oh && offset.size(3) == ow, op, ": offset output dims: (", offset.size(2), ", ",
              offset.size(3), ") - computed output dims: (", oh, ", ", ow, ")");
  if (mask.defined()) {
    EMBER_CHECK(mask.size(0) == input.size(0), op, ": invalid batch size of mask: ", mask.size(0), " for ",
                input.size(0), " images");
    EMBER_CHECK(mask.size(2) == oh && mask.size(3) == ow, op, ": mask output dims: (", mask.size(2), ", ", mask.size(3),
                ") - computed output dims: (", oh, ", ", ow, ")");
  }
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0)), op, ": bias should be [",
              weight.size(0), "], got ", bias.defined() ? bias.sizes() : IntArrayRef{});
  EMBER_CHECK(deform_im2col_slot.supports(input.device(), input.dtype()), op, ": no kernel for ", input.dtype(), " on ",
              input.device());
  const DeformGeometry geo{kh, kw, stride[0], stride[1], pad[0], pad[1], dil[0], dil[1], offset_groups};
  return DeformConv2dFunction::apply(input.contiguous(), offset.contiguous(),
                                     mask.defined() ? mask.contiguous() : Tensor(), weight.contiguous(), bias, geo,
                                     groups);
}

}  // namespace ember::vision::ops
