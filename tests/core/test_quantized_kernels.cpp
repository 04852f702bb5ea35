// Quantized kernels and modules against PyTorch 1.13's onednn engine
// (fixtures: scripts/fixtures/quantized.py): bit-exact, or within one quantum
// where the test says so (Note [Quantized kernels]).
#include <gtest/gtest.h>

#include <ember/ao/nn/quantized/functional.h>
#include <ember/ao/nn/quantized/modules.h>
#include <ember/ember.h>
#include <ember/ops/quantize.h>

#include "tensor_expect.h"

using namespace ember;
namespace qf = ember::ao::nn::quantized::functional;
namespace nnq = ember::ao::nn::quantized;
namespace nniq = ember::ao::nn::intrinsic::quantized;
using ember::testing::expect_error;
using ember::testing::fixture;

namespace quantized_kernels_test {
Tensor qk_fx(const std::string& name) { return fixture("quantized", name); }

// Stored integers equal, or (max_diff 1) within one quantum everywhere.
void qk_expect_q(const Tensor& q, const std::string& name, int64_t max_diff = 0) {
  ASSERT_TRUE(q.is_quantized());
  const Tensor expected = qk_fx(name).to(kInt64);
  const Tensor got = q.int_repr().to(kInt64);
  ASSERT_EQ(got.sizes(), expected.sizes()) << name;
  const int64_t diff = (got - expected).abs().max().item<int64_t>();
  EXPECT_LE(diff, max_diff) << name << "\ngot\n" << got << "\nexpected\n" << expected;
}

Tensor qk_qa() { return quantize_per_tensor(qk_fx("ops_a"), 0.05, 64, kQUInt8); }
Tensor qk_qb() { return quantize_per_tensor(qk_fx("ops_b"), 0.03, 120, kQUInt8); }
}  // namespace quantized_kernels_test
using namespace quantized_kernels_test;

TEST(QuantizedKernels, Elementwise) {
  qk_expect_q(qf::relu(qk_qa()), "relu_q");
  qk_expect_q(nnq::ReLU()->forward(qk_qa()), "relu_q");
  qk_expect_q(qf::add(qk_qa(), qk_qb(), 0.07, 100), "add_q");
  qk_expect_q(qf::add_relu(qk_qa(), qk_qb(), 0.07, 100), "add_relu_q");
  qk_expect_q(qf::mul(qk_qa(), qk_qb(), 0.1, 90), "mul_q");
  qk_expect_q(qf::cat({qk_qa(), qk_qb()}, 1, 0.06, 110), "cat_q");
  nnq::QFunctional f(0.07, 100);
  qk_expect_q(f->add(qk_qa(), qk_qb()), "add_q");
  qk_expect_q(qf::hardswish(qk_qa(), 0.04, 30), "hardswish_q");
  const Tensor hs = qf::hardsigmoid(qk_qa());
  qk_expect_q(hs, "hardsigmoid_q");
  EXPECT_DOUBLE_EQ(hs.q_scale(), qk_fx("hardsigmoid_qparams")[0].item<double>());
  EXPECT_EQ(hs.q_zero_point(), qk_fx("hardsigmoid_qparams")[1].item<int64_t>());
  // cat with the inputs' own parameters keeps the integers
  const Tensor same = qf::cat({qk_qa(), qk_qa()}, 0, 0.05, 64);
  EXPECT_TRUE(same.int_repr().equal(cat({qk_qa().int_repr(), qk_qa().int_repr()}, 0)));
}

TEST(QuantizedKernels, Pooling) {
  qk_expect_q(qf::max_pool2d(qk_qa(), 3, {.stride = 2, .padding = 1}), "maxpool_q");
  qk_expect_q(qf::avg_pool2d(qk_qa(), 3, {.stride = 2, .padding = 1}), "avgpool_q");
  qk_expect_q(qf::avg_pool2d(qk_qa(), 2, {.stride = 2, .padding = 0, .ceil_mode = false, .count_include_pad = false}),
           "avgpool_nopad_q");
  qk_expect_q(qf::adaptive_avg_pool2d(qk_qa(), {4, 3}), "adaptive_q");
  qk_expect_q(qf::adaptive_avg_pool2d(qk_qa(), 1), "adaptive1_q");
}

TEST(QuantizedKernels, BatchNorm2d) {
  nnq::BatchNorm2d bn(tensor({1.5f, 0.5f, -1.0f}), tensor({0.1f, -0.2f, 0.3f}), tensor({0.2f, -0.1f, 0.0f}),
                      tensor({1.2f, 0.7f, 2.0f}), 1e-5, 0.06, 70);
  qk_expect_q(bn->forward(qk_qa()), "bn_q");
}

