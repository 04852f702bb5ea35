#include "ember/ao/quantization/fake_quantize_ops.h"

#include <cmath>
#include <vector>

#include "ember/autograd/function.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"

namespace ember::ao::quantization {

// Note [Fake quantization arithmetic]
// PyTorch's CPU kernels (1.13, QuantizedOpKernels.cpp) compute, per element,
//   inv_scale = 1.0f / (float)scale
//   qval = (int64)(zero_point + std::nearbyint(x * inv_scale))
//   out  = (fmin(fmax(qval, quant_min), quant_max) - zero_point) * scale
// x * inv_scale runs in the input's dtype (float32 for float inputs), so the
// rounding decision is float32's; we compute it with the same tensor ops in
// the input's dtype (a product of two floats, exact in double, rounds to the
// same float either way). The final product runs in double in PyTorch and is
// then stored in the input's dtype; we run it in float64 and cast, so that a
// floating zero point (whose difference with the integer is not exact in
// float32) rounds once, as there. The straight-through mask is
// quant_min <= qval <= quant_max on the unclamped qval.
// Where PyTorch's cast of a huge or NaN qval to int64 is undefined behaviour
// (|x / scale| beyond 2^63, NaN), Ember clamps (+inf -> quant_max) and keeps
// NaN; such inputs are outside what PyTorch defines.

namespace {

void check_input(const Tensor& input, const char* op) {
  EMBER_CHECK(input.defined(), op, ": input is an undefined tensor");
  EMBER_CHECK(input.dtype() == DType::Float32 || input.dtype() == DType::Float64, op,
              ": expected a float32 or float64 input, got ", input.dtype());
}

void check_range(int64_t zero_point, int64_t quant_min, int64_t quant_max, const char* op) {
  EMBER_CHECK(quant_min <= quant_max, op, ": quant_min (", quant_min, ") must be less than or equal to quant_max (",
              quant_max, ")");
  EMBER_CHECK(zero_point >= quant_min && zero_point <= quant_max, op, ": zero_point (", zero_point,
              ") must be between quant_min (", quant_min, ") and quant_max (", quant_max, ")");
}

// The rounded, unclamped integer grid value as the input's dtype.
Tensor quantize_index(const Tensor& x, float inv_scale, int64_t zero_point) {
  return (x * static_cast<double>(inv_scale)).round() + static_cast<double>(zero_point);
}

Tensor dequantize_clamped(const Tensor& q, double zero_point_or_nan, const Tensor& zero_point, double scale,
                          const Tensor& scale_t, int64_t quant_min, int64_t quant_max, DType out) {
  Tensor c = q.clamp(static_cast<double>(quant_min), static_cast<double>(quant_max)).to(DType::Float64);
  c = zero_point.defined() ? c - zero_point.to(DType::Float64) : c - zero_point_or_nan;
  c = scale_t.defined() ? c * scale_t.to(DType::Float64) : c * scale;
  return c.to(out);
}

struct FakeQuantizeStraightThrough : autograd::Function<FakeQuantizeStraightThrough> {
  // `mask` is computed by the caller with the output (one pass over the
  // data); forward only wires the gradient.
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& input, const Tensor& output, const Tensor& mask) {
    ctx->save_for_backward({mask});
    (void)input;
    return output.clone();
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list grads) {
    const Tensor mask = ctx->get_saved_variables()[0];
    return {grads[0] * mask.to(grads[0].dtype()), Tensor(), Tensor()};
  }
};

Tensor with_straight_through(const Tensor& input, const Tensor& output, const Tensor& mask) {
  if (!(is_grad_enabled() && input.requires_grad())) return output;
  return FakeQuantizeStraightThrough::apply(input, output.detach(), mask.detach());
}

Tensor per_tensor(const Tensor& input, float scale, int64_t zero_point, int64_t quant_min, int64_t quant_max) {
  const float inv_scale = 1.0f / scale;
  Tensor x = input.detach();
  Tensor q;
  Tensor out, mask;
  {
    NoGradGuard no_grad;
    q = quantize_index(x, inv_scale, zero_point);
    mask = (q >= static_cast<double>(quant_min)).logical_and(q <= static_cast<double>(quant_max));
    out = dequantize_clamped(q, static_cast<double>(zero_point), Tensor(), static_cast<double>(scale), Tensor(),
                             quant_min, quant_max, input.dtype());
  }
  return with_straight_through(input, out, mask);
}

}  // namespace

