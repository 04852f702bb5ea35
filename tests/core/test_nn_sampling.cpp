// nn::functional::interpolate, pixel_shuffle/unshuffle, channel_shuffle,
// fold/unfold; Upsample and the other sampling modules; padding modules.
// Fixtures: scripts/fixtures/nn_sampling.py.
#include <gtest/gtest.h>

#include <sstream>

#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace nn_sampling_test {

using testing::expect_error;
using testing::expect_tensor_near;
using testing::fixture;
namespace F = nn::functional;

Tensor fx(const std::string& name) { return fixture("nn_sampling", name); }

struct InterpCase {
  const char* name;
  F::InterpolateOptions options;
};

// Mirrors INTERPOLATE_CASES in scripts/fixtures/nn_sampling.py.
const std::vector<InterpCase>& interp_cases() {
  static const std::vector<InterpCase> cases = {
      {"nearest1d_up", {.scale_factor = {2.0}, .mode = "nearest"}},
      {"nearest1d_size", {.size = {3}, .mode = "nearest"}},
      {"nearest1d_frac", {.scale_factor = {1.7}, .mode = "nearest"}},
      {"nearest2d_size", {.size = {5, 7}, .mode = "nearest"}},
      {"nearest2d_down", {.scale_factor = {0.6}, .mode = "nearest"}},
      {"nearest3d_up", {.scale_factor = {2.0}, .mode = "nearest"}},
      {"exact1d_up", {.size = {8}, .mode = "nearest-exact"}},
      {"exact2d_down", {.size = {4, 3}, .mode = "nearest-exact"}},
      {"exact3d", {.scale_factor = {1.5, 0.5, 2.0}, .mode = "nearest-exact"}},
      {"linear_up", {.size = {9}, .mode = "linear"}},
      {"linear_up_ac", {.size = {9}, .mode = "linear", .align_corners = true}},
      {"linear_down", {.size = {3}, .mode = "linear"}},
      {"linear_down_ac", {.size = {3}, .mode = "linear", .align_corners = true}},
      {"linear_scale", {.scale_factor = {1.5}, .mode = "linear"}},
      {"linear_scale_recompute", {.scale_factor = {1.5}, .mode = "linear", .recompute_scale_factor = true}},
      {"linear_to1_ac", {.size = {1}, .mode = "linear", .align_corners = true}},
      {"bilinear_up", {.size = {7, 9}, .mode = "bilinear"}},
      {"bilinear_up_ac", {.size = {7, 9}, .mode = "bilinear", .align_corners = true}},
      {"bilinear_down", {.size = {3, 4}, .mode = "bilinear"}},
      {"bilinear_down_ac", {.size = {3, 4}, .mode = "bilinear", .align_corners = true}},
      {"bilinear_scale", {.scale_factor = {2.5, 0.5}, .mode = "bilinear"}},
      {"bilinear_same_scale", {.scale_factor = {1.1}, .mode = "bilinear"}},
      {"bicubic_up", {.size = {9, 7}, .mode = "bicubic"}},
      {"bicubic_up_ac", {.size = {9, 7}, .mode = "bicubic", .align_corners = true}},
      {"bicubic_down", {.size = {4, 3}, .mode = "bicubic"}},
      {"bicubic_down_ac", {.size = {4, 3}, .mode = "bicubic", .align_corners = true}},
      {"bicubic_scale", {.scale_factor = {1.3}, .mode = "bicubic"}},
      {"trilinear_up", {.size = {3, 5, 6}, .mode = "trilinear"}},
      {"trilinear_up_ac", {.size = {3, 5, 6}, .mode = "trilinear", .align_corners = true}},
      {"trilinear_down", {.size = {2, 3, 3}, .mode = "trilinear"}},
      {"trilinear_down_ac", {.size = {2, 3, 3}, .mode = "trilinear", .align_corners = true}},
      {"area1d_down", {.size = {3}, .mode = "area"}},
      {"area1d_up", {.size = {5}, .mode = "area"}},
      {"area2d", {.size = {3, 4}, .mode = "area"}},
      {"area2d_scale", {.scale_factor = {0.5}, .mode = "area"}},
      {"area3d", {.size = {2, 3, 4}, .mode = "area"}},
  };
  return cases;
}

