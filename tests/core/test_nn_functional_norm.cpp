// nn::functional normalizations: outputs, gradients and running statistics
// against PyTorch fixtures (scripts/fixtures/nn_conv.py), float32 (oneDNN) in
// row-major and channels-last and float64 (Tensor ops), gradcheck /
// gradgradcheck, argument errors.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <functional>
#include <string>
#include <vector>

#include "tensor_expect.h"

namespace ember {
namespace nn_functional_norm_test {

namespace F = nn::functional;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::variable_list;
using testing::expect_error;
using testing::expect_tensor_near;

Tensor fx(const std::string& name) { return testing::fixture("nn_conv", name); }

using NormFn = std::function<Tensor(const Tensor&, const std::vector<Tensor>&)>;

// Loads case `name` (x, params p0.., gy), runs fn and checks y and every gradient.
void check_norm(const std::string& name, int nparams, const NormFn& fn, DType dtype = kFloat32, bool cl = false,
                double tol = 1e-4) {
  SCOPED_TRACE(name + (cl ? " channels_last" : "") + (dtype == kFloat64 ? " float64" : ""));
  Tensor x = fx(name + "_x").to(dtype);
  if (cl) x = x.contiguous(x.dim() == 5 ? MemoryFormat::ChannelsLast3d : MemoryFormat::ChannelsLast);
  x.requires_grad_();
  std::vector<Tensor> params;
  for (int i = 0; i < nparams; ++i) params.push_back(fx(name + "_p" + std::to_string(i)).to(dtype).requires_grad_());
  Tensor y = fn(x, params);
  expect_tensor_near(y, fx(name + "_y").to(dtype), tol, tol);
  if (cl) {
    EXPECT_TRUE(y.is_contiguous(x.dim() == 5 ? MemoryFormat::ChannelsLast3d : MemoryFormat::ChannelsLast));
  }
  (y * fx(name + "_gy").to(dtype)).sum().backward();
  expect_tensor_near(x.grad(), fx(name + "_gx").to(dtype), tol, tol);
  for (int i = 0; i < nparams; ++i) expect_tensor_near(params[i].grad(), fx(name + "_gp" + std::to_string(i)).to(dtype), tol, tol);
}

struct BnCase {
  const char* name;
  bool training;
  bool affine;
};
constexpr BnCase kBnCases[] = {{"bn_train_2d", true, true},
                               {"bn_train_4d", true, true},
                               {"bn_eval_4d", false, true},
                               {"bn_train_3d_noaffine", true, false},
                               {"bn_train_5d", true, true}};

TEST(NnFunctionalNorm, BatchNormFixtures) {
  for (const BnCase& c : kBnCases)
    for (DType dt : {kFloat32, kFloat64})
      for (bool cl : {false, true}) {
        if (cl && fx(std::string(c.name) + "_x").dim() < 4) continue;
        Tensor rm = fx(std::string(c.name) + "_rm").to(dt), rv = fx(std::string(c.name) + "_rv").to(dt);
        check_norm(
            c.name, c.affine ? 2 : 0,
            [&](const Tensor& x, const std::vector<Tensor>& p) {
              return F::batch_norm(x, rm, rv,
                                   {.weight = c.affine ? p[0] : Tensor(), .bias = c.affine ? p[1] : Tensor(),
                                    .training = c.training, .momentum = 0.2, .eps = 1e-3});
            },
            dt, cl);
        expect_tensor_near(rm, fx(std::string(c.name) + "_rm_after").to(dt), 1e-5, 1e-6);
        expect_tensor_near(rv, fx(std::string(c.name) + "_rv_after").to(dt), 1e-5, 1e-6);
      }
}

TEST(NnFunctionalNorm, BatchNormCumulativeAverage) {
  Tensor rm = zeros({3}), rv = ones({3}), count = zeros({}, TensorOptions(kInt64));
  for (int i = 0; i < 3; ++i)
    F::batch_norm(fx("bn_cma_x" + std::to_string(i)), rm, rv,
                  {.training = true, .momentum = std::nullopt, .num_batches_tracked = count});
  EXPECT_EQ(count.item<int64_t>(), 3);
  expect_tensor_near(rm, fx("bn_cma_rm"), 1e-5, 1e-6);
  expect_tensor_near(rv, fx("bn_cma_rv"), 1e-5, 1e-6);
}

// The float32 planar kernel (batch_norm_kernels.cpp) against the float64
// Tensor-op path: planes with SIMD tails, planes longer than one statistics
// segment (4096), a large common offset (variance without cancellation),
// with and without affine parameters.
TEST(NnFunctionalNorm, BatchNormFloat32PlanarKernelMatchesFloat64) {
  struct Case {
    std::vector<int64_t> shape;
    double offset;
    bool affine;
  };
  const Case cases[] = {{{4, 5, 7, 9}, 0.0, true}, {{2, 3, 5000}, 1000.0, true}, {{3, 2, 4, 33}, -50.0, false},
                        {{1, 3, 16}, 3.0, true}};
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.shape));
    Tensor x64 = randn(c.shape, kFloat64) * 2.0 + c.offset;
    Tensor gy64 = randn(c.shape, kFloat64);
    const int64_t ch = c.shape[1];
    Tensor w64 = c.affine ? randn({ch}, kFloat64) : Tensor(), b64 = c.affine ? randn({ch}, kFloat64) : Tensor();
    auto run = [&](DType dt) {
      Tensor x = x64.to(dt).requires_grad_();
      Tensor w = c.affine ? w64.to(dt).requires_grad_() : Tensor(), b = c.affine ? b64.to(dt).requires_grad_() : Tensor();
      Tensor rm = zeros({ch}, dt), rv = ones({ch}, dt);
      Tensor y = F::batch_norm(x, rm, rv, {.weight = w, .bias = b, .training = true, .momentum = 0.5, .eps = 1e-5});
      (y * gy64.to(dt)).sum().backward();
      return std::vector<Tensor>{y, x.grad(), c.affine ? w.grad() : Tensor(), c.affine ? b.grad() : Tensor(), rm, rv};
    };
    auto f32 = run(kFloat32), f64 = run(kFloat64);
    for (size_t i = 0; i < f32.size(); ++i) {
      if (!f64[i].defined()) continue;
      SCOPED_TRACE(i);
      // Offsets of 1000 leave float32 inputs with ~6e-5 absolute rounding.
      const double tol = c.offset > 100 ? 2e-3 : 2e-4;
      expect_tensor_near(f32[i].to(kFloat64), f64[i], tol, tol);
    }
  }
}

