// Quantized tensors: quantize/dequantize against PyTorch 1.13 fixtures
// (scripts/fixtures/quantized.py), rounding and clamping, parameters, views,
// copies, printing, and bad input.
#include <gtest/gtest.h>

#include <sstream>

#include <ember/ember.h>
#include <ember/ops/quantize.h>

#include "tensor_expect.h"

using namespace ember;
using ember::testing::expect_error;
using ember::testing::fixture;

namespace quantized_tensor_test {
Tensor qt_fx(const std::string& name) { return fixture("quantized", name); }

void qt_expect_ints(const Tensor& q, const Tensor& expected_ints) {
  ASSERT_TRUE(q.is_quantized());
  const Tensor ints = q.int_repr();
  ASSERT_EQ(ints.sizes(), expected_ints.sizes());
  EXPECT_EQ(ints.dtype(), expected_ints.dtype());
  EXPECT_TRUE(ints.to(kInt64).equal(expected_ints.to(kInt64))) << "got\n" << ints << "\nexpected\n" << expected_ints;
}

std::string qt_str(const Tensor& t) {
  std::ostringstream s;
  s << t;
  return s.str();
}
}  // namespace quantized_tensor_test
using namespace quantized_tensor_test;

TEST(QuantizedTensor, DTypes) {
  EXPECT_EQ(dtype_name(kQUInt8), "quint8");
  EXPECT_EQ(dtype_name(kQInt8), "qint8");
  EXPECT_EQ(dtype_name(kQInt32), "qint32");
  EXPECT_EQ(dtype_name(kQUInt4x2), "quint4x2");
  EXPECT_EQ(element_size(kQUInt8), 1u);
  EXPECT_EQ(element_size(kQInt8), 1u);
  EXPECT_EQ(element_size(kQInt32), 4u);
  EXPECT_EQ(element_size(kQUInt4x2), 1u);
  EXPECT_TRUE(is_quantized(kQInt8));
  EXPECT_FALSE(is_quantized(kInt8));
  EXPECT_FALSE(is_floating_point(kQUInt8));
  EXPECT_FALSE(is_integral(kQUInt8));
  EXPECT_EQ(to_underlying_dtype(kQUInt8), kUInt8);
  EXPECT_EQ(to_underlying_dtype(kQInt32), kInt32);
  EXPECT_EQ(quant_min_of(kQInt8), -128);
  EXPECT_EQ(quant_max_of(kQUInt4x2), 15);
  expect_error([] { promote_types(kQUInt8, kFloat32); }, "quantized");
}

TEST(QuantizedTensor, PerTensorMatchesTorch) {
  const Tensor x = qt_fx("qpt_x");
  struct Case {
    DType dtype;
    double scale;
    int64_t zp;
    const char* name;
  };
  for (const Case& c : {Case{kQUInt8, 0.25, 128, "quint8"}, Case{kQInt8, 0.25, -3, "qint8"},
                        Case{kQInt32, 1e-3, 7, "qint32"}}) {
    SCOPED_TRACE(c.name);
    const Tensor q = quantize_per_tensor(x, c.scale, c.zp, c.dtype);
    EXPECT_EQ(q.dtype(), c.dtype);
    EXPECT_EQ(q.qscheme(), QScheme::kPerTensorAffine);
    EXPECT_EQ(q.q_scale(), c.scale);
    EXPECT_EQ(q.q_zero_point(), c.zp);
    qt_expect_ints(q, qt_fx(std::string("qpt_") + c.name + "_q"));
    EXPECT_TRUE(q.dequantize().equal(qt_fx(std::string("qpt_") + c.name + "_deq")));
  }
  const Tensor q = quantize_per_tensor(x, 0.0371, 3, kQUInt8);
  qt_expect_ints(q, qt_fx("qpt_odd_q"));
  EXPECT_TRUE(q.dequantize().equal(qt_fx("qpt_odd_deq")));
  // tensor scale and zero point
  const Tensor qt = quantize_per_tensor(x, scalar_tensor(0.0371), scalar_tensor(3, kInt64), kQUInt8);
  qt_expect_ints(qt, qt_fx("qpt_odd_q"));
}

