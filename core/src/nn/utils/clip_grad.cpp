#include "ember/nn/utils/clip_grad.h"

#include <cmath>
#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape.h"

namespace ember::nn::utils {

Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  NoGradGuard no_grad;
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return zeros({});
  Tensor total;
  if (std::isinf(norm_type)) {
    std::vector<Tensor> maxes;
    for (const Tensor& g : grads) maxes.push_back(g.abs().max().to(kFloat64));
    total = stack(maxes).max();
  } else {
    // Per-tensor norms, then the norm of the norms (PyTorch's order).
    std::vector<Tensor> norms;
    for (const Tensor& g : grads) norms.push_back(g.norm(norm_type).to(kFloat64));
    total = stack(norms).norm(norm_type);
  }
  const double norm = total.item<double>();
  EMBER_CHECK(!error_if_nonfinite || std::isfinite(norm), "clip_grad_norm_: the total norm of order ", norm_type,
              " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and "
              "scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=false`");
  const double coef = max_norm / (norm + 1e-6);
  if (coef < 1)
    for (Tensor g : grads) g.mul_(coef);
  return total.to(grads[0].dtype());
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  EMBER_CHECK(clip_value >= 0, "clip_grad_value_: clip_value must be non-negative, got ", clip_value);
  NoGradGuard no_grad;
  for (const Tensor& p : parameters)
    if (p.grad().defined()) {
      Tensor g = p.grad();
      g.clamp_(-clip_value, clip_value);
    }
}

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  std::vector<Tensor> flat;
  for (const Tensor& p : parameters) flat.push_back(p.reshape({-1}));
  EMBER_CHECK(!flat.empty(), "parameters_to_vector: no parameters given");
  return cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  EMBER_CHECK(vec.dim() == 1, "vector_to_parameters: expected a 1-d vector, got sizes ", vec.sizes());
  int64_t total = 0;
  for (const Tensor& p : parameters) total += p.numel();
  EMBER_CHECK(total == vec.numel(), "vector_to_parameters: the vector has ", vec.numel(),
              " elements but the parameters hold ", total);
  NoGradGuard no_grad;
  int64_t offset = 0;
  for (Tensor p : parameters) {
    p.copy_(vec.slice(0, offset, offset + p.numel()).view(p.sizes()));
    offset += p.numel();
  }
}

}  // namespace ember::nn::utils