// Channels-last (and [N, C]) float32 batch norm runs the row kernel (Note
// [Batch norm over channels-last rows]): several chunks, channel counts off
// the vector width, large offsets (no cancellation), eval and training.
TEST(NnFunctionalNorm, BatchNormFloat32ChannelsLastKernelMatchesFloat64) {
  struct Case {
    std::vector<int64_t> shape;
    double offset;
    bool affine;
  };
  const Case cases[] = {{{2, 64, 20, 21}, 0.0, true}, {{3, 13, 9, 70}, 1000.0, true}, {{2, 5, 3, 3}, -50.0, false},
                        {{2, 9, 4, 5, 6}, 3.0, true}, {{700, 11}, 2.0, true}};
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.shape));
    const MemoryFormat fmt = c.shape.size() == 5   ? MemoryFormat::ChannelsLast3d
                             : c.shape.size() == 4 ? MemoryFormat::ChannelsLast
                                                   : MemoryFormat::Contiguous;
    Tensor x64 = (randn(c.shape, kFloat64) * 2.0 + c.offset).contiguous(fmt);
    Tensor gy64 = randn(c.shape, kFloat64).contiguous(fmt);
    const int64_t ch = c.shape[1];
    Tensor w64 = c.affine ? randn({ch}, kFloat64) : Tensor(), b64 = c.affine ? randn({ch}, kFloat64) : Tensor();
    for (bool training : {true, false}) {
      SCOPED_TRACE(training ? "training" : "eval");
      auto run = [&](DType dt) {
        Tensor x = x64.to(dt).detach().requires_grad_();
        Tensor w = c.affine ? w64.to(dt).detach().requires_grad_() : Tensor();
        Tensor b = c.affine ? b64.to(dt).detach().requires_grad_() : Tensor();
        Tensor rm = full({ch}, c.offset, dt), rv = full({ch}, 4.0, dt);
        Tensor y = F::batch_norm(x, rm, rv, {.weight = w, .bias = b, .training = training, .momentum = 0.5, .eps = 1e-5});
        (y * gy64.to(dt)).sum().backward();
        return std::vector<Tensor>{y, x.grad(), c.affine ? w.grad() : Tensor(), c.affine ? b.grad() : Tensor(), rm, rv};
      };
      auto f32 = run(kFloat32), f64 = run(kFloat64);
      EXPECT_EQ(f32[0].suggest_memory_format(), fmt);
      for (size_t i = 0; i < f32.size(); ++i) {
        if (!f64[i].defined()) continue;
        SCOPED_TRACE(i);
        const double tol = c.offset > 100 ? 2e-3 : 2e-4;
        expect_tensor_near(f32[i].to(kFloat64), f64[i], tol, tol);
      }
    }
  }
}

