#pragma once
// FloatFunctional (torch.ao.nn.quantized.FloatFunctional, PyTorch 1.13): the
// float add / add_relu / mul / cat a model calls through a module so that the
// eager-mode workflow can observe the result and convert() can swap the module
// for a QFunctional with the observed scale and zero point.
//
// Both derive from FunctionalModule, so a model holds one pointer for either:
//
//   std::shared_ptr<nnq::FunctionalModule> skip_add = register_module("skip_add", nnq::FloatFunctional().ptr());
//   Tensor y = skip_add->add(a, b);
//   // and in SwappableModule::swap_child:
//   skip_add = std::dynamic_pointer_cast<nnq::FunctionalModule>(replacement.ptr());
#include <memory>
#include <vector>

#include "ember/nn/module.h"

namespace ember::ao::quantization {
class ObserverOrFakeQuantize;
}

namespace ember::ao::nn::quantized {

// The operations FloatFunctional and QFunctional share. forward() is an error,
// as PyTorch's ("use the underlying operation").
class FunctionalModule : public ember::nn::Module {
 public:
  using ember::nn::Module::Module;
  virtual Tensor add(const Tensor& a, const Tensor& b) = 0;
  virtual Tensor add_relu(const Tensor& a, const Tensor& b) = 0;
  virtual Tensor mul(const Tensor& a, const Tensor& b) = 0;
  virtual Tensor cat(const std::vector<Tensor>& xs, int64_t dim = 0) = 0;
  Tensor forward(const Tensor& input);
};

// Float arithmetic whose result passes through activation_post_process once
// prepare() has attached one (PyTorch's module keeps an Identity there before
// prepare; Ember registers no child until then).
class FloatFunctionalImpl : public FunctionalModule {
 public:
  FloatFunctionalImpl() : FunctionalModule("FloatFunctional") {}
  Tensor add(const Tensor& a, const Tensor& b) override;
  Tensor add_relu(const Tensor& a, const Tensor& b) override;
  Tensor mul(const Tensor& a, const Tensor& b) override;
  Tensor cat(const std::vector<Tensor>& xs, int64_t dim = 0) override;
  // Not observed (PyTorch's: the quantized op does not need it).
  Tensor add_scalar(const Tensor& a, double b);
  Tensor mul_scalar(const Tensor& a, double b);

  // Set by prepare() (also registered as the child "activation_post_process").
  std::shared_ptr<ember::ao::quantization::ObserverOrFakeQuantize> activation_post_process;

 private:
  Tensor observe(const Tensor& r);
};
EMBER_MODULE(FloatFunctional);

}  // namespace ember::ao::nn::quantized
