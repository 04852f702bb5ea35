// float16 dynamic quantization (float16_dynamic_qconfig, quantize_dynamic with
// QDType::kFloat16) of Linear, LinearReLU, LSTM, GRU and the cells, and the
// qint8 dynamic RNNCell and LinearReLU (fixtures:
// scripts/fixtures/quant_dynamic_fp16.py). Stored float16 weights are checked
// bit for bit against torch._saturate_weight_to_fp16 + half(); outputs against
// torch's float32 modules over those weights (what fbgemm's fp16 modules
// compute; Debian's torch has no fbgemm) within the tolerances stated at each
// check, measured as in docs/quantization.md.
#include <gtest/gtest.h>

#include <ember/ember.h>
// After ember.h: the workflow headers name ember::nn as nn:: from inside ember::ao.
#include <ember/ao/quantization/fused_modules.h>
#include <ember/ao/quantization/quantize_dynamic.h>
#include <ember/ao/nn/quantized/dynamic.h>
#include <ember/ao/nn/quantized/modules.h>
#include <ember/ops/quantize.h>

#include "../temp_dir.h"
#include "tensor_expect.h"

using namespace ember;
namespace nnqd = ember::ao::nn::quantized::dynamic;
namespace nniqd = ember::ao::nn::intrinsic::quantized::dynamic;
namespace aq = ember::ao::quantization;
using ember::testing::expect_error;
using ember::testing::TempDir;

namespace quant_dynamic_fp16_test {
Tensor fx(const std::string& name) { return ember::testing::fixture("quant_dynamic_fp16", name); }

// Loads <case>_<key> for every state_dict key of a float module ('.' -> '_').
void load_case(nn::Module& m, const std::string& name) {
  OrderedDict<Tensor> state;
  for (const auto& [key, value] : m.state_dict()) {
    std::string k = key;
    for (char& c : k)
      if (c == '.') c = '_';
    state.insert(key, fx(name + "_" + k));
  }
  m.load_state_dict(state);
}

double max_diff(const Tensor& got, const Tensor& expected) {
  EXPECT_EQ(got.sizes(), expected.sizes());
  return (got.to(kFloat64) - expected.to(kFloat64)).abs().max().item<double>();
}

void expect_same_values(const Tensor& got, const Tensor& expected, const std::string& what) {
  ASSERT_EQ(got.sizes(), expected.sizes()) << what;
  EXPECT_EQ(max_diff(got, expected), 0.0) << what;
}
}  // namespace quant_dynamic_fp16_test
using namespace quant_dynamic_fp16_test;

TEST(DynamicQuantizationFp16, LinearWeightsAndOutputs) {
  nn::Linear lin(12, 6);
  load_case(*lin, "flin");
  auto q = nnqd::LinearImpl::from_float(*lin, aq::float16_dynamic_qconfig());
  EXPECT_EQ(q->weight.dtype(), kFloat16);
  // Saturated to +-65504, 1e-8 flushed to 0, a subnormal kept, a tie to even:
  // all bit for bit as torch's saturation and half().
  expect_same_values(q->weight, fx("flin_weight_fp16"), "float16 weight");
  EXPECT_EQ(q->weight[0][0].item<double>(), 65504.0);
  EXPECT_EQ(q->weight[1][1].item<double>(), -65504.0);
  EXPECT_TRUE(q->bias.equal(lin->bias.detach()));  // the bias stays float32
  // Measured: bit-exact (|y| up to ~1e5); bound relative 1e-6.
  const Tensor y = q->forward(fx("flin_x"));
  EXPECT_EQ(y.dtype(), kFloat32);
  ember::testing::expect_tensor_near(y, fx("flin_y"), 1e-6, 1e-5);
  // The fused form with float16 weights.
  aq::LinearReLU fused(lin, nn::ReLU());
  auto qr = nniqd::LinearReLUImpl::from_float(*fused, aq::float16_dynamic_qconfig());
  ember::testing::expect_tensor_near(qr->forward(fx("flin_x")), fx("flin_y_relu"), 1e-6, 1e-5);
  std::ostringstream os;
  os << *q;
  EXPECT_NE(os.str().find("dtype=float16"), std::string::npos) << os.str();
}

TEST(DynamicQuantizationFp16, LinearStateDictRoundTrip) {
  nn::Linear lin(12, 6);
  load_case(*lin, "flin");
  auto q = nnqd::LinearImpl::from_float(*lin, aq::float16_dynamic_qconfig());
  TempDir dir;
  save(dir.path("flin.safetensors"), q->state_dict());
  nnqd::Linear fresh(zeros({6, 12}).to(kFloat16), zeros({6}));
  fresh->load_state_dict(load(dir.path("flin.safetensors")));
  EXPECT_EQ(fresh->weight.dtype(), kFloat16);
  EXPECT_TRUE(fresh(fx("flin_x")).equal(q->forward(fx("flin_x"))));
  EXPECT_EQ(q->state_dict().keys(), (std::vector<std::string>{"weight", "bias"}));
}

