#pragma once
// ember::special, Bessel functions of order 0 and 1 (torch.special semantics
// of PyTorch 1.10+, scipy.special numerics; see docs/special.md for the edge
// values and the measured accuracy). Integral and bool inputs compute in the
// default float dtype; complex inputs are an error.
#include "ember/core/tensor.h"

namespace ember::special {

// Modified Bessel functions of the first kind I0, I1 and their exponentially
// scaled forms i0e(x) = exp(-|x|) I0(x), i1e(x) = exp(-|x|) I1(x).
Tensor i0(const Tensor& self);
Tensor i0e(const Tensor& self);
Tensor i1(const Tensor& self);
Tensor i1e(const Tensor& self);
// Bessel functions of the first kind J0, J1 (torch.special.bessel_j0/_j1).
// Unlike torch (whose results carry no gradient) they are differentiable:
// J0' = -J1, J1' = J0 - J1/x (1/2 at 0).
Tensor bessel_j0(const Tensor& self);
Tensor bessel_j1(const Tensor& self);

// out= forms: an empty out is resized to the result's shape and takes the
// result cast to its dtype; they take no part in autograd.
Tensor& i0_out(Tensor& out, const Tensor& self);
Tensor& i0e_out(Tensor& out, const Tensor& self);
Tensor& i1_out(Tensor& out, const Tensor& self);
Tensor& i1e_out(Tensor& out, const Tensor& self);
Tensor& bessel_j0_out(Tensor& out, const Tensor& self);
Tensor& bessel_j1_out(Tensor& out, const Tensor& self);

}  // namespace ember::special
