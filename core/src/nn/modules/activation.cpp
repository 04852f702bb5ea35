#include "ember/nn/modules/activation.h"

#include <ostream>

#include "ember/nn/functional/activation.h"
#include "ember/nn/init.h"
#include "ember/ops/factories.h"
#include "nn/modules/py_repr.h"

namespace ember::nn {

namespace F = functional;
using detail::py_float;

namespace {
// ", inplace=True" when set (PyTorch's reprs omit inplace=False).
const char* inplace_suffix(bool inplace) { return inplace ? ", inplace=True" : ""; }
// "Name()" or "Name(inplace=True)".
void print_inplace_only(std::ostream& os, const std::string& name, bool inplace) {
  os << name << (inplace ? "(inplace=True)" : "()");
}
// A mutable handle on the caller's tensor for the in-place variants.
Tensor alias(const Tensor& t) { return t; }
}  // namespace

// ---- ReLU family ----
Tensor ReLUImpl::forward(const Tensor& input) {
  if (!options.inplace) return F::relu(input);
  Tensor x = alias(input);
  return F::relu_(x);
}
void ReLUImpl::pretty_print(std::ostream& os) const { print_inplace_only(os, name(), options.inplace); }

Tensor ReLU6Impl::forward(const Tensor& input) {
  if (!options.inplace) return F::relu6(input);
  Tensor x = alias(input);
  return F::relu6_(x);
}
void ReLU6Impl::pretty_print(std::ostream& os) const { print_inplace_only(os, name(), options.inplace); }

Tensor LeakyReLUImpl::forward(const Tensor& input) {
  if (!options.inplace) return F::leaky_relu(input, options.negative_slope);
  Tensor x = alias(input);
  return F::leaky_relu_(x, options.negative_slope);
}
void LeakyReLUImpl::pretty_print(std::ostream& os) const {
  os << "LeakyReLU(negative_slope=" << py_float(options.negative_slope) << inplace_suffix(options.inplace) << ")";
}

PReLUImpl::PReLUImpl(const PReLUOptions& o) : Module("PReLU"), options(o) {
  EMBER_CHECK(o.num_parameters >= 1, "PReLU: num_parameters must be positive, got ", o.num_parameters);
  register_parameter("weight", empty({o.num_parameters}), &weight);
  reset_parameters();
}
void PReLUImpl::reset_parameters() { init::constant_(weight, options.init); }
Tensor PReLUImpl::forward(const Tensor& input) { return F::prelu(input, weight); }
void PReLUImpl::pretty_print(std::ostream& os) const {
  os << "PReLU(num_parameters=" << options.num_parameters << ")";
}

RReLUImpl::RReLUImpl(const RReLUOptions& o) : Module("RReLU"), options(o) {
  EMBER_CHECK(o.lower <= o.upper, "RReLU: lower bound (", o.lower,
              ") should be less than or equal to the upper bound (", o.upper, ")");
}
Tensor RReLUImpl::forward(const Tensor& input) {
  if (!options.inplace) return F::rrelu(input, options.lower, options.upper, is_training());
  Tensor x = alias(input);
  return F::rrelu_(x, options.lower, options.upper, is_training());
}
void RReLUImpl::pretty_print(std::ostream& os) const {
  os << "RReLU(lower=" << py_float(options.lower) << ", upper=" << py_float(options.upper)
     << inplace_suffix(options.inplace) << ")";
}

// ---- exponential family ----
Tensor ELUImpl::forward(const Tensor& input) {
  if (!options.inplace) return F::elu(input, options.alpha);
  Tensor x = alias(input);
  return F::elu_(x, options.alpha);
}
void ELUImpl::pretty_print(std::ostream& os) const {
  os << "ELU(alpha=" << py_float(options.alpha) << inplace_suffix(options.inplace) << ")";
}

CELUImpl::CELUImpl(const CELUOptions& o) : Module("CELU"), options(o) {
  EMBER_CHECK(o.alpha != 0, "CELU: ZeroDivisionError: alpha cannot be 0 for CELU");
}
Tensor CELUImpl::forward(const Tensor& input) {
  if (!options.inplace) return F::celu(input, options.alpha);
  Tensor x = alias(input);
  return F::celu_(x, options.alpha);
}
void CELUImpl::pretty_print(std::ostream& os) const {
  os << "CELU(alpha=" << py_float(options.alpha) << inplace_suffix(options.inplace) << ")";
}

Tensor SELUImpl::forward(const Tensor& input) {
  if (!options.inplace) return F::selu(input);
  Tensor x = alias(input);
  return F::selu_(x);
}
void SELUImpl::pretty_print(std::ostream& os) const { print_inplace_only(os, name(), options.inplace); }

// ---- smooth gates ----
GELUImpl::GELUImpl(const GELUOptions& o) : Module("GELU"), options(o) {
  EMBER_CHECK(o.approximate == "none" || o.approximate == "tanh",
              "GELU: approximate argument must be either none or tanh, got '", o.approximate, "'");
}
Tensor GELUImpl::forward(const Tensor& input) { return F::gelu(input, options.approximate); }
void GELUImpl::pretty_print(std::ostream& os) const { os << "GELU(approximate='" << options.approximate << "')"; }

Tensor SiLUImpl::forward(const Tensor& input) {
  if (!options.inplace) return F::silu(input);
  Tensor x = alias(input);
  return F::silu_(x);
}
void SiLUImpl::pretty_print(std::ostream& os) const { print_inplace_only(os, name(), options.inplace); }

Tensor MishImpl::forward(const Tensor& input) {
  if (!options.inplace) return F::mish(input);
  Tensor x = alias(input);
  return F::mish_(x);
}
void MishImpl::pretty_print(std::ostream& os) const { print_inplace_only(os, name(), options.inplace); }

Tensor HardswishImpl::forward(const Tensor& input) {
  if (!options.inplace) return F::hardswish(input);
  Tensor x = alias(input);
  return F::hardswish_(x);
}

Tensor HardsigmoidImpl::forward(const Tensor& input) {
  if (!options.inplace) return F::hardsigmoid(input);
  Tensor x = alias(input);
  return F::hardsigmoid_(x);
}

// ---- clamps and shrinks ----
HardtanhImpl::HardtanhImpl(const HardtanhOptions& o) : Module("Hardtanh"), options(o) {
  EMBER_CHECK(o.max_val > o.min_val, "Hardtanh: max_val (", o.max_val, ") must be greater than min_val (",
              o.min_val, ")");
}
Tensor HardtanhImpl::forward(const Tensor& input) {
  if (!options.inplace) return F::hardtanh(input, options.min_val, options.max_val);
  Tensor x = alias(input);
  return F::hardtanh_(x, options.min_val, options.max_val);
}
void HardtanhImpl::pretty_print(std::ostream& os) const {
  os << "Hardtanh(min_val=" << py_float(options.min_val) << ", max_val=" << py_float(options.max_val)
     << inplace_suffix(options.inplace) << ")";
}

Tensor SoftplusImpl::forward(const Tensor& input) { return F::softplus(input, options.beta, options.threshold); }
void SoftplusImpl::pretty_print(std::ostream& os) const {
  os << "Softplus(beta=" << py_float(options.beta) << ", threshold=" << py_float(options.threshold) << ")";
}

SoftshrinkImpl::SoftshrinkImpl(const SoftshrinkOptions& o) : Module("Softshrink"), options(o) {
  EMBER_CHECK(o.lambda >= 0, "Softshrink: lambda must be greater or equal to 0, but found to be ", o.lambda, ".");
}
Tensor SoftshrinkImpl::forward(const Tensor& input) { return F::softshrink(input, options.lambda); }
void SoftshrinkImpl::pretty_print(std::ostream& os) const { os << "Softshrink(" << py_float(options.lambda) << ")"; }

Tensor HardshrinkImpl::forward(const Tensor& input) { return F::hardshrink(input, options.lambda); }
void HardshrinkImpl::pretty_print(std::ostream& os) const { os << "Hardshrink(" << py_float(options.lambda) << ")"; }

Tensor ThresholdImpl::forward(const Tensor& input) {
  if (!options.inplace) return F::threshold(input, options.threshold, options.value);
  Tensor x = alias(input);
  return F::threshold_(x, options.threshold, options.value);
}
void ThresholdImpl::pretty_print(std::ostream& os) const {
  os << "Threshold(threshold=" << py_float(options.threshold) << ", value=" << py_float(options.value)
     << inplace_suffix(options.inplace) << ")";
}

// ---- gates and option-less activations ----
Tensor GLUImpl::forward(const Tensor& input) { return F::glu(input, options.dim); }
void GLUImpl::pretty_print(std::ostream& os) const { os << "GLU(dim=" << options.dim << ")"; }

Tensor SoftsignImpl::forward(const Tensor& input) { return F::softsign(input); }
Tensor TanhshrinkImpl::forward(const Tensor& input) { return F::tanhshrink(input); }
Tensor LogSigmoidImpl::forward(const Tensor& input) { return F::logsigmoid(input); }
Tensor SigmoidImpl::forward(const Tensor& input) { return F::sigmoid(input); }
Tensor TanhImpl::forward(const Tensor& input) { return F::tanh(input); }

// ---- softmax family ----
namespace {
int64_t required_dim(const SoftmaxOptions& o, const char* name) {
  EMBER_CHECK(o.dim.has_value(), name,
              ": dim is required (PyTorch's implicit dim choice, dim=None, is deprecated and not supported)");
  return *o.dim;
}
}  // namespace

SoftmaxImpl::SoftmaxImpl(const SoftmaxOptions& o) : Module("Softmax"), dim(required_dim(o, "Softmax")) {}
Tensor SoftmaxImpl::forward(const Tensor& input) { return F::softmax(input, dim); }
void SoftmaxImpl::pretty_print(std::ostream& os) const { os << "Softmax(dim=" << dim << ")"; }

LogSoftmaxImpl::LogSoftmaxImpl(const LogSoftmaxOptions& o)
    : Module("LogSoftmax"), dim(required_dim(o, "LogSoftmax")) {}
Tensor LogSoftmaxImpl::forward(const Tensor& input) { return F::log_softmax(input, dim); }
void LogSoftmaxImpl::pretty_print(std::ostream& os) const { os << "LogSoftmax(dim=" << dim << ")"; }

SoftminImpl::SoftminImpl(const SoftminOptions& o) : Module("Softmin"), dim(required_dim(o, "Softmin")) {}
Tensor SoftminImpl::forward(const Tensor& input) { return F::softmin(input, dim); }
void SoftminImpl::pretty_print(std::ostream& os) const { os << "Softmin(dim=" << dim << ")"; }

Tensor Softmax2dImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, "Softmax2d: expected input to be 3D or 4D, got ", input.dim(),
              "D instead");
  return F::softmax(input, -3);
}

}  // namespace ember::nn
