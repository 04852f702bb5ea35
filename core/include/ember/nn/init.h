#pragma once
// nn::init: in-place initializers, with PyTorch's formulas (fan computation,
// gains, bounds). They run without recording gradients. Values come from
// Ember's Philox generator, so they differ from PyTorch's numbers but follow
// the same distributions.
#include <string>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember::nn::init {

enum class FanMode { FanIn, FanOut };

// While a SkipInitGuard lives (per thread), the initializers below check
// their arguments and return without writing: modules built meanwhile keep
// uninitialized parameters (PyTorch's torch.nn.utils.skip_init). For models
// whose weights are loaded right after, e.g.
//   { nn::init::SkipInitGuard skip; net = models::resnet152(); }
//   net->load_state_dict(weights);
class SkipInitGuard {
 public:
  SkipInitGuard();
  ~SkipInitGuard();
  SkipInitGuard(const SkipInitGuard&) = delete;
  SkipInitGuard& operator=(const SkipInitGuard&) = delete;

 private:
  bool prev_;
};
bool is_init_skipped();

// Recommended gain for a nonlinearity: "linear", "conv1d".."conv_transpose3d",
// "sigmoid" (1), "tanh" (5/3), "relu" (sqrt 2), "leaky_relu" (sqrt(2/(1+a^2)),
// param = negative slope, default 0.01), "selu" (3/4).
double calculate_gain(const std::string& nonlinearity, double param = 0.01);
// (fan_in, fan_out) of a weight of at least 2 dims.
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor& uniform_(Tensor& tensor, double a = 0, double b = 1, Generator* generator = nullptr);
Tensor& normal_(Tensor& tensor, double mean = 0, double std = 1, Generator* generator = nullptr);
// Normal(mean, std) truncated to [a, b] (inverse-CDF method, as PyTorch).
Tensor& trunc_normal_(Tensor& tensor, double mean = 0, double std = 1, double a = -2, double b = 2,
                      Generator* generator = nullptr);
Tensor& constant_(Tensor& tensor, double value);
Tensor& ones_(Tensor& tensor);
Tensor& zeros_(Tensor& tensor);
// 2-d identity.
Tensor& eye_(Tensor& tensor);
// Identity for 3/4/5-d convolution weights (groups split the output channels).
Tensor& dirac_(Tensor& tensor, int64_t groups = 1);
Tensor& xavier_uniform_(Tensor& tensor, double gain = 1, Generator* generator = nullptr);
Tensor& xavier_normal_(Tensor& tensor, double gain = 1, Generator* generator = nullptr);
Tensor& kaiming_uniform_(Tensor& tensor, double a = 0, FanMode mode = FanMode::FanIn,
                         const std::string& nonlinearity = "leaky_relu", Generator* generator = nullptr);
Tensor& kaiming_normal_(Tensor& tensor, double a = 0, FanMode mode = FanMode::FanIn,
                        const std::string& nonlinearity = "leaky_relu", Generator* generator = nullptr);
// (Semi-)orthogonal matrix from the QR decomposition of a normal matrix,
// scaled by gain; higher-dim tensors are flattened after dim 0.
Tensor& orthogonal_(Tensor& tensor, double gain = 1, Generator* generator = nullptr);
// 2-d: a fraction `sparsity` of each column set to zero, the rest Normal(0, std).
Tensor& sparse_(Tensor& tensor, double sparsity, double std = 0.01, Generator* generator = nullptr);

}  // namespace ember::nn::init
