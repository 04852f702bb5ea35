// The dropout family: PyTorch's _dropout_impl (ATen/native/Dropout.cpp).
// The noise is drawn without history and the input multiplied by it with
// recorded ops, so the gradient is the mask times the scale; in-place
// variants go through the ops' own in-place autograd handling.
#include "ember/nn/functional/dropout.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/factories.h"

namespace ember::nn::functional {

namespace {

struct Kind {
  bool feature;  // one draw per (n, c) channel
  bool alpha;    // SELU-preserving
  bool batched;  // feature noise over dims 0 and 1 (else dim 0 of an unbatched input)
};

Tensor dropout_impl(const Tensor& input, double p, bool training, bool inplace, Generator* generator, Kind kind,
                    const char* op) {
  EMBER_CHECK(input.defined(), op, ": input is undefined");
  EMBER_CHECK(p >= 0 && p <= 1, op, ": dropout probability has to be between 0 and 1, but got ", p);
  if (kind.feature)
    EMBER_CHECK(input.dim() >= (kind.batched ? 2 : 1), op,
                ": Feature dropout requires at least 2 dimensions in the input, got sizes ", input.sizes());
  if (p == 0 || !training || input.numel() == 0) return input;
  EMBER_CHECK(input.is_floating_point(), op, ": expected a floating point input, got dtype ", input.dtype());
  Tensor mutable_input = input;
  if (p == 1) {
    if (inplace) return mutable_input.mul_(0);
    return input * zeros({}, input.options());
  }
  Tensor noise;
  {
    NoGradGuard no_grad;
    if (kind.feature) {
      DimVector shape(static_cast<size_t>(input.dim()), 1);
      shape[0] = input.size(0);
      if (kind.batched) shape[1] = input.size(1);
      noise = empty(shape, input.options());
    } else {
      noise = empty(input.sizes(), input.options());
    }
    noise.bernoulli_(1 - p, generator);
  }
  if (!kind.alpha) {
    noise.div_(1 - p);
    return inplace ? mutable_input.mul_(noise) : input * noise;
  }
  // alpha' = -SELU's lambda * alpha; a, b keep zero mean and unit variance.
  constexpr double alpha = 1.7580993408473766;
  const double a = 1.0 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
  Tensor b;
  {
    NoGradGuard no_grad;
    b = noise.add(-1).mul_(alpha * a).add_(alpha * a * p);
    noise.mul_(a);
  }
  if (inplace) return mutable_input.mul_(noise).add_(b);
  return input * noise + b;
}

}  // namespace

Tensor dropout(const Tensor& input, double p, bool training, bool inplace, Generator* generator) {
  return dropout_impl(input, p, training, inplace, generator, {false, false, true}, "dropout");
}

Tensor dropout1d(const Tensor& input, double p, bool training, bool inplace, Generator* generator) {
  EMBER_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3),
              "dropout1d: Expected 2D or 3D input, but received a ", input.defined() ? input.dim() : 0,
              "D input. Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
              "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).");
  return dropout_impl(input, p, training, inplace, generator, {true, false, input.dim() == 3}, "dropout1d");
}

Tensor dropout2d(const Tensor& input, double p, bool training, bool inplace, Generator* generator) {
  return dropout_impl(input, p, training, inplace, generator, {true, false, true}, "dropout2d");
}

Tensor dropout3d(const Tensor& input, double p, bool training, bool inplace, Generator* generator) {
  const bool batched = !input.defined() || input.dim() == 5;
  return dropout_impl(input, p, training, inplace, generator, {true, false, batched}, "dropout3d");
}

Tensor alpha_dropout(const Tensor& input, double p, bool training, bool inplace, Generator* generator) {
  return dropout_impl(input, p, training, inplace, generator, {false, true, true}, "alpha_dropout");
}

Tensor feature_alpha_dropout(const Tensor& input, double p, bool training, bool inplace, Generator* generator) {
  return dropout_impl(input, p, training, inplace, generator, {true, true, true}, "feature_alpha_dropout");
}

}  // namespace ember::nn::functional
