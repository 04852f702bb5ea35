#pragma once
// Higher-order autograd helpers, as torch.autograd.functional (PyTorch 1.5):
// jacobian, hessian, vjp, jvp, hvp, vhp of a user function.
//
// Each takes the function either as Tensor -> Tensor (results are Tensors) or
// as variable_list -> variable_list (results are lists; a jacobian or hessian
// is nested [output][input] / [input][input], entry (i, j) of shape
// out_i.shape + in_j.shape). hessian, hvp and vhp also take
// variable_list -> Tensor, since their function must return one
// single-element Tensor.
//
// Options, as PyTorch's:
//  - create_graph: the results are differentiable (they carry history back
//    to the inputs); otherwise they are detached.
//  - strict: an error when an output does not depend on an input (PyTorch's
//    messages) instead of returning zeros for it.
//  - v (vjp, jvp, hvp, vhp): the vector; may be left out (undefined / empty)
//    only when it would have a single element.
// The function always runs with grad mode on, on fresh aliases of the inputs
// (detached unless create_graph and the input requires grad).
// See docs/autograd.md, "Functional API".
#include <functional>
#include <utility>
#include <vector>

#include "ember/autograd/node.h"

namespace ember::autograd::functional {

using TensorFn = std::function<Tensor(const Tensor&)>;
using TensorListFn = std::function<variable_list(const variable_list&)>;
using TensorListToTensorFn = std::function<Tensor(const variable_list&)>;

// ---- vjp: (func(inputs), v^T J) ----
std::pair<Tensor, Tensor> vjp(const TensorFn& func, const Tensor& inputs, const Tensor& v = {},
                              bool create_graph = false, bool strict = false);
std::pair<variable_list, variable_list> vjp(const TensorListFn& func, const variable_list& inputs,
                                            const variable_list& v = {}, bool create_graph = false,
                                            bool strict = false);

// ---- jvp: (func(inputs), J v), by the double-vjp trick (PyTorch 1.5) ----
std::pair<Tensor, Tensor> jvp(const TensorFn& func, const Tensor& inputs, const Tensor& v = {},
                              bool create_graph = false, bool strict = false);
std::pair<variable_list, variable_list> jvp(const TensorListFn& func, const variable_list& inputs,
                                            const variable_list& v = {}, bool create_graph = false,
                                            bool strict = false);

// ---- jacobian: shape out.shape + in.shape ----
// vectorize: all rows in one backward pass with batched gradients (as
// PyTorch's vmap-based vectorize): elementwise nodes process every row at
// once, other nodes row by row inside the pass. Same results either way.
Tensor jacobian(const TensorFn& func, const Tensor& inputs, bool create_graph = false, bool strict = false,
                bool vectorize = false);
std::vector<variable_list> jacobian(const TensorListFn& func, const variable_list& inputs,
                                    bool create_graph = false, bool strict = false, bool vectorize = false);

// ---- hessian of a function returning one single-element Tensor ----
Tensor hessian(const TensorFn& func, const Tensor& inputs, bool create_graph = false, bool strict = false);
std::vector<variable_list> hessian(const TensorListToTensorFn& func, const variable_list& inputs,
                                   bool create_graph = false, bool strict = false);
// func must return a list holding exactly one Tensor.
std::vector<variable_list> hessian(const TensorListFn& func, const variable_list& inputs,
                                   bool create_graph = false, bool strict = false);

// ---- vhp: (func(inputs), v^T H); hvp: (func(inputs), H v) ----
// hvp uses the double-backward trick (one more backward than vhp); for twice
// differentiable functions H is symmetric and both agree.
std::pair<Tensor, Tensor> vhp(const TensorFn& func, const Tensor& inputs, const Tensor& v = {},
                              bool create_graph = false, bool strict = false);
std::pair<Tensor, variable_list> vhp(const TensorListToTensorFn& func, const variable_list& inputs,
                                     const variable_list& v = {}, bool create_graph = false, bool strict = false);
std::pair<Tensor, variable_list> vhp(const TensorListFn& func, const variable_list& inputs,
                                     const variable_list& v = {}, bool create_graph = false, bool strict = false);

std::pair<Tensor, Tensor> hvp(const TensorFn& func, const Tensor& inputs, const Tensor& v = {},
                              bool create_graph = false, bool strict = false);
std::pair<Tensor, variable_list> hvp(const TensorListToTensorFn& func, const variable_list& inputs,
                                     const variable_list& v = {}, bool create_graph = false, bool strict = false);
std::pair<Tensor, variable_list> hvp(const TensorListFn& func, const variable_list& inputs,
                                     const variable_list& v = {}, bool create_graph = false, bool strict = false);

}  // namespace ember::autograd::functional