Tensor fake_quantize_per_tensor_affine(const Tensor& input, double scale, int64_t zero_point, int64_t quant_min,
                                       int64_t quant_max) {
  constexpr const char* op = "fake_quantize_per_tensor_affine";
  check_input(input, op);
  check_range(zero_point, quant_min, quant_max, op);
  EMBER_CHECK(std::isfinite(scale) && scale > 0, op, ": scale must be positive and finite, got ", scale);
  return per_tensor(input, static_cast<float>(scale), zero_point, quant_min, quant_max);
}

Tensor fake_quantize_per_tensor_affine(const Tensor& input, const Tensor& scale, const Tensor& zero_point,
                                       int64_t quant_min, int64_t quant_max) {
  constexpr const char* op = "fake_quantize_per_tensor_affine";
  EMBER_CHECK(scale.defined() && scale.numel() == 1, op, ": scale must be a one-element tensor, got ",
              scale.defined() ? scale.numel() : 0, " elements");
  EMBER_CHECK(zero_point.defined() && zero_point.numel() == 1, op, ": zero_point must be a one-element tensor, got ",
              zero_point.defined() ? zero_point.numel() : 0, " elements");
  return fake_quantize_per_tensor_affine(input, static_cast<double>(scale.item<float>()),
                                         zero_point.item<int64_t>(), quant_min, quant_max);
}

Tensor fake_quantize_per_channel_affine(const Tensor& input, const Tensor& scale, const Tensor& zero_point,
                                        int64_t axis, int64_t quant_min, int64_t quant_max) {
  constexpr const char* op = "fake_quantize_per_channel_affine";
  check_input(input, op);
  EMBER_CHECK(axis >= 0 && axis < input.dim(), op, ": axis ", axis, " is out of range for a ", input.dim(),
              "-d input (expected 0 <= axis < ", input.dim(), ")");
  EMBER_CHECK(scale.defined() && scale.dim() == 1, op, ": scale should be a 1-D tensor");
  EMBER_CHECK(zero_point.defined() && zero_point.dim() == 1, op, ": zero_point should be a 1-D tensor");
  EMBER_CHECK(scale.dtype() == DType::Float32, op, ": scale must be float32, got ", scale.dtype());
  const bool float_zp = zero_point.dtype() == DType::Float32 || zero_point.dtype() == DType::Float64 ||
                        zero_point.dtype() == DType::Float16;
  EMBER_CHECK(float_zp || zero_point.dtype() == DType::Int32 || zero_point.dtype() == DType::Int64, op,
              ": zero_point must be int32, int64 or floating, got ", zero_point.dtype());
  EMBER_CHECK(scale.numel() == zero_point.numel(), op, ": scale (", scale.numel(), ") and zero_point (",
              zero_point.numel(), ") need the same number of elements");
  EMBER_CHECK(scale.numel() == input.size(axis), op, ": scale and zero_point have ", scale.numel(),
              " elements but input.size(", axis, ") is ", input.size(axis));
  EMBER_CHECK(quant_min <= quant_max, op, ": quant_min (", quant_min, ") must be less than or equal to quant_max (",
              quant_max, ")");
  if (!float_zp && zero_point.numel() > 0) {
    const int64_t zmin = zero_point.amin().item<int64_t>(), zmax = zero_point.amax().item<int64_t>();
    EMBER_CHECK(zmin >= quant_min && zmax <= quant_max, op, ": zero_point values [", zmin, ", ", zmax,
                "] must be between quant_min (", quant_min, ") and quant_max (", quant_max, ")");
  }
  std::vector<int64_t> shape(static_cast<size_t>(input.dim()), 1);
  shape[static_cast<size_t>(axis)] = -1;
  Tensor out, mask;
  {
    NoGradGuard no_grad;
    const Tensor x = input.detach();
    const Tensor s = scale.detach().reshape(shape);
    const Tensor inv = s.reciprocal();  // 1.0f / scale, in float32
    Tensor q;
    Tensor zp;
    if (float_zp) {
      zp = zero_point.detach().to(DType::Float32).reshape(shape);
      q = (zp.to(x.dtype()) + x * inv).round();
    } else {
      zp = zero_point.detach().reshape(shape);
      q = (x * inv).round() + zp.to(x.dtype());
    }
    mask = (q >= static_cast<double>(quant_min)).logical_and(q <= static_cast<double>(quant_max));
    out = dequantize_clamped(q, 0.0, zp, 0.0, s, quant_min, quant_max, input.dtype());
  }
  return with_straight_through(input, out, mask);
}

