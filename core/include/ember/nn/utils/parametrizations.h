#pragma once
// nn::utils::parametrizations: PyTorch's torch.nn.utils.parametrizations
// (orthogonal, spectral_norm, and weight_norm as of PyTorch 2.1), built on
// nn::utils::parametrize. state_dict keys are PyTorch's:
//   orthogonal:    parametrizations.<name>.original [, parametrizations.<name>.0.base]
//   spectral_norm: parametrizations.<name>.original, parametrizations.<name>.0._u, ....0._v
//   weight_norm:   parametrizations.<name>.original0 (g), parametrizations.<name>.original1 (v)
#include <optional>
#include <string>

#include "ember/nn/utils/parametrize.h"

namespace ember::nn::utils::parametrizations {

// Makes the matrix (or batch of matrices) `name` orthogonal: Q^T Q = I when
// it has at least as many rows as columns, Q Q^T = I otherwise.
// orthogonal_map: "matrix_exp" (default for square matrices), "cayley" or
// "householder" (default otherwise). use_trivialization: PyTorch's dynamic
// trivialization (a buffer `base` with Q = base @ map(original)); the
// initial value is the tensor if orthogonal, else its QR orthogonalization.
Module& orthogonal(Module& module, const std::string& name = "weight",
                   const std::optional<std::string>& orthogonal_map = std::nullopt, bool use_trivialization = true);

// weight / sigma(weight), sigma estimated by power iteration on the weight
// reshaped to a matrix (dim first): buffers _u, _v (15 iterations at
// registration, n_power_iterations per computation in training mode; none in
// eval mode). dim: 0, or 1 for ConvTranspose modules, when not given.
Module& spectral_norm(Module& module, const std::string& name = "weight", int64_t n_power_iterations = 1,
                      double eps = 1e-12, std::optional<int64_t> dim = std::nullopt);

// weight = g * v / ||v|| with the norm over every dim but `dim` (all dims
// when dim is nullopt or -1): original0 = g, original1 = v. The values equal
// the older torch.nn.utils.weight_norm's (weight_g, weight_v).
Module& weight_norm(Module& module, const std::string& name = "weight", std::optional<int64_t> dim = 0);

template <class Holder>
  requires requires(const Holder& h) { typename Holder::ImplType; }
Module& orthogonal(const Holder& module, const std::string& name = "weight",
                   const std::optional<std::string>& orthogonal_map = std::nullopt, bool use_trivialization = true) {
  return orthogonal(*module, name, orthogonal_map, use_trivialization);
}
template <class Holder>
  requires requires(const Holder& h) { typename Holder::ImplType; }
Module& spectral_norm(const Holder& module, const std::string& name = "weight", int64_t n_power_iterations = 1,
                      double eps = 1e-12, std::optional<int64_t> dim = std::nullopt) {
  return spectral_norm(*module, name, n_power_iterations, eps, dim);
}
template <class Holder>
  requires requires(const Holder& h) { typename Holder::ImplType; }
Module& weight_norm(const Holder& module, const std::string& name = "weight", std::optional<int64_t> dim = 0) {
  return weight_norm(*module, name, dim);
}

}  // namespace ember::nn::utils::parametrizations