TEST(QuantizedTensor, RoundingAndClamping) {
  // Halves round to even; values past the range saturate.
  const Tensor x = tensor({0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 1000.0f, -1000.0f, INFINITY, -INFINITY});
  const Tensor q = quantize_per_tensor(x, 1.0, 0, kQInt8);
  EXPECT_TRUE(q.int_repr().equal(tensor({0, 2, 2, 0, -2, -2, 127, -128, 127, -128}).to(kInt8)));
  const Tensor u = quantize_per_tensor(x, 1.0, 10, kQUInt8);
  EXPECT_TRUE(u.int_repr().equal(tensor({10, 12, 12, 10, 8, 8, 255, 0, 255, 0}).to(kUInt8)));
  // NaN: quant_min, as PyTorch on x86.
  EXPECT_EQ(quantize_per_tensor(tensor({NAN}), 1.0, 5, kQUInt8).int_repr().item<int64_t>(), 0);
  // qint32 saturates at its bounds.
  const Tensor big = quantize_per_tensor(tensor({3e9f, -3e9f}), 1.0, 0, kQInt32);
  EXPECT_TRUE(big.int_repr().equal(tensor({2147483647, -2147483647 - 1}).to(kInt32)));
  // float64 input is read as float32.
  EXPECT_TRUE(quantize_per_tensor(tensor({1.0, 2.0}, kFloat64), 0.1, 0, kQInt8).int_repr().equal(
      tensor({10, 20}).to(kInt8)));
}

TEST(QuantizedTensor, FourBitPacking) {
  const Tensor q = quantize_per_tensor(tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f}), 0.5, 3, kQUInt4x2);
  EXPECT_TRUE(q.int_repr().equal(qt_fx("q4_q")));
  EXPECT_TRUE(q.dequantize().equal(tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f})));
  EXPECT_EQ(q.sizes(), IntArrayRef({5}));
}

TEST(QuantizedTensor, PerChannelMatchesTorch) {
  const Tensor x = qt_fx("qpt_x");
  const Tensor scales = tensor({0.05, 0.1, 0.013, 0.2, 0.31}, kFloat64);
  const Tensor zps = tensor({0, 3, -2, 10, -128}).to(kInt64);
  const Tensor q = quantize_per_channel(x, scales, zps, 1, kQInt8);
  EXPECT_EQ(q.qscheme(), QScheme::kPerChannelAffine);
  EXPECT_EQ(q.q_per_channel_axis(), 1);
  EXPECT_TRUE(q.q_per_channel_scales().equal(scales));
  EXPECT_TRUE(q.q_per_channel_zero_points().equal(zps));
  EXPECT_EQ(q.q_per_channel_scales().dtype(), kFloat64);
  qt_expect_ints(q, qt_fx("qpc_q"));
  EXPECT_TRUE(q.dequantize().equal(qt_fx("qpc_deq")));
  // negative axis
  qt_expect_ints(quantize_per_channel(x, scales, zps, -2, kQInt8), qt_fx("qpc_q"));
  // channels-last input keeps its layout
  const Tensor xc = qt_fx("qpc_cl_x").contiguous(MemoryFormat::ChannelsLast);
  const Tensor qc = quantize_per_channel(xc, tensor({0.1, 0.02, 0.3}, kFloat64), tensor({1, 2, 3}).to(kInt64), 1, kQUInt8);
  EXPECT_TRUE(qc.is_contiguous(MemoryFormat::ChannelsLast));
  qt_expect_ints(qc, qt_fx("qpc_cl_q"));
  EXPECT_TRUE(qc.dequantize().equal(qc.contiguous().dequantize()));
}

TEST(QuantizedTensor, DynamicParametersMatchTorch) {
  for (int i = 0; i < 5; ++i)
    for (const char* name : {"quint8", "qint8"})
      for (int rr = 0; rr < 2; ++rr) {
        SCOPED_TRACE(std::to_string(i) + name + std::to_string(rr));
        const std::string key = "dyn" + std::to_string(i) + "_" + name + "_" + std::to_string(rr);
        const Tensor q = quantize_per_tensor_dynamic(qt_fx("dyn" + std::to_string(i) + "_x"),
                                                     std::string(name) == "quint8" ? kQUInt8 : kQInt8, rr == 1);
        const Tensor p = qt_fx(key + "_qparams");
        EXPECT_FLOAT_EQ(q.q_scale(), p[0].item<double>());
        EXPECT_EQ(q.q_zero_point(), p[1].item<int64_t>());
        qt_expect_ints(q, qt_fx(key + "_q"));
      }
}

