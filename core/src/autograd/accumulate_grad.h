#pragma once
// The node at the end of every path: adds the gradient into a leaf's .grad.
#include "ember/autograd/node.h"

namespace ember::autograd {

class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor leaf);
  std::string name() const override { return "AccumulateGrad"; }
  variable_list apply(variable_list&& grads) override;
  // Leaf hooks live on the tensor (they outlive any one accumulator).
  void run_tensor_pre_hooks(variable_list& grads, bool batched = false) override;
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
};

}  // namespace ember::autograd
