#include "ember/ao/nn/quantized/functional_modules.h"

#include "ember/ao/quantization/observer.h"
#include "ember/core/error.h"
#include "ember/ops/shape.h"

namespace ember::ao::nn::quantized {

Tensor FunctionalModule::forward(const Tensor&) {
  EMBER_CHECK(false, name(), " is not intended to use the 'forward'. Please use the underlying operation (add, "
              "add_relu, mul, cat)");
  return {};
}

Tensor FloatFunctionalImpl::observe(const Tensor& r) {
  return activation_post_process ? activation_post_process->forward(r) : r;
}

Tensor FloatFunctionalImpl::add(const Tensor& a, const Tensor& b) { return observe(a + b); }
Tensor FloatFunctionalImpl::add_relu(const Tensor& a, const Tensor& b) { return observe((a + b).relu()); }
Tensor FloatFunctionalImpl::mul(const Tensor& a, const Tensor& b) { return observe(a * b); }
Tensor FloatFunctionalImpl::cat(const std::vector<Tensor>& xs, int64_t dim) { return observe(ember::cat(xs, dim)); }
Tensor FloatFunctionalImpl::add_scalar(const Tensor& a, double b) { return a + b; }
Tensor FloatFunctionalImpl::mul_scalar(const Tensor& a, double b) { return a * b; }

}  // namespace ember::ao::nn::quantized
