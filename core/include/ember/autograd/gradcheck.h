#pragma once
// Numerical gradient checks (as torch.autograd.gradcheck / gradgradcheck):
// analytical vector-Jacobian products from the engine against central
// differences in float64. Complex inputs and outputs follow PyTorch's
// conjugate Wirtinger convention: for a real loss L of z = x + iy, the
// gradient is dL/dx + i dL/dy; a complex output w is checked through the real
// losses Re(w) and Im(w).
#include <functional>
#include <string>

#include "ember/autograd/node.h"

namespace ember::autograd {

using GradcheckFn = std::function<variable_list(const variable_list&)>;

struct GradcheckOptions {
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-3;
  // Throw ember::Error naming the mismatching input/output and element
  // (otherwise return false).
  bool raise_exception = true;
};

// Inputs that require grad must be float64 or complex128 (float32 central
// differences are too coarse to tell a wrong formula from rounding).
bool gradcheck(const GradcheckFn& fn, const variable_list& inputs, const GradcheckOptions& options = {});
bool gradcheck(const GradcheckFn& fn, const variable_list& inputs, double eps, double atol = 1e-5,
               double rtol = 1e-3);
// Second derivatives: gradcheck of (inputs, v) -> vjp(fn, inputs, v) with
// create_graph. grad_outputs empty: random ones (fixed seed).
bool gradgradcheck(const GradcheckFn& fn, const variable_list& inputs, const variable_list& grad_outputs = {},
                   const GradcheckOptions& options = {});

}  // namespace ember::autograd
