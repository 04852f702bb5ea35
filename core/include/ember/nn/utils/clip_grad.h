#pragma once
// nn::utils: gradient clipping and flattening parameters into one vector.
#include <vector>

#include "ember/core/tensor.h"

namespace ember::nn::utils {

// Scales the gradients of `parameters` in place so that their joint p-norm
// (p = inf: max abs) is at most max_norm; returns the norm before clipping.
// A non-finite norm is an error when error_if_nonfinite (PyTorch's option).
Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
// Clamps every gradient element to [-clip_value, clip_value] in place.
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);

// All parameters flattened and concatenated (differentiable).
Tensor parameters_to_vector(const std::vector<Tensor>& parameters);
// Copies consecutive slices of `vec` into the parameters (no gradient recorded).
void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace ember::nn::utils
