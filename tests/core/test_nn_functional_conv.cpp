// nn::functional convolutions: forward and gradients against PyTorch fixtures
// (scripts/fixtures/nn_conv.py) in NCHW and channels-last, gradcheck and
// gradgradcheck on the float64 path, argument errors.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <fstream>
#include <functional>
#include <map>
#include <string>

#include "tensor_expect.h"

namespace ember {
namespace nn_functional_conv_test {

namespace F = nn::functional;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::variable_list;
using testing::expect_error;
using testing::expect_tensor_near;

Tensor fx(const std::string& name) { return testing::fixture("nn_conv", name); }
bool has_fx(const std::string& name) {
  return std::ifstream(testing::fixture_path("core/nn_conv/" + name + ".npy")).good();
}

using ConvFn = std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)>;

// The cases of CONV_CASES in scripts/fixtures/nn_conv.py.
const std::map<std::string, ConvFn>& conv_cases() {
  static const std::map<std::string, ConvFn> cases{
      {"conv1d_basic", [](auto& x, auto& w, auto& b) { return F::conv1d(x, w, {.bias = b, .stride = 2, .padding = 1}); }},
      {"conv1d_same_dil_groups",
       [](auto& x, auto& w, auto& b) {
         return F::conv1d(x, w, {.bias = b, .padding = "same", .dilation = 2, .groups = 2});
       }},
      {"conv2d_basic", [](auto& x, auto& w, auto& b) { return F::conv2d(x, w, {.bias = b, .padding = 1}); }},
      {"conv2d_stride_dil_groups",
       [](auto& x, auto& w, auto& b) {
         return F::conv2d(x, w, {.bias = b, .stride = {2, 1}, .padding = {1, 0}, .dilation = {2, 1}, .groups = 2});
       }},
      {"conv2d_depthwise",
       [](auto& x, auto& w, auto& b) { return F::conv2d(x, w, {.bias = b, .stride = 2, .padding = 1, .groups = 6}); }},
      {"conv2d_valid_nobias", [](auto& x, auto& w, auto&) { return F::conv2d(x, w, {.padding = "valid"}); }},
      {"conv2d_same_even", [](auto& x, auto& w, auto& b) { return F::conv2d(x, w, {.bias = b, .padding = "same"}); }},
      {"conv2d_1x1_stride", [](auto& x, auto& w, auto&) { return F::conv2d(x, w, {.stride = 2}); }},
      {"conv2d_uneven_stride",
       [](auto& x, auto& w, auto& b) { return F::conv2d(x, w, {.bias = b, .stride = 3, .padding = 1}); }},
      {"conv2d_reflect",
       [](auto& x, auto& w, auto& b) { return F::conv2d(x, w, {.bias = b, .padding = 2, .padding_mode = "reflect"}); }},
      {"conv2d_replicate",
       [](auto& x, auto& w, auto& b) {
         return F::conv2d(x, w, {.bias = b, .padding = {1, 2}, .padding_mode = "replicate"});
       }},
      {"conv2d_circular",
       [](auto& x, auto& w, auto& b) { return F::conv2d(x, w, {.bias = b, .padding = 1, .padding_mode = "circular"}); }},
      {"conv3d_basic",
       [](auto& x, auto& w, auto& b) { return F::conv3d(x, w, {.bias = b, .stride = {1, 2, 1}, .padding = 1}); }},
      {"conv3d_groups_dil",
       [](auto& x, auto& w, auto&) { return F::conv3d(x, w, {.dilation = {2, 1, 2}, .groups = 2}); }},
      {"conv_transpose1d",
       [](auto& x, auto& w, auto& b) {
         return F::conv_transpose1d(x, w, {.bias = b, .stride = 2, .padding = 1, .output_padding = 1});
       }},
      {"conv_transpose2d",
       [](auto& x, auto& w, auto& b) {
         return F::conv_transpose2d(x, w, {.bias = b, .stride = 2, .padding = 1, .output_padding = 1, .groups = 2});
       }},
      {"conv_transpose2d_dil",
       [](auto& x, auto& w, auto&) {
         return F::conv_transpose2d(
             x, w, {.stride = {2, 3}, .padding = {0, 1}, .output_padding = {1, 0}, .dilation = {1, 2}});
       }},
      {"conv_transpose2d_big_opad",
       [](auto& x, auto& w, auto& b) {
         return F::conv_transpose2d(x, w, {.bias = b, .stride = 3, .padding = 0, .output_padding = 2});
       }},
      {"conv_transpose3d",
       [](auto& x, auto& w, auto& b) { return F::conv_transpose3d(x, w, {.bias = b, .stride = 2}); }},
  };
  return cases;
}

MemoryFormat cl_of(const Tensor& t) { return t.dim() == 5 ? MemoryFormat::ChannelsLast3d : MemoryFormat::ChannelsLast; }

// Runs a case on fixture inputs converted by `prep`; checks output and grads.
void check_case(const std::string& name, const ConvFn& fn, DType dtype, bool channels_last) {
  SCOPED_TRACE(name + (channels_last ? " channels_last" : "") + (dtype == kFloat64 ? " float64" : ""));
  Tensor x = fx(name + "_x").to(dtype), w = fx(name + "_w").to(dtype);
  Tensor b = has_fx(name + "_b") ? fx(name + "_b").to(dtype) : Tensor();
  const bool cl = channels_last && x.dim() >= 4;
  if (cl) x = x.contiguous(cl_of(x));
  x.requires_grad_();
  w.requires_grad_();
  if (b.defined()) b.requires_grad_();
  Tensor y = fn(x, w, b);
  const double rtol = dtype == kFloat64 ? 1e-5 : 1e-4, atol = dtype == kFloat64 ? 1e-5 : 1e-4;
  expect_tensor_near(y, fx(name + "_y").to(dtype), rtol, atol);
  if (cl) {
    EXPECT_TRUE(y.is_contiguous(cl_of(y))) << "output must keep channels-last";
  }
  EXPECT_EQ(y.grad_fn()->name(), "ConvolutionBackward0");
  (y * fx(name + "_gy").to(dtype)).sum().backward();
  expect_tensor_near(x.grad(), fx(name + "_gx").to(dtype), rtol, atol);
  if (cl && name.find("reflect") == std::string::npos && name.find("replicate") == std::string::npos &&
      name.find("circular") == std::string::npos) {
    EXPECT_TRUE(x.grad().is_contiguous(cl_of(x))) << "grad_input must keep channels-last";
  }
  expect_tensor_near(w.grad(), fx(name + "_gw").to(dtype), rtol, atol);
  if (b.defined()) expect_tensor_near(b.grad(), fx(name + "_gb").to(dtype), rtol, atol);
}

TEST(NnFunctionalConv, FixturesFloat32) {
  for (const auto& [name, fn] : conv_cases()) check_case(name, fn, kFloat32, false);
}

TEST(NnFunctionalConv, FixturesChannelsLast) {
  for (const auto& [name, fn] : conv_cases()) check_case(name, fn, kFloat32, true);
}

TEST(NnFunctionalConv, FixturesFloat64) {
  for (const auto& [name, fn] : conv_cases()) check_case(name, fn, kFloat64, false);
}

TEST(NnFunctionalConv, FixturesFloat64ChannelsLast) {
  for (const auto& [name, fn] : conv_cases()) check_case(name, fn, kFloat64, true);
}

// ---- gradcheck (float64 path) ----

Generator& gen() {
  static Generator g(4242);
  return g;
}
Tensor rnd(IntArrayRef sizes) { return randn(sizes, kFloat64, &gen()).requires_grad_(); }

autograd::GradcheckFn fn3(ConvFn f) {
  return [f](const variable_list& v) { return variable_list{f(v[0], v[1], v[2])}; };
}

TEST(NnFunctionalConv, Gradcheck) {
  const auto& cases = conv_cases();
  auto f1 = fn3(cases.at("conv1d_same_dil_groups"));
  EXPECT_TRUE(gradcheck(f1, {rnd({1, 4, 6}), rnd({4, 2, 3}), rnd({4})}));
  EXPECT_TRUE(gradgradcheck(f1, {rnd({1, 4, 6}), rnd({4, 2, 3}), rnd({4})}));
  auto f2 = fn3(cases.at("conv2d_stride_dil_groups"));
  EXPECT_TRUE(gradcheck(f2, {rnd({1, 4, 5, 4}), rnd({6, 2, 3, 2}), rnd({6})}));
  EXPECT_TRUE(gradgradcheck(f2, {rnd({1, 4, 5, 4}), rnd({6, 2, 3, 2}), rnd({6})}));
  auto f3 = fn3(cases.at("conv2d_reflect"));
  EXPECT_TRUE(gradcheck(f3, {rnd({1, 2, 4, 3}), rnd({3, 2, 3, 3}), rnd({3})}));
  auto t2 = fn3(cases.at("conv_transpose2d"));
  EXPECT_TRUE(gradcheck(t2, {rnd({1, 4, 3, 2}), rnd({4, 3, 3, 3}), rnd({6})}));
  EXPECT_TRUE(gradgradcheck(t2, {rnd({1, 4, 3, 2}), rnd({4, 3, 3, 3}), rnd({6})}));
  auto t3 = fn3(cases.at("conv_transpose3d"));
  EXPECT_TRUE(gradcheck(t3, {rnd({1, 2, 2, 2, 2}), rnd({2, 3, 2, 2, 2}), rnd({3})}));
  auto c3 = fn3(cases.at("conv3d_basic"));
  EXPECT_TRUE(gradcheck(c3, {rnd({1, 2, 3, 4, 3}), rnd({4, 2, 3, 3, 3}), rnd({4})}));
}

// Double backward in float32 goes through the oneDNN kernels of all three ops.
TEST(NnFunctionalConv, DoubleBackwardFloat32MatchesFloat64) {
  Generator g(7);
  Tensor x64 = randn({2, 3, 6, 5}, kFloat64, &g), w64 = randn({4, 3, 3, 3}, kFloat64, &g);
  auto run = [&](DType dt) {
    Tensor x = x64.to(dt).requires_grad_(), w = w64.to(dt).requires_grad_();
    Tensor y = F::conv2d(x, w, {.stride = 2, .padding = 1});
    auto g1 = autograd::grad({y.pow(2).sum()}, {x, w}, {}, std::nullopt, /*create_graph=*/true);
    Tensor s = g1[0].pow(2).sum() + g1[1].pow(2).sum();
    auto g2 = autograd::grad({s}, {x, w});
    return std::make_pair(g2[0], g2[1]);
  };
  auto [a32, b32] = run(kFloat32);
  auto [a64, b64] = run(kFloat64);
  expect_tensor_near(a32.to(kFloat64), a64, 1e-3, 1e-3);
  expect_tensor_near(b32.to(kFloat64), b64, 1e-3, 1e-3);
}

TEST(NnFunctionalConv, UnbatchedAndZeroBatch) {
  Tensor x = fx("conv2d_basic_x"), w = fx("conv2d_basic_w"), b = fx("conv2d_basic_b");
  Tensor y = F::conv2d(x[1], w, {.bias = b, .padding = 1});
  expect_tensor_near(y, fx("conv2d_basic_y")[1], 1e-4, 1e-4);
  Tensor e = F::conv2d(empty({0, 3, 8, 7}), w, {.bias = b, .padding = 1});
  EXPECT_EQ(e.sizes(), IntArrayRef({0, 5, 8, 7}));
  Tensor t = F::conv_transpose1d(fx("conv_transpose1d_x")[0], fx("conv_transpose1d_w"),
                                 {.bias = fx("conv_transpose1d_b"), .stride = 2, .padding = 1, .output_padding = 1});
  expect_tensor_near(t, fx("conv_transpose1d_y")[0], 1e-4, 1e-4);
}

TEST(NnFunctionalConv, NonContiguousInputs) {
  Tensor x = fx("conv2d_basic_x"), w = fx("conv2d_basic_w"), b = fx("conv2d_basic_b");
  Tensor xt = x.transpose(2, 3).contiguous().transpose(2, 3);  // odd strides
  Tensor wt = w.permute({1, 0, 2, 3}).contiguous().permute({1, 0, 2, 3});
  expect_tensor_near(F::conv2d(xt, wt, {.bias = b, .padding = 1}), fx("conv2d_basic_y"), 1e-4, 1e-4);
  // channels-last weight makes a channels-last output, as PyTorch.
  Tensor y = F::conv2d(x, w.contiguous(MemoryFormat::ChannelsLast), {.bias = b, .padding = 1});
  EXPECT_TRUE(y.is_contiguous(MemoryFormat::ChannelsLast));
  expect_tensor_near(y, fx("conv2d_basic_y"), 1e-4, 1e-4);
}

// Channels-last weights (a model converted with to(ChannelsLast)) are read in
// place through their strides, grouped or not, and their gradients come back
// channels-last, as PyTorch's; the values equal the row-major computation.
TEST(NnFunctionalConv, ChannelsLastWeightsAndTheirGradients) {
  for (int64_t groups : {1, 2}) {
    SCOPED_TRACE(groups);
    Tensor x = randn({2, 4, 9, 10}), w = randn({6, 4 / groups, 3, 3}), b = randn({6}), gy = randn({2, 6, 5, 5});
    auto run = [&](MemoryFormat fmt) {
      Tensor xi = x.contiguous(fmt).requires_grad_(), wi = w.contiguous(fmt).requires_grad_();
      Tensor bi = b.clone().requires_grad_();
      Tensor y = F::conv2d(xi, wi, {.bias = bi, .stride = 2, .padding = 1, .groups = groups});
      y.backward(gy.contiguous(fmt));
      return std::vector<Tensor>{y, xi.grad(), wi.grad(), bi.grad()};
    };
    auto cl = run(MemoryFormat::ChannelsLast), rm = run(MemoryFormat::Contiguous);
    EXPECT_TRUE(cl[2].is_contiguous(MemoryFormat::ChannelsLast) && !cl[2].is_contiguous());
    EXPECT_TRUE(rm[2].is_contiguous());
    for (size_t i = 0; i < cl.size(); ++i) expect_tensor_near(cl[i], rm[i], 1e-4, 1e-4);
  }
}

// Reordered weights are cached with the weight's storage (Note [Reordered
// weight cache]): every in-place write, views of one storage, and a
// data_ptr() write followed by bump_version() are seen by the next call.
TEST(NnFunctionalConv, ReorderedWeightCacheFollowsWrites) {
  for (MemoryFormat fmt : {MemoryFormat::Contiguous, MemoryFormat::ChannelsLast}) {
    Tensor x = randn({1, 8, 10, 10}).contiguous(fmt);
    Tensor w = randn({16, 8, 3, 3}).contiguous(fmt);
    auto fresh = [&](const Tensor& weight) { return F::conv2d(x, weight.clone(), {.padding = 1}); };
    Tensor y1 = F::conv2d(x, w, {.padding = 1});
    expect_tensor_near(F::conv2d(x, w, {.padding = 1}), y1, 0, 0);  // a cache hit: the same result
    {
      NoGradGuard no_grad;  // as an optimizer step
      w.mul_(2);
    }
    expect_tensor_near(F::conv2d(x, w, {.padding = 1}), y1 * 2, 1e-5, 1e-5);
    Tensor w2 = randn({16, 8, 3, 3});
    w.copy_(w2);
    expect_tensor_near(F::conv2d(x, w, {.padding = 1}), fresh(w2), 1e-5, 1e-5);
    w.contiguous().data_ptr<float>();  // (no write)
    float* p = w.data_ptr<float>();
    p[0] += 1.0f;
    w.bump_version();
    expect_tensor_near(F::conv2d(x, w, {.padding = 1}), fresh(w), 1e-5, 1e-5);
  }
  Tensor x = randn({2, 8, 6, 6});
  Tensor both = randn({2, 16, 8, 3, 3});
  Tensor wa = both[0], wb = both[1];
  for (int i = 0; i < 2; ++i) {
    expect_tensor_near(F::conv2d(x, wa), F::conv2d(x, wa.clone()), 1e-5, 1e-5);
    expect_tensor_near(F::conv2d(x, wb), F::conv2d(x, wb.clone()), 1e-5, 1e-5);
  }
}

TEST(NnFunctionalConv, Errors) {
  Tensor w = zeros({4, 3, 3, 3});
  expect_error([&] { F::conv2d(zeros({2, 3}), w); }, "conv2d: Expected 3D (unbatched) or 4D (batched) input");
  expect_error([&] { F::conv2d(zeros({1, 2, 5, 5}), w); }, "expected input[1, 2, 5, 5] to have 3 channels, but got 2");
  expect_error([&] { F::conv2d(zeros({1, 3, 2, 5}), w); }, "Kernel size can't be greater than actual input size");
  expect_error([&] { F::conv2d(zeros({1, 3, 5, 5}), w, {.stride = {1, 1, 1}}); },
               "conv2d: expected stride to be a single integer or a list of 2 integers");
  expect_error([&] { F::conv2d(zeros({1, 3, 5, 5}), w, {.stride = 2, .padding = "same"}); },
               "padding='same' is not supported for strided convolutions");
  expect_error([&] { F::conv2d(zeros({1, 3, 5, 5}), w, {.padding = "full"}); }, "Invalid padding string 'full'");
  expect_error([&] { F::conv2d(zeros({1, 3, 5, 5}), w, {.bias = zeros({3})}); }, "expected bias to be 1-dimensional with 4");
  expect_error([&] { F::conv2d(zeros({1, 3, 5, 5}, kInt64), w.to(kInt64)); }, "conv2d: expected a float32 or float64 input");
  expect_error([&] { F::conv2d(zeros({1, 3, 5, 5}), w.to(kFloat64)); }, "expected input, weight and bias of one dtype");
  expect_error([&] { F::conv1d(zeros({1, 4, 5}), zeros({4, 2, 3}), {.groups = 3}); }, "Given groups=3");
  expect_error([&] { F::conv_transpose2d(zeros({1, 4, 5, 5}), w, {.stride = 2, .output_padding = 2}); },
               "output padding must be smaller than either stride or dilation");
  expect_error([&] { F::conv_transpose2d(zeros({1, 2, 5, 5}), w); }, "expected input[1, 2, 5, 5] to have 4 channels");
  expect_error([&] { F::conv2d(zeros({1, 3, 5, 5}), w, {.padding = 1, .padding_mode = "mirror"}); },
               "padding_mode must be one of");
}

}  // namespace nn_functional_conv_test
}  // namespace ember
