#pragma once
// The classifier: two conv blocks (conv 3x3, batch norm, ReLU, 2x2 max pool)
// and a two-layer head with dropout, written as one would in PyTorch.
#include <ember/ember.h>

namespace shapes {

class ShapesNetImpl : public ember::nn::Module {
 public:
  explicit ShapesNetImpl(int64_t num_classes);
  ember::Tensor forward(const ember::Tensor& images);  // [N, 1, 28, 28] -> logits [N, classes]

  ember::nn::Conv2d conv1, conv2;
  ember::nn::BatchNorm2d bn1, bn2;
  ember::nn::MaxPool2d pool;
  ember::nn::Dropout dropout;
  ember::nn::Linear fc1, fc2;
};
EMBER_MODULE(ShapesNet);

}  // namespace shapes
