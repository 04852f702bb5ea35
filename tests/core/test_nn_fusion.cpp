// Inference fusions: functional::conv2d_activation (a convolution with its
// activation as a oneDNN post-op), nn::utils::fuse_conv_bn_weights and
// nn::utils::ConvBnFoldCache, against the unfused ops and float64 formulas.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace nn_fusion_test {

namespace F = nn::functional;
using F::ConvActivation;
using testing::expect_error;
using testing::expect_tensor_near;

Tensor activate(const Tensor& y, ConvActivation act) {
  switch (act) {
    case ConvActivation::None: return y;
    case ConvActivation::ReLU: return F::relu(y);
    case ConvActivation::ReLU6: return F::relu6(y);
    case ConvActivation::Hardswish: return F::hardswish(y);
    case ConvActivation::SiLU: return F::silu(y);
  }
  return y;
}

const ConvActivation kActivations[] = {ConvActivation::None, ConvActivation::ReLU, ConvActivation::ReLU6,
                                       ConvActivation::Hardswish, ConvActivation::SiLU};

// The fused float32 path against the float64 unfused reference, over layouts
// and geometries (pointwise, grouped, depthwise strided, dilated, "same").
TEST(ConvActivation, FusedMatchesConvThenActivation) {
  struct Geometry {
    int64_t in, out, k;
    F::ConvFuncOptions o;
  };
  const std::vector<Geometry> geometries = {
      {8, 16, 1, {}},
      {8, 12, 3, {.stride = 1, .padding = 1, .groups = 4}},
      {12, 12, 3, {.stride = 2, .padding = 1, .groups = 12}},
      {6, 5, 3, {.padding = "same", .dilation = 2}},
      {6, 5, 5, {.stride = {2, 1}, .padding = {2, 0}}},
  };
  Generator gen(3);
  NoGradGuard no_grad;
  for (const auto& g : geometries) {
    const Tensor w = randn({g.out, g.in / g.o.groups, g.k, g.k}, {}, &gen) * 0.3;
    const Tensor b = randn({g.out}, {}, &gen);
    for (bool bias : {false, true}) {
      for (bool cl : {false, true}) {
        const Tensor x = (randn({2, g.in, 11, 9}, {}, &gen) * 2).contiguous(cl ? MemoryFormat::ChannelsLast
                                                                                : MemoryFormat::Contiguous);
        F::ConvFuncOptions o = g.o;
        if (bias) o.bias = b;
        F::ConvFuncOptions o64 = o;
        if (bias) o64.bias = b.to(kFloat64);
        const Tensor ref_conv = F::conv2d(x.to(kFloat64), w.to(kFloat64), o64);
        for (ConvActivation act : kActivations) {
          SCOPED_TRACE(::testing::Message() << "in " << g.in << " k " << g.k << " bias " << bias << " cl " << cl
                                            << " activation " << static_cast<int>(act));
          const Tensor y = F::conv2d_activation(x, w, o, act);
          EXPECT_EQ(y.dtype(), kFloat32);
          EXPECT_EQ(y.is_contiguous(MemoryFormat::ChannelsLast), cl);
          expect_tensor_near(y.to(kFloat64), activate(ref_conv, act), 1e-5, 1e-5);
        }
      }
    }
  }
}

