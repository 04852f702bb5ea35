// Note [Quantized byte kernels]: mul, mul_relu, cat with new parameters,
// hardswish, batch_norm2d, max_pool2d, avg_pool2d and adaptive_avg_pool2d
// over the stored bytes. Each op runs twice: on dense inputs (row-major or
// channels-last: the byte kernels) and on a transposed layout (which they
// leave to the general path), and both must give torch 1.13's onednn-engine
// integers exactly (fixtures: scripts/fixtures/quant_byte_kernels.py), for
// quint8 and qint8.
#include <gtest/gtest.h>

#include <functional>

#include <ember/ao/nn/quantized/functional.h>
#include <ember/ao/nn/quantized/modules.h>
#include <ember/ember.h>
#include <ember/ops/quantize.h>

#include "tensor_expect.h"

using namespace ember;
namespace qf = ember::ao::nn::quantized::functional;

namespace quant_byte_kernels_test {
Tensor bx(const std::string& name) { return ember::testing::fixture("quant_byte_kernels", name); }

// A layout no byte kernel takes (neither row-major nor channels-last).
Tensor general_layout(const Tensor& q) { return q.transpose(2, 3).contiguous().transpose(2, 3); }

struct Inputs {
  Tensor a, b;
  int64_t out_zp;
  std::string prefix;
  bool channels_last;
};

std::vector<Inputs> all_inputs() {
  std::vector<Inputs> out;
  for (DType dt : {kQUInt8, kQInt8}) {
    const bool u8 = dt == kQUInt8;
    for (bool cl : {false, true}) {
      Tensor a = quantize_per_tensor(bx("a"), 0.05, u8 ? 128 : 3, dt);
      Tensor b = quantize_per_tensor(bx("b"), 0.03, u8 ? 100 : -7, dt);
      if (cl) {
        a = a.contiguous(MemoryFormat::ChannelsLast);
        b = b.contiguous(MemoryFormat::ChannelsLast);
      }
      out.push_back({a, b, u8 ? 90 : 5, std::string(u8 ? "u8" : "s8") + (cl ? "_cl_" : "_rm_"), cl});
    }
  }
  return out;
}

// op on the dense inputs and on the general layout, both against torch.
// general_as_row_major: torch computes the op on a tensor of neither layout
// as on a row-major one (the average poolings round by layout), so the
// general path's result is compared with the row-major fixture.
void check(const Inputs& in, const std::string& name, const std::function<Tensor(const Tensor&, const Tensor&)>& op,
           bool keeps_layout = true, bool general_as_row_major = false) {
  SCOPED_TRACE(in.prefix + name);
  const Tensor expected = bx(in.prefix + name + "_q");
  std::string row_major = in.prefix;  // "u8_cl_" -> "u8_rm_"
  if (general_as_row_major) row_major.replace(2, 4, "_rm_");
  const Tensor expected_general = bx(row_major + name + "_q");
  const Tensor fast = op(in.a, in.b);
  const Tensor general = op(general_layout(in.a), general_layout(in.b));
  ASSERT_FALSE(general_layout(in.a).is_contiguous() || general_layout(in.a).is_contiguous(MemoryFormat::ChannelsLast));
  ASSERT_TRUE(fast.is_quantized());
  EXPECT_TRUE(fast.int_repr().to(kInt64).equal(expected)) << "byte kernel\n" << fast.int_repr() << "\n" << expected;
  EXPECT_TRUE(general.int_repr().to(kInt64).equal(expected_general)) << "general path";
  if (keeps_layout) {
    EXPECT_TRUE(fast.is_contiguous(in.channels_last ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous));
  }
}
}  // namespace quant_byte_kernels_test
using namespace quant_byte_kernels_test;

TEST(QuantByteKernels, MulAndMulReluMatchTorch) {
  for (const Inputs& in : all_inputs()) {
    const int64_t zp = in.out_zp;
    check(in, "mul", [&](const Tensor& a, const Tensor& b) { return qf::mul(a, b, 0.2, zp); });
    check(in, "mul_relu", [&](const Tensor& a, const Tensor& b) { return qf::mul_relu(a, b, 0.2, zp); });
  }
}

