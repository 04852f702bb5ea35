// Observers and FakeQuantize against PyTorch 1.13 (scripts/fixtures/quant_workflow.py):
// min/max (and the histogram) after the same batches, and calculate_qparams,
// on random, all-zero, single-value, negative-only and huge-range data.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include <ember/ao/quantization/qconfig.h>
#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace quant_observers_test {

using namespace ember::ao::quantization;
using testing::expect_error;
using testing::expect_tensor_near;
using testing::fixture;

Tensor fx(const std::string& name) { return fixture("quant_workflow", name); }

// The same table as OBSERVERS in the fixture script.
const std::map<std::string, ObserverFactory>& observers() {
  static const std::map<std::string, ObserverFactory> table = {
      {"minmax_affine_u8", observer_factory<MinMaxObserver>({})},
      {"minmax_sym_s8", observer_factory<MinMaxObserver>({.dtype = QDType::kQInt8, .qscheme = QScheme::kPerTensorSymmetric})},
      {"minmax_affine_u8_reduce", observer_factory<MinMaxObserver>({.reduce_range = true})},
      {"minmax_sym_u8_custom",
       observer_factory<MinMaxObserver>({.qscheme = QScheme::kPerTensorSymmetric, .quant_min = 0, .quant_max = 127})},
      {"minmax_affine_s32", observer_factory<MinMaxObserver>({.dtype = QDType::kQInt32})},
      {"minmax_sym_u8", observer_factory<MinMaxObserver>({.qscheme = QScheme::kPerTensorSymmetric})},
      {"ma_affine_u8", observer_factory<MovingAverageMinMaxObserver>({.averaging_constant = 0.25})},
      {"ma_sym_s8",
       observer_factory<MovingAverageMinMaxObserver>({.dtype = QDType::kQInt8, .qscheme = QScheme::kPerTensorSymmetric})},
      {"pc_affine_u8_ax1", observer_factory<PerChannelMinMaxObserver>({.ch_axis = 1})},
      {"pc_sym_s8_ax0",
       observer_factory<PerChannelMinMaxObserver>({.dtype = QDType::kQInt8, .qscheme = QScheme::kPerChannelSymmetric})},
      {"pc_floatq_u8_ax2",
       observer_factory<PerChannelMinMaxObserver>({.qscheme = QScheme::kPerChannelAffineFloatQParams, .ch_axis = 2})},
      {"mapc_affine_u8_ax1",
       observer_factory<MovingAveragePerChannelMinMaxObserver>({.averaging_constant = 0.5, .ch_axis = 1})},
      {"mapc_sym_s8_ax0", observer_factory<MovingAveragePerChannelMinMaxObserver>(
                              {.dtype = QDType::kQInt8, .qscheme = QScheme::kPerChannelSymmetric})},
      {"hist_affine_u8", observer_factory<HistogramObserver>({})},
      {"hist_affine_u8_reduce", observer_factory<HistogramObserver>({.reduce_range = true})},
      {"hist_sym_s8",
       observer_factory<HistogramObserver>({.dtype = QDType::kQInt8, .qscheme = QScheme::kPerTensorSymmetric})},
  };
  return table;
}

const std::map<std::string, int> kBatches = {{"random", 3}, {"zeros", 1}, {"single", 1}, {"negative", 2}, {"huge", 2}};

Tensor buffer(const nn::Module& m, const std::string& name) { return m.own_buffers().at(name); }

TEST(QuantObservers, QParamsMatchTorchOnEveryDataSet) {
  int cases = 0;
  for (const auto& [oname, factory] : observers()) {
    for (const auto& [dname, count] : kBatches) {
      const std::string c = oname + "_" + dname;
      SCOPED_TRACE(c);
      auto obs = factory();
      for (int i = 0; i < count; ++i) obs->forward(fx("data_" + dname + "_" + std::to_string(i)));
      expect_tensor_near(buffer(*obs, "min_val"), fx(c + "_min"), 0, 0);
      expect_tensor_near(buffer(*obs, "max_val"), fx(c + "_max"), 0, 0);
      if (oname.rfind("hist", 0) == 0) expect_tensor_near(buffer(*obs, "histogram"), fx(c + "_hist"), 0, 0);
      auto [scale, zp] = obs->calculate_qparams();
      expect_tensor_near(scale, fx(c + "_scale"), 0, 0);
      expect_tensor_near(zp, fx(c + "_zp"), 0, 0);
      ++cases;
    }
  }
  EXPECT_EQ(cases, 80);
}

