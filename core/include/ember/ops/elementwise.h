#pragma once
// Elementwise math: unary, binary (with broadcasting and type promotion) and
// ternary ops, each with an out= form (`exp_out(out, x)`), as in torch::.
#include <optional>
#include <string>

#include "ember/core/tensor.h"

namespace ember {

#define EMBER_DECLARE_UNARY(name)    \
  Tensor name(const Tensor& self);   \
  Tensor& name##_(Tensor& self);     \
  Tensor& name##_out(Tensor& out, const Tensor& self);
EMBER_DECLARE_UNARY(abs)
EMBER_DECLARE_UNARY(neg)
EMBER_DECLARE_UNARY(sign)
EMBER_DECLARE_UNARY(sgn)
EMBER_DECLARE_UNARY(exp)
EMBER_DECLARE_UNARY(exp2)
EMBER_DECLARE_UNARY(expm1)
EMBER_DECLARE_UNARY(log)
EMBER_DECLARE_UNARY(log2)
EMBER_DECLARE_UNARY(log10)
EMBER_DECLARE_UNARY(log1p)
EMBER_DECLARE_UNARY(sqrt)
EMBER_DECLARE_UNARY(rsqrt)
EMBER_DECLARE_UNARY(square)
EMBER_DECLARE_UNARY(reciprocal)
EMBER_DECLARE_UNARY(sin)
EMBER_DECLARE_UNARY(cos)
EMBER_DECLARE_UNARY(tan)
EMBER_DECLARE_UNARY(asin)
EMBER_DECLARE_UNARY(acos)
EMBER_DECLARE_UNARY(atan)
EMBER_DECLARE_UNARY(sinh)
EMBER_DECLARE_UNARY(cosh)
EMBER_DECLARE_UNARY(tanh)
EMBER_DECLARE_UNARY(asinh)
EMBER_DECLARE_UNARY(acosh)
EMBER_DECLARE_UNARY(atanh)
EMBER_DECLARE_UNARY(sigmoid)
EMBER_DECLARE_UNARY(relu)
EMBER_DECLARE_UNARY(silu)
EMBER_DECLARE_UNARY(erf)
EMBER_DECLARE_UNARY(erfc)
EMBER_DECLARE_UNARY(floor)
EMBER_DECLARE_UNARY(ceil)
EMBER_DECLARE_UNARY(round)
EMBER_DECLARE_UNARY(trunc)
EMBER_DECLARE_UNARY(frac)
EMBER_DECLARE_UNARY(logical_not)
EMBER_DECLARE_UNARY(bitwise_not)
#undef EMBER_DECLARE_UNARY

// approximate: "none" (erf form) or "tanh".
Tensor gelu(const Tensor& self, const std::string& approximate = "none");
Tensor& gelu_out(Tensor& out, const Tensor& self, const std::string& approximate = "none");
Tensor softplus(const Tensor& self, const Scalar& beta = 1, const Scalar& threshold = 20);
Tensor isnan(const Tensor& self);
Tensor isinf(const Tensor& self);
Tensor isfinite(const Tensor& self);
Tensor isposinf(const Tensor& self);
Tensor isneginf(const Tensor& self);
Tensor signbit(const Tensor& self);
Tensor conj(const Tensor& self);
Tensor angle(const Tensor& self);
Tensor nan_to_num(const Tensor& self, std::optional<double> nan = std::nullopt,
                  std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt);
Tensor clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor& clamp_out(Tensor& out, const Tensor& self, std::optional<Scalar> min,
                  std::optional<Scalar> max = std::nullopt);
Tensor clamp(const Tensor& self, const Tensor& min, const Tensor& max);

#define EMBER_DECLARE_BINARY(name)                                           \
  Tensor name(const Tensor& self, const Tensor& other);                      \
  Tensor name(const Tensor& self, const Scalar& other);                      \
  Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& other);
EMBER_DECLARE_BINARY(mul)
EMBER_DECLARE_BINARY(div)
EMBER_DECLARE_BINARY(floor_divide)
EMBER_DECLARE_BINARY(fmod)
EMBER_DECLARE_BINARY(remainder)
EMBER_DECLARE_BINARY(pow)
EMBER_DECLARE_BINARY(atan2)
EMBER_DECLARE_BINARY(maximum)
EMBER_DECLARE_BINARY(minimum)
EMBER_DECLARE_BINARY(fmax)
EMBER_DECLARE_BINARY(fmin)
EMBER_DECLARE_BINARY(hypot)
EMBER_DECLARE_BINARY(copysign)
EMBER_DECLARE_BINARY(xlogy)
EMBER_DECLARE_BINARY(eq)
EMBER_DECLARE_BINARY(ne)
EMBER_DECLARE_BINARY(lt)
EMBER_DECLARE_BINARY(le)
EMBER_DECLARE_BINARY(gt)
EMBER_DECLARE_BINARY(ge)
EMBER_DECLARE_BINARY(logical_and)
EMBER_DECLARE_BINARY(logical_or)
EMBER_DECLARE_BINARY(logical_xor)
EMBER_DECLARE_BINARY(bitwise_and)
EMBER_DECLARE_BINARY(bitwise_or)
EMBER_DECLARE_BINARY(bitwise_xor)
EMBER_DECLARE_BINARY(bitwise_left_shift)
EMBER_DECLARE_BINARY(bitwise_right_shift)
#undef EMBER_DECLARE_BINARY
Tensor pow(const Scalar& self, const Tensor& exponent);

Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
Tensor& add_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
Tensor& sub_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
// rounding_mode: "" (true division), "trunc" or "floor".
Tensor div(const Tensor& self, const Tensor& other, const std::string& rounding_mode);
Tensor& div_out(Tensor& out, const Tensor& self, const Tensor& other, const std::string& rounding_mode);

Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight);
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight);
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor& addcmul_out(Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
                    const Scalar& value = 1);
Tensor& addcdiv_out(Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
                    const Scalar& value = 1);
// where(condition, self, other): self where condition is true, else other.
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other);
Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other);
Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other);
Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);

Tensor isclose(const Tensor& self, const Tensor& other, double rtol = 1e-5, double atol = 1e-8,
               bool equal_nan = false);
bool allclose(const Tensor& self, const Tensor& other, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false);
bool equal(const Tensor& self, const Tensor& other);

}  // namespace ember
