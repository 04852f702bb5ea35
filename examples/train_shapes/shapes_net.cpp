#include "shapes_net.h"

namespace shapes {

namespace nn = ember::nn;
namespace F = ember::nn::functional;

ShapesNetImpl::ShapesNetImpl(int64_t num_classes)
    : Module("ShapesNet"),
      conv1(register_module("conv1", nn::Conv2d({.in_channels = 1, .out_channels = 16, .kernel_size = 3,
                                                 .padding = 1, .bias = false}))),
      conv2(register_module("conv2", nn::Conv2d({.in_channels = 16, .out_channels = 32, .kernel_size = 3,
                                                 .padding = 1, .bias = false}))),
      bn1(register_module("bn1", nn::BatchNorm2d(16))),
      bn2(register_module("bn2", nn::BatchNorm2d(32))),
      pool(register_module("pool", nn::MaxPool2d(2))),
      dropout(register_module("dropout", nn::Dropout(0.2))),
      fc1(register_module("fc1", nn::Linear(32 * 7 * 7, 64))),
      fc2(register_module("fc2", nn::Linear(64, num_classes))) {}

ember::Tensor ShapesNetImpl::forward(const ember::Tensor& images) {
  ember::Tensor x = pool(F::relu(bn1(conv1(images))));  // [N, 16, 14, 14]
  x = pool(F::relu(bn2(conv2(x))));                     // [N, 32, 7, 7]
  x = dropout(F::relu(fc1(x.flatten(1))));
  return fc2(x);
}

}  // namespace shapes