TEST(QuantizedTensor, MakeQuantizedFromInts) {
  const Tensor ints = tensor({1, 2, 250}).to(kUInt8);
  const Tensor q = _make_per_tensor_quantized_tensor(ints, 0.5, 2);
  EXPECT_EQ(q.dtype(), kQUInt8);
  EXPECT_TRUE(q.dequantize().equal(tensor({-0.5f, 0.0f, 124.0f})));
  const Tensor pc = _make_per_channel_quantized_tensor(tensor({{1, 2}, {3, 4}}).to(kInt8), tensor({1.0, 2.0}, kFloat64),
                                                       tensor({0, 1}).to(kInt64), 0);
  EXPECT_TRUE(pc.dequantize().equal(tensor({{1.0f, 2.0f}, {4.0f, 6.0f}})));
}

TEST(QuantizedTensor, ViewsKeepParameters) {
  const Tensor x = qt_fx("qpt_x");  // [4, 5, 6]
  const Tensor q = quantize_per_tensor(x, 0.25, 128, kQUInt8);
  const Tensor d = q.dequantize();
  auto same = [](const Tensor& view, const Tensor& expect) {
    ASSERT_TRUE(view.is_quantized());
    EXPECT_EQ(view.q_scale(), 0.25);
    EXPECT_EQ(view.q_zero_point(), 128);
    EXPECT_TRUE(view.dequantize().equal(expect));
  };
  same(q.view({20, 6}), d.view({20, 6}));
  same(q.reshape({-1}), d.reshape({-1}));
  same(q.transpose(0, 2), d.transpose(0, 2));
  same(q.permute({1, 2, 0}), d.permute({1, 2, 0}));
  same(q.select(1, 3), d.select(1, 3));
  same(q.slice(2, 1, 5, 2), d.slice(2, 1, 5, 2));
  same(q.unsqueeze(0), d.unsqueeze(0));
  same(q[2], d[2]);
  same(q.transpose(0, 1).contiguous(), d.transpose(0, 1));
  same(q.transpose(0, 1).reshape({-1}), d.transpose(0, 1).reshape({-1}));  // a copy
  EXPECT_TRUE(q.transpose(0, 1).contiguous().is_contiguous());
}

TEST(QuantizedTensor, PerChannelAxisFollowsViews) {
  const Tensor x = qt_fx("qpt_x");  // [4, 5, 6]
  const Tensor scales = tensor({0.05, 0.1, 0.013, 0.2, 0.31}, kFloat64);
  const Tensor zps = tensor({0, 3, -2, 10, -128}).to(kInt64);
  const Tensor q = quantize_per_channel(x, scales, zps, 1, kQInt8);
  const Tensor d = q.dequantize();
  auto check = [&](const Tensor& view, const Tensor& expect, int64_t axis) {
    ASSERT_EQ(view.qscheme(), QScheme::kPerChannelAffine);
    EXPECT_EQ(view.q_per_channel_axis(), axis);
    EXPECT_TRUE(view.dequantize().equal(expect)) << view.dequantize() << expect;
  };
  check(q.transpose(0, 1), d.transpose(0, 1), 0);
  check(q.permute({2, 0, 1}), d.permute({2, 0, 1}), 2);
  check(q.select(0, 2), d.select(0, 2), 0);
  check(q.select(2, 2), d.select(2, 2), 1);
  check(q.unsqueeze(0), d.unsqueeze(0), 2);
  check(q.view({4, 5, 2, 3}), d.view({4, 5, 2, 3}), 1);
  check(q.flatten(2), d.flatten(2), 1);
  check(q.transpose(0, 2).contiguous(), d.transpose(0, 2), 1);
  check(q.transpose(0, 2).clone(), d.transpose(0, 2), 1);
  // slicing the channel axis slices the parameters
  const Tensor s = q.slice(1, 1, 5, 2);
  check(s, d.slice(1, 1, 5, 2), 1);
  EXPECT_TRUE(s.q_per_channel_scales().equal(tensor({0.1, 0.2}, kFloat64)));
  // selecting a channel leaves a per-tensor view (as PyTorch)
  const Tensor one = q.select(1, 3);
  EXPECT_EQ(one.qscheme(), QScheme::kPerTensorAffine);
  EXPECT_EQ(one.q_scale(), 0.2);
  EXPECT_EQ(one.q_zero_point(), 10);
  // per-tensor dequantizes in float32, per-channel in float64: equal up to float32 rounding
  EXPECT_TRUE(one.dequantize().allclose(d.select(1, 3), 1e-6, 0));
  EXPECT_TRUE(one.int_repr().equal(q.int_repr().select(1, 3)));
  // views that split or merge the channel axis are refused
  expect_error([&] { q.view({20, 6}); }, "channel axis");
  expect_error([&] { q.flatten(); }, "channel axis");
  expect_error([&] { q.diagonal(); }, "diagonal");
  expect_error([&] { q.as_strided({2}, {1}); }, "as_strided");
}

