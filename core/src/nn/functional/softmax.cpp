// nn::functional softmax, log_softmax and softmin: fused kernels
// (kernels/cpu/softmax_kernels.cpp) with their own backward, itself a fused
// kernel recorded as an op (softmax_backward_data) so double backward works.
#include "autograd/record.h"
#include "ember/nn/functional/activation.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"
#include "kernels/slots/activation_kernels.h"
#include "ops/op_utils.h"

namespace ember::nn::functional {

EMBER_DEFINE_FAMILY_SLOT(softmax_slot, SoftmaxFn, "softmax", kSoftmaxOpNames,
                         static_cast<int>(std::size(kSoftmaxOpNames)));
EMBER_DEFINE_FAMILY_SLOT(softmax_backward_slot, SoftmaxBackwardFn, "softmax_backward", kSoftmaxOpNames,
                         static_cast<int>(std::size(kSoftmaxOpNames)));

namespace {

using autograd::BackwardContext;
using autograd::variable_list;

Tensor softmax_impl(const Tensor& input, int64_t dim, std::optional<DType> dtype, bool log) {
  const char* name = log ? "log_softmax" : "softmax";
  EMBER_CHECK(input.defined(), name, ": input tensor is undefined");
  const Tensor x = dtype ? input.to(*dtype) : input;
  EMBER_CHECK(is_floating_point(x.dtype()), name, ": expected a floating point input, got ", x.dtype(),
              " (pass dtype to compute in a floating point type)");
  const int64_t d = wrap_dim(dim, x.dim(), name);
  autograd::OpRecorder rec(name, {x});
  const Tensor in = x.contiguous();
  Tensor out = empty(x.sizes(), x.options());
  softmax_slot(x.device())(in, out, d, log);
  if (rec)
    rec.record(out, [y = rec.save_output(out), d, log](BackwardContext& c) {
      return variable_list{softmax_backward_data(c.grads[0], c.unpack(y), d, log)};
    });
  return out;
}

}  // namespace

Tensor softmax(const Tensor& input, int64_t dim, std::optional<DType> dtype) {
  return softmax_impl(input, dim, dtype, false);
}
Tensor log_softmax(const Tensor& input, int64_t dim, std::optional<DType> dtype) {
  return softmax_impl(input, dim, dtype, true);
}
Tensor softmin(const Tensor& input, int64_t dim, std::optional<DType> dtype) {
  EMBER_CHECK(input.defined(), "softmin: input tensor is undefined");
  return softmax_impl(-(dtype ? input.to(*dtype) : input), dim, std::nullopt, false);
}

// Backward of the backward (y: the forward's output, g: its gradient, u: the
// gradient of this op's result):
//   softmax:     gx = y (g - s), s = sum(g y)      -> dg = y (u - sum(u y)),
//                                                      dy = u (g - s) - g sum(u y)
//   log_softmax: gx = g - exp(y) S, S = sum(g)     -> dg = u - sum(u exp(y)),
//                                                      dy = -u exp(y) S
Tensor softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, bool log) {
  const char* name = log ? "log_softmax_backward_data" : "softmax_backward_data";
  EMBER_CHECK(grad_output.defined() && output.defined(), name, ": undefined tensor");
  EMBER_CHECK(grad_output.sizes() == output.sizes(), name, ": grad_output shape ", grad_output.sizes(),
              " does not match output shape ", output.sizes());
  const int64_t d = wrap_dim(dim, output.dim(), name);
  autograd::OpRecorder rec(name, {grad_output, output});
  const Tensor g = grad_output.to(output.dtype()).contiguous();
  const Tensor y = output.contiguous();
  Tensor out = empty(y.sizes(), y.options());
  softmax_backward_slot(y.device())(g, y, out, d, log);
  if (rec)
    rec.record(out, [sg = rec.save(grad_output), sy = rec.save(output), d, log](BackwardContext& c) {
      const Tensor u = c.grads[0], g = c.unpack(sg), y = c.unpack(sy);
      Tensor dg, dy;
      if (log) {
        const Tensor ey = y.exp();
        if (c.needs(0)) dg = u - (u * ey).sum({d}, true);
        if (c.needs(1)) dy = -u * ey * g.sum({d}, true);
      } else {
        const Tensor uy = (u * y).sum({d}, true);
        if (c.needs(0)) dg = y * (u - uy);
        if (c.needs(1)) dy = u * (g - (g * y).sum({d}, true)) - g * uy;
      }
      return variable_list{dg, dy};
    });
  return out;
}

}  // namespace ember::nn::functional
