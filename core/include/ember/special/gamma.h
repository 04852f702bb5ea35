#pragma once
// ember::special, gamma / error function / normal distribution family
// (torch.special semantics of PyTorch 1.10, scipy.special numerics; see
// docs/special.md for the measured accuracy). Integral and bool inputs compute
// in the default float dtype; binary functions broadcast and type-promote.
#include <cstdint>

#include "ember/core/tensor.h"

namespace ember::special {

// log|Gamma(x)| (torch.special.gammaln; +inf at the poles 0, -1, -2, ... and at -inf).
Tensor gammaln(const Tensor& self);
// Gamma'(x) / Gamma(x); -inf at +0, +inf at -0, nan at negative integers.
Tensor digamma(const Tensor& self);
Tensor psi(const Tensor& self);  // alias of digamma
// The n-th derivative of digamma, n >= 0 (n = 0: digamma).
Tensor polygamma(int64_t n, const Tensor& self);
// Multivariate log-gamma of dimension p >= 1: log(pi) p(p-1)/4 + sum_{i<p} gammaln(x - i/2);
// every element must exceed (p-1)/2 (as torch 1.10).
Tensor multigammaln(const Tensor& self, int64_t p);
// Hurwitz zeta sum_{k>=0} (k + q)^-x (torch.special.zeta(x, q), scipy.special.zeta(x, q)).
Tensor zeta(const Tensor& self, const Tensor& other);
Tensor zeta(const Scalar& self, const Tensor& other);
Tensor zeta(const Tensor& self, const Scalar& other);
// Regularized lower / upper incomplete gamma P(a, x) and Q(a, x) (a = self, x = other).
Tensor gammainc(const Tensor& self, const Tensor& other);
Tensor gammaincc(const Tensor& self, const Tensor& other);
// Error functions.
Tensor erf(const Tensor& self);
Tensor erfc(const Tensor& self);
Tensor erfcx(const Tensor& self);  // exp(x^2) erfc(x)
Tensor erfinv(const Tensor& self);
// Standard normal distribution: CDF, its logarithm, and the quantile function.
Tensor ndtr(const Tensor& self);
Tensor log_ndtr(const Tensor& self);
Tensor ndtri(const Tensor& self);

// out= forms (torch's out=): an empty out is resized to the result's shape (a
// non-empty one must have it already) and takes the result cast to its dtype;
// they take no part in autograd.
Tensor& gammaln_out(Tensor& out, const Tensor& self);
Tensor& digamma_out(Tensor& out, const Tensor& self);
Tensor& psi_out(Tensor& out, const Tensor& self);
Tensor& polygamma_out(Tensor& out, int64_t n, const Tensor& self);
Tensor& zeta_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& gammainc_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& gammaincc_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& erf_out(Tensor& out, const Tensor& self);
Tensor& erfc_out(Tensor& out, const Tensor& self);
Tensor& erfcx_out(Tensor& out, const Tensor& self);
Tensor& erfinv_out(Tensor& out, const Tensor& self);
Tensor& ndtr_out(Tensor& out, const Tensor& self);
Tensor& log_ndtr_out(Tensor& out, const Tensor& self);
Tensor& ndtri_out(Tensor& out, const Tensor& self);

}  // namespace ember::special