TEST(QuantizedTensor, Copies) {
  const Tensor x = qt_fx("qpt_x");
  const Tensor q = quantize_per_tensor(x, 0.25, 128, kQUInt8);
  const Tensor c = q.clone();
  EXPECT_FALSE(c.storage().get() == q.storage().get());
  EXPECT_TRUE(c.int_repr().equal(q.int_repr()));
  EXPECT_EQ(c.q_scale(), 0.25);
  // quantized <- quantized takes the source's parameters (as PyTorch)
  Tensor dst = quantize_per_tensor(zeros({4, 5, 6}), 0.5, 3, kQUInt8);
  dst.copy_(q);
  EXPECT_EQ(dst.q_scale(), 0.25);
  EXPECT_TRUE(dst.int_repr().equal(q.int_repr()));
  // quantized <- float quantizes with the destination's parameters
  Tensor dst2 = quantize_per_tensor(zeros({4, 5, 6}), 0.25, 128, kQUInt8);
  dst2.copy_(x);
  EXPECT_TRUE(dst2.int_repr().equal(q.int_repr()));
  // into a slice of a quantized tensor
  Tensor dst3 = quantize_per_tensor(zeros({4, 5, 6}), 0.25, 128, kQUInt8);
  dst3.select(0, 1).copy_(x.select(0, 1));
  EXPECT_TRUE(dst3.int_repr().select(0, 1).equal(q.int_repr().select(0, 1)));
  // float <- quantized is refused
  Tensor f = zeros({4, 5, 6});
  expect_error([&] { f.copy_(q); }, "dequantize");
  expect_error([&] { dst.copy_(quantize_per_tensor(x, 0.25, 0, kQInt8)); }, "same dtype");
}