// Mirrors CHANNELS_LAST_CASES.
const std::vector<InterpCase>& channels_last_cases() {
  static const std::vector<InterpCase> cases = {
      {"cl_nearest2d", {.size = {5, 7}, .mode = "nearest"}},
      {"cl_bilinear", {.size = {7, 5}, .mode = "bilinear"}},
      {"cl_bilinear_ac", {.size = {3, 8}, .mode = "bilinear", .align_corners = true}},
      {"cl_bicubic", {.size = {6, 3}, .mode = "bicubic"}},
      {"cl_area", {.size = {3, 4}, .mode = "area"}},
      {"cl_trilinear", {.size = {4, 2, 5}, .mode = "trilinear"}},
  };
  return cases;
}

// format: the input's layout; out_format: the output's (PyTorch's, which for
// bicubic is contiguous whatever the input).
void check_case(const std::string& name, const std::function<Tensor(const Tensor&)>& fn,
                MemoryFormat format = MemoryFormat::Contiguous, MemoryFormat out_format = MemoryFormat::Contiguous) {
  SCOPED_TRACE(name);
  Tensor x = fx(name + "_x").contiguous(format).requires_grad_();
  Tensor out = fn(x);
  expect_tensor_near(out, fx(name + "_out"), 1e-10, 1e-12);
  if (format != MemoryFormat::Contiguous) {
    EXPECT_TRUE(out.is_contiguous(out_format));
  }
  out.backward(fx(name + "_v"));
  expect_tensor_near(x.grad(), fx(name + "_gx"), 1e-10, 1e-12);
}

TEST(NnInterpolate, MatchesTorchValuesAndGradients) {
  for (const auto& c : interp_cases()) check_case(c.name, [&](const Tensor& x) { return F::interpolate(x, c.options); });
}

TEST(NnInterpolate, ChannelsLast) {
  for (const auto& c : channels_last_cases()) {
    const std::string name = c.name;
    const MemoryFormat f = name == "cl_trilinear" ? MemoryFormat::ChannelsLast3d : MemoryFormat::ChannelsLast;
    check_case(name, [&](const Tensor& x) { return F::interpolate(x, c.options); }, f,
               name == "cl_bicubic" ? MemoryFormat::Contiguous : f);
  }
}

TEST(NnInterpolate, Float32AndHalfAgreeWithFloat64) {
  Tensor x = randn({2, 3, 5, 6}, kFloat64);
  for (const char* mode : {"bilinear", "bicubic", "area", "nearest"}) {
    SCOPED_TRACE(mode);
    F::InterpolateOptions o{.size = {7, 4}, .mode = mode};
    Tensor ref = F::interpolate(x, o);
    expect_tensor_near(F::interpolate(x.to(kFloat32), o).to(kFloat64), ref, 1e-5, 1e-5);
    expect_tensor_near(F::interpolate(x.to(kFloat32).contiguous(MemoryFormat::ChannelsLast), o).to(kFloat64), ref,
                       1e-5, 1e-5);
    expect_tensor_near(F::interpolate(x.to(kBFloat16), o).to(kFloat64), F::interpolate(x.to(kBFloat16).to(kFloat64), o),
                       2e-2, 2e-2);
  }
  // Backward in reduced precision accumulates in float.
  Tensor xh = x.to(kFloat16).requires_grad_();
  F::interpolate(xh, {.size = {3, 3}, .mode = "bilinear"}).sum().backward();
  Tensor xd = x.clone().requires_grad_();
  F::interpolate(xd, {.size = {3, 3}, .mode = "bilinear"}).sum().backward();
  expect_tensor_near(xh.grad().to(kFloat64), xd.grad(), 1e-2, 1e-2);
}

TEST(NnInterpolate, NearestTakesIntegers) {
  Tensor x = arange(6, kInt64).reshape({1, 1, 2, 3});
  Tensor y = F::interpolate(x, {.scale_factor = {2}});
  EXPECT_EQ(y.dtype(), kInt64);
  expect_tensor_near(y, F::interpolate(x.to(kFloat64), {.scale_factor = {2}}).to(kInt64));
}

