#pragma once
// Stochastic depth (torchvision.ops.stochastic_depth / StochasticDepth), from
// "Deep Networks with Stochastic Depth" (https://arxiv.org/abs/1603.09382):
// randomly drops the residual branch of a block during training.
//
//   Tensor y = vision::ops::stochastic_depth(branch, 0.2, "row", /*training=*/true);
//   vision::ops::StochasticDepth sd(0.2, "row");   // follows train() / eval()
#include <string>

#include <ember/core/generator.h>
#include <ember/core/tensor.h>
#include <ember/nn/module.h>

namespace ember::vision::ops {

// input [N, ...]. mode "row" zeroes each sample (row) with probability p,
// "batch" the whole input; survivors are scaled by 1 / (1 - p), so the
// expectation is the input. Returns the input itself when !training or p == 0.
// The noise (one value per row, or one in all) comes from `generator` (default:
// the global one): the same distribution as torchvision's, not its numbers.
// Differentiable (the gradient is the same noise).
Tensor stochastic_depth(const Tensor& input, double p, const std::string& mode, bool training = true,
                        Generator* generator = nullptr);

// StochasticDepth(p, mode): stochastic_depth in training mode, the identity
// in eval mode. No parameters; prints "StochasticDepth(p=0.2, mode=row)".
class StochasticDepthImpl : public nn::Module {
 public:
  StochasticDepthImpl(double p, std::string mode);
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;

  double p;
  std::string mode;
};
EMBER_MODULE(StochasticDepth);

}  // namespace ember::vision::ops