TEST(QuantizedTensor, PrintsAsTorch) {
  // Strings printed by PyTorch 1.13 for the same tensors, with Ember's dtype
  // spelling (no "torch." prefix, as every Ember tensor prints its dtype).
  EXPECT_EQ(qt_str(quantize_per_tensor(tensor({1.0f, 2.0f, 3.0f}), 0.1, 10, kQUInt8)),
            "tensor([1., 2., 3.], size=(3,), dtype=quint8,\n"
            "       quantization_scheme=per_tensor_affine, scale=0.1, zero_point=10)");
  EXPECT_EQ(qt_str(quantize_per_tensor(tensor({{1.0f, 2.0f, 3.0f}}), 0.1, 10, kQInt32)),
            "tensor([[1., 2., 3.]], size=(1, 3), dtype=qint32,\n"
            "       quantization_scheme=per_tensor_affine, scale=0.1, zero_point=10)");
  EXPECT_EQ(qt_str(quantize_per_tensor(scalar_tensor(1.5f), 0.5, 3, kQInt8)),
            "tensor(1.5000, size=(), dtype=qint8, quantization_scheme=per_tensor_affine,\n"
            "       scale=0.5, zero_point=3)");
  EXPECT_EQ(qt_str(quantize_per_tensor(zeros({0, 3}), 0.5, 3, kQInt8)),
            "tensor([], size=(0, 3), dtype=qint8, quantization_scheme=per_tensor_affine,\n"
            "       scale=0.5, zero_point=3)");
  // the tensor scale is read as float32: Python's repr of that double
  EXPECT_EQ(qt_str(quantize_per_tensor(tensor({1.0f, 2.0f}), scalar_tensor(0.1), scalar_tensor(3, kInt64), kQUInt8)),
            "tensor([1., 2.], size=(2,), dtype=quint8,\n"
            "       quantization_scheme=per_tensor_affine, scale=0.10000000149011612,\n"
            "       zero_point=3)");
  // Python's float repr: scientific below 1e-4, shortest round-trip digits
  EXPECT_NE(qt_str(quantize_per_tensor(tensor({1.0f}), 1e-05, 0, kQInt32)).find("scale=1e-05,"), std::string::npos);
  EXPECT_NE(qt_str(quantize_per_tensor(tensor({1.0f}), 2.5e-07, 0, kQInt32)).find("scale=2.5e-07,"),
            std::string::npos);
  EXPECT_NE(qt_str(quantize_per_tensor(tensor({1.0f}), 3.0, 0, kQInt32)).find("scale=3.0,"), std::string::npos);
  const Tensor pc = quantize_per_channel(tensor({{0.3f, -0.8f}, {0.2f, -0.6f}, {1.8f, 0.6f}}), tensor({0.1, 0.2, 0.3}, kFloat64),
                                         tensor({0, 1, 2}).to(kInt64), 0, kQInt8);
  EXPECT_EQ(qt_str(pc),
            "tensor([[ 0.3000, -0.8000],\n"
            "        [ 0.2000, -0.6000],\n"
            "        [ 1.8000,  0.6000]], size=(3, 2), dtype=qint8,\n"
            "       quantization_scheme=per_channel_affine,\n"
            "       scale=tensor([0.1000, 0.2000, 0.3000], dtype=float64),\n"
            "       zero_point=tensor([0, 1, 2]), axis=0)");
}

TEST(QuantizedTensor, BadInput) {
  const Tensor x = randn({3, 4});
  expect_error([&] { quantize_per_tensor(tensor({1, 2}), 0.1, 0, kQUInt8); }, "floating point");
  expect_error([&] { quantize_per_tensor(x.to(kComplex64), 0.1, 0, kQUInt8); }, "floating point");
  expect_error([&] { quantize_per_tensor(x, 0.0, 0, kQUInt8); }, "scale");
  expect_error([&] { quantize_per_tensor(x, -1.0, 0, kQUInt8); }, "scale");
  expect_error([&] { quantize_per_tensor(x, NAN, 0, kQUInt8); }, "scale");
  expect_error([&] { quantize_per_tensor(x, 1e-50, 0, kQUInt8); }, "scale");
  expect_error([&] { quantize_per_tensor(x, 0.1, 300, kQUInt8); }, "zero_point 300");
  expect_error([&] { quantize_per_tensor(x, 0.1, 0, kFloat32); }, "quantized dtype");
  const Tensor q = quantize_per_tensor(x, 0.1, 0, kQUInt8);
  expect_error([&] { quantize_per_tensor(q, 0.1, 0, kQUInt8); }, "already quantized");
  expect_error([&] { quantize_per_channel(x, tensor({0.1, 0.1, 0.1}, kFloat64), tensor({0, 0, 0}), 2, kQInt8); },
               "out of range");
  expect_error([&] { quantize_per_channel(x, tensor({0.1, 0.1, 0.1}, kFloat64), tensor({0, 0, 0}), -3, kQInt8); },
               "out of range");
  expect_error([&] { quantize_per_channel(x, tensor({0.1, 0.1}, kFloat64), tensor({0, 0}), 0, kQInt8); }, "expected 3 scales");
  expect_error([&] { quantize_per_channel(x, tensor({0.1, 0.0, 0.1}, kFloat64), tensor({0, 0, 0}), 0, kQInt8); }, "scale");
  expect_error([&] { q.q_per_channel_scales(); }, "per-channel");
  expect_error([&] { x.q_scale(); }, "expected a quantized tensor");
  expect_error([&] { x.int_repr(); }, "expected a quantized tensor");
  expect_error([&] { q.view(kUInt8); }, "quantized");
  expect_error([&] { empty({2}, kQUInt8); }, "quint8");
}

