#pragma once
// DropBlock (https://arxiv.org/abs/1810.12890), as torchvision.ops.drop_block2d /
// drop_block3d and the DropBlock2d / DropBlock3d modules: drops contiguous
// block_size^d regions of each feature map during training.
//
//   Tensor y = vision::ops::drop_block2d(x, 0.1, 3);     // training mode
//   vision::ops::DropBlock2d db(0.1, 3);                 // follows train() / eval()
#include <cstdint>
#include <iosfwd>

#include <ember/core/generator.h>
#include <ember/core/tensor.h>
#include <ember/nn/module.h>

namespace ember::vision::ops {

// input [N, C, H, W]. Block centres are drawn with probability
// gamma = p * H * W / (bs^2 * (H - bs + 1) * (W - bs + 1)) (bs = min(block_size,
// H, W)) over the positions where a whole block fits, each centre zeroes the
// bs x bs block around it, and the survivors are scaled by numel / (eps +
// kept count). inplace: multiply into input. Returns input when !training or
// p == 0. The draws come from `generator` (torchvision's distribution, not
// its numbers). Differentiable (the gradient is the same mask and scale).
// bs must be odd (an even one fails in torchvision's mask arithmetic; here it
// is an ember::Error).
Tensor drop_block2d(const Tensor& input, double p, int64_t block_size, bool inplace = false, double eps = 1e-6,
                    bool training = true, Generator* generator = nullptr);
// The same over [N, C, D, H, W] with bs^3 blocks.
Tensor drop_block3d(const Tensor& input, double p, int64_t block_size, bool inplace = false, double eps = 1e-6,
                    bool training = true, Generator* generator = nullptr);

// Prints "DropBlock2d(p=0.1, block_size=3, inplace=False)".
class DropBlock2dImpl : public nn::Module {
 public:
  DropBlock2dImpl(double p, int64_t block_size, bool inplace = false, double eps = 1e-6);
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  double p;
  int64_t block_size;
  bool inplace;
  double eps;

 protected:
  DropBlock2dImpl(const char* name, double p, int64_t block_size, bool inplace, double eps);
};
EMBER_MODULE(DropBlock2d);

class DropBlock3dImpl : public DropBlock2dImpl {
 public:
  DropBlock3dImpl(double p, int64_t block_size, bool inplace = false, double eps = 1e-6);
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(DropBlock3d);

}  // namespace ember::vision::ops
