// Quantized kernels and modules against PyTorch 1.13's onednn engine
// (fixtures: scripts/fixtures/quantized.py): bit-exact, or within one quantum
// where the test says so (Note [Quantized kernels]).
#include <gtest/gtest.h>

#include <filesystem>

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

namespace quantized_kernels_test {
// An int8 fixture case (scripts/fixtures/quantized.py, int8_shapes): x and w
// from their stored integers, the parameters from <case>_p.
struct Int8Case {
  Tensor x, w, b;
  std::vector<double> p;
};
Int8Case qk_int8_case(const std::string& name) {
  Int8Case c;
  const Tensor p = qk_fx(name + "_p").contiguous();
  c.p.assign(p.data_ptr<double>(), p.data_ptr<double>() + p.numel());
  c.x = _make_per_tensor_quantized_tensor(qk_fx(name + "_xq"), c.p[0], static_cast<int64_t>(c.p[1]));
  const Tensor ws = qk_fx(name + "_ws");
  const Tensor wq = qk_fx(name + "_wq");
  c.w = ws.numel() == 1 && wq.size(0) != 1
            ? _make_per_tensor_quantized_tensor(wq, ws[0].item<double>(), 0)
            : _make_per_channel_quantized_tensor(wq, ws, zeros({wq.size(0)}, kInt64), 0);
  if (std::filesystem::exists(ember::testing::fixture_path("core/quantized/" + name + "_b.npy")))
    c.b = qk_fx(name + "_b");
  return c;
}
}  // namespace quantized_kernels_test

// oneDNN's int8 convolution against torch's onednn engine over many shapes:
// groups (depthwise too), strides, asymmetric padding, dilation, per-tensor
// and per-channel weights, input and output zero points, batch 1 and 8, odd
// channel counts, ReLU fused, with and without bias. Bit-exact.
TEST(QuantizedKernels, Int8Conv2dShapesMatchTorch) {
  const char* cases[] = {"c3x3_b1",     "c3x3_b8",        "c1x1_odd", "stride2",     "asym_stride_pad", "dilation",
                         "groups2",     "depthwise",      "depthwise_mult", "groups3_odd", "k7_stem", "one_pixel"};
  for (const char* name : cases) {
    SCOPED_TRACE(name);
    const Int8Case c = qk_int8_case(std::string("i8conv_") + name);
    const nnq::Conv2dOptions o{.stride = {static_cast<int64_t>(c.p[5]), static_cast<int64_t>(c.p[6])},
                               .padding = {static_cast<int64_t>(c.p[7]), static_cast<int64_t>(c.p[8])},
                               .dilation = {static_cast<int64_t>(c.p[9]), static_cast<int64_t>(c.p[10])},
                               .groups = static_cast<int64_t>(c.p[11])};
    const double scale = c.p[2];
    const int64_t zp = static_cast<int64_t>(c.p[3]);
    const bool relu = c.p[4] != 0;
    const std::string expected = std::string("i8conv_") + name + "_q";
    // The module (packed once, reused by the second call) and the functional.
    const std::shared_ptr<nnq::Conv2dImpl> m =
        relu ? std::shared_ptr<nnq::Conv2dImpl>(nniq::ConvReLU2d(c.w, c.b, o, scale, zp).ptr())
             : nnq::Conv2d(c.w, c.b, o, scale, zp).ptr();
    const Tensor y = m->forward(c.x);
    qk_expect_q(y, expected);
    EXPECT_TRUE(y.is_contiguous(MemoryFormat::ChannelsLast));  // as torch's
    qk_expect_q(m->forward(c.x), expected);
    qk_expect_q(qf::conv2d(c.x, c.w, c.b, {.stride = o.stride, .padding = o.padding, .dilation = o.dilation,
                                           .groups = o.groups}, scale, zp, relu),
                expected);
    // A channels-last input gives the same integers.
    qk_expect_q(m->forward(c.x.contiguous(MemoryFormat::ChannelsLast)), expected);
  }
}