// With autograd the op is conv2d followed by the recorded activation:
// gradients equal the composition's.
TEST(ConvActivation, RecordsTheUnfusedOpsForAutograd) {
  Generator gen(5);
  for (ConvActivation act : kActivations) {
    SCOPED_TRACE(static_cast<int>(act));
    const Tensor x0 = randn({2, 4, 7, 7}, {}, &gen), w0 = randn({6, 4, 3, 3}, {}, &gen) * 0.4,
                 b0 = randn({6}, {}, &gen);
    Tensor x = x0.clone().requires_grad_(), w = w0.clone().requires_grad_(), b = b0.clone().requires_grad_();
    Tensor y = F::conv2d_activation(x, w, {.bias = b, .padding = 1}, act);
    if (act != ConvActivation::None) {
      ASSERT_TRUE(y.grad_fn() != nullptr);
    }
    y.square().sum().backward();
    Tensor x2 = x0.clone().requires_grad_(), w2 = w0.clone().requires_grad_(), b2 = b0.clone().requires_grad_();
    activate(F::conv2d(x2, w2, {.bias = b2, .padding = 1}), act).square().sum().backward();
    expect_tensor_near(x.grad(), x2.grad(), 1e-5, 1e-5);
    expect_tensor_near(w.grad(), w2.grad(), 1e-5, 1e-5);
    expect_tensor_near(b.grad(), b2.grad(), 1e-5, 1e-5);
  }
  // float64 (no oneDNN) runs the composition too; gradcheck through it.
  const Tensor x = randn({1, 2, 5, 5}, kFloat64, &gen).requires_grad_();
  const Tensor w = randn({3, 2, 3, 3}, kFloat64, &gen).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) {
        return autograd::variable_list{
            F::conv2d_activation(in[0], in[1], {.padding = 1}, ConvActivation::Hardswish)};
      },
      {x, w}));
}

TEST(ConvActivation, Errors) {
  const Tensor x = randn({1, 4, 5, 5});
  expect_error([&] { F::conv2d_activation(x, randn({3, 2, 3, 3}), {}, ConvActivation::ReLU); },
               "conv2d_activation: Given groups=1, weight of size [3, 2, 3, 3], expected input[1, 4, 5, 5] to have 2 "
               "channels");
  expect_error([&] { F::conv2d_activation(randn({4, 5}), randn({3, 4, 3, 3}), {}, ConvActivation::ReLU); },
               "conv2d_activation: Expected 3D (unbatched) or 4D (batched) input");
  // Unbatched input, zero-size batch.
  const Tensor w = randn({3, 4, 3, 3});
  expect_tensor_near(F::conv2d_activation(x[0], w, {}, ConvActivation::ReLU6),
                     F::relu6(F::conv2d(x[0], w)), 1e-5, 1e-5);
  EXPECT_EQ(F::conv2d_activation(randn({0, 4, 5, 5}), w, {}, ConvActivation::SiLU).sizes(),
            (std::vector<int64_t>{0, 3, 3, 3}));
}

// y = conv(x) then eval batch norm, against one convolution with the fused
// weights, and the fused tensors against the formula in float64.
TEST(FuseConvBn, MatchesConvThenBatchNorm) {
  Generator gen(9);
  const Tensor w = randn({6, 3, 3, 3}, kFloat64, &gen), cb = randn({6}, kFloat64, &gen);
  const Tensor rm = randn({6}, kFloat64, &gen), rv = rand({6}, kFloat64, &gen) + 0.5;
  const Tensor g = randn({6}, kFloat64, &gen), bb = randn({6}, kFloat64, &gen);
  auto [fw, fb] = nn::utils::fuse_conv_bn_weights(w, cb, rm, rv, 1e-3, g, bb);
  EXPECT_FALSE(fw.requires_grad());
  const Tensor scale = g / (rv + 1e-3).sqrt();
  expect_tensor_near(fw, w * scale.view({6, 1, 1, 1}), 1e-12, 1e-12);
  expect_tensor_near(fb, (cb - rm) * scale + bb, 1e-12, 1e-12);
  const Tensor x = randn({2, 3, 8, 8}, kFloat64, &gen);
  const Tensor ref = F::batch_norm(F::conv2d(x, w, {.bias = cb, .padding = 1}), rm, rv,
                                   {.weight = g, .bias = bb, .training = false, .eps = 1e-3});
  expect_tensor_near(F::conv2d(x, fw, {.bias = fb, .padding = 1}), ref, 1e-10, 1e-10);

  // Without conv bias or affine parameters; transposed convolution weights (dim 1).
  auto [w2, b2] = nn::utils::fuse_conv_bn_weights(w, Tensor(), rm, rv, 1e-5, Tensor(), Tensor());
  expect_tensor_near(b2, -rm / (rv + 1e-5).sqrt(), 1e-12, 1e-12);
  const Tensor wt = randn({3, 6, 2, 2}, kFloat64, &gen);
  auto [wt2, bt2] = nn::utils::fuse_conv_bn_weights(wt, Tensor(), rm, rv, 1e-5, g, bb, /*transpose=*/true);
  expect_tensor_near(wt2, wt * (g / (rv + 1e-5).sqrt()).view({1, 6, 1, 1}), 1e-12, 1e-12);
  expect_error([&] { nn::utils::fuse_conv_bn_weights(w, Tensor(), randn({5}), rv, 1e-5, g, bb); },
               "fuse_conv_bn_weights: expected bn_rm of shape [6]");
}

