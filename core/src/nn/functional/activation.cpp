// nn::functional elementwise activations. Ops without a core kernel run the
// activation kernel (kernels/cpu/activation_kernels.cpp) and record their
// derivative as Tensor ops (so double backward works), as PyTorch's
// derivatives.yaml; the others forward to core ops, which record themselves.
#include "ember/nn/functional/activation.h"

#include <cmath>

#include "autograd/record.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/random.h"
#include "ember/ops/shape.h"
#include "kernels/slots/activation_kernels.h"
#include "ops/op_utils.h"

namespace ember::nn::functional {

EMBER_DEFINE_FAMILY_SLOT(activation_slot, ActivationFn, "activation", kActOpNames,
                         static_cast<int>(std::size(kActOpNames)));
EMBER_DEFINE_SLOT(prelu_slot, PreluFn, "prelu");

namespace {

using autograd::BackwardContext;
using autograd::variable_list;

// d op / dx times the incoming gradient, from the saved input x.
using Derivative = Tensor (*)(const Tensor& x, const Tensor& grad, const ActParams& p);

Tensor compute(ActOp op, const char* name, const Tensor& x, const ActParams& p, const Tensor& out) {
  EMBER_CHECK(x.defined(), name, ": input tensor is undefined");
  TensorIterator iter(name);
  iter.add_output(out).add_input(x).is_inplace(out.defined());
  iter.build();
  activation_slot(iter.device())(iter, op, p);
  iter.finish();
  if (out.defined()) out.bump_version();
  return iter.output();
}

Tensor run(ActOp op, const char* name, const Tensor& x, const ActParams& p, Derivative df) {
  autograd::OpRecorder rec(name, {x});
  rec.allow_batched_grads();  // elementwise formulas
  Tensor out = compute(op, name, x, p, Tensor());
  if (rec)
    rec.record(out, [sx = rec.save(x), p, df](BackwardContext& c) {
      return variable_list{df(c.unpack(sx), c.grads[0], p)};
    });
  return out;
}

// In place: recorded as the out-of-place op on a copy written back (the
// formula reads the input, which the write would change).
Tensor& run_(ActOp op, const char* name, const char* name_, Tensor& x, const ActParams& p, Derivative df) {
  EMBER_CHECK(x.defined(), name_, ": input tensor is undefined");
  if (autograd::inplace_records(x)) return autograd::assign_inplace(x, run(op, name, x.clone(), p, df), name_);
  compute(op, name_, x, p, x);
  return x;
}

Tensor zero_where(const Tensor& mask, const Tensor& grad) { return where(mask, Scalar(0), grad); }

// ---- derivatives (PyTorch's *_backward formulas) ----
Tensor d_leaky_relu(const Tensor& x, const Tensor& g, const ActParams& p) {
  return where(x > 0, g, g * p.p0);
}
// NaN inputs take the positive branch (PyTorch's elu_backward tests x <= 0).
Tensor d_elu(const Tensor& x, const Tensor& g, const ActParams& p) {  // alpha, scale, input_scale
  return where(x <= 0, g * (exp(x * p.p2) * (p.p0 * p.p1 * p.p2)), g * p.p1);
}
Tensor d_hardtanh(const Tensor& x, const Tensor& g, const ActParams& p) {
  return zero_where(logical_or(x <= p.p0, x >= p.p1), g);
}
Tensor d_hardswish(const Tensor& x, const Tensor& g, const ActParams&) {
  return where(x < -3, Scalar(0), where(x <= 3, g * (x / 3 + 0.5), g));
}
Tensor d_hardsigmoid(const Tensor& x, const Tensor& g, const ActParams&) {
  return where(logical_and(x > -3, x < 3), g / 6, Scalar(0));
}
Tensor d_softsign(const Tensor& x, const Tensor& g, const ActParams&) {
  return g / (x.abs() + 1).square();
}
Tensor d_shrink(const Tensor& x, const Tensor& g, const ActParams& p) {
  return zero_where(logical_and(x >= -p.p0, x <= p.p0), g);
}
Tensor d_tanhshrink(const Tensor& x, const Tensor& g, const ActParams&) {
  return g * x.tanh().square();
}
Tensor d_threshold(const Tensor& x, const Tensor& g, const ActParams& p) {
  return zero_where(x <= p.p0, g);
}
Tensor d_mish(const Tensor& x, const Tensor& g, const ActParams&) {
  const Tensor t = ember::softplus(x).tanh();
  return g * (t + x * x.sigmoid() * (1 - t * t));
}
Tensor d_logsigmoid(const Tensor& x, const Tensor& g, const ActParams&) {
  return g * (-x).sigmoid();
}

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

void check_celu_alpha(double alpha, const char* name) {
  EMBER_CHECK(alpha != 0, name, ": ZeroDivisionError: alpha cannot be 0 for CELU");
}

}  // namespace

Tensor relu(const Tensor& input) { return ember::relu(input); }
Tensor& relu_(Tensor& input) { return ember::relu_(input); }

Tensor hardtanh(const Tensor& input, double min_val, double max_val) {
  EMBER_CHECK(max_val >= min_val, "hardtanh: max_val (", max_val, ") must be greater than or equal to min_val (",
              min_val, ")");
  EMBER_CHECK(!input.defined() || input.dtype() != kBool, "hardtanh: Bool inputs not supported for hardtanh");
  // (PyTorch truncates the limits to integers first: -0.375 is 0 and passes)
  EMBER_CHECK(!input.defined() || input.dtype() != kUInt8 || std::trunc(min_val) >= 0,
              "hardtanh: cannot do hardtanh on an unsigned type with negative limits (min_val ", min_val, ")");
  if (!is_floating_point(input.dtype()))  // integers: clamp keeps the dtype
    return ember::clamp(input, Scalar(min_val), Scalar(max_val)).to(input.dtype());
  return run(ActOp::Hardtanh, "hardtanh", input, {min_val, max_val}, d_hardtanh);
}
Tensor& hardtanh_(Tensor& input, double min_val, double max_val) {
  EMBER_CHECK(max_val >= min_val, "hardtanh_: max_val (", max_val, ") must be greater than or equal to min_val (",
              min_val, ")");
  if (!is_floating_point(input.dtype())) return input.copy_(hardtanh(input, min_val, max_val));
  return run_(ActOp::Hardtanh, "hardtanh", "hardtanh_", input, {min_val, max_val}, d_hardtanh);
}
Tensor relu6(const Tensor& input) { return hardtanh(input, 0.0, 6.0); }
Tensor& relu6_(Tensor& input) { return hardtanh_(input, 0.0, 6.0); }

Tensor leaky_relu(const Tensor& input, double negative_slope) {
  return run(ActOp::LeakyRelu, "leaky_relu", input, {negative_slope}, d_leaky_relu);
}
Tensor& leaky_relu_(Tensor& input, double negative_slope) {
  return run_(ActOp::LeakyRelu, "leaky_relu", "leaky_relu_", input, {negative_slope}, d_leaky_relu);
}

Tensor prelu(const Tensor& input, const Tensor& weight) {
  EMBER_CHECK(input.defined() && weight.defined(), "prelu: input and weight must be defined");
  const int64_t channels = input.dim() >= 2 ? input.size(1) : (input.dim() == 1 ? input.size(0) : 1);
  const int64_t n = weight.numel();
  EMBER_CHECK(weight.dim() <= 1, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = ",
              weight.dim());
  EMBER_CHECK(n == 1 || n == channels, "prelu: Mismatch of parameter numbers and input channel size. Found "
              "parameter numbers = ", n, " and channel size = ", channels, ".");
  Tensor w = weight;
  if (n != 1 && input.dim() >= 2) {
    DimVector shape(static_cast<size_t>(input.dim()), 1);
    shape[1] = n;
    w = weight.reshape(shape);
  } else if (n == 1) {
    w = weight.reshape({});
  }
  autograd::OpRecorder rec("prelu", {input, weight});
  rec.allow_batched_grads();  // elementwise formulas and a sum_to
  TensorIterator iter("prelu");
  iter.add_output(Tensor()).add_input(input).add_input(w).promote_inputs_to_common_dtype();
  iter.build();
  prelu_slot(iter.device())(iter);
  iter.finish();
  Tensor out = iter.output();
  if (rec)
    rec.record(out, [sx = rec.save(input), sw = rec.save(w), weight_sizes = weight.sizes().vec()](
                        BackwardContext& c) {
      // PyTorch's prelu backward: d/dx is 1 or the slope, d/dw is x where x <= 0.
      const Tensor x = c.unpack(sx), w = c.unpack(sw), g = c.grads[0];
      const Tensor positive = x > 0;
      variable_list grads(2);
      if (c.needs(0)) grads[0] = where(positive, g, g * w);
      if (c.needs(1)) grads[1] = autograd::sum_to(zero_where(positive, g * x), w.sizes()).reshape(weight_sizes);
      return grads;
    });
  return out;
}

namespace {
// Slopes of rrelu in training: U(lower, upper) where input < 0, else 1.
Tensor rrelu_noise(const Tensor& input, double lower, double upper, Generator* generator) {
  EMBER_CHECK(lower <= upper, "rrelu: lower bound (", lower, ") should be less than or equal to the upper bound (",
              upper, ")");
  EMBER_CHECK(is_floating_point(input.dtype()), "rrelu: expected a floating point input, got ", input.dtype());
  Tensor noise = empty_like(input.detach());
  noise.uniform_(lower, upper, generator);
  return where(input.detach() >= 0, Scalar(1), noise);
}
}  // namespace

namespace {
void check_rrelu_bounds(double lower, double upper, const char* op) {
  EMBER_CHECK(lower <= upper, op, ": lower bound (", lower, ") should be less than or equal to the upper bound (",
              upper, ")");
}
}  // namespace

Tensor rrelu(const Tensor& input, double lower, double upper, bool training, Generator* generator) {
  check_rrelu_bounds(lower, upper, "rrelu");
  if (!training) return leaky_relu(input, (lower + upper) / 2);
  return input * rrelu_noise(input, lower, upper, generator);
}
Tensor& rrelu_(Tensor& input, double lower, double upper, bool training, Generator* generator) {
  check_rrelu_bounds(lower, upper, "rrelu_");
  if (!training) return leaky_relu_(input, (lower + upper) / 2);
  return input.mul_(rrelu_noise(input, lower, upper, generator));
}

Tensor elu(const Tensor& input, double alpha) { return run(ActOp::Elu, "elu", input, {alpha, 1, 1}, d_elu); }
Tensor& elu_(Tensor& input, double alpha) { return run_(ActOp::Elu, "elu", "elu_", input, {alpha, 1, 1}, d_elu); }
Tensor celu(const Tensor& input, double alpha) {
  check_celu_alpha(alpha, "celu");
  return run(ActOp::Elu, "celu", input, {alpha, 1, 1 / alpha}, d_elu);
}
Tensor& celu_(Tensor& input, double alpha) {
  check_celu_alpha(alpha, "celu_");
  return run_(ActOp::Elu, "celu", "celu_", input, {alpha, 1, 1 / alpha}, d_elu);
}
Tensor selu(const Tensor& input) { return run(ActOp::Elu, "selu", input, {kSeluAlpha, kSeluScale, 1}, d_elu); }
Tensor& selu_(Tensor& input) {
  return run_(ActOp::Elu, "selu", "selu_", input, {kSeluAlpha, kSeluScale, 1}, d_elu);
}

Tensor gelu(const Tensor& input, const std::string& approximate) { return ember::gelu(input, approximate); }
Tensor silu(const Tensor& input) { return ember::silu(input); }
Tensor& silu_(Tensor& input) { return ember::silu_(input); }
Tensor mish(const Tensor& input) { return run(ActOp::Mish, "mish", input, {}, d_mish); }
Tensor& mish_(Tensor& input) { return run_(ActOp::Mish, "mish", "mish_", input, {}, d_mish); }
Tensor hardswish(const Tensor& input) { return run(ActOp::Hardswish, "hardswish", input, {}, d_hardswish); }
Tensor& hardswish_(Tensor& input) {
  return run_(ActOp::Hardswish, "hardswish", "hardswish_", input, {}, d_hardswish);
}
Tensor hardsigmoid(const Tensor& input) {
  return run(ActOp::Hardsigmoid, "hardsigmoid", input, {}, d_hardsigmoid);
}
Tensor& hardsigmoid_(Tensor& input) {
  return run_(ActOp::Hardsigmoid, "hardsigmoid", "hardsigmoid_", input, {}, d_hardsigmoid);
}
Tensor softplus(const Tensor& input, double beta, double threshold) {
  return ember::softplus(input, beta, threshold);
}
Tensor softsign(const Tensor& input) { return run(ActOp::Softsign, "softsign", input, {}, d_softsign); }
Tensor softshrink(const Tensor& input, double lambd) {
  EMBER_CHECK(lambd >= 0, "softshrink: lambda must be greater or equal to 0, but found to be ", lambd, ".");
  return run(ActOp::Softshrink, "softshrink", input, {lambd}, d_shrink);
}
Tensor hardshrink(const Tensor& input, double lambd) {
  return run(ActOp::Hardshrink, "hardshrink", input, {lambd}, d_shrink);
}
Tensor tanhshrink(const Tensor& input) { return run(ActOp::Tanhshrink, "tanhshrink", input, {}, d_tanhshrink); }

Tensor threshold(const Tensor& input, double threshold, double value) {
  if (!is_floating_point(input.dtype())) return where(input <= Scalar(threshold), Scalar(value), input).to(input.dtype());
  return run(ActOp::Threshold, "threshold", input, {threshold, value}, d_threshold);
}
Tensor& threshold_(Tensor& input, double threshold, double value) {
  if (!is_floating_point(input.dtype())) {
    input.masked_fill_(input <= Scalar(threshold), Scalar(value));
    return input;
  }
  return run_(ActOp::Threshold, "threshold", "threshold_", input, {threshold, value}, d_threshold);
}

Tensor sigmoid(const Tensor& input) { return ember::sigmoid(input); }
Tensor tanh(const Tensor& input) { return ember::tanh(input); }
Tensor logsigmoid(const Tensor& input) { return run(ActOp::LogSigmoid, "log_sigmoid", input, {}, d_logsigmoid); }

Tensor glu(const Tensor& input, int64_t dim) {
  EMBER_CHECK(input.defined(), "glu: input tensor is undefined");
  EMBER_CHECK(input.dim() > 0, "glu: glu does not support scalars because halving size must be even");
  const int64_t d = wrap_dim(dim, input.dim(), "glu");
  const int64_t n = input.size(d);
  EMBER_CHECK(n % 2 == 0, "glu: Halving dimension must be even, but dimension ", d, " is size ", n);
  return input.narrow(d, 0, n / 2) * input.narrow(d, n / 2, n / 2).sigmoid();
}

}  // namespace ember::nn::functional