TEST(NnInterpolate, Gradcheck) {
  struct G {
    std::vector<int64_t> shape;
    F::InterpolateOptions o;
  };
  const std::vector<G> cases = {
      {{1, 2, 4}, {.size = {7}, .mode = "linear"}},
      {{1, 2, 5}, {.size = {3}, .mode = "linear", .align_corners = true}},
      {{1, 1, 3, 4}, {.size = {5, 3}, .mode = "bilinear"}},
      {{1, 1, 3, 4}, {.size = {5, 3}, .mode = "bicubic", .align_corners = true}},
      {{1, 1, 4, 3}, {.scale_factor = {1.5}, .mode = "bicubic"}},
      {{1, 1, 2, 3, 2}, {.size = {3, 2, 3}, .mode = "trilinear"}},
      {{1, 2, 5, 4}, {.size = {2, 3}, .mode = "area"}},
      {{1, 2, 3, 4}, {.size = {5, 7}, .mode = "nearest"}},
      {{1, 2, 5}, {.size = {3}, .mode = "nearest-exact"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.o.mode);
    Tensor x = randn(c.shape, kFloat64).requires_grad_();
    auto fn = [&](const autograd::variable_list& in) { return autograd::variable_list{F::interpolate(in[0], c.o)}; };
    EXPECT_TRUE(autograd::gradcheck(fn, {x}));
    EXPECT_TRUE(autograd::gradgradcheck(fn, {x}));
  }
  // Channels-last backward path (channel blocks).
  Tensor x = randn({1, 3, 3, 3}, kFloat64).contiguous(MemoryFormat::ChannelsLast).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) {
        return autograd::variable_list{F::interpolate(in[0], {.size = {4, 5}, .mode = "bilinear"})};
      },
      {x}));
}

TEST(NnInterpolate, NodeNames) {
  Tensor x = randn({1, 1, 2, 2}, kFloat64).requires_grad_();
  EXPECT_EQ(F::interpolate(x, {.size = {3, 3}, .mode = "bilinear"}).grad_fn()->name(), "UpsampleBilinear2dBackward0");
  EXPECT_EQ(F::interpolate(x, {.size = {3, 3}}).grad_fn()->name(), "UpsampleNearest2dBackward0");
}

TEST(NnInterpolate, Errors) {
  Tensor x3 = randn({1, 2, 4}), x4 = randn({1, 2, 4, 4});
  expect_error([&] { F::interpolate(x3, {.size = {2}, .mode = "bilinear"}); }, "Got 3D input, but bilinear mode needs 4D input");
  expect_error([&] { F::interpolate(x4, {.size = {2}, .mode = "trilinear"}); }, "trilinear mode needs 5D input");
  expect_error([&] { F::interpolate(x4, {.size = {2}, .mode = "cubic"}); }, "interpolate: unknown mode 'cubic'");
  expect_error([&] { F::interpolate(x4, {.size = {2}, .align_corners = true}); }, "align_corners option can only be set");
  expect_error([&] { F::interpolate(x4, {}); }, "either size or scale_factor should be defined");
  expect_error([&] { F::interpolate(x4, {.size = {2}, .scale_factor = {2}}); }, "only one of size or scale_factor");
  expect_error([&] { F::interpolate(x4, {.size = {2, 2, 2}}); }, "same number of spatial dimensions");
  expect_error([&] { F::interpolate(x4, {.scale_factor = {2, 2, 2}}); }, "scale_factor must have the same number");
  expect_error([&] { F::interpolate(x4, {.size = {2}, .recompute_scale_factor = true}); },
               "recompute_scale_factor is not meaningful");
  expect_error([&] { F::interpolate(x4, {.scale_factor = {0.1}}); }, "Input and output sizes should be greater than 0");
  expect_error([&] { F::interpolate(randn({4, 4}), {.size = {2}}); }, "Only 3D, 4D and 5D input");
  expect_error([&] { F::interpolate(ones({1, 1, 2, 2}, kInt64), {.size = {3, 3}, .mode = "bilinear"}); },
               "needs a floating point input");
}

TEST(NnInterpolate, EmptyBatch) {
  Tensor y = F::interpolate(randn({0, 3, 4, 4}), {.size = {8, 8}, .mode = "bilinear"});
  EXPECT_EQ(y.sizes(), IntArrayRef({0, 3, 8, 8}));
}