// The cache: same tensors while nothing changes, refreshed on in-place
// updates, load_state_dict and set_data; applicable() only where the fused
// path is exact.
TEST(ConvBnFoldCache, RefreshesAndAppliesOnlyWhereExact) {
  nn::Conv2d conv(nn::Conv2dOptions{.in_channels = 4, .out_channels = 6, .kernel_size = 3, .padding = 1,
                                    .bias = false});
  nn::BatchNorm2d bn(6);
  {
    NoGradGuard no_grad;
    bn->running_mean.normal_();
    bn->running_var.uniform_(0.5, 2);
    bn->weight.normal_();
    bn->bias.normal_();
  }
  const Tensor x = randn({2, 4, 9, 9});
  EXPECT_FALSE(nn::utils::ConvBnFoldCache::applicable(*conv, *bn, x));  // bn in training mode
  bn->eval();
  EXPECT_FALSE(nn::utils::ConvBnFoldCache::applicable(*conv, *bn, x));  // parameters require grad
  NoGradGuard no_grad;
  EXPECT_TRUE(nn::utils::ConvBnFoldCache::applicable(*conv, *bn, x));
  EXPECT_FALSE(nn::utils::ConvBnFoldCache::applicable(*conv, *bn, x.to(kFloat64)));
  const auto hook = bn->register_forward_hook([](nn::Module&, const std::vector<Tensor>&, Tensor&) {});
  EXPECT_FALSE(nn::utils::ConvBnFoldCache::applicable(*conv, *bn, x));  // hooks must see the layers run
  bn->remove_hook(hook);
  nn::BatchNorm2d no_stats(nn::BatchNorm2dOptions{.num_features = 6, .track_running_stats = false});
  no_stats->eval();
  EXPECT_FALSE(nn::utils::ConvBnFoldCache::applicable(*conv, *no_stats, x));

  nn::utils::ConvBnFoldCache cache;
  auto unfused = [&] { return F::relu6(bn(conv(x))); };
  expect_tensor_near(cache.forward(*conv, *bn, x, ConvActivation::ReLU6), unfused(), 1e-5, 1e-5);
  const auto [w1, b1] = cache.folded(*conv, *bn);
  EXPECT_TRUE(cache.folded(*conv, *bn).first.is_same(w1));  // unchanged: cached

  bn->running_mean.add_(0.5);  // in place
  EXPECT_FALSE(cache.folded(*conv, *bn).first.is_same(w1));
  expect_tensor_near(cache.forward(*conv, *bn, x, ConvActivation::ReLU6), unfused(), 1e-5, 1e-5);

  nn::Conv2d other(nn::Conv2dOptions{.in_channels = 4, .out_channels = 6, .kernel_size = 3, .padding = 1,
                                     .bias = false});
  conv->load_state_dict(other->state_dict());
  expect_tensor_near(cache.forward(*conv, *bn, x, ConvActivation::None), bn(conv(x)), 1e-5, 1e-5);

  conv->to(MemoryFormat::ChannelsLast);  // set_data: new storage
  conv->weight.mul_(2);
  expect_tensor_near(cache.forward(*conv, *bn, x, ConvActivation::Hardswish), F::hardswish(bn(conv(x))), 1e-5,
                     1e-5);
}

}  // namespace nn_fusion_test
}  // namespace ember