TEST(QuantizedKernels, LinearMatchesTorch) {
  const Tensor x = quantize_per_tensor(qk_fx("lin_x"), 0.04, 60, kQUInt8);
  const Tensor w = qk_fx("lin_w"), b = qk_fx("lin_b");
  const Tensor wpt = quantize_per_tensor(w, 0.01, 0, kQInt8);
  const Tensor wpc = quantize_per_channel(w, tensor({0.004, 0.005, 0.006, 0.007, 0.008, 0.009, 0.01, 0.011}, kFloat64),
                                          zeros({8}, kInt64), 0, kQInt8);
  for (const auto& [name, wq] : {std::pair{"pt", wpt}, std::pair{"pc", wpc}}) {
    SCOPED_TRACE(name);
    qk_expect_q(nnq::Linear(wq, b, 0.08, 70)->forward(x), std::string("lin_") + name + "_q");
    qk_expect_q(nniq::LinearReLU(wq, b, 0.05, 0)->forward(x), std::string("linrelu_") + name + "_q");
    const Tensor y = nnq::dynamic::Linear(wq, b)->forward(qk_fx("lin_x"));
    ember::testing::expect_tensor_near(y, qk_fx(std::string("dynlin_") + name + "_y"), 1e-5, 1e-5);
  }
}

TEST(QuantizedKernels, Conv2dMatchesTorch) {
  const Tensor x = quantize_per_tensor(qk_fx("conv_x"), 0.03, 100, kQUInt8);
  const Tensor w = qk_fx("conv_w"), b = qk_fx("conv_b");
  const Tensor wpt = quantize_per_tensor(w, 0.01, 0, kQInt8);
  const Tensor wpc = quantize_per_channel(w, linspace(0.005, 0.012, 6, kFloat64), zeros({6}, kInt64), 0, kQInt8);
  const nnq::Conv2dOptions o{.stride = {2, 1}, .padding = {1, 2}, .dilation = {1, 2}, .groups = 2};
  for (const auto& [name, wq] : {std::pair{"pt", wpt}, std::pair{"pc", wpc}}) {
    SCOPED_TRACE(name);
    qk_expect_q(nnq::Conv2d(wq, b, o, 0.1, 60)->forward(x), std::string("conv_") + name + "_q");
    qk_expect_q(nniq::ConvReLU2d(wq, b, o, 0.05, 0)->forward(x), std::string("convrelu_") + name + "_q");
  }
}

TEST(QuantizedKernels, QuantizeDequantizeModules) {
  nnq::Quantize quant(0.05, 64);
  nnq::DeQuantize dequant;
  const Tensor q = quant->forward(qk_fx("ops_a"));
  EXPECT_TRUE(q.int_repr().equal(qk_qa().int_repr()));
  EXPECT_TRUE(dequant->forward(q).equal(qk_qa().dequantize()));
}

TEST(QuantizedKernels, BadInput) {
  const Tensor a = qk_qa();
  const Tensor other = quantize_per_tensor(qk_fx("ops_b"), 0.03, 0, kQInt8);
  expect_error([&] { qf::add(a, other, 0.1, 0); }, "one quantized dtype");
  expect_error([&] { qf::add(a, qk_fx("ops_b"), 0.1, 0); }, "must be a quantized tensor");
  expect_error([&] { qf::add(a, a, 0.0, 0); }, "scale");
  expect_error([&] { qf::add(a, a, 0.1, 256); }, "zero_point 256");
  expect_error([&] { qf::add(a, quantize_per_tensor(randn({5}), 0.1, 0, kQUInt8), 0.1, 0); }, "broadcast");
  const Tensor w = quantize_per_tensor(randn({4, 3}), 0.1, 0, kQInt8);
  expect_error([&] { qf::linear(quantize_per_tensor(randn({2, 5}), 0.1, 0, kQUInt8), w, {}, 0.1, 0); },
               "in_features");
  expect_error([&] { qf::linear(quantize_per_tensor(randn({2, 3}), 0.1, 0, kQUInt8), w.dequantize(), {}, 0.1, 0); },
               "qint8");
  expect_error([&] { nnq::Linear(w, Tensor(), -1.0, 0); }, "scale");
  const Tensor pc = quantize_per_channel(randn({2, 3}), tensor({0.1, 0.2, 0.3}, kFloat64), zeros({3}, kInt64), 1, kQUInt8);
  expect_error([&] { qf::relu(pc); }, "per tensor");
  expect_error([&] { qf::cat({a, other}, 0, 0.1, 0); }, "every input");
}