TEST(NnUpsample, ModuleAndRepr) {
  nn::Upsample up({.scale_factor = {2}, .mode = "bilinear", .align_corners = false});
  Tensor x = randn({1, 2, 3, 3});
  expect_tensor_near(up(x), F::interpolate(x, {.scale_factor = {2}, .mode = "bilinear", .align_corners = false}));
  EXPECT_EQ(up->str(), "Upsample(scale_factor=2.0, mode=bilinear)");
  EXPECT_EQ(nn::Upsample({.size = {3, 4}})->str(), "Upsample(size=(3, 4), mode=nearest)");
  EXPECT_EQ(nn::Upsample({.scale_factor = {2, 3.5}})->str(), "Upsample(scale_factor=(2.0, 3.5), mode=nearest)");
  nn::UpsamplingBilinear2d ub({.size = {5, 5}});
  expect_tensor_near(ub(x), F::interpolate(x, {.size = {5, 5}, .mode = "bilinear", .align_corners = true}));
  nn::UpsamplingNearest2d un({.scale_factor = {2}});
  expect_tensor_near(un(x), F::interpolate(x, {.scale_factor = {2}}));
}

TEST(NnPixelShuffle, ValuesRoundTripAndGrad) {
  Tensor x = arange(2 * 8 * 2 * 3, kFloat64).reshape({2, 8, 2, 3});
  Tensor y = F::pixel_shuffle(x, 2);
  EXPECT_EQ(y.sizes(), IntArrayRef({2, 2, 4, 6}));
  // out[n, c, h*r + i, w*r + j] = in[n, c*r*r + i*r + j, h, w]
  EXPECT_EQ(y.index({1, 1, 3, 4}).item<double>(), x.index({1, 1 * 4 + 1 * 2 + 0, 1, 2}).item<double>());
  EXPECT_TRUE(F::pixel_unshuffle(y, 2).equal(x));
  // Extra batch dims and unbatched input.
  EXPECT_EQ(F::pixel_shuffle(randn({3, 2, 9, 2, 2}), 3).sizes(), IntArrayRef({3, 2, 1, 6, 6}));
  EXPECT_EQ(F::pixel_unshuffle(randn({2, 4, 6}), 2).sizes(), IntArrayRef({8, 2, 3}));
  // channels_last in, channels_last out.
  EXPECT_TRUE(F::pixel_shuffle(randn({1, 8, 2, 2}).contiguous(MemoryFormat::ChannelsLast), 2)
                  .is_contiguous(MemoryFormat::ChannelsLast));
  Tensor xg = randn({1, 4, 2, 3}, kFloat64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) { return autograd::variable_list{F::pixel_shuffle(in[0], 2)}; }, {xg}));
  expect_error([] { F::pixel_shuffle(randn({1, 7, 2, 2}), 2); }, "input.size(-3)=7 is not divisible by 4");
  expect_error([] { F::pixel_unshuffle(randn({1, 1, 5, 4}), 2); }, "input.size(-2)=5 is not divisible by 2");
  expect_error([] { F::pixel_shuffle(randn({4, 4}), 2); }, "pixel_shuffle expects input to have at least 3 dimensions");
  nn::PixelShuffle ps(2);
  nn::PixelUnshuffle pu(2);
  EXPECT_TRUE(pu(ps(x)).equal(x));
  EXPECT_EQ(ps->str(), "PixelShuffle(upscale_factor=2)");
  EXPECT_EQ(pu->str(), "PixelUnshuffle(downscale_factor=2)");
}

TEST(NnChannelShuffle, ValuesAndErrors) {
  Tensor x = arange(6, kFloat64).reshape({1, 6, 1});
  // groups 2: [0 1 2 | 3 4 5] -> [0 3 1 4 2 5]
  EXPECT_TRUE(F::channel_shuffle(x, 2).flatten().equal(tensor<double>({0, 3, 1, 4, 2, 5}, kFloat64)));
  nn::ChannelShuffle cs(3);
  EXPECT_TRUE(cs(x).flatten().equal(tensor<double>({0, 2, 4, 1, 3, 5}, kFloat64)));
  EXPECT_EQ(cs->str(), "ChannelShuffle(groups=3)");
  expect_error([&] { F::channel_shuffle(randn({1, 7, 2}), 3); }, "Got 7 channels and 3 groups");
  Tensor xg = randn({2, 4, 3}, kFloat64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) { return autograd::variable_list{F::channel_shuffle(in[0], 2)}; }, {xg}));
}