TEST(QuantObservers, StateDictKeysAreTorchs) {
  MinMaxObserver mm;
  EXPECT_EQ(mm.state_dict().keys(), (std::vector<std::string>{"eps", "min_val", "max_val"}));
  HistogramObserver h;
  EXPECT_EQ(h.state_dict().keys(), (std::vector<std::string>{"eps", "histogram", "min_val", "max_val"}));
  auto fq = default_fake_quant()();
  EXPECT_EQ(fq->state_dict().keys(),
            (std::vector<std::string>{"fake_quant_enabled", "observer_enabled", "scale", "zero_point",
                                      "activation_post_process.eps", "activation_post_process.min_val",
                                      "activation_post_process.max_val"}));
}

TEST(QuantObservers, RangesAndDefaults) {
  EXPECT_EQ(MinMaxObserver({.reduce_range = true}).quant_max(), 127);
  EXPECT_EQ(MinMaxObserver({.dtype = QDType::kQInt8, .reduce_range = true}).quant_min(), -64);
  // A custom range is halved by reduce_range (floor division), as PyTorch.
  MinMaxObserver custom({.reduce_range = true, .quant_min = -3, .quant_max = 255});
  EXPECT_EQ(custom.quant_min(), -2);
  EXPECT_EQ(custom.quant_max(), 127);
  // Nothing observed: scale 1, zero point 0.
  WarningCapture capture;
  auto [s, z] = MinMaxObserver().calculate_qparams();
  EXPECT_EQ(s.item<float>(), 1.0f);
  EXPECT_EQ(z.item<int64_t>(), 0);
}

TEST(QuantObservers, FakeQuantizeModuleMatchesTorch) {
  for (auto [name, factory] : {std::pair{"fq_act", default_fake_quant()},
                               std::pair{"fq_wt_pc", default_per_channel_weight_fake_quant()},
                               std::pair{"fq_wt", default_weight_fake_quant()}}) {
    SCOPED_TRACE(name);
    const std::string n = name;
    auto fq = factory();
    for (int i = 0; i < 3; ++i)
      expect_tensor_near(fq->forward(fx(n + "_in" + std::to_string(i))), fx(n + "_out" + std::to_string(i)), 0, 0);
    expect_tensor_near(buffer(*fq, "scale"), fx(n + "_scale"), 0, 0);
    expect_tensor_near(buffer(*fq, "zero_point"), fx(n + "_zp"), 0, 0);
  }
}

TEST(QuantObservers, FusedMovingAvgObsFakeQuantizeMatchesTorchsFusedOp) {
  for (auto [name, factory] : {std::pair{"ffq_act", default_fused_act_fake_quant()},
                               std::pair{"ffq_wt", default_fused_wt_fake_quant()},
                               std::pair{"ffq_wt_pc", default_fused_per_channel_wt_fake_quant()}}) {
    const std::string n = name;
    auto fq = std::dynamic_pointer_cast<FusedMovingAvgObsFakeQuantize>(factory());
    ASSERT_TRUE(fq);
    for (int i = 0; i < 4; ++i) {
      SCOPED_TRACE(n + " step " + std::to_string(i));
      const std::string s = std::to_string(i);
      if (i == 3) fq->disable_observer();
      expect_tensor_near(fq->forward(fx(n + "_in" + s)), fx(n + "_out" + s), 0, 0);
      expect_tensor_near(fq->scale, fx(n + "_scale" + s), 0, 0);
      expect_tensor_near(fq->zero_point, fx(n + "_zp" + s), 0, 0);
      expect_tensor_near(buffer(*fq->activation_post_process, "min_val"), fx(n + "_min" + s), 0, 0);
      expect_tensor_near(buffer(*fq->activation_post_process, "max_val"), fx(n + "_max" + s), 0, 0);
    }
  }
}