TEST(QuantByteKernels, CatWithNewParametersMatchesTorch) {
  for (const Inputs& in : all_inputs()) {
    const int64_t zp = in.out_zp;
    check(in, "cat", [&](const Tensor& a, const Tensor& b) { return qf::cat({a, b}, 1, 0.06, zp); }, false);
  }
  // Inputs already at the output's parameters keep their integers.
  const Inputs in = all_inputs()[0];
  const Tensor same = qf::cat({in.a, in.a}, 0, in.a.q_scale(), in.a.q_zero_point());
  EXPECT_TRUE(same.int_repr().equal(cat({in.a.int_repr(), in.a.int_repr()}, 0)));
}

TEST(QuantByteKernels, HardswishAndBatchNormMatchTorch) {
  const Tensor w = tensor({1.5f, 0.5f, -1.0f, 2.0f, 0.3f}), b = tensor({0.1f, -0.2f, 0.3f, 0.0f, 1.0f});
  const Tensor mean = tensor({0.2f, -0.1f, 0.0f, 0.5f, -0.3f}), var = tensor({1.2f, 0.7f, 2.0f, 0.1f, 3.0f});
  for (const Inputs& in : all_inputs()) {
    const int64_t zp = in.out_zp;
    check(in, "hardswish", [&](const Tensor& a, const Tensor&) { return qf::hardswish(a, 0.04, zp); });
    check(in, "bn", [&](const Tensor& a, const Tensor&) {
      return qf::batch_norm2d(a, w, b, mean, var, 1e-5, 0.06, zp);
    });
  }
}

TEST(QuantByteKernels, PoolsMatchTorch) {
  namespace F = ember::nn::functional;
  for (const Inputs& in : all_inputs()) {
    auto mp = [&](const std::string& name, F::ExpandingInts k, F::MaxPoolFuncOptions o) {
      check(in, name, [&](const Tensor& a, const Tensor&) { return qf::max_pool2d(a, k, o); });
    };
    mp("mp_k3s2p1", 3, {.stride = 2, .padding = 1});
    mp("mp_k2_ceil", 2, {.stride = 2, .padding = 0, .ceil_mode = true});
    mp("mp_k3_dil2", {3, 2}, {.stride = {1, 2}, .padding = {1, 0}, .dilation = {2, 1}});
    mp("mp_k3s2_ceil_pad", 3, {.stride = 2, .padding = 1, .ceil_mode = true});
    auto ap = [&](const std::string& name, F::ExpandingInts k, F::AvgPoolFuncOptions o) {
      check(in, name, [&](const Tensor& a, const Tensor&) { return qf::avg_pool2d(a, k, o); }, true, true);
    };
    ap("ap_k3s2p1", 3, {.stride = 2, .padding = 1});
    ap("ap_k3s2p1_nopad", 3, {.stride = 2, .padding = 1, .count_include_pad = false});
    ap("ap_k2_ceil", 2, {.stride = 2, .ceil_mode = true});
    ap("ap_k3_ceil_pad", {3, 2}, {.stride = {2, 1}, .padding = 1, .ceil_mode = true});
    ap("ap_div5", 3, {.stride = 1, .padding = 1, .divisor_override = 5});
    for (const auto& [name, size] : {std::pair<std::string, std::vector<int64_t>>{"aap_4x3", {4, 3}},
                                     {"aap_1", {1, 1}}, {"aap_5x9", {5, 9}}}) {
      check(in, name, [&](const Tensor& a, const Tensor&) { return qf::adaptive_avg_pool2d(a, size); }, true, true);
    }
  }
}

// Bad options still raise the general path's errors; a 3-d input pools too.
TEST(QuantByteKernels, PoolsLeaveBadOptionsToTheGeneralPath) {
  const Tensor q = quantize_per_tensor(bx("a"), 0.05, 128, kQUInt8);
  EXPECT_THROW(qf::max_pool2d(q, 3, {.stride = 2, .padding = 2}), ember::Error);
  EXPECT_THROW(qf::avg_pool2d(q, 3, {.stride = 0}), ember::Error);
  EXPECT_THROW(qf::avg_pool2d(q, 2, {.divisor_override = 0}), ember::Error);
  const Tensor q3 = q[0];
  EXPECT_TRUE(qf::max_pool2d(q3, 3, {.stride = 2, .padding = 1}).int_repr().equal(
      qf::max_pool2d(q, 3, {.stride = 2, .padding = 1})[0].int_repr()));
  EXPECT_TRUE(qf::adaptive_avg_pool2d(q3, {4, 3}).int_repr().equal(qf::adaptive_avg_pool2d(q, {4, 3})[0].int_repr()));
}