// Every op that does not compute on quantized tensors raises an ember::Error
// naming the dtype: none computes garbage from the stored integers.
TEST(QuantizedTensor, UnsupportedOpsRaise) {
  const Tensor q = quantize_per_tensor(randn({2, 3}), 0.1, 128, kQUInt8);
  const Tensor f = randn({2, 3});
  const std::vector<std::pair<const char*, std::function<void()>>> ops = {
      {"add", [&] { (void)(q + q); }},
      {"add scalar", [&] { (void)(q + 1); }},
      {"mul float", [&] { (void)(q * f); }},
      {"sub", [&] { (void)(q - f); }},
      {"div", [&] { (void)(q / 2); }},
      {"exp", [&] { (void)q.exp(); }},
      {"abs", [&] { (void)q.abs(); }},
      {"neg", [&] { (void)(-q); }},
      {"relu", [&] { (void)q.relu(); }},
      {"sigmoid", [&] { (void)q.sigmoid(); }},
      {"sum", [&] { (void)q.sum(); }},
      {"mean", [&] { (void)q.mean(); }},
      {"max", [&] { (void)q.max(); }},
      {"argmax", [&] { (void)q.argmax(); }},
      {"eq", [&] { (void)(q == q); }},
      {"lt", [&] { (void)(q < 1); }},
      {"matmul", [&] { (void)q.matmul(q.t()); }},
      {"fill_", [&] { Tensor t = q.clone(); t.fill_(1); }},
      {"zero_", [&] { Tensor t = q.clone(); t.zero_(); }},
      {"to float", [&] { (void)q.to(kFloat32); }},
      {"to int", [&] { (void)q.to(kUInt8); }},
      {"item", [&] { (void)q[0][0].item(); }},
      {"cat", [&] { (void)cat({q, q}); }},
      {"flip", [&] { (void)q.flip({0}); }},
      {"index_select", [&] { (void)q.index_select(0, tensor({1}).to(kInt64)); }},
      {"gather", [&] { (void)q.gather(1, tensor({{0}, {1}}).to(kInt64)); }},
      {"masked_fill", [&] { (void)q.masked_fill(f > 0, 1); }},
      {"where", [&] { (void)where(f > 0, q, q); }},
      {"sort", [&] { (void)q.sort(); }},
      {"cumsum", [&] { (void)q.cumsum(0); }},
      {"repeat", [&] { (void)q.repeat({2, 1}); }},
      {"clamp", [&] { (void)q.clamp(0, 1); }},
      {"softmax", [&] { (void)nn::functional::softmax(q, 1); }},
      {"linear", [&] { (void)nn::functional::linear(q, f); }},
      {"zeros_like", [&] { (void)zeros_like(q); }},
      {"equal", [&] { (void)q.equal(q); }},
  };
  for (const auto& [name, op] : ops) {
    SCOPED_TRACE(name);
    try {
      op();
      ADD_FAILURE() << name << " computed on a quantized tensor";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("quint8"), std::string::npos) << name << ": " << e.what();
    }
  }
}