TEST(QuantObservers, FakeQuantizeEnableDisable) {
  auto fq = std::dynamic_pointer_cast<FakeQuantize>(default_fake_quant()());
  ASSERT_TRUE(fq);
  Tensor x = randn({10}) * 3;
  fq->disable_fake_quant();
  expect_tensor_near(fq->forward(x), x, 0, 0);  // observed only
  const float scale = fq->scale.item<float>();
  fq->disable_observer();
  fq->enable_fake_quant();
  fq->forward(x * 100);
  EXPECT_EQ(fq->scale.item<float>(), scale);  // frozen
}

TEST(QuantObservers, QConfigPerBackend) {
  for (const char* backend : {"fbgemm", "x86", "onednn", "qnnpack"}) {
    SCOPED_TRACE(backend);
    const bool reduce = std::string(backend) == "fbgemm" || std::string(backend) == "x86";
    QConfig qc = get_default_qconfig(backend);
    auto act = std::dynamic_pointer_cast<HistogramObserver>(qc.activation());
    ASSERT_TRUE(act);
    EXPECT_EQ(act->reduce_range(), reduce);
    EXPECT_EQ(act->quant_max(), reduce ? 127 : 255);
    auto w = qc.weight();
    EXPECT_EQ(w->dtype(), QDType::kQInt8);
    EXPECT_EQ(dynamic_cast<PerChannelMinMaxObserver*>(w.get()) != nullptr, std::string(backend) != "qnnpack");
    QConfig qat = get_default_qat_qconfig(backend);
    auto fact = std::dynamic_pointer_cast<FusedMovingAvgObsFakeQuantize>(qat.activation());
    ASSERT_TRUE(fact);
    EXPECT_EQ(fact->quant_max(), reduce ? 127 : 255);
    auto fw = std::dynamic_pointer_cast<FakeQuantize>(get_default_qat_qconfig(backend, 0).weight());
    ASSERT_TRUE(fw);
    EXPECT_EQ(fw->is_per_channel(), std::string(backend) != "qnnpack");
  }
  expect_error([] { get_default_qconfig("tensorrt"); }, "unknown backend 'tensorrt'");
  expect_error([] { get_default_qat_qconfig("fbgemm", 2); }, "version 2 is not supported");
}

TEST(QuantObservers, BadArguments) {
  expect_error([] { MinMaxObserver({.quant_min = 5, .quant_max = 3}); }, "must include 0");
  expect_error([] { MinMaxObserver({.quant_min = 0, .quant_max = 0}); }, "quant_min (0) must be less than quant_max (0)");
  expect_error([] { MinMaxObserver({.dtype = QDType::kQInt8, .quant_min = -200, .quant_max = 100}); },
               "more than qint8's 256");
  expect_error([] { MinMaxObserver({.qscheme = QScheme::kPerChannelAffine}); }, "is per channel");
  expect_error([] { MinMaxObserver({.qscheme = QScheme::kPerTensorSymmetric, .reduce_range = true}); },
               "cannot reduce range for symmetric quantization for quint8");
  expect_error([] { PerChannelMinMaxObserver({.qscheme = QScheme::kPerTensorAffine}); }, "is per tensor");
  expect_error([] { MinMaxObserver({.dtype = QDType::kFloat16}); }, "is not supported");
  PerChannelMinMaxObserver pc({.ch_axis = 3});
  expect_error([&] { pc.forward(randn({2, 3})); }, "ch_axis 3 is out of range for a 2-d input");
  expect_error([] { FakeQuantize::make<MovingAverageMinMaxObserver>({.quant_min = 0, .quant_max = 300}); },
               "quant_max 300 is out of bound for torch.quint8");
  expect_error([] { NoopObserver().calculate_qparams(); }, "calculate_qparams should not be called");
}

}  // namespace quant_observers_test
}  // namespace ember