namespace {

struct LearnableFakeQuantize : autograd::Function<LearnableFakeQuantize> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& input, const Tensor& scale,
                        const Tensor& zero_point, int64_t quant_min, int64_t quant_max, double grad_factor) {
    ctx->save_for_backward({input, scale, zero_point});
    ctx->saved_data["quant_min"] = quant_min;
    ctx->saved_data["quant_max"] = quant_max;
    ctx->saved_data["grad_factor"] = grad_factor;
    const float zp_fp = std::nearbyint(zero_point.item<float>());
    const auto zp = static_cast<int64_t>(
        std::min(std::max(zp_fp, static_cast<float>(quant_min)), static_cast<float>(quant_max)));
    return per_tensor(input, scale.item<float>(), zp, quant_min, quant_max);
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const Tensor& x = saved[0];
    const int64_t qmin = ctx->saved_data["quant_min"].toInt(), qmax = ctx->saved_data["quant_max"].toInt();
    const double gf = ctx->saved_data["grad_factor"].toDouble();
    const float scale = saved[1].item<float>();
    const float inv = 1.0f / scale;
    // PyTorch's backward rounds the zero point up from +0.5 (truncation of zp + 0.5 after clamping).
    const float zp_fp = saved[2].item<float>() + 0.5f;
    const auto zp = static_cast<int64_t>(
        std::min(std::max(zp_fp, static_cast<float>(qmin)), static_cast<float>(qmax)));
    const Tensor dy = grads[0];
    const Tensor q = quantize_index(x, inv, zp);
    const Tensor below = q < static_cast<double>(qmin), above = q > static_cast<double>(qmax);
    const Tensor inside = below.logical_or(above).logical_not();
    const Tensor dx = dy * inside.to(dy.dtype());
    const Tensor xfq = (q.clamp(static_cast<double>(qmin), static_cast<double>(qmax)) - static_cast<double>(zp)) *
                       static_cast<double>(scale);
    Tensor dscale = where(inside, (xfq - x) * static_cast<double>(inv) * dy,
                          where(below, dy * static_cast<double>(static_cast<float>(qmin - zp)),
                                dy * static_cast<double>(static_cast<float>(qmax - zp)))) *
                    gf;
    Tensor dzp = where(inside, zeros_like(dy), dy * (-1.0) * static_cast<double>(scale)) * gf;
    return {dx, dscale.sum().reshape({1}).to(saved[1].dtype()), dzp.sum().reshape({1}).to(saved[2].dtype()),
            Tensor(), Tensor(), Tensor()};
  }
};

}  // namespace

Tensor fake_quantize_learnable_per_tensor_affine(const Tensor& input, const Tensor& scale, const Tensor& zero_point,
                                                 int64_t quant_min, int64_t quant_max, double grad_factor) {
  constexpr const char* op = "fake_quantize_learnable_per_tensor_affine";
  check_input(input, op);
  EMBER_CHECK(quant_min <= quant_max, op, ": quant_min (", quant_min, ") must be less than or equal to quant_max (",
              quant_max, ")");
  EMBER_CHECK(scale.defined() && scale.numel() == 1 && (scale.dtype() == DType::Float32 || scale.dtype() == DType::Float64),
              op, ": scale must be a one-element floating tensor");
  EMBER_CHECK(zero_point.defined() && zero_point.numel() == 1 &&
                  (zero_point.dtype() == DType::Float32 || zero_point.dtype() == DType::Float64),
              op, ": zero_point must be a one-element floating tensor");
  EMBER_CHECK(scale.item<double>() > 0, op, ": scale must be positive, got ", scale.item<double>());
  return LearnableFakeQuantize::apply(input, scale, zero_point, quant_min, quant_max, grad_factor);
}

}  // namespace ember::ao::quantization
