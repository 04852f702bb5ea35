// Fake quantization ops against PyTorch 1.13 (scripts/fixtures/quant_workflow.py):
// forward values bit for bit, straight-through gradients, LSQ gradients, and
// argument errors.
#include <gtest/gtest.h>

#include <ember/ao/quantization/fake_quantize_ops.h>
#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace quant_fake_quantize_test {

using namespace ember::ao::quantization;
using testing::expect_error;
using testing::expect_tensor_near;
using testing::fixture;

Tensor fx(const std::string& name) { return fixture("quant_workflow", name); }

struct PerTensorCase {
  const char* name;
  double scale;
  int64_t zp, qmin, qmax;
};

TEST(QuantFakeQuantize, PerTensorMatchesTorchExactly) {
  for (const PerTensorCase& c : {PerTensorCase{"pt_u8", 0.05, 10, 0, 255}, PerTensorCase{"pt_s8", 0.02, 0, -128, 127},
                                 PerTensorCase{"pt_s8_f64", 0.02, -3, -128, 127},
                                 PerTensorCase{"pt_u7", 0.1, 64, 0, 127}}) {
    SCOPED_TRACE(c.name);
    const std::string n = c.name;
    Tensor x = fx(n + "_in").requires_grad_();
    Tensor y = fake_quantize_per_tensor_affine(x, c.scale, c.zp, c.qmin, c.qmax);
    expect_tensor_near(y, fx(n + "_out"), 0, 0);
    y.backward(fx(n + "_gout"));
    expect_tensor_near(x.grad(), fx(n + "_gin"), 0, 0);
    // The tensor-qparams overload gives the same values.
    Tensor y2 = fake_quantize_per_tensor_affine(x.detach(), full({1}, c.scale, kFloat32), full({1}, c.zp, kInt32),
                                                c.qmin, c.qmax);
    expect_tensor_near(y2, fx(n + "_out"), 0, 0);
  }
}

TEST(QuantFakeQuantize, PerChannelIntAndFloatZeroPoints) {
  for (const char* name : {"pc_int", "pc_float"}) {
    SCOPED_TRACE(name);
    const std::string n = name;
    Tensor x = fx(n + "_in").requires_grad_();
    Tensor y = fake_quantize_per_channel_affine(x, fx(n + "_scale"), fx(n + "_zp"), 1, -128, 127);
    expect_tensor_near(y, fx(n + "_out"), 0, 0);
    y.backward(fx(n + "_gout"));
    expect_tensor_near(x.grad(), fx(n + "_gin"), 0, 0);
  }
}

TEST(QuantFakeQuantize, LearnableGradients) {
  Tensor x = fx("lsq_in").requires_grad_();
  Tensor scale = full({1}, 0.03, kFloat32).requires_grad_();
  Tensor zp = full({1}, 3.3, kFloat32).requires_grad_();
  Tensor y = fake_quantize_learnable_per_tensor_affine(x, scale, zp, 0, 127, 1.0);
  expect_tensor_near(y, fx("lsq_out"), 0, 0);
  y.backward(fx("lsq_gout"));
  expect_tensor_near(x.grad(), fx("lsq_gin"), 0, 0);
  // PyTorch sums these in float32 (cascade); Ember accumulates in double.
  expect_tensor_near(scale.grad(), fx("lsq_gscale"), 1e-5, 1e-6);
  expect_tensor_near(zp.grad(), fx("lsq_gzp"), 1e-5, 1e-6);
}

TEST(QuantFakeQuantize, StraightThroughMaskIsZeroOutsideTheRange) {
  // scale 1, [0, 3]: -2 -> 0 (clamped, grad 0), 1.4 -> 1, 2.5 -> 2 (ties to even), 7 -> 3 (clamped).
  Tensor x = tensor<double>({-2.0, 1.4, 2.5, 7.0}).requires_grad_();
  Tensor y = fake_quantize_per_tensor_affine(x, 1.0, 0, 0, 3);
  expect_tensor_near(y.detach(), tensor<double>({0.0, 1.0, 2.0, 3.0}), 0, 0);
  y.sum().backward();
  expect_tensor_near(x.grad(), tensor<double>({0.0, 1.0, 1.0, 0.0}), 0, 0);
}

TEST(QuantFakeQuantize, BadArguments) {
  Tensor x = randn({2, 3});
  expect_error([&] { fake_quantize_per_tensor_affine(x, 0.1, 0, 5, 1); }, "quant_min (5) must be less than or equal");
  expect_error([&] { fake_quantize_per_tensor_affine(x, 0.1, 300, 0, 255); }, "zero_point (300) must be between");
  expect_error([&] { fake_quantize_per_tensor_affine(x, -0.1, 0, 0, 255); }, "scale must be positive");
  expect_error([&] { fake_quantize_per_tensor_affine(x.to(kInt64), 0.1, 0, 0, 255); }, "float32 or float64");
  const Tensor s = full({3}, 0.1, kFloat32), z = zeros({3}, kInt32);
  expect_error([&] { fake_quantize_per_channel_affine(x, s, z, 2, 0, 255); }, "axis 2 is out of range for a 2-d");
  expect_error([&] { fake_quantize_per_channel_affine(x, s, z, -1, 0, 255); }, "axis -1 is out of range");
  expect_error([&] { fake_quantize_per_channel_affine(x, s, z, 0, 0, 255); }, "input.size(0) is 2");
  expect_error([&] { fake_quantize_per_channel_affine(x, s, full({3}, 9, kInt32), 1, 0, 5); },
               "zero_point values [9, 9] must be between");
  expect_error([&] { fake_quantize_per_channel_affine(x, s.to(kFloat64), z, 1, 0, 255); }, "scale must be float32");
}

}  // namespace quant_fake_quantize_test
}  // namespace ember