TEST(DynamicQuantizationFp16, LSTMMatchesRoundedWeights) {
  const nn::LSTMOptions o{.input_size = 6, .hidden_size = 7, .num_layers = 2, .bidirectional = true};
  nn::LSTM lstm(o);
  load_case(*lstm, "flstm");
  auto q = nnqd::LSTMImpl::from_float(*lstm, aq::float16_dynamic_qconfig());
  for (const char* w : {"weight_ih_l0", "weight_hh_l0", "weight_ih_l1_reverse", "weight_hh_l1_reverse"}) {
    const Tensor* got = q->named_buffers().find(w);
    ASSERT_NE(got, nullptr) << w;
    EXPECT_EQ(got->dtype(), kFloat16) << w;
    expect_same_values(*got, fx(std::string("flstm_") + w + "_fp16"), w);
  }
  auto [y, state] = q->forward(fx("flstm_x"), std::tuple{fx("flstm_h0"), fx("flstm_c0")});
  // Measured: max |diff| 1.2e-7 (2 layers x 2 directions x 5 steps); bound 1e-6.
  EXPECT_LT(max_diff(y, fx("flstm_y")), 1e-6);
  EXPECT_LT(max_diff(std::get<0>(state), fx("flstm_hn")), 1e-6);
  EXPECT_LT(max_diff(std::get<1>(state), fx("flstm_cn")), 1e-6);

  // state_dict round trip into a module made with float16 weights.
  TempDir dir;
  save(dir.path("flstm.safetensors"), q->state_dict());
  nnqd::LSTM fresh(o, kFloat16);
  fresh->load_state_dict(load(dir.path("flstm.safetensors")));
  EXPECT_TRUE(std::get<0>(fresh(fx("flstm_x"))).equal(std::get<0>(q->forward(fx("flstm_x")))));
  EXPECT_EQ(q->state_dict().keys().front(), "weight_ih_l0");
}

TEST(DynamicQuantizationFp16, GRUAndCellsMatchRoundedWeights) {
  nn::GRU gru(nn::GRUOptions{.input_size = 6, .hidden_size = 5, .batch_first = true});
  load_case(*gru, "fgru");
  auto qg = nnqd::GRUImpl::from_float(*gru, aq::float16_dynamic_qconfig());
  auto [y, h] = qg->forward(fx("fgru_x"), fx("fgru_h0"));
  // Measured: GRU 2.4e-7, the cells <= 6e-8; bound 1e-6.
  EXPECT_LT(max_diff(y, fx("fgru_y")), 1e-6);
  EXPECT_LT(max_diff(h, fx("fgru_hn")), 1e-6);

  const auto fp16 = aq::float16_dynamic_qconfig();
  const Tensor x = fx("cell_x"), hx = fx("cell_h"), cx = fx("cell_c");
  nn::LSTMCell lc(6, 7);
  load_case(*lc, "flstmcell");
  auto ql = nnqd::LSTMCellImpl::from_float(*lc, fp16);
  EXPECT_EQ(ql->weight_ih.dtype(), kFloat16);
  expect_same_values(ql->weight_ih, fx("flstmcell_weight_ih_fp16"), "LSTMCell weight_ih");
  auto [h1, c1] = ql->forward(x, std::tuple{hx, cx});
  EXPECT_LT(max_diff(h1, fx("flstmcell_h")), 1e-6);
  EXPECT_LT(max_diff(c1, fx("flstmcell_c")), 1e-6);
  nn::GRUCell gc(6, 7);
  load_case(*gc, "fgrucell");
  EXPECT_LT(max_diff(nnqd::GRUCellImpl::from_float(*gc, fp16)->forward(x, hx), fx("fgrucell_h")), 1e-6);
  for (const char* name : {"frnncell", "frnncell_relu"}) {
    SCOPED_TRACE(name);
    nn::RNNCell rc(nn::RNNCellOptions{.input_size = 6, .hidden_size = 7,
                                      .nonlinearity = std::string(name) == "frnncell" ? "tanh" : "relu"});
    load_case(*rc, name);
    auto qr = nnqd::RNNCellImpl::from_float(*rc, fp16);
    EXPECT_LT(max_diff(qr->forward(x, hx), fx(std::string(name) + "_h")), 1e-6);
    // unbatched input gives the batched row (a matrix-vector product: may round apart by an ulp)
    EXPECT_LT(max_diff(qr->forward(x[0], hx[0]), qr->forward(x, hx)[0]), 1e-6);
  }
}

TEST(DynamicQuantization, RNNCellMatchesTorch) {
  const Tensor x = fx("cell_x"), hx = fx("cell_h");
  for (const char* name : {"rnncell", "rnncell_relu"}) {
    SCOPED_TRACE(name);
    nn::RNNCell rc(nn::RNNCellOptions{.input_size = 6, .hidden_size = 7,
                                      .nonlinearity = std::string(name) == "rnncell" ? "tanh" : "relu"});
    load_case(*rc, std::string("f") + name);
    auto q = nnqd::RNNCellImpl::from_float(*rc, aq::default_dynamic_qconfig());
    EXPECT_TRUE(q->weight_ih.is_quantized());
    // Measured: max |diff| <= 6.1e-8 vs torch's onednn module; bound 1e-6.
    EXPECT_LT(max_diff(q->forward(x, hx), fx(std::string("q") + name + "_h")), 1e-6);
    EXPECT_LT(max_diff(q->forward(x), fx(std::string("q") + name + "_h_zero")), 1e-6);
    // state_dict round trip
    TempDir dir;
    save(dir.path("cell.safetensors"), q->state_dict());
    nnqd::RNNCell fresh(rc->options);
    fresh->load_state_dict(load(dir.path("cell.safetensors")));
    EXPECT_TRUE(fresh(x, hx).equal(q->forward(x, hx)));
  }
}