// oneDNN's int8 matmul against torch's onednn engine: batch 1, 8 and a 3-d
// input, odd sizes, per-tensor and per-channel weights, zero points, ReLU.
TEST(QuantizedKernels, Int8LinearShapesMatchTorch) {
  for (const char* name : {"l_b1", "l_b8", "l_odd", "l_3d", "l_relu_b8", "l_wide"}) {
    SCOPED_TRACE(name);
    const Int8Case c = qk_int8_case(std::string("i8lin_") + name);
    const double scale = c.p[2];
    const int64_t zp = static_cast<int64_t>(c.p[3]);
    const bool relu = c.p[4] != 0;
    const std::string expected = std::string("i8lin_") + name + "_q";
    const std::shared_ptr<nnq::LinearImpl> m =
        relu ? std::shared_ptr<nnq::LinearImpl>(nniq::LinearReLU(c.w, c.b, scale, zp).ptr())
             : nnq::Linear(c.w, c.b, scale, zp).ptr();
    qk_expect_q(m->forward(c.x), expected);
    qk_expect_q(m->forward(c.x), expected);
    qk_expect_q(qf::linear(c.x, c.w, c.b, scale, zp, relu), expected);
  }
}

// The module's packed weight follows its weight member: a replaced weight,
// or one written in place, is packed again.
TEST(QuantizedKernels, Int8ModuleRepacksAChangedWeight) {
  const Int8Case c = qk_int8_case("i8lin_l_b8");
  const double scale = c.p[2];
  const int64_t zp = static_cast<int64_t>(c.p[3]);
  nnq::Linear m(c.w, c.b, scale, zp);
  qk_expect_q(m->forward(c.x), "i8lin_l_b8_q");
  const Tensor w2 = _make_per_tensor_quantized_tensor(c.w.int_repr().neg(), c.w.q_scale(), 0);
  m->weight = w2;
  const Tensor fresh = qf::linear(c.x, w2, c.b, scale, zp);
  EXPECT_TRUE(m->forward(c.x).int_repr().equal(fresh.int_repr()));
  m->bias = c.b * 2;
  EXPECT_TRUE(m->forward(c.x).int_repr().equal(qf::linear(c.x, w2, c.b * 2, scale, zp).int_repr()));
  // In place: copy_ bumps the storage's version.
  m->weight.copy_(c.w);
  m->bias = c.b;
  qk_expect_q(m->forward(c.x), "i8lin_l_b8_q");
}

// A weight with a non-zero zero point (torch's onednn engine refuses it)
// takes the float64 path: within one quantum of a float64 reference.
TEST(QuantizedKernels, WeightZeroPointTakesTheFloat64Path) {
  const Tensor x = quantize_per_tensor(qk_fx("lin_x"), 0.04, 60, kQUInt8);
  const Tensor w = quantize_per_tensor(qk_fx("lin_w"), 0.01, 5, kQInt8);
  const Tensor b = qk_fx("lin_b");
  const Tensor y = qf::linear(x, w, b, 0.08, 70);
  const Tensor ref = (matmul(x.dequantize().to(kFloat64), w.dequantize().to(kFloat64).t()) + b.to(kFloat64)) / 0.08;
  const Tensor expected = (ref.round() + 70).clamp(0, 255);
  EXPECT_LE((y.int_repr().to(kFloat64) - expected).abs().max().item<double>(), 1.0);
  const Tensor xc = quantize_per_tensor(qk_fx("conv_x"), 0.03, 100, kQUInt8);
  const Tensor wc = quantize_per_tensor(qk_fx("conv_w"), 0.01, -3, kQInt8);
  const Tensor yc = qf::conv2d(xc, wc, {}, {.padding = 1, .groups = 2}, 0.1, 60);
  const Tensor refc = ember::nn::functional::conv2d(xc.dequantize().to(kFloat64), wc.dequantize().to(kFloat64),
                                                    {.padding = 1, .groups = 2}) / 0.1;
  EXPECT_LE((yc.int_repr().to(kFloat64) - (refc.round() + 60).clamp(0, 255)).abs().max().item<double>(), 1.0);
}

