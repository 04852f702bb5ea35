// Conv, pooling and normalization modules against PyTorch through the
// checkpoint path (scripts/fixtures/nn_layers.py; tests/core/module_fixture.h):
// each case loads the PyTorch module's state_dict (strict: the keys are
// PyTorch's), runs forward on every saved input, and compares outputs,
// gradients, max-pool indices and the buffers after the forwards (running
// statistics, num_batches_tracked). Channels-last cases also run in float32
// (the oneDNN paths) against the float64 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <type_traits>

#include <ember/ember.h>

#include "module_fixture.h"

namespace ember {
namespace nn_layers_test {

using testing::expect_error;
using testing::expect_tensor_near;
using testing::ModuleCase;

std::string repr(const nn::Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

// a ~ b after casting both to float64 (shapes equal).
void near64(const Tensor& a, const Tensor& b, double rtol, double atol) {
  ASSERT_EQ(a.sizes(), b.sizes());
  EXPECT_TRUE(allclose(a.to(kFloat64), b.to(kFloat64), rtol, atol, true)) << "actual:\n" << a << "\nexpected:\n" << b;
}

struct Mode {
  bool channels_last = false;
  bool train = true;
  DType dtype = kFloat64;
};

// Loads case `name` into m, runs fwd(m, x) on each saved input, checks
// outputs, indices (fwd returning a pair), buffers after the forwards, then
// input and parameter gradients.
template <class Holder, class Fwd>
void run_case(const std::string& name, Holder m, Fwd fwd, Mode mode = {}) {
  SCOPED_TRACE(name + (mode.dtype == kFloat32 ? " (float32)" : ""));
  ModuleCase c{"nn_layers", name};
  c.load(*m, mode.dtype);
  m->train(mode.train);
  std::vector<Tensor> ins, outs;
  for (int i = 0; c.has("_in" + std::to_string(i)); ++i) {
    Tensor x = c.in(i).to(mode.dtype);
    if (mode.channels_last)
      x = x.contiguous(x.dim() == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d);
    x.requires_grad_();
    auto r = fwd(m, x);
    Tensor y;
    if constexpr (std::is_same_v<decltype(r), Tensor>) {
      y = r;
    } else {
      y = r.first;
      const std::string idx = name + "_idx" + std::to_string(i);
      expect_tensor_near(r.second, testing::fixture("nn_layers", idx), 0, 0);
    }
    if (mode.channels_last) {
      EXPECT_TRUE(y.is_contiguous(MemoryFormat::ChannelsLast)) << "output layout";
    }
    ins.push_back(x);
    outs.push_back(y);
  }
  ASSERT_FALSE(ins.empty());
  const double rtol = mode.dtype == kFloat32 ? 1e-4 : 1e-7, atol = mode.dtype == kFloat32 ? 1e-4 : 1e-9;
  for (const auto& [key, b] : m->named_buffers()) {
    SCOPED_TRACE("buffer " + key);
    ASSERT_TRUE(c.has("_after_" + key));
    near64(b, testing::fixture("nn_layers", name + "_after_" + key), rtol, atol);
    if (key == "num_batches_tracked") {
      EXPECT_EQ(b.dtype(), kInt64);
    }
  }
  if (mode.dtype == kFloat64) {
    c.check(*m, outs, ins);
    return;
  }
  Tensor loss;
  for (size_t i = 0; i < outs.size(); ++i) {
    near64(outs[i], c.out(static_cast<int>(i)), rtol, atol);
    Tensor t = (outs[i] * c.gout(static_cast<int>(i)).to(mode.dtype)).sum();
    loss = loss.defined() ? loss + t : t;
  }
  loss.backward();
  for (size_t i = 0; i < ins.size(); ++i)
    if (c.has("_gin" + std::to_string(i)))
      near64(ins[i].grad(), testing::fixture("nn_layers", name + "_gin" + std::to_string(i)), rtol, atol);
  for (const auto& [key, p] : m->named_parameters())
    if (c.has("_g_" + key)) near64(p.grad(), testing::fixture("nn_layers", name + "_g_" + key), rtol, atol);
}

const auto call = [](auto& m, const Tensor& x) { return m(x); };
const auto with_indices = [](auto& m, const Tensor& x) { return m->forward_with_indices(x); };

// ---- convolutions ----

TEST(NnLayersConv, Conv) {
  run_case("conv1d", nn::Conv1d(3, 4, 3), call);
  run_case("conv2d_stride_pad_nobias",
           nn::Conv2d({.in_channels = 3, .out_channels = 4, .kernel_size = 3, .stride = 2, .padding = 1,
                       .bias = false}),
           call);
  run_case("conv3d_groups",
           nn::Conv3d({.in_channels = 4, .out_channels = 6, .kernel_size = {2, 3, 2}, .padding = {1, 0, 1},
                       .groups = 2}),
           call);
  run_case("conv1d_unbatched", nn::Conv1d(3, 2, 2), call);
}

TEST(NnLayersConv, ChannelsLast) {
  for (DType dt : {kFloat64, kFloat32})
    run_case("conv2d_channels_last", nn::Conv2d({.in_channels = 4, .out_channels = 6, .kernel_size = 3, .padding = 1}),
             call, {.channels_last = true, .dtype = dt});
}

TEST(NnLayersConv, PaddingModes) {
  for (const char* mode : {"zeros", "reflect", "replicate", "circular"}) {
    run_case(std::string("conv2d_") + mode,
             nn::Conv2d({.in_channels = 2, .out_channels = 3, .kernel_size = 3, .padding = {1, 2},
                         .padding_mode = mode}),
             call);
  }
}

TEST(NnLayersConv, SameValid) {
  run_case("conv1d_same_even_dil",
           nn::Conv1d({.in_channels = 2, .out_channels = 3, .kernel_size = 4, .padding = "same", .dilation = 2}), call);
  run_case("conv2d_same_even_reflect",
           nn::Conv2d({.in_channels = 2, .out_channels = 3, .kernel_size = {4, 3}, .padding = "same",
                       .padding_mode = "reflect"}),
           call);
  run_case("conv2d_valid_dil_groups",
           nn::Conv2d({.in_channels = 4, .out_channels = 4, .kernel_size = 3, .padding = "valid", .dilation = {2, 1},
                       .groups = 4}),
           call);
}

TEST(NnLayersConv, Transposed) {
  run_case("convt1d", nn::ConvTranspose1d({.in_channels = 3, .out_channels = 2, .kernel_size = 3, .stride = 2}), call);
  run_case("convt2d_opad_groups",
           nn::ConvTranspose2d({.in_channels = 4, .out_channels = 6, .kernel_size = 3, .stride = 2, .padding = 1,
                                .output_padding = 1, .groups = 2}),
           call);
  run_case("convt2d_dil_nobias",
           nn::ConvTranspose2d({.in_channels = 2, .out_channels = 3, .kernel_size = {2, 3}, .stride = {1, 2},
                                .bias = false, .dilation = 2}),
           call);
  run_case("convt3d",
           nn::ConvTranspose3d({.in_channels = 2, .out_channels = 2, .kernel_size = 2, .stride = 2, .padding = 1}),
           call);
}

TEST(NnLayersConv, TransposedOutputSize) {
  nn::ConvTranspose2d m({.in_channels = 3, .out_channels = 2, .kernel_size = 3, .stride = 3, .padding = 1});
  run_case("convt2d_output_size", m, [](auto& m, const Tensor& x) { return m->forward(x, {8, 11}); });
  Tensor x = zeros({2, 3, 3, 4}, kFloat64);
  EXPECT_EQ(m->output_padding_for(x, {8, 11}), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(m->output_padding_for(x, {2, 2, 7, 10}), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(m->forward(x.select(0, 0), {2, 8, 11}).sizes(), IntArrayRef({2, 8, 11}));  // unbatched: C + spatial
  expect_error([&] { m->forward(x, {10, 11}); },
               "ConvTranspose2d: requested an output size of (10, 11), but valid sizes range from (7, 10) to (9, 12) "
               "(for an input of (3, 4))");
  expect_error([&] { m->forward(x, {1, 2, 3}); }, "ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements (got 3)");
}

TEST(NnLayersConv, DefaultInit) {
  // kaiming_uniform(a = sqrt 5) gives bound 1/sqrt(fan_in) for the weight, as
  // for the bias; fan_in = weight.size(1) * prod(kernel) (for transposed
  // convs: out_channels / groups * prod(kernel), PyTorch's quirk).
  nn::Conv2d c({.in_channels = 8, .out_channels = 16, .kernel_size = 3, .groups = 2});
  EXPECT_EQ(c->weight.sizes(), IntArrayRef({16, 4, 3, 3}));
  const double b = 1 / std::sqrt(36.0);
  EXPECT_LE(c->weight.abs().max().item<double>(), b);
  EXPECT_GT(c->weight.abs().max().item<double>(), 0.8 * b);
  EXPECT_LE(c->bias.abs().max().item<double>(), b);
  nn::ConvTranspose2d t({.in_channels = 8, .out_channels = 6, .kernel_size = {2, 3}, .groups = 2});
  EXPECT_EQ(t->weight.sizes(), IntArrayRef({8, 3, 2, 3}));
  const double bt = 1 / std::sqrt(18.0);
  EXPECT_LE(t->weight.abs().max().item<double>(), bt);
  EXPECT_GT(t->weight.abs().max().item<double>(), 0.8 * bt);
  EXPECT_LE(t->bias.abs().max().item<double>(), bt);
  EXPECT_GT(t->bias.abs().max().item<double>(), 0.3 * bt);
  EXPECT_TRUE(c->weight.requires_grad());
  nn::Conv1d nb({.in_channels = 2, .out_channels = 2, .kernel_size = 1, .bias = false});
  EXPECT_EQ(nb->named_parameters().size(), 1u);
}

TEST(NnLayersConv, Repr) {
  EXPECT_EQ(repr(*nn::Conv2d({.in_channels = 3, .out_channels = 8, .kernel_size = 3, .stride = 2, .padding = 1,
                              .bias = false})),
            "Conv2d(3, 8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)");
  EXPECT_EQ(repr(*nn::Conv1d({.in_channels = 2, .out_channels = 4, .kernel_size = 4, .padding = "same",
                              .dilation = 2, .padding_mode = "reflect"})),
            "Conv1d(2, 4, kernel_size=(4,), stride=(1,), padding=same, dilation=(2,), padding_mode=reflect)");
  EXPECT_EQ(repr(*nn::Conv3d({.in_channels = 2, .out_channels = 4, .kernel_size = 3, .padding = "valid",
                              .groups = 2})),
            "Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=valid, groups=2)");
  EXPECT_EQ(repr(*nn::ConvTranspose2d({.in_channels = 4, .out_channels = 2, .kernel_size = 3, .stride = 2,
                                       .output_padding = 1, .groups = 2})),
            "ConvTranspose2d(4, 2, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1), groups=2)");
  EXPECT_EQ(repr(*nn::Conv2d(3, 8, nn::functional::ExpandingInts{3, 5})), "Conv2d(3, 8, kernel_size=(3, 5), stride=(1, 1))");
}

TEST(NnLayersConv, Errors) {
  expect_error([] { nn::Conv2d({.in_channels = 3, .out_channels = 4, .kernel_size = 3, .groups = 2}); },
               "Conv2d: in_channels must be divisible by groups");
  expect_error([] { nn::Conv2d({.in_channels = 4, .out_channels = 3, .kernel_size = 3, .groups = 2}); },
               "Conv2d: out_channels must be divisible by groups");
  expect_error([] { nn::Conv2d({.in_channels = 4, .out_channels = 4, .kernel_size = 3, .groups = 0}); },
               "Conv2d: groups must be a positive integer");
  expect_error([] { nn::Conv1d({.in_channels = 1, .out_channels = 1, .kernel_size = 3, .stride = 2, .padding = "same"}); },
               "Conv1d: padding='same' is not supported for strided convolutions");
  expect_error([] { nn::Conv1d({.in_channels = 1, .out_channels = 1, .kernel_size = 3, .padding = "full"}); },
               "Conv1d: Invalid padding string 'full'");
  expect_error([] { nn::Conv2d({.in_channels = 1, .out_channels = 1, .kernel_size = 3, .padding_mode = "mirror"}); },
               "Conv2d: padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got "
               "padding_mode='mirror'");
  expect_error([] { nn::Conv2d({.in_channels = 1, .out_channels = 1, .kernel_size = {3, 3, 3}}); },
               "kernel_size");
  expect_error([] { nn::Conv2d({.in_channels = 1, .out_channels = 1}); }, "Conv2d: kernel_size must be given");
  expect_error([] { nn::ConvTranspose2d({.in_channels = 1, .out_channels = 1, .kernel_size = 3, .padding_mode = "reflect"}); },
               "ConvTranspose2d: Only \"zeros\" padding mode is supported for ConvTranspose2d");
  nn::Conv2d c(3, 4, 3);
  expect_error([&] { c(zeros({1, 2, 5, 5})); }, "expected input[1, 2, 5, 5] to have 3 channels, but got 2 channels");
}

// ---- poolings ----

TEST(NnLayersPool, MaxPool) {
  run_case("maxpool1d", nn::MaxPool1d({.kernel_size = 3, .stride = 2, .padding = 1, .ceil_mode = true}),
           with_indices);
  run_case("maxpool2d_dil", nn::MaxPool2d({.kernel_size = 2, .stride = 1, .dilation = 2}), with_indices);
  run_case("maxpool3d", nn::MaxPool3d({.kernel_size = {2, 1, 2}, .ceil_mode = true}), with_indices);
  for (DType dt : {kFloat64, kFloat32})
    run_case("maxpool2d_channels_last", nn::MaxPool2d({.kernel_size = 3, .stride = 2, .padding = 1}), with_indices,
             {.channels_last = true, .dtype = dt});
  // forward() gives the values only.
  nn::MaxPool2d m(2);
  Tensor x = randn({1, 1, 4, 4});
  EXPECT_TRUE(equal(m(x), m->forward_with_indices(x).first));
}

TEST(NnLayersPool, AvgPool) {
  run_case("avgpool1d", nn::AvgPool1d({.kernel_size = 3, .stride = 2, .padding = 1, .count_include_pad = false}),
           call);
  run_case("avgpool2d_ceil", nn::AvgPool2d({.kernel_size = {2, 3}, .stride = 2, .padding = 1, .ceil_mode = true}),
           call);
  run_case("avgpool3d_div", nn::AvgPool3d({.kernel_size = 2, .divisor_override = 3}), call);
}

TEST(NnLayersPool, Adaptive) {
  run_case("adaptive_avg1d", nn::AdaptiveAvgPool1d(3), call);
  run_case("adaptive_avg2d_none", nn::AdaptiveAvgPool2d({std::nullopt, 3}), call);
  run_case("adaptive_avg3d", nn::AdaptiveAvgPool3d({2, 3, 1}), call);
  run_case("adaptive_max1d", nn::AdaptiveMaxPool1d(3), with_indices);
  run_case("adaptive_max2d", nn::AdaptiveMaxPool2d({3, std::nullopt}), with_indices);
  run_case("adaptive_max3d", nn::AdaptiveMaxPool3d(2), with_indices);
  nn::AdaptiveAvgPool2d m({std::nullopt, 3});
  EXPECT_EQ(m->output_size_for(zeros({2, 5, 7})), (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(m(zeros({3, 5, 7})).sizes(), IntArrayRef({3, 5, 3}));
}

TEST(NnLayersPool, LPPool) {
  run_case("lppool1d", nn::LPPool1d({.norm_type = 2, .kernel_size = 3, .stride = 2}), call);
  run_case("lppool2d", nn::LPPool2d({.norm_type = 1.5, .kernel_size = {2, 3}, .ceil_mode = true}), call);
}

TEST(NnLayersPool, Repr) {
  EXPECT_EQ(repr(*nn::MaxPool2d(2)), "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(repr(*nn::MaxPool1d({.kernel_size = 3, .stride = 2, .padding = 1, .ceil_mode = true})),
            "MaxPool1d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True)");
  // Braces are the options in PyTorch's positional order (kernel_size, stride, padding).
  EXPECT_EQ(repr(*nn::MaxPool3d({2, 1, 1})),
            "MaxPool3d(kernel_size=2, stride=1, padding=1, dilation=1, ceil_mode=False)");
  EXPECT_EQ(repr(*nn::MaxPool3d({.kernel_size = {2, 1, 2}})),
            "MaxPool3d(kernel_size=(2, 1, 2), stride=(2, 1, 2), padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(repr(*nn::AvgPool2d(3)), "AvgPool2d(kernel_size=3, stride=3, padding=0)");
  EXPECT_EQ(repr(*nn::AvgPool1d(3)), "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))");
  EXPECT_EQ(repr(*nn::AvgPool3d({.kernel_size = 2, .count_include_pad = false, .divisor_override = 3})),
            "AvgPool3d(kernel_size=2, stride=2, padding=0)");
  EXPECT_EQ(repr(*nn::AdaptiveAvgPool2d({std::nullopt, 3})), "AdaptiveAvgPool2d(output_size=(None, 3))");
  EXPECT_EQ(repr(*nn::AdaptiveMaxPool1d(3)), "AdaptiveMaxPool1d(output_size=3)");
  EXPECT_EQ(repr(*nn::AdaptiveAvgPool3d({2, 2, 2})), "AdaptiveAvgPool3d(output_size=(2, 2, 2))");
  EXPECT_EQ(repr(*nn::LPPool2d(2, 3)), "LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)");
  EXPECT_EQ(repr(*nn::LPPool1d({.norm_type = 1.5, .kernel_size = 2, .ceil_mode = true})),
            "LPPool1d(norm_type=1.5, kernel_size=2, stride=None, ceil_mode=True)");
}

TEST(NnLayersPool, Errors) {
  expect_error([] { nn::MaxPool2d({.kernel_size = {2, 2, 2}}); }, "kernel_size");
  expect_error([] { nn::AvgPool1d(nn::AvgPool1dOptions{}); }, "AvgPool1d: kernel_size must be given");
  expect_error([] { nn::AdaptiveAvgPool2d({1, 2, 3}); }, "AdaptiveAvgPool2d: output_size must have 1 or 2 values");
  nn::MaxPool2d m(2);
  expect_error([&] { m(zeros({2, 3})); }, "max_pool2d");
}

// ---- normalization ----

TEST(NnLayersNorm, BatchNorm) {
  run_case("bn1d_2d", nn::BatchNorm1d(4), call);
  run_case("bn1d_3d_cma", nn::BatchNorm1d({.num_features = 3, .momentum = std::nullopt}), call);  // 2 steps
  run_case("bn2d", nn::BatchNorm2d({.num_features = 3, .eps = 1e-3, .momentum = 0.3}), call);    // 2 steps
  run_case("bn3d", nn::BatchNorm3d(2), call);
  for (DType dt : {kFloat64, kFloat32})
    run_case("bn2d_channels_last", nn::BatchNorm2d(4), call, {.channels_last = true, .dtype = dt});
}

TEST(NnLayersNorm, BatchNormEvalAndNoStats) {
  for (DType dt : {kFloat64, kFloat32}) run_case("bn2d_eval", nn::BatchNorm2d(3), call, {.train = false, .dtype = dt});
  nn::BatchNorm2d no_stats({.num_features = 3, .affine = false, .track_running_stats = false});
  EXPECT_TRUE(no_stats->state_dict().empty());
  run_case("bn2d_no_stats", no_stats, call);
  run_case("bn2d_no_stats_eval", nn::BatchNorm2d({.num_features = 3, .track_running_stats = false}), call,
           {.train = false});
}

TEST(NnLayersNorm, BatchNormState) {
  nn::BatchNorm2d bn(3);
  std::vector<std::string> keys;
  for (const auto& [k, v] : bn->state_dict()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"weight", "bias", "running_mean", "running_var", "num_batches_tracked"}));
  EXPECT_EQ(bn->num_batches_tracked.dtype(), kInt64);
  EXPECT_EQ(bn->num_batches_tracked.dim(), 0);
  EXPECT_TRUE(equal(bn->weight, ones({3})));
  EXPECT_TRUE(equal(bn->running_var, ones({3})));
  bn(randn({4, 3, 2, 2}));
  bn(randn({4, 3, 2, 2}));
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 2);
  EXPECT_FALSE(equal(bn->running_mean, zeros({3})));
  // eval: running statistics used, not updated.
  bn->eval();
  Tensor rm = bn->running_mean.clone();
  Tensor x = randn({2, 3, 2, 2});
  Tensor y = bn(x);
  EXPECT_TRUE(equal(bn->running_mean, rm));
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 2);
  Tensor expect = (x - rm.view({1, 3, 1, 1})) / (bn->running_var.view({1, 3, 1, 1}) + 1e-5).sqrt();
  EXPECT_TRUE(allclose(y, expect, 1e-4, 1e-5));
  bn->reset_running_stats();
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 0);
  EXPECT_TRUE(equal(bn->running_mean, zeros({3})));
}

TEST(NnLayersNorm, InstanceNorm) {
  run_case("in1d", nn::InstanceNorm1d(3), call);
  run_case("in1d_unbatched", nn::InstanceNorm1d({.num_features = 3, .affine = true}), call);
  run_case("in2d_stats", nn::InstanceNorm2d({.num_features = 3, .affine = true, .track_running_stats = true}), call);
  run_case("in2d_stats_eval", nn::InstanceNorm2d({.num_features = 3, .track_running_stats = true}), call,
           {.train = false});
  run_case("in3d", nn::InstanceNorm3d({.num_features = 2, .affine = true}), call);
  EXPECT_TRUE(nn::InstanceNorm2d(3)->state_dict().empty());
}

TEST(NnLayersNorm, LayerGroupLocal) {
  run_case("layernorm", nn::LayerNorm(5), call);
  run_case("layernorm_2d_noaffine",
           nn::LayerNorm({.normalized_shape = {3, 4}, .eps = 1e-3, .elementwise_affine = false}), call);
  run_case("groupnorm", nn::GroupNorm(2, 6), call);
  run_case("groupnorm_noaffine", nn::GroupNorm({.num_groups = 3, .num_channels = 3, .affine = false}), call);
  run_case("lrn", nn::LocalResponseNorm({.size = 3, .alpha = 0.1, .beta = 0.6, .k = 2.0}), call);
}

TEST(NnLayersNorm, Repr) {
  EXPECT_EQ(repr(*nn::BatchNorm2d(4)), "BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)");
  EXPECT_EQ(repr(*nn::BatchNorm1d({.num_features = 3, .momentum = std::nullopt, .affine = false})),
            "BatchNorm1d(3, eps=1e-05, momentum=None, affine=False, track_running_stats=True)");
  EXPECT_EQ(repr(*nn::InstanceNorm2d(3)),
            "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False)");
  EXPECT_EQ(repr(*nn::LayerNorm(4)), "LayerNorm((4,), eps=1e-05, elementwise_affine=True)");
  EXPECT_EQ(repr(*nn::LayerNorm({.normalized_shape = {3, 4}, .elementwise_affine = false})),
            "LayerNorm((3, 4), eps=1e-05, elementwise_affine=False)");
  EXPECT_EQ(repr(*nn::GroupNorm(2, 4)), "GroupNorm(2, 4, eps=1e-05, affine=True)");
  EXPECT_EQ(repr(*nn::LocalResponseNorm(2)), "LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)");
}

TEST(NnLayersNorm, Errors) {
  nn::BatchNorm1d b1(3);
  expect_error([&] { b1(zeros({2, 3, 4, 5})); }, "BatchNorm1d: expected 2D or 3D input (got 4D input)");
  nn::BatchNorm2d b2(3);
  expect_error([&] { b2(zeros({2, 3, 4})); }, "BatchNorm2d: expected 4D input (got 3D input)");
  nn::BatchNorm3d b3(3);
  expect_error([&] { b3(zeros({2, 3, 4, 4})); }, "BatchNorm3d: expected 5D input (got 4D input)");
  expect_error([&] { b2(zeros({1, 3, 1, 1})); }, "Expected more than 1 value per channel when training");
  expect_error([&] { b2(zeros({2, 4, 2, 2})); }, "batch_norm");
  nn::InstanceNorm1d i1(3);
  expect_error([&] { i1(zeros({2, 3, 4, 5})); }, "InstanceNorm1d: expected 2D or 3D input (got 4D input)");
  nn::InstanceNorm2d i2(3);
  expect_error([&] { i2(zeros({3, 4})); }, "InstanceNorm2d: expected 3D or 4D input (got 2D input)");
  expect_error([] { nn::GroupNorm(4, 6); }, "GroupNorm: num_channels must be divisible by num_groups");
  expect_error([] { nn::GroupNorm(0, 6); }, "GroupNorm: num_groups must be positive");
  nn::LayerNorm ln(4);
  expect_error([&] { ln(zeros({2, 5})); }, "layer_norm");
}

// Gradients through the modules (with respect to the input) by finite differences, twice.
TEST(NnLayersUsage, Gradcheck) {
  auto check = [](auto m, Tensor x, bool twice = true) {
    m->to(kFloat64);
    x = x.to(kFloat64).requires_grad_();
    auto fn = [&](const autograd::variable_list& in) { return autograd::variable_list{m(in[0])}; };
    EXPECT_TRUE(autograd::gradcheck(fn, {x}));
    if (twice) {
      EXPECT_TRUE(autograd::gradgradcheck(fn, {x}));
    }
  };
  check(nn::Conv2d({.in_channels = 2, .out_channels = 2, .kernel_size = {2, 3}, .padding = "same",
                    .padding_mode = "circular"}),
        randn({1, 2, 4, 4}));
  check(nn::ConvTranspose1d({.in_channels = 2, .out_channels = 4, .kernel_size = 3, .stride = 2, .groups = 2}),
        randn({1, 2, 4}));
  check(nn::BatchNorm2d(2), randn({2, 2, 2, 3}));
  check(nn::GroupNorm(2, 4), randn({2, 4, 3}));
  check(nn::MaxPool2d({.kernel_size = 2, .stride = 1}), randn({1, 2, 3, 3}), false);
  check(nn::LPPool1d(2, 2), randn({1, 2, 6}).abs() + 0.5);
  check(nn::InstanceNorm1d({.num_features = 2, .affine = true}), randn({2, 2, 4}));
}

// The docs/nn.md example, in a Sequential; channels-last float32 end to end.
TEST(NnLayersUsage, DocExample) {
  nn::Conv2d conv(3, 8, 3);
  nn::Conv2d c2({.in_channels = 8, .out_channels = 16, .kernel_size = 3, .stride = 2, .padding = 1, .bias = false});
  nn::Conv1d same({.in_channels = 8, .out_channels = 8, .kernel_size = 4, .padding = "same", .dilation = 2,
                   .padding_mode = "reflect"});
  nn::ConvTranspose2d up({.in_channels = 16, .out_channels = 8, .kernel_size = 3, .stride = 2, .padding = 1});
  nn::MaxPool2d pool({.kernel_size = 3, .stride = 2, .padding = 1});
  nn::AdaptiveAvgPool2d gap({std::nullopt, 1});
  nn::BatchNorm2d bn(16);
  nn::BatchNorm1d cma({.num_features = 8, .momentum = std::nullopt});
  nn::GroupNorm gn(4, 8);
  nn::LayerNorm ln(5);
  nn::LayerNorm ln2({.normalized_shape = {8, 5}});
  nn::Sequential net(conv, gn, c2, bn, pool);
  net->to(MemoryFormat::ChannelsLast);
  Tensor x = randn({2, 3, 14, 14}).contiguous(MemoryFormat::ChannelsLast);
  Tensor h = net(x);
  EXPECT_EQ(h.sizes(), IntArrayRef({2, 16, 3, 3}));
  EXPECT_TRUE(h.is_contiguous(MemoryFormat::ChannelsLast));
  Tensor u = up->forward(h, {6, 6});
  EXPECT_EQ(u.sizes(), IntArrayRef({2, 8, 6, 6}));
  auto [v, idx] = pool->forward_with_indices(u);
  EXPECT_EQ(idx.dtype(), kInt64);
  EXPECT_EQ(gap(u).sizes(), IntArrayRef({2, 8, 6, 1}));
  Tensor s = cma(same(randn({2, 8, 5})));
  EXPECT_EQ(ln2(ln(s)).sizes(), IntArrayRef({2, 8, 5}));
  s.sum().backward();
  EXPECT_TRUE(same->weight.grad().defined());
  EXPECT_EQ(net->named_parameters().size(), 7u);  // conv w, b; gn w, b; c2 w; bn w, b
  EXPECT_EQ(net->named_buffers().size(), 3u);
}

// Checkpoints written before PyTorch 0.4.1 (e.g. the original torchvision
// ResNet weights) have no num_batches_tracked; strict loading accepts that,
// as PyTorch's BatchNorm does, but not a missing running_mean.
TEST(NnLayersNorm, OldCheckpointWithoutNumBatchesTracked) {
  nn::Sequential net(nn::Conv2d(3, 4, 3), nn::BatchNorm2d(4));
  StateDict sd = net->state_dict();
  ASSERT_TRUE(sd.contains("1.num_batches_tracked"));
  sd.erase("1.num_batches_tracked");
  sd["1.running_mean"] = full({4}, 0.5);
  nn::IncompatibleKeys keys = net->load_state_dict(sd, true);
  EXPECT_TRUE(keys.missing_keys.empty());
  testing::expect_tensor_near(net->state_dict().at("1.running_mean"), full({4}, 0.5));
  sd.erase("1.running_mean");
  testing::expect_error([&] { net->load_state_dict(sd, true); }, "Missing key(s) in state_dict: \"1.running_mean\"");
}

}  // namespace nn_layers_test
}  // namespace ember