TEST(NnFunctionalNorm, InstanceLayerGroupNormFixtures) {
  for (DType dt : {kFloat32, kFloat64}) {
    Tensor rm = fx("in_rm").to(dt), rv = fx("in_rv").to(dt);
    check_norm("in", 2, [&](const Tensor& x, const std::vector<Tensor>& p) {
      return F::instance_norm(x, {.running_mean = rm, .running_var = rv, .weight = p[0], .bias = p[1], .momentum = 0.3});
    }, dt);
    expect_tensor_near(rm, fx("in_rm_after").to(dt), 1e-5, 1e-6);
    expect_tensor_near(rv, fx("in_rv_after").to(dt), 1e-5, 1e-6);
    check_norm("ln_affine", 2, [](const Tensor& x, const std::vector<Tensor>& p) {
      return F::layer_norm(x, {4, 5}, {.weight = p[0], .bias = p[1], .eps = 1e-4});
    }, dt);
    check_norm("ln_plain", 0, [](const Tensor& x, const std::vector<Tensor>&) { return F::layer_norm(x, {8}); }, dt);
    for (bool cl : {false, true})
      check_norm("gn_affine", 2, [](const Tensor& x, const std::vector<Tensor>& p) {
        return F::group_norm(x, 3, {.weight = p[0], .bias = p[1]});
      }, dt, cl);
    check_norm("gn_plain", 0, [](const Tensor& x, const std::vector<Tensor>&) {
      return F::group_norm(x, 2, {.eps = 1e-3});
    }, dt);
    check_norm("lrn_4d", 0, [](const Tensor& x, const std::vector<Tensor>&) { return F::local_response_norm(x, 3); }, dt);
    check_norm("lrn_3d", 0, [](const Tensor& x, const std::vector<Tensor>&) { return F::local_response_norm(x, 2); }, dt);
    check_norm("lrn_5d", 0, [](const Tensor& x, const std::vector<Tensor>&) {
      return F::local_response_norm(x, 3, {.alpha = 1e-2, .beta = 0.5, .k = 2.0});
    }, dt);
  }
}

Generator& gen() {
  static Generator g(31337);
  return g;
}
Tensor rnd(IntArrayRef sizes) { return randn(sizes, kFloat64, &gen()).requires_grad_(); }

TEST(NnFunctionalNorm, Gradcheck) {
  auto bn = [](const variable_list& v) {
    return variable_list{F::batch_norm(v[0], Tensor(), Tensor(), {.weight = v[1], .bias = v[2], .training = true})};
  };
  EXPECT_TRUE(gradcheck(bn, {rnd({3, 2, 4}), rnd({2}), rnd({2})}));
  EXPECT_TRUE(gradgradcheck(bn, {rnd({3, 2, 4}), rnd({2}), rnd({2})}));
  auto ln = [](const variable_list& v) { return variable_list{F::layer_norm(v[0], {3, 2}, {.weight = v[1], .bias = v[2]})}; };
  EXPECT_TRUE(gradcheck(ln, {rnd({2, 3, 2}), rnd({3, 2}), rnd({3, 2})}));
  EXPECT_TRUE(gradgradcheck(ln, {rnd({2, 3, 2}), rnd({3, 2}), rnd({3, 2})}));
  auto gn = [](const variable_list& v) { return variable_list{F::group_norm(v[0], 2, {.weight = v[1], .bias = v[2]})}; };
  EXPECT_TRUE(gradcheck(gn, {rnd({2, 4, 3}), rnd({4}), rnd({4})}));
  auto lrn = [](const variable_list& v) { return variable_list{F::local_response_norm(v[0], 3)}; };
  EXPECT_TRUE(gradcheck(lrn, {rnd({1, 4, 3, 2})}));
}

// Double backward through the float32 oneDNN nodes (composite formulas under
// create_graph) agrees with float64.
TEST(NnFunctionalNorm, DoubleBackwardFloat32) {
  Generator g(5);
  Tensor x64 = randn({4, 3, 5}, kFloat64, &g), w64 = randn({3}, kFloat64, &g) + 2.0;
  Tensor lw64 = randn({5}, kFloat64, &g);
  auto run = [&](DType dt) {
    Tensor x = x64.to(dt).requires_grad_(), w = w64.to(dt).requires_grad_(), lw = lw64.to(dt).requires_grad_();
    Tensor y = F::batch_norm(x, Tensor(), Tensor(), {.weight = w, .training = true});
    y = F::layer_norm(y, {5}, {.weight = lw});
    auto g1 = autograd::grad({y.pow(3).sum()}, {x, w, lw}, {}, std::nullopt, /*create_graph=*/true);
    auto g2 = autograd::grad({g1[0].pow(2).sum() + g1[1].sum() + g1[2].pow(2).sum()}, {x, w, lw});
    return g2;
  };
  auto a = run(kFloat32), b = run(kFloat64);
  for (size_t i = 0; i < 3; ++i) expect_tensor_near(a[i].to(kFloat64), b[i], 2e-3, 2e-3);
}

