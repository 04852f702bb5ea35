// drop_block2d / drop_block3d as torchvision's composition: Bernoulli block
// centres, padded and max-pooled into blocks, inverted into a keep mask.
#include "ember/vision/ops/drop_block.h"

#include <algorithm>
#include <ostream>
#include <vector>

#include <ember/core/error.h>
#include <ember/nn/functional/pooling.h>
#include <ember/ops/factories.h>
#include <ember/ops/random.h>
#include <ember/ops/shape.h>

namespace ember::vision::ops {
namespace {

void check_p(const char* op, double p) {
  EMBER_CHECK(p >= 0.0 && p <= 1.0, op, ": drop probability has to be between 0 and 1, but got ", p, ".");
}

// d = 2 or 3 spatial dims.
Tensor drop_block(const char* op, int64_t d, const Tensor& input, double p, int64_t block_size, bool inplace,
                  double eps, bool training, Generator* generator) {
  check_p(op, p);
  EMBER_CHECK(input.defined(), op, ": input is undefined");
  EMBER_CHECK(input.dim() == d + 2, op, ": input should be ", d + 2, " dimensional. Got ", input.dim(), " dimensions.");
  EMBER_CHECK(block_size > 0, op, ": block_size should be positive, got ", block_size);
  if (!training || p == 0.0) return input;
  EMBER_CHECK(is_floating_point(input.dtype()), op, ": expected a floating point input, got ", input.dtype());
  int64_t bs = block_size;
  for (int64_t i = 0; i < d; ++i) bs = std::min(bs, input.size(2 + i));
  // torchvision pads the centres by bs // 2 and pools with padding bs // 2,
  // which gives a mask of size + 2 for an even bs and then fails on the
  // product ("The size of tensor a (8) must match the size of tensor b
  // (10)"): an even (effective) block size is an error here too, said plainly.
  EMBER_CHECK(bs % 2 == 1, op, ": the block size (", bs, ", from block_size ", block_size,
              " and the input's spatial size) should be odd, as torchvision's mask computation requires");
  double area = 1, fits = 1, block = 1;
  std::vector<int64_t> noise_shape{input.size(0), input.size(1)};
  for (int64_t i = 0; i < d; ++i) {
    const int64_t s = input.size(2 + i);
    area *= static_cast<double>(s);
    fits *= static_cast<double>(s - bs + 1);
    block *= static_cast<double>(bs);
    noise_shape.push_back(s - bs + 1);
  }
  const double gamma = p * area / (block * fits);
  Tensor noise = empty(noise_shape, input.options());
  noise.bernoulli_(gamma, generator);
  noise = pad(noise, std::vector<int64_t>(static_cast<size_t>(2 * d), bs / 2), "constant", 0);
  const nn::functional::MaxPoolFuncOptions pool{.stride = 1, .padding = bs / 2};
  noise = d == 2 ? nn::functional::max_pool2d(noise, bs, pool) : nn::functional::max_pool3d(noise, bs, pool);
  noise = 1 - noise;
  const Tensor normalize_scale = static_cast<double>(noise.numel()) / (eps + noise.sum());
  if (inplace) {
    Tensor out = input;
    out.mul_(noise).mul_(normalize_scale);
    return out;
  }
  return input * noise * normalize_scale;
}

std::string py_bool(bool v) {
  return v ? "True" : "False";
}

}  // namespace

Tensor drop_block2d(const Tensor& input, double p, int64_t block_size, bool inplace, double eps, bool training,
                    Generator* generator) {
  return drop_block("drop_block2d", 2, input, p, block_size, inplace, eps, training, generator);
}

Tensor drop_block3d(const Tensor& input, double p, int64_t block_size, bool inplace, double eps, bool training,
                    Generator* generator) {
  return drop_block("drop_block3d", 3, input, p, block_size, inplace, eps, training, generator);
}

DropBlock2dImpl::DropBlock2dImpl(const char* name, double p, int64_t block_size, bool inplace, double eps)
    : nn::Module(name), p(p), block_size(block_size), inplace(inplace), eps(eps) {
  check_p(name, p);
}

DropBlock2dImpl::DropBlock2dImpl(double p, int64_t block_size, bool inplace, double eps)
    : DropBlock2dImpl("DropBlock2d", p, block_size, inplace, eps) {}

Tensor DropBlock2dImpl::forward(const Tensor& input) {
  return drop_block2d(input, p, block_size, inplace, eps, is_training());
}

void DropBlock2dImpl::pretty_print(std::ostream& os) const {
  os << name() << "(p=" << p << ", block_size=" << block_size << ", inplace=" << py_bool(inplace) << ")";
}

DropBlock3dImpl::DropBlock3dImpl(double p, int64_t block_size, bool inplace, double eps)
    : DropBlock2dImpl("DropBlock3d", p, block_size, inplace, eps) {}

Tensor DropBlock3dImpl::forward(const Tensor& input) {
  return drop_block3d(input, p, block_size, inplace, eps, is_training());
}

}  // namespace ember::vision::ops