TEST(QuantizedKernels, Int8BadGeometry) {
  const Tensor x = quantize_per_tensor(randn({1, 4, 5, 5}), 0.1, 3, kQUInt8);
  const Tensor w = quantize_per_tensor(randn({6, 2, 3, 3}), 0.01, 0, kQInt8);
  expect_error([&] { qf::conv2d(x, w, {}, {.groups = 3}, 0.1, 0); }, "groups=3");
  expect_error([&] { qf::conv2d(x, w, {}, {.stride = 0, .groups = 2}, 0.1, 0); }, "stride");
  expect_error([&] { qf::conv2d(x, w, {}, {.dilation = 3, .groups = 2}, 0.1, 0); }, "larger than the padded input");
  expect_error([&] { qf::conv2d(x, w, randn({5}), {.groups = 2}, 0.1, 0); }, "bias must have 6");
  // An empty batch gives an empty result.
  const Tensor empty_x = quantize_per_tensor(randn({0, 4, 5, 5}), 0.1, 3, kQUInt8);
  EXPECT_EQ(DimVector(qf::conv2d(empty_x, w, {}, {.groups = 2}, 0.1, 0).sizes()), (DimVector{0, 6, 3, 3}));
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

// Note [Quantized byte kernels]: the byte loops that relu / add / add_relu
// take for inputs of one shape and one dense layout give the general path's
// integers (reached here through a transposed layout, which the loops leave
// to it), for both 8-bit dtypes, with saturation, and keep channels-last.
TEST(QuantizedKernels, ByteKernelsMatchTheGeneralPath) {
  manual_seed(7);
  const Tensor xa = randn({2, 5, 6, 7}) * 4, xb = randn({2, 5, 6, 7}) * 4;
  auto general_layout = [](const Tensor& q) { return q.transpose(2, 3).contiguous().transpose(2, 3); };
  for (DType dt : {kQUInt8, kQInt8}) {
    const bool u8 = dt == kQUInt8;
    for (bool channels_last : {false, true}) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + (channels_last ? " channels-last" : " row-major"));
      Tensor a = quantize_per_tensor(xa, 0.05, u8 ? 128 : 3, dt), b = quantize_per_tensor(xb, 0.03, u8 ? 100 : -7, dt);
      if (channels_last) {
        a = a.contiguous(MemoryFormat::ChannelsLast);
        b = b.contiguous(MemoryFormat::ChannelsLast);
      }
      const Tensor gb = general_layout(b);
      ASSERT_FALSE(gb.is_contiguous() || gb.is_contiguous(MemoryFormat::ChannelsLast));
      for (double scale : {0.07, 0.02}) {  // 0.02 saturates many sums
        const int64_t zp = u8 ? 90 : 5;
        const Tensor sum = qf::add(a, b, scale, zp), sum_relu = qf::add_relu(a, b, scale, zp);
        EXPECT_TRUE(sum.int_repr().equal(qf::add(a, gb, scale, zp).int_repr()));
        EXPECT_TRUE(sum_relu.int_repr().equal(qf::add_relu(a, gb, scale, zp).int_repr()));
        EXPECT_EQ(sum.is_contiguous(MemoryFormat::ChannelsLast), channels_last);
        EXPECT_EQ(sum.q_scale(), scale);
        EXPECT_EQ(sum.q_zero_point(), zp);
      }
      const Tensor r = qf::relu(a);
      EXPECT_TRUE(r.int_repr().equal(qf::relu(general_layout(a)).int_repr()));
      EXPECT_EQ(r.q_zero_point(), a.q_zero_point());
      EXPECT_EQ(r.is_contiguous(MemoryFormat::ChannelsLast), channels_last);
    }
  }
}
