#pragma once
// ember::special, logistic, exponential/logarithmic helpers, sinc, entropy,
// rounding and the softmax family (torch.special semantics of PyTorch 1.10;
// see docs/special.md for edge values and the measured accuracy). Where a core
// op computes the same function these are aliases of it (expit = sigmoid,
// exp2, expm1, log1p, xlogy, round, softmax, log_softmax, logsumexp).
// Integral and bool inputs of the elementwise functions compute in the default
// float dtype (round keeps them, softmax/log_softmax need a float input or
// dtype, as torch); complex inputs are an error.
#include <cstdint>
#include <optional>

#include "ember/core/tensor.h"

namespace ember::special {

// 1 / (1 + exp(-x)) (ember::sigmoid).
Tensor expit(const Tensor& self);
// log(x / (1 - x)); with eps the input is first clamped to [eps, 1 - eps]
// (the gradient is 0 outside that range). Without eps: -inf at 0, inf at 1,
// nan outside [0, 1].
Tensor logit(const Tensor& self, std::optional<double> eps = std::nullopt);
Tensor exp2(const Tensor& self);   // 2^x (ember::exp2)
Tensor expm1(const Tensor& self);  // exp(x) - 1 (ember::expm1)
Tensor log1p(const Tensor& self);  // log(1 + x) (ember::log1p)
// x log(y) and x log1p(y): 0 where x == 0 unless y is nan. Broadcast and type-promote.
Tensor xlogy(const Tensor& self, const Tensor& other);  // ember::xlogy
Tensor xlogy(const Scalar& self, const Tensor& other);
Tensor xlogy(const Tensor& self, const Scalar& other);
Tensor xlog1py(const Tensor& self, const Tensor& other);
Tensor xlog1py(const Scalar& self, const Tensor& other);
Tensor xlog1py(const Tensor& self, const Scalar& other);
// sin(pi x) / (pi x), 1 at 0 (normalized sinc).
Tensor sinc(const Tensor& self);
// Elementwise entropy -x ln x: 0 at 0, -inf for x < 0.
Tensor entr(const Tensor& self);
// torch.round(x, decimals): half to even at 10^-decimals (x * 10^d rounded,
// divided back, in the dtype's arithmetic as PyTorch); decimals = 0 is ember::round.
Tensor round(const Tensor& self, int64_t decimals = 0);
// The softmax family along dim (nn::functional's); dtype: cast the input to it first.
Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
// log(sum(exp(x))) over dims (ember::logsumexp).
Tensor logsumexp(const Tensor& self, IntArrayRef dims, bool keepdim = false);

// out= forms (an empty out is resized; the result is cast to out's dtype; no autograd).
Tensor& expit_out(Tensor& out, const Tensor& self);
Tensor& logit_out(Tensor& out, const Tensor& self, std::optional<double> eps = std::nullopt);
Tensor& exp2_out(Tensor& out, const Tensor& self);
Tensor& expm1_out(Tensor& out, const Tensor& self);
Tensor& log1p_out(Tensor& out, const Tensor& self);
Tensor& xlogy_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& xlog1py_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& sinc_out(Tensor& out, const Tensor& self);
Tensor& entr_out(Tensor& out, const Tensor& self);
Tensor& round_out(Tensor& out, const Tensor& self, int64_t decimals = 0);

}  // namespace ember::special
