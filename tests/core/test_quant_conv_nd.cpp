// Quantized Conv1d, Conv3d, ConvTranspose1d/2d/3d and ConvReLU1d/3d against
// PyTorch 1.13 (fixtures: scripts/fixtures/quant_conv_nd.py): bit-exact with
// torch's onednn engine; the output_padding cases (which torch's onednn
// engine refuses) against its qnnpack engine, within one quantum (qnnpack
// rounds its bias to int32 and requantizes with its own multiplier). The
// convert cases run prepare / calibrate / convert on both sides.
#include <gtest/gtest.h>

#include <filesystem>

#include <ember/ao/nn/quantized/functional.h>
#include <ember/ao/nn/quantized/modules.h>
#include <ember/ao/quantization/fused_modules.h>
#include <ember/ao/quantization/quant_markers.h>
#include <ember/ao/quantization/quantize.h>
#include <ember/ember.h>

#include "tensor_expect.h"

using namespace ember;
namespace qf = ember::ao::nn::quantized::functional;
namespace nnq = ember::ao::nn::quantized;
namespace nniq = ember::ao::nn::intrinsic::quantized;
using ember::testing::expect_error;

namespace quant_conv_nd_test {
Tensor cx(const std::string& name) { return ember::testing::fixture("quant_conv_nd", name); }

int64_t max_int_diff(const Tensor& q, const std::string& expected) {
  const Tensor want = cx(expected).to(kInt64);
  EXPECT_EQ(DimVector(q.sizes()), DimVector(want.sizes())) << expected;
  if (DimVector(q.sizes()) != DimVector(want.sizes())) return 1 << 20;
  return (q.int_repr().to(kInt64) - want).abs().max().item<int64_t>();
}

// A kernel case: x and w from their stored integers, the parameters from <case>_p.
struct Case {
  Tensor x, w, b;
  double y_scale = 0;
  int64_t y_zp = 0, groups = 1;
  bool relu = false, qnnpack = false;
  std::vector<int64_t> stride, padding, dilation, output_padding;
};

Case load_case(const std::string& name, int spatial) {
  Case c;
  const Tensor p = cx(name + "_p").contiguous();
  const double* v = p.data_ptr<double>();
  c.x = _make_per_tensor_quantized_tensor(cx(name + "_xq"), v[0], static_cast<int64_t>(v[1]));
  c.y_scale = v[2];
  c.y_zp = static_cast<int64_t>(v[3]);
  c.relu = v[4] != 0;
  c.qnnpack = v[5] != 0;
  c.groups = static_cast<int64_t>(v[6]);
  for (int i = 0; i < spatial; ++i) {
    c.stride.push_back(static_cast<int64_t>(v[7 + i]));
    c.padding.push_back(static_cast<int64_t>(v[7 + spatial + i]));
    c.dilation.push_back(static_cast<int64_t>(v[7 + 2 * spatial + i]));
    c.output_padding.push_back(static_cast<int64_t>(v[7 + 3 * spatial + i]));
  }
  const Tensor ws = cx(name + "_ws"), wq = cx(name + "_wq");
  c.w = ws.numel() == 1 ? _make_per_tensor_quantized_tensor(wq, ws[0].item<double>(), 0)
                        : _make_per_channel_quantized_tensor(wq, ws, zeros({wq.size(0)}, kInt64), 0);
  if (std::filesystem::exists(ember::testing::fixture_path("core/quant_conv_nd/" + name + "_b.npy")))
    c.b = cx(name + "_b");
  return c;
}

template <int D>
std::shared_ptr<nnq::ConvImpl<D>> conv_module(const Case& c) {
  const nnq::ConvOptions o{.stride = c.stride, .padding = c.padding, .dilation = c.dilation, .groups = c.groups};
  if (c.relu) return std::make_shared<nniq::ConvReLUImpl<D>>(c.w, c.b, o, c.y_scale, c.y_zp);
  return std::make_shared<nnq::ConvImpl<D>>(c.w, c.b, o, c.y_scale, c.y_zp);
}

template <int D>
void check_conv(const std::string& name) {
  SCOPED_TRACE(name);
  const Case c = load_case(name, D);
  auto m = conv_module<D>(c);
  const Tensor y = m->forward(c.x);
  EXPECT_EQ(max_int_diff(y, name + "_q"), 0);
  EXPECT_EQ(max_int_diff(m->forward(c.x), name + "_q"), 0);  // the packed weight, reused
  EXPECT_EQ(y.q_scale(), c.y_scale);
  EXPECT_EQ(y.q_zero_point(), c.y_zp);
  // torch's layout: channels-last (for 1-d, the squeezed 2-d result's strides).
  if (D == 3) {
    EXPECT_TRUE(y.is_contiguous(MemoryFormat::ChannelsLast3d));
  }
  if (D == 1) {
    EXPECT_EQ(y.stride(1), 1);
  }
  const qf::QConvOptions o{.stride = c.stride, .padding = c.padding, .dilation = c.dilation, .groups = c.groups};
  const Tensor f = D == 1 ? qf::conv1d(c.x, c.w, c.b, o, c.y_scale, c.y_zp, c.relu)
                          : qf::conv3d(c.x, c.w, c.b, o, c.y_scale, c.y_zp, c.relu);
  EXPECT_EQ(max_int_diff(f, name + "_q"), 0);
}

template <int D>
void check_conv_transpose(const std::string& name) {
  SCOPED_TRACE(name);
  const Case c = load_case(name, D);
  const nnq::ConvTransposeOptions o{.stride = c.stride, .padding = c.padding, .output_padding = c.output_padding,
                                    .groups = c.groups, .dilation = c.dilation};
  auto m = std::make_shared<nnq::ConvTransposeImpl<D>>(c.w, c.b, o, c.y_scale, c.y_zp);
  const int64_t tolerance = c.qnnpack ? 1 : 0;
  EXPECT_LE(max_int_diff(m->forward(c.x), name + "_q"), tolerance);
  EXPECT_LE(max_int_diff(m->forward(c.x), name + "_q"), tolerance);
  const qf::QConvTransposeOptions fo{.stride = c.stride, .padding = c.padding, .output_padding = c.output_padding,
                                     .groups = c.groups, .dilation = c.dilation};
  const Tensor f = D == 1   ? qf::conv_transpose1d(c.x, c.w, c.b, fo, c.y_scale, c.y_zp)
                   : D == 2 ? qf::conv_transpose2d(c.x, c.w, c.b, fo, c.y_scale, c.y_zp)
                            : qf::conv_transpose3d(c.x, c.w, c.b, fo, c.y_scale, c.y_zp);
  EXPECT_LE(max_int_diff(f, name + "_q"), tolerance);
}
}  // namespace quant_conv_nd_test
using namespace quant_conv_nd_test;