// The fused float32 group norm (kernels/cpu/group_norm_kernels.cpp) against
// float64 (composite ops): values and all three gradients, with rows longer
// than one 4096-element segment, an odd length, several groups, a mean far
// from zero, no affine, and double backward.
TEST(NnFunctionalNorm, GroupNormFusedFloat32MatchesFloat64) {
  Generator g(17);
  struct Case {
    std::vector<int64_t> shape;
    int64_t groups;
    bool affine;
    double offset;
  };
  for (const Case& c : {Case{{3, 8, 5003}, 4, true, 0.0}, Case{{2, 6, 7, 9}, 3, true, 50.0},
                        Case{{4, 16, 33}, 1, false, -3.0}}) {
    SCOPED_TRACE(c.groups);
    const int64_t ch = c.shape[1];
    const Tensor x64 = randn(c.shape, kFloat64, &g) * 2.0 + c.offset;
    const Tensor w64 = randn({ch}, kFloat64, &g), b64 = randn({ch}, kFloat64, &g);
    const Tensor gy64 = randn(c.shape, kFloat64, &g);
    auto run = [&](DType dt) {
      Tensor x = x64.to(dt).requires_grad_(), w = w64.to(dt).requires_grad_(), b = b64.to(dt).requires_grad_();
      Tensor y = c.affine ? F::group_norm(x, c.groups, {.weight = w, .bias = b, .eps = 1e-5})
                          : F::group_norm(x, c.groups, {.eps = 1e-5});
      y.backward(gy64.to(dt));
      return std::vector<Tensor>{y.detach(), x.grad(), c.affine ? w.grad() : Tensor(), c.affine ? b.grad() : Tensor()};
    };
    const auto f32 = run(kFloat32), f64 = run(kFloat64);
    for (size_t i = 0; i < f32.size(); ++i) {
      if (!f64[i].defined()) continue;
      SCOPED_TRACE(i);
      const double scale = f64[i].abs().max().item<double>();
      expect_tensor_near(f32[i].to(kFloat64), f64[i], 1e-4, 1e-5 * scale * (c.offset != 0 ? 10 : 1));
    }
  }
  // Double backward (composite formulas under create_graph) against float64.
  const Tensor x64 = randn({2, 6, 40}, kFloat64, &g), w64 = randn({6}, kFloat64, &g) + 2.0;
  auto second = [&](DType dt) {
    Tensor x = x64.to(dt).requires_grad_(), w = w64.to(dt).requires_grad_();
    Tensor y = F::group_norm(x, 3, {.weight = w});
    auto g1 = autograd::grad({y.pow(3).sum()}, {x, w}, {}, std::nullopt, /*create_graph=*/true);
    return autograd::grad({g1[0].pow(2).sum() + g1[1].pow(2).sum()}, {x, w});
  };
  const auto a = second(kFloat32), b = second(kFloat64);
  for (size_t i = 0; i < 2; ++i) expect_tensor_near(a[i].to(kFloat64), b[i], 2e-3, 2e-3);
}

TEST(NnFunctionalNorm, Errors) {
  expect_error([] { F::batch_norm(zeros({1, 3}), Tensor(), Tensor(), {.training = true}); },
               "Expected more than 1 value per channel when training, got input size [1, 3]");
  expect_error([] { F::batch_norm(zeros({2, 3}), zeros({4}), ones({4})); }, "expected running_mean and running_var of size [3]");
  expect_error([] { F::batch_norm(zeros({2, 3}), Tensor(), Tensor(), {.weight = ones({2})}); },
               "batch_norm: expected weight of size [3], but got [2]");
  expect_error([] { F::layer_norm(zeros({2, 3}), {4}); },
               "layer_norm: Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]");
  expect_error([] { F::group_norm(zeros({2, 6, 3}), 4); },
               "Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 6, 3] and num_groups=4");
  expect_error([] { F::local_response_norm(zeros({2, 3}), 2); }, "Expected 3D or higher dimensionality input");
  expect_error([] { F::instance_norm(zeros({2, 3, 1})); }, "Expected more than 1 spatial element when training");
  expect_error([] { F::batch_norm(zeros({2, 3}, kInt64), Tensor(), Tensor()); }, "batch_norm: expected a float32 or float64");
}

}  // namespace nn_functional_norm_test
}  // namespace ember