TEST(DynamicQuantization, LinearReLUMatchesTorch) {
  aq::LinearReLU fused(nn::Linear(12, 6), nn::ReLU());
  load_case(*fused, "dlinrelu");
  auto q = nniqd::LinearReLUImpl::from_float(*fused, aq::default_dynamic_qconfig());
  expect_same_values(q->weight.int_repr(), fx("dlinrelu_wq"), "qint8 weight");
  const Tensor y = q->forward(fx("dlinrelu_x"));
  // Measured: 1.2e-7 (the integer sums are exact; the float epilogue rounds apart).
  EXPECT_LT(max_diff(y, fx("dlinrelu_y")), 1e-6);
  EXPECT_EQ(y.min().item<double>(), 0.0);
  EXPECT_EQ(q->name(), "DynamicQuantizedLinearReLU");
}

TEST(DynamicQuantizationFp16, QuantizeDynamicFloat16) {
  nn::Sequential model(nn::Linear(8, 16), nn::ReLU(), nn::Linear(16, 4));
  load_case(*model, "fmodel");
  EXPECT_EQ(aq::quantize_dynamic(*model, aq::QDType::kFloat16), (std::vector<std::string>{"0", "2"}));
  auto first = std::dynamic_pointer_cast<nnqd::LinearImpl>(model->children()[0]);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->weight.dtype(), kFloat16);
  EXPECT_LT(max_diff(model(fx("fmodel_x")), fx("fmodel_y")), 1e-6);  // measured: bit-exact
  // The set form with the dtype takes float16_dynamic_qconfig; cells and a
  // fused LinearReLU are in the table.
  nn::Sequential cells(nn::RNNCell(6, 7), aq::LinearReLU(nn::Linear(7, 3), nn::ReLU()));
  EXPECT_EQ(aq::quantize_dynamic(*cells, {typeid(nn::RNNCellImpl), typeid(aq::LinearReLUImpl)}, aq::QDType::kFloat16),
            (std::vector<std::string>{"0", "1"}));
  auto cell = std::dynamic_pointer_cast<nnqd::RNNCellImpl>(cells->children()[0]);
  auto lr = std::dynamic_pointer_cast<nniqd::LinearReLUImpl>(cells->children()[1]);
  ASSERT_NE(cell, nullptr);
  ASSERT_NE(lr, nullptr);
  EXPECT_EQ(cell->weight_hh.dtype(), kFloat16);
  EXPECT_EQ(lr->weight.dtype(), kFloat16);
  // qint8's default set now includes RNNCell, as torch's.
  nn::Sequential rnn(nn::RNNCell(3, 4));
  EXPECT_EQ(aq::quantize_dynamic(*rnn), (std::vector<std::string>{"0"}));
  EXPECT_TRUE(std::dynamic_pointer_cast<nnqd::RNNCellImpl>(rnn->children()[0])->weight_ih.is_quantized());
}

TEST(DynamicQuantizationFp16, BadInput) {
  expect_error([] { nnqd::LSTM(nn::LSTMOptions{.input_size = 2, .hidden_size = 3}, kQUInt8); },
               "weight dtype must be qint8 or float16, got quint8");
  expect_error([] { nnqd::RNNCell(nn::RNNCellOptions{.input_size = 2, .hidden_size = 3, .nonlinearity = "gelu"}); },
               "nonlinearity must be \"tanh\" or \"relu\", got \"gelu\"");
  namespace F = ember::ao::nn::quantized::functional;
  expect_error([] { F::linear_dynamic_fp16(randn({2, 3}), randn({4, 3}), Tensor()); },
               "quantized::linear_dynamic_fp16: weight must be a float16 tensor, got float32");
  expect_error([] { F::linear_dynamic_fp16(randn({2, 5}), randn({4, 3}).to(kFloat16), Tensor()); },
               "input's last dim must equal the weight's in_features (3)");
  expect_error([] { F::linear_dynamic_fp16(randn({2, 3}), randn({4, 3}).to(kFloat16), zeros({3})); },
               "bias must have 4 elements");
  expect_error([] { F::saturate_weight_to_fp16(tensor<int64_t>({1})); },
               "quantized::linear_prepack_fp16: weight must be a floating point tensor, got int64");
  expect_error([] { nniqd::LinearReLUImpl::from_float(*nn::Linear(2, 2), aq::default_dynamic_qconfig()); },
               "expected a fused LinearReLU");
}