// Strides, padding, dilation, groups (depthwise too), per-tensor and
// per-channel weights, input and output zero points, fused ReLU, no bias.
TEST(QuantConvNd, Conv1dMatchesTorch) {
  for (const char* name : {"c1_basic", "c1_stride_dil", "c1_relu_dw"}) check_conv<1>(name);
}

TEST(QuantConvNd, Conv3dMatchesTorch) {
  for (const char* name : {"c3_basic", "c3_asym", "c3_relu"}) check_conv<3>(name);
}

TEST(QuantConvNd, ConvTransposeMatchesTorch) {
  for (const char* name : {"t1_basic", "t1_groups_dil", "t1_outpad"}) check_conv_transpose<1>(name);
  for (const char* name : {"t2_basic", "t2_asym_groups", "t2_stride1", "t2_outpad"}) check_conv_transpose<2>(name);
  check_conv_transpose<3>("t3_basic");
}

// A weight with a non-zero zero point takes the float64 path: within one
// quantum of a float64 reference (dequantized operands, float64 conv).
TEST(QuantConvNd, WeightZeroPointTakesTheFloat64Path) {
  manual_seed(5);
  const Tensor x = quantize_per_tensor(randn({2, 4, 5, 6, 7}), 0.03, 100, kQUInt8);
  const Tensor w = quantize_per_tensor(randn({6, 2, 3, 3, 3}) * 0.3, 0.01, -3, kQInt8);
  const Tensor b = randn({6});
  const Tensor y = qf::conv3d(x, w, b, {.stride = {1, 2, 1}, .padding = 1, .groups = 2}, 0.1, 60);
  const Tensor ref = (ember::nn::functional::conv3d(x.dequantize().to(kFloat64), w.dequantize().to(kFloat64),
                                                    {.bias = b.to(kFloat64), .stride = {1, 2, 1}, .padding = 1,
                                                     .groups = 2}) / 0.1).round() + 60;
  EXPECT_LE((y.int_repr().to(kFloat64) - ref.clamp(0, 255)).abs().max().item<double>(), 1.0);
  const Tensor x2 = quantize_per_tensor(randn({2, 4, 5, 6}), 0.03, 100, kQUInt8);
  const Tensor wt = quantize_per_tensor(randn({4, 3, 3, 2}) * 0.3, 0.01, 4, kQInt8);
  const Tensor yt = qf::conv_transpose2d(x2, wt, {}, {.stride = 2, .padding = 1, .output_padding = 1, .groups = 2},
                                         0.05, 70);
  const Tensor reft = (ember::nn::functional::conv_transpose2d(x2.dequantize().to(kFloat64),
                                                               wt.dequantize().to(kFloat64),
                                                               {.stride = 2, .padding = 1, .output_padding = 1,
                                                                .groups = 2}) / 0.05).round() + 70;
  EXPECT_LE((yt.int_repr().to(kFloat64) - reft.clamp(0, 255)).abs().max().item<double>(), 1.0);
}