// Note [Quantized safetensors entries]: integers plus parameters, both ways.
TEST(QuantizedTensor, SafetensorsRoundTrip) {
  const Tensor x = qt_fx("qpt_x");
  StateDict d;
  d.insert("pt", quantize_per_tensor(x, 0.0371, 3, kQUInt8));
  d.insert("pc", quantize_per_channel(x, tensor({0.05, 0.1, 0.013, 0.2, 0.31}, kFloat64), tensor({0, 3, -2, 10, -128}).to(kInt64),
                                      1, kQInt8));
  d.insert("i32", quantize_per_tensor(x, 1e-3, 7, kQInt32));
  d.insert("q4", quantize_per_tensor(tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f}), 0.5, 3, kQUInt4x2));
  d.insert("plain", x);
  Metadata meta;
  meta["note"] = "kept";
  const std::string bytes = serialize::save_safetensors_bytes(d, meta);
  serialize::SafetensorsContents c = serialize::load_safetensors_bytes(bytes.data(), bytes.size());
  ASSERT_EQ(c.tensors.size(), 5u);
  EXPECT_EQ(c.metadata.size(), 1u);
  EXPECT_EQ(c.metadata.at("note"), "kept");
  for (const auto& [name, t] : d) {
    SCOPED_TRACE(name);
    const Tensor& back = c.tensors.at(name);
    ASSERT_EQ(back.dtype(), t.dtype());
    if (!t.is_quantized()) {
      EXPECT_TRUE(back.equal(t));
      continue;
    }
    EXPECT_EQ(back.qscheme(), t.qscheme());
    EXPECT_TRUE(back.int_repr().equal(t.int_repr()));
    EXPECT_TRUE(back.dequantize().equal(t.dequantize()));
    if (t.qscheme() == QScheme::kPerTensorAffine) {
      EXPECT_EQ(back.q_scale(), t.q_scale());
      EXPECT_EQ(back.q_zero_point(), t.q_zero_point());
    } else {
      EXPECT_EQ(back.q_per_channel_axis(), 1);
      EXPECT_TRUE(back.q_per_channel_scales().equal(t.q_per_channel_scales()));
    }
  }
  // A reader without Ember's convention sees plain integers and the parameters.
  const Tensor pt = d.at("pt");
  StateDict only;
  only.insert("w", pt);
  const std::string raw = serialize::save_safetensors_bytes(only);
  const std::string header = raw.substr(8, 400);
  EXPECT_NE(header.find("\"U8\""), std::string::npos) << header;
  EXPECT_NE(header.find("w.__quantization__"), std::string::npos) << header;
  // Damaged parameters are refused with the entry's name.
  Metadata bad;
  bad["w.__quantization__"] = "{\"dtype\": \"qint8\", \"qscheme\": \"per_tensor_affine\", \"scale\": 0.1, "
                              "\"zero_point\": 0, \"sizes\": [2]}";
  StateDict ints;
  ints.insert("w", tensor({1, 2}).to(kUInt8));
  const std::string wrong = serialize::save_safetensors_bytes(ints, bad);
  expect_error([&] { serialize::load_safetensors_bytes(wrong.data(), wrong.size()); }, "tensor 'w'");
  bad["w.__quantization__"] = "{\"dtype\": \"quint8\", \"qscheme\": \"per_tensor_affine\", \"scale\": -1, "
                              "\"zero_point\": 0, \"sizes\": [2]}";
  const std::string negative = serialize::save_safetensors_bytes(ints, bad);
  expect_error([&] { serialize::load_safetensors_bytes(negative.data(), negative.size()); }, "scale");
}

// torch.save of quantized tensors (torch._utils._rebuild_qtensor), read by the
// restricted loader: per-tensor quint8 and qint32, per-channel qint8, a slice.
TEST(QuantizedTensor, LoadsTorchCheckpoint) {
  const StateDict d = serialize::load_torch_state_dict(ember::testing::fixture_path("core/quantized/qcheckpoint.pt"));
  ASSERT_EQ(d.size(), 5u);
  const Tensor& pt = d.at("pt");
  ASSERT_EQ(pt.dtype(), kQUInt8);
  EXPECT_EQ(pt.q_scale(), 0.05);
  EXPECT_EQ(pt.q_zero_point(), 64);
  EXPECT_TRUE(pt.int_repr().equal(qt_fx("ck_pt_q")));
  const Tensor& pc = d.at("pc");
  ASSERT_EQ(pc.dtype(), kQInt8);
  EXPECT_EQ(pc.q_per_channel_axis(), 0);
  EXPECT_TRUE(pc.q_per_channel_scales().equal(linspace(0.005, 0.012, 6, kFloat64)));
  EXPECT_TRUE(pc.q_per_channel_zero_points().equal(zeros({6}, kInt64)));
  EXPECT_TRUE(pc.int_repr().equal(qt_fx("ck_pc_q")));
  const Tensor& i32 = d.at("i32");
  EXPECT_EQ(i32.dtype(), kQInt32);
  EXPECT_EQ(i32.q_zero_point(), -5);
  EXPECT_TRUE(i32.int_repr().equal(qt_fx("ck_i32_q")));
  const Tensor& slice = d.at("slice");
  EXPECT_EQ(slice.sizes(), IntArrayRef({3, 7}));
  EXPECT_EQ(slice.q_scale(), 0.04);
  EXPECT_TRUE(slice.int_repr().equal(qt_fx("ck_slice_q")));
  EXPECT_EQ(d.at("float").dtype(), kFloat32);
}
