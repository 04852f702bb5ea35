#include "ember/nn/modules/linear.h"

#include <cmath>

#include "ember/nn/functional/linear.h"
#include "ember/nn/init.h"
#include "ember/ops/factories.h"

namespace ember::nn {

namespace {
const char* py_bool(bool b) { return b ? "True" : "False"; }
}  // namespace

LinearImpl::LinearImpl(const LinearOptions& o) : Module("Linear"), options(o) {
  EMBER_CHECK(o.in >= 0 && o.out >= 0, "Linear: in_features and out_features must be non-negative, got ", o.in,
              " and ", o.out);
  register_parameter("weight", empty({o.out, o.in}), &weight);
  if (o.bias) register_parameter("bias", empty({o.out}), &bias);
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined() && options.in > 0) {
    const double bound = 1 / std::sqrt(static_cast<double>(options.in));
    init::uniform_(bias, -bound, bound);
  }
}

Tensor LinearImpl::forward(const Tensor& input) { return functional::linear(input, weight, bias); }

void LinearImpl::pretty_print(std::ostream& os) const {
  os << "Linear(in_features=" << options.in << ", out_features=" << options.out << ", bias=" << py_bool(options.bias)
     << ")";
}

BilinearImpl::BilinearImpl(const BilinearOptions& o) : Module("Bilinear"), options(o) {
  EMBER_CHECK(o.in1 >= 0 && o.in2 >= 0 && o.out >= 0, "Bilinear: feature counts must be non-negative");
  register_parameter("weight", empty({o.out, o.in1, o.in2}), &weight);
  if (o.bias) register_parameter("bias", empty({o.out}), &bias);
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  if (options.in1 == 0) return;
  const double bound = 1 / std::sqrt(static_cast<double>(options.in1));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  return functional::bilinear(input1, input2, weight, bias);
}

void BilinearImpl::pretty_print(std::ostream& os) const {
  os << "Bilinear(in1_features=" << options.in1 << ", in2_features=" << options.in2
     << ", out_features=" << options.out << ", bias=" << py_bool(options.bias) << ")";
}

void FlattenImpl::pretty_print(std::ostream& os) const {
  os << "Flatten(start_dim=" << options.start_dim << ", end_dim=" << options.end_dim << ")";
}

void UnflattenImpl::pretty_print(std::ostream& os) const {
  os << "Unflatten(dim=" << options.dim << ", unflattened_size=(";
  for (size_t i = 0; i < options.sizes.size(); ++i) os << (i ? ", " : "") << options.sizes[i];
  os << (options.sizes.size() == 1 ? ",))" : "))");
}

}  // namespace ember::nn