// The int8 transposed convolution with an output_padding larger than the
// padding (oneDNN's right padding negative) against the float64 path.
TEST(QuantConvNd, ConvTransposeOutputPaddingMatchesTheFloat64Path) {
  manual_seed(6);
  const Tensor x = quantize_per_tensor(randn({2, 6, 5, 4}), 0.04, 90, kQUInt8);
  const Tensor wf = randn({6, 2, 3, 3}) * 0.3;
  const Tensor w = quantize_per_tensor(wf, 0.02, 0, kQInt8);  // integers well inside [-127, 126]
  const Tensor b = randn({6});
  const qf::QConvTransposeOptions o{.stride = {3, 2}, .padding = {0, 1}, .output_padding = {2, 1}, .groups = 3};
  const Tensor y = qf::conv_transpose2d(x, w, b, o, 0.05, 70);
  EXPECT_EQ(DimVector(y.sizes()), (DimVector{2, 6, 17, 8}));
  // The same real weight with a zero point of 1 (integers shifted by it),
  // which takes the float64 path.
  ASSERT_LT(w.int_repr().to(kInt64).abs().max().item<int64_t>(), 120);
  const Tensor w_zp = _make_per_tensor_quantized_tensor((w.int_repr().to(kInt16) + 1).to(kInt8), 0.02, 1);
  const Tensor y64 = qf::conv_transpose2d(x, w_zp, b, o, 0.05, 70);
  EXPECT_LE((y.int_repr().to(kInt64) - y64.int_repr().to(kInt64)).abs().max().item<int64_t>(), 1);
}

TEST(QuantConvNd, ModulesPrintAndCheckTheirWeights) {
  const Case c = load_case("c1_basic", 1);
  EXPECT_EQ(conv_module<1>(c)->name(), "QuantizedConv1d");
  EXPECT_EQ(conv_module<3>(load_case("c3_relu", 3))->name(), "QuantizedConvReLU3d");
  std::ostringstream os;
  os << *conv_module<1>(c);
  EXPECT_NE(os.str().find("QuantizedConv1d(8, 12, kernel_size=(3,), stride=(1,), padding=(1,)"), std::string::npos)
      << os.str();
  expect_error([&] { nnq::Conv3d(c.w, c.b, nnq::ConvOptions{}, 0.1, 0); }, "weight must be 5-d");
  const Tensor pc = quantize_per_channel(randn({4, 3, 3}), tensor({0.1, 0.2, 0.3, 0.4}, kFloat64), zeros({4}, kInt64),
                                         0, kQInt8);
  expect_error([&] { nnq::ConvTranspose1d(pc, Tensor(), nnq::ConvTransposeOptions{}, 0.1, 0); }, "per tensor");
}

TEST(QuantConvNd, BadGeometry) {
  const Tensor x = quantize_per_tensor(randn({1, 4, 5}), 0.1, 3, kQUInt8);
  const Tensor w = quantize_per_tensor(randn({6, 2, 3}), 0.01, 0, kQInt8);
  expect_error([&] { qf::conv1d(x, w, {}, {.groups = 3}, 0.1, 0); }, "groups=3");
  expect_error([&] { qf::conv1d(x, w, {}, {.stride = {1, 2}, .groups = 2}, 0.1, 0); }, "stride");
  expect_error([&] { qf::conv3d(x, w, {}, {.groups = 2}, 0.1, 0); }, "expected a 5-d input");
  const Tensor wt = quantize_per_tensor(randn({4, 3, 3}), 0.01, 0, kQInt8);
  expect_error([&] { qf::conv_transpose1d(x, wt, {}, {.stride = 2, .output_padding = 2}, 0.1, 0); },
               "output_padding (2) must be smaller than either stride (2) or dilation (1)");
  expect_error([&] { qf::conv_transpose1d(x, wt, randn({5}), {}, 0.1, 0); }, "bias must have 3");
  expect_error([&] { qf::conv_transpose1d(x, w, {}, {}, 0.1, 0); }, "does not fit an input of 4 channels");
}

// ---- convert ----

