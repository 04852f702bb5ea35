// Quantized LeakyReLU and ELU (functional::leaky_relu / elu, the modules and
// their convert-table entries) against torch 1.13's quantized modules on the
// onednn engine (fixtures: scripts/fixtures/quant_leaky_elu.py).
#include <gtest/gtest.h>

#include <ember/ember.h>
// After ember.h: the workflow headers name ember::nn as nn:: from inside ember::ao.
#include <ember/ao/nn/quantized/modules.h>
#include <ember/ao/quantization/quant_markers.h>
#include <ember/ao/quantization/quantize.h>
#include <ember/ops/quantize.h>

#include "tensor_expect.h"

using namespace ember;
namespace nnq = ember::ao::nn::quantized;
namespace aq = ember::ao::quantization;
using ember::testing::expect_error;

namespace quant_leaky_elu_test {
Tensor fx(const std::string& name) { return ember::testing::fixture("quant_leaky_elu", name); }

// The case's input quantized with its parameters, and its output parameters.
struct LeCase {
  Tensor qx;
  double out_scale;
  int64_t out_zp;
};
LeCase load_case(const std::string& name, DType dtype) {
  const Tensor in = fx(name + "_in_qparams").to(kFloat64), out = fx(name + "_out_qparams").to(kFloat64);
  return {quantize_per_tensor(fx(name + "_x"), in[0].item<double>(), static_cast<int64_t>(in[1].item<double>()),
                              dtype),
          out[0].item<double>(), static_cast<int64_t>(out[1].item<double>())};
}

// Integers equal to torch's, or (ELU: torch's Sleef exp vs std::exp) within one quantum.
void expect_ints(const Tensor& got, const std::string& name, double out_scale, int64_t out_zp, int64_t quanta) {
  ASSERT_TRUE(got.is_quantized());
  EXPECT_DOUBLE_EQ(got.q_scale(), out_scale);
  EXPECT_EQ(got.q_zero_point(), out_zp);
  const Tensor diff = (got.int_repr().to(kInt64) - fx(name + "_q").to(kInt64)).abs();
  EXPECT_LE(diff.max().item<int64_t>(), quanta) << name;
}
}  // namespace quant_leaky_elu_test
using namespace quant_leaky_elu_test;

TEST(QuantizedLeakyReLUELU, MatchTorch) {
  for (const auto& [name, dtype, p] : {std::tuple{"leaky_u8", kQUInt8, 0.1}, std::tuple{"leaky_s8", kQInt8, 0.01}}) {
    const LeCase c = load_case(name, dtype);
    // Measured: bit-exact.
    expect_ints(nnq::LeakyReLU(c.out_scale, c.out_zp, p)(c.qx), name, c.out_scale, c.out_zp, 0);
  }
  for (const auto& [name, dtype, a] : {std::tuple{"elu_u8", kQUInt8, 1.0}, std::tuple{"elu_s8", kQInt8, 1.5}}) {
    const LeCase c = load_case(name, dtype);
    // Measured: bit-exact on these inputs; bound one quantum (exp rounding).
    expect_ints(nnq::ELU(c.out_scale, c.out_zp, a)(c.qx), name, c.out_scale, c.out_zp, 1);
  }
}

TEST(QuantizedLeakyReLUELU, ConvertTableSwapsThem) {
  aq::QuantWrapper m(nn::AnyModule(nn::Sequential(nn::Linear(6, 8), nn::LeakyReLU(0.2), nn::ELU(nn::ELUOptions{.alpha = 0.5}))));
  m->eval();
  aq::prepare(*m, {{"", aq::default_qconfig()}});
  const Tensor x = randn({16, 6}) * 2.0;
  const Tensor ref = m(x);
  aq::convert(*m, {.strict = true});
  auto leaky = std::dynamic_pointer_cast<nnq::LeakyReLUImpl>(aq::module_at(*m, "module.1"));
  auto elu = std::dynamic_pointer_cast<nnq::ELUImpl>(aq::module_at(*m, "module.2"));
  ASSERT_NE(leaky, nullptr);
  ASSERT_NE(elu, nullptr);
  EXPECT_DOUBLE_EQ(leaky->negative_slope, 0.2);
  EXPECT_DOUBLE_EQ(elu->alpha, 0.5);
  // The quantized model follows the float one within a few quanta.
  EXPECT_LT((m(x) - ref).abs().max().item<float>(), 4 * ref.abs().max().item<float>() / 127);
}

TEST(QuantizedLeakyReLUELU, BadInput) {
  expect_error([] { nnq::LeakyReLU(0.1, 0)(randn({3})); }, "quantized::leaky_relu: input must be a quantized tensor");
  const Tensor q = quantize_per_tensor(randn({3}), 0.1, 128, kQUInt8);
  expect_error([&] { nnq::ELU(0.1, 300)(q); }, "quantized::elu");
  expect_error([&] { nnq::LeakyReLU(-1.0, 0)(q); }, "quantized::leaky_relu");
}