TEST(NnFold, MatchesTorch) {
  check_case("unfold_basic", [](const Tensor& x) { return F::unfold(x, {.kernel_size = {2, 2}}); });
  check_case("unfold_full", [](const Tensor& x) {
    return F::unfold(x, {.kernel_size = {2, 3}, .dilation = {1, 2}, .padding = {1, 0}, .stride = {2, 1}});
  });
  check_case("unfold_unbatched", [](const Tensor& x) {
    return F::unfold(x, {.kernel_size = {3}, .dilation = {1}, .padding = {1}, .stride = {2}});
  });
  check_case("fold_basic", [](const Tensor& x) { return F::fold(x, {.output_size = {4, 5}, .kernel_size = {2, 2}}); });
  check_case("fold_full", [](const Tensor& x) {
    return F::fold(x, {.output_size = {5, 6}, .kernel_size = {2, 3}, .dilation = {1, 2}, .padding = {1, 0},
                       .stride = {2, 1}});
  });
  check_case("fold_unbatched", [](const Tensor& x) {
    return F::fold(x, {.output_size = {4, 4}, .kernel_size = {3}, .padding = {1}, .stride = {2}});
  });
}

TEST(NnFold, AdjointsGradcheckAndModules) {
  // <unfold(x), y> == <x, fold(y)>
  Tensor x = randn({2, 3, 5, 4}, kFloat64);
  F::UnfoldOptions uo{.kernel_size = {2, 3}, .dilation = {2, 1}, .padding = {1}, .stride = {1, 2}};
  Tensor u = F::unfold(x, uo);
  Tensor y = randn(u.sizes(), kFloat64);
  Tensor fy = F::fold(y, {.output_size = {5, 4}, .kernel_size = {2, 3}, .dilation = {2, 1}, .padding = {1},
                          .stride = {1, 2}});
  EXPECT_NEAR((u * y).sum().item<double>(), (x * fy).sum().item<double>(), 1e-10);
  Tensor xg = randn({1, 2, 4, 4}, kFloat64).requires_grad_();
  auto ufn = [](const autograd::variable_list& in) {
    return autograd::variable_list{F::unfold(in[0], {.kernel_size = {2}, .padding = {1}, .stride = {2}})};
  };
  EXPECT_TRUE(autograd::gradcheck(ufn, {xg}));
  EXPECT_TRUE(autograd::gradgradcheck(ufn, {xg}));
  Tensor cg = randn({1, 8, 9}, kFloat64).requires_grad_();
  auto ffn = [](const autograd::variable_list& in) {
    return autograd::variable_list{F::fold(in[0], {.output_size = {4, 4}, .kernel_size = {2}, .padding = {1}, .stride = {2}})};
  };
  EXPECT_TRUE(autograd::gradcheck(ffn, {cg}));
  EXPECT_TRUE(autograd::gradgradcheck(ffn, {cg}));
  nn::Unfold unf({.kernel_size = {2, 3}, .stride = {2}});
  EXPECT_EQ(unf->str(), "Unfold(kernel_size=(2, 3), dilation=1, padding=0, stride=2)");
  nn::Fold fold({.output_size = {4, 5}, .kernel_size = {2, 3}, .stride = {2}});
  EXPECT_EQ(fold->str(), "Fold(output_size=(4, 5), kernel_size=(2, 3), dilation=1, padding=0, stride=2)");
  EXPECT_EQ(fold(unf(randn({1, 2, 4, 5}))).sizes(), IntArrayRef({1, 2, 4, 5}));
  // Float32.
  expect_tensor_near(F::unfold(x.to(kFloat32), uo), u.to(kFloat32));
}