namespace quant_conv_nd_test {
using namespace ember::ao::quantization;

// The fixture's Wrapped(layer, relu) with torch's float weights, fused,
// prepared with the onednn qconfig (per-tensor weights for ConvTranspose, as
// torch requires), calibrated on torch's batches and converted.
template <class Layer>
QuantWrapper converted(const std::string& name, Layer layer, bool relu) {
  {
    NoGradGuard no_grad;
    layer->weight.copy_(cx("cv_" + name + "_w"));
    layer->bias.copy_(cx("cv_" + name + "_b"));
  }
  QuantWrapper m(nn::AnyModule(relu ? nn::Sequential(layer, nn::ReLU()) : nn::Sequential(layer, nn::Identity())));
  m->eval();
  if (relu) fuse_modules(*m, {{"module.0", "module.1"}});
  QConfig qc = get_default_qconfig("onednn");
  if (std::is_base_of_v<nn::ConvTranspose1dImpl, typename Layer::ImplType> ||
      std::is_base_of_v<nn::ConvTranspose2dImpl, typename Layer::ImplType>)
    qc.weight = default_weight_observer();
  prepare(*m, {{"", qc}});
  m(cx("cv_" + name + "_calib0"));
  m(cx("cv_" + name + "_calib1"));
  convert(*m, {.strict = true});
  return m;
}

template <class QImpl>
void check_converted(const std::string& name, QuantWrapper& m) {
  SCOPED_TRACE(name);
  auto layer = std::dynamic_pointer_cast<QImpl>(module_at(*m, "module.0"));
  ASSERT_NE(layer, nullptr) << module_at(*m, "module.0")->name();
  // The weight: the same integers and scales as torch's.
  EXPECT_TRUE(layer->weight.int_repr().equal(cx("cv_" + name + "_wq")));
  const Tensor ws = cx("cv_" + name + "_ws");
  const Tensor got_ws = layer->weight.qscheme() == QScheme::kPerChannelAffine
                            ? layer->weight.q_per_channel_scales()
                            : full({1}, layer->weight.q_scale(), kFloat64);
  ember::testing::expect_tensor_near(got_ws, ws, 0, 1e-12);
  // The output's parameters come from Ember's float forward (its sums may
  // round apart from torch's by an ulp), the integers then within one quantum.
  const Tensor qp = cx("cv_" + name + "_qparams");
  EXPECT_NEAR(layer->scale, qp[0].item<double>(), 1e-5 * qp[0].item<double>());
  EXPECT_NEAR(static_cast<double>(layer->zero_point), qp[1].item<double>(), 1.0);
  auto quant = std::dynamic_pointer_cast<nnq::QuantizeImpl>(module_at(*m, "quant"));
  ASSERT_NE(quant, nullptr);
  EXPECT_LE(max_int_diff(layer->forward(quant->forward(cx("cv_" + name + "_x"))), "cv_" + name + "_q"), 1);
}
}  // namespace quant_conv_nd_test

TEST(QuantConvNd, ConvertMatchesTorch) {
  {
    auto m = converted("conv1d", nn::Conv1d({.in_channels = 4, .out_channels = 6, .kernel_size = 3, .stride = 2,
                                              .padding = 1}), false);
    check_converted<nnq::Conv1dImpl>("conv1d", m);
  }
  {
    auto m = converted("convrelu1d", nn::Conv1d({.in_channels = 4, .out_channels = 6, .kernel_size = 3,
                                                  .padding = 2, .dilation = 2, .groups = 2}), true);
    check_converted<nniq::ConvReLU1dImpl>("convrelu1d", m);
  }
  {
    auto m = converted("conv3d", nn::Conv3d({.in_channels = 3, .out_channels = 5, .kernel_size = 3, .padding = 1}),
                       false);
    check_converted<nnq::Conv3dImpl>("conv3d", m);
  }
  {
    auto m = converted("convrelu3d", nn::Conv3d({.in_channels = 4, .out_channels = 4, .kernel_size = {1, 3, 3},
                                                  .stride = {1, 2, 2}, .groups = 2}), true);
    check_converted<nniq::ConvReLU3dImpl>("convrelu3d", m);
  }
  {
    auto m = converted("convt1d", nn::ConvTranspose1d({.in_channels = 4, .out_channels = 6, .kernel_size = 3,
                                                        .stride = 2, .padding = 1}), false);
    check_converted<nnq::ConvTranspose1dImpl>("convt1d", m);
  }
  {
    auto m = converted("convt2d", nn::ConvTranspose2d({.in_channels = 4, .out_channels = 6, .kernel_size = 3,
                                                        .stride = 2, .padding = 1, .groups = 2}), false);
    check_converted<nnq::ConvTranspose2dImpl>("convt2d", m);
  }
}

TEST(QuantConvNd, ConvertRefusesPerChannelConvTransposeWeights) {
  QuantWrapper m(nn::AnyModule(nn::Sequential(nn::ConvTranspose2d(4, 6, 3))));
  m->eval();
  prepare(*m, {{"", get_default_qconfig("onednn")}});
  m(randn({1, 4, 5, 5}));
  expect_error([&] { convert(*m); }, "Per channel weight observer is not supported yet for ConvTranspose");
}
