// torchvision.ops.stochastic_depth: a Bernoulli(1 - p) mask per row (or one
// for the batch), scaled by 1 / (1 - p), multiplied in with a recorded mul.
#include "ember/vision/ops/stochastic_depth.h"

#include <charconv>
#include <ostream>

#include <ember/core/error.h>
#include <ember/ops/factories.h>
#include <ember/ops/random.h>

namespace ember::vision::ops {
namespace {

void check_arguments(double p, const std::string& mode) {
  EMBER_CHECK(p >= 0.0 && p <= 1.0, "stochastic_depth: drop probability has to be between 0 and 1, but got ", p);
  EMBER_CHECK(mode == "batch" || mode == "row", "stochastic_depth: mode has to be either 'batch' or 'row', but got '",
              mode, "'");
}

// p as Python prints a float (shortest round trip, ".0" for integers).
std::string py_float(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".ein") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

Tensor stochastic_depth(const Tensor& input, double p, const std::string& mode, bool training,
                        Generator* generator) {
  check_arguments(p, mode);
  EMBER_CHECK(input.defined(), "stochastic_depth: the input is undefined");
  if (!training || p == 0.0) return input;
  EMBER_CHECK(is_floating_point(input.dtype()), "stochastic_depth: expected a floating point input, got ",
              input.dtype());
  EMBER_CHECK(mode == "batch" || input.dim() >= 1,
              "stochastic_depth: mode 'row' needs an input with a batch dim, got a 0-d tensor");
  const double survival_rate = 1.0 - p;
  std::vector<int64_t> size(static_cast<size_t>(input.dim()), 1);
  if (mode == "row") size[0] = input.size(0);
  Tensor noise = empty(size, input.options());
  noise.bernoulli_(survival_rate, generator);
  if (survival_rate > 0.0) noise.div_(survival_rate);
  return input * noise;
}

StochasticDepthImpl::StochasticDepthImpl(double p, std::string mode)
    : nn::Module("StochasticDepth"), p(p), mode(std::move(mode)) {
  check_arguments(this->p, this->mode);
}

Tensor StochasticDepthImpl::forward(const Tensor& input) { return stochastic_depth(input, p, mode, is_training()); }

void StochasticDepthImpl::pretty_print(std::ostream& os) const {
  os << "StochasticDepth(p=" << py_float(p) << ", mode=" << mode << ")";
}

}  // namespace ember::vision::ops