TEST(NnFold, Errors) {
  expect_error([] { F::unfold(randn({2, 2}), {.kernel_size = {2}}); }, "unfold: Input Error: Only 3D or 4D input");
  expect_error([] { F::unfold(randn({1, 1, 2, 2}), {.kernel_size = {3}}); }, "components must be at least one");
  expect_error([] { F::unfold(randn({1, 1, 4, 4}), {.kernel_size = {0}}); }, "kernel size should be greater than zero");
  expect_error([] { F::fold(randn({1, 7, 12}), {.output_size = {4, 5}, .kernel_size = {2}}); },
               "divisible by the product of kernel_size");
  expect_error([] { F::fold(randn({1, 8, 10}), {.output_size = {4, 5}, .kernel_size = {2}}); },
               "calculated number of sliding blocks 3 * 4 = 12, but got input.size(2)=10");
  expect_error([] { F::fold(randn({1, 2, 3, 4}), {.output_size = {4, 5}, .kernel_size = {2}}); },
               "fold: Input Error");
}

TEST(NnPadding, ModulesMatchPadAndPrint) {
  Tensor x = randn({2, 3, 4, 5, 6}, kFloat64);
  Tensor x2 = x.select(0, 0), x1 = x2.select(0, 0);
  expect_tensor_near(nn::ZeroPad2d(2)(x2), pad(x2, {2, 2, 2, 2}));
  expect_tensor_near(nn::ZeroPad2d({1, 0, 2, 3})(x2), pad(x2, {1, 0, 2, 3}));
  expect_tensor_near(nn::ConstantPad1d(nn::ConstantPad1dOptions({1, 2}, 3.5))(x1), pad(x1, {1, 2}, "constant", 3.5));
  expect_tensor_near(nn::ConstantPad3d(1, -1.0)(x), pad(x, {1, 1, 1, 1, 1, 1}, "constant", -1.0));
  expect_tensor_near(nn::ReflectionPad1d(2)(x1), pad(x1, {2, 2}, "reflect"));
  expect_tensor_near(nn::ReflectionPad2d({1, 2, 0, 3})(x2), pad(x2, {1, 2, 0, 3}, "reflect"));
  expect_tensor_near(nn::ReflectionPad3d(1)(x), pad(x, {1, 1, 1, 1, 1, 1}, "reflect"));
  expect_tensor_near(nn::ReplicationPad1d(3)(x1), pad(x1, {3, 3}, "replicate"));
  expect_tensor_near(nn::ReplicationPad2d(2)(x2), pad(x2, {2, 2, 2, 2}, "replicate"));
  expect_tensor_near(nn::ReplicationPad3d({1, 0, 2, 1, 0, 1})(x), pad(x, {1, 0, 2, 1, 0, 1}, "replicate"));
  expect_tensor_near(nn::CircularPad1d(2)(x1), pad(x1, {2, 2}, "circular"));
  expect_tensor_near(nn::CircularPad2d(1)(x2), pad(x2, {1, 1, 1, 1}, "circular"));
  expect_tensor_near(nn::CircularPad3d(1)(x), pad(x, {1, 1, 1, 1, 1, 1}, "circular"));
  EXPECT_EQ(nn::ZeroPad2d(2)->str(), "ZeroPad2d((2, 2, 2, 2))");
  EXPECT_EQ(nn::ConstantPad1d(nn::ConstantPad1dOptions({1, 2}, 3.5))->str(), "ConstantPad1d(padding=(1, 2), value=3.5)");
  EXPECT_EQ(nn::ReflectionPad1d(2)->str(), "ReflectionPad1d((2, 2))");
  EXPECT_EQ(nn::ReplicationPad3d(1)->str(), "ReplicationPad3d((1, 1, 1, 1, 1, 1))");
  EXPECT_EQ(nn::CircularPad2d(1)->str(), "CircularPad2d((1, 1, 1, 1))");
  expect_error([] { nn::ReflectionPad2d({1, 2}); }, "ReflectionPad2d: padding must have 1 or 4 values");
  // Gradients flow through the module.
  Tensor xg = randn({1, 2, 3, 3}, kFloat64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) { return autograd::variable_list{nn::ReflectionPad2d(1)(in[0])}; }, {xg}));
}

}  // namespace nn_sampling_test
}  // namespace ember
