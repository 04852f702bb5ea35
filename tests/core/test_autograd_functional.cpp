// autograd::functional (jacobian, hessian, vjp, jvp, hvp, vhp) against
// closed forms, the agreement between them (hvp = H v, jvp = J v), strict
// mode errors, argument checks, and differentiable results (create_graph).
#include <gtest/gtest.h>

#include <ember/autograd/functional.h>
#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace autograd_functional_test {

namespace F = autograd::functional;
using autograd::variable_list;
using testing::expect_error;
using testing::expect_tensor_near;

Tensor vec(std::initializer_list<double> values) { return tensor(std::vector<double>(values), kFloat64); }
Tensor diag(const Tensor& v) { return eye(v.numel(), TensorOptions(kFloat64)) * v; }

TEST(AutogradFunctional, JacobianOfElementwiseProduct) {
  Tensor x = vec({1, 2, 3});
  Tensor w = vec({2, -1, 0.5});
  auto f = [&](const Tensor& t) { return t * t * w; };
  for (bool vectorize : {false, true}) {
    Tensor j = F::jacobian(f, x, false, false, vectorize);
    expect_tensor_near(j, diag(vec({4, -4, 3})));
    EXPECT_FALSE(j.requires_grad());
  }
  EXPECT_FALSE(x.requires_grad());  // the caller's tensor is left alone
  // 2-d input: shape out.shape + in.shape.
  Tensor x2 = vec({1, 2, 3, 4}).view({2, 2});
  Tensor j2 = F::jacobian([](const Tensor& t) { return t * t; }, x2);
  EXPECT_EQ(j2.sizes(), IntArrayRef({2, 2, 2, 2}));
  expect_tensor_near(j2.reshape({4, 4}), diag(vec({2, 4, 6, 8})));
}

TEST(AutogradFunctional, JacobianShapesOfScalarsAndEmptyTensors) {
  Tensor s = full({}, 3.0, kFloat64);
  for (bool vectorize : {false, true}) {
    Tensor js = F::jacobian([](const Tensor& t) { return t * t; }, s, false, false, vectorize);
    EXPECT_EQ(js.dim(), 0);
    EXPECT_DOUBLE_EQ(js.item<double>(), 6.0);
    Tensor je = F::jacobian([](const Tensor& t) { return t * 2; }, zeros({0}, kFloat64), false, false, vectorize);
    EXPECT_EQ(je.sizes(), IntArrayRef({0, 0}));
    // An output that does not depend on the input at all (not strict): zeros.
    Tensor c = vec({1, 2});
    Tensor jc = F::jacobian([&](const Tensor&) { return c * 2; }, vec({1, 2, 3}), false, false, vectorize);
    expect_tensor_near(jc, zeros({2, 3}, kFloat64));
  }
}

TEST(AutogradFunctional, JacobianMultiInputMultiOutput) {
  Tensor x = randn({2, 3}, kFloat64);
  Tensor y = randn({3}, kFloat64);
  auto f = [](const variable_list& in) { return variable_list{in[0] * in[1], (in[0] * in[0]).sum()}; };
  for (bool vectorize : {false, true}) {
    std::vector<variable_list> j = F::jacobian(f, {x, y}, false, false, vectorize);
    ASSERT_EQ(j.size(), 2u);
    ASSERT_EQ(j[0].size(), 2u);
    EXPECT_EQ(j[0][0].sizes(), IntArrayRef({2, 3, 2, 3}));
    EXPECT_EQ(j[0][1].sizes(), IntArrayRef({2, 3, 3}));
    EXPECT_EQ(j[1][0].sizes(), IntArrayRef({2, 3}));
    EXPECT_EQ(j[1][1].sizes(), IntArrayRef({3}));
    // d(x*y)[a,b]/dx[c,d] = y[b] d_ac d_bd; d(x*y)[a,b]/dy[c] = x[a,b] d_bc.
    std::vector<double> e00(36, 0.0), e01(18, 0.0);
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 3; ++b) {
        e00[(a * 3 + b) * 6 + a * 3 + b] = y[b].item<double>();
        e01[(a * 3 + b) * 3 + b] = x[a][b].item<double>();
      }
    expect_tensor_near(j[0][0], tensor(e00, kFloat64).view({2, 3, 2, 3}));
    expect_tensor_near(j[0][1], tensor(e01, kFloat64).view({2, 3, 3}));
    expect_tensor_near(j[1][0], x * 2);
    expect_tensor_near(j[1][1], zeros({3}, kFloat64));  // independent: zeros when not strict
  }
  expect_error([&] { F::jacobian(f, {x, y}, false, /*strict=*/true); },
               "Output 1 of the user-provided function is independent of input 1. This is not allowed in strict mode.");
  expect_error([&] { F::jacobian(f, {x, y}, false, /*strict=*/true, /*vectorize=*/true); },
               "Output 1 of the user-provided function is independent of input 1");
}

TEST(AutogradFunctional, JacobianCreateGraphIsDifferentiable) {
  Tensor x = vec({1, 2, -1}).requires_grad_();
  for (bool vectorize : {false, true}) {
    Tensor j = F::jacobian([](const Tensor& t) { return t * t * t; }, x, /*create_graph=*/true, false, vectorize);
    expect_tensor_near(j, diag(vec({3, 12, 3})));
    ASSERT_TRUE(j.requires_grad());
    auto g = autograd::grad({(j * vec({1, 2, 3})).sum()}, {x});  // sum_i c_i 6 x_i e_i
    expect_tensor_near(g[0], vec({6, 24, -18}));
  }
  EXPECT_FALSE(x.grad().defined());
  // strict + create_graph: a jacobian that does not depend on the input.
  expect_error([&] { F::jacobian([](const Tensor& t) { return t * 2; }, x, true, true); },
               "This is not allowed in strict mode when create_graph=True");
}

TEST(AutogradFunctional, HessianOfSumOfCubes) {
  Tensor x = vec({1, -2, 0.5});
  Tensor h = F::hessian([](const Tensor& t) { return (t * t * t).sum(); }, x);
  expect_tensor_near(h, diag(vec({6, -12, 3})));
  EXPECT_FALSE(h.requires_grad());
  // A non-diagonal one: f = sum(x) * sum(x^2), H_ij = 2 x_i + 2 x_j + 2 d_ij sum(x).
  Tensor h2 = F::hessian([](const Tensor& t) { return t.sum() * (t * t).sum(); }, x);
  Tensor expected = (x.view({3, 1}) + x.view({1, 3})) * 2 + diag(full({3}, 2 * x.sum().item<double>(), kFloat64));
  expect_tensor_near(h2, expected);
  // create_graph: the third derivative of sum(x^3) is 6.
  Tensor xg = x.clone().requires_grad_();
  Tensor hg = F::hessian([](const Tensor& t) { return (t * t * t).sum(); }, xg, /*create_graph=*/true);
  ASSERT_TRUE(hg.requires_grad());
  expect_tensor_near(autograd::grad({hg.sum()}, {xg})[0], full({3}, 6.0, kFloat64));
}

TEST(AutogradFunctional, HessianMultiInput) {
  Tensor x = vec({1, 2});
  Tensor y = vec({3, -1});
  auto f = [](const variable_list& in) { return (in[0] * in[0] * in[1]).sum(); };
  std::vector<variable_list> h = F::hessian(f, {x, y});
  ASSERT_EQ(h.size(), 2u);
  expect_tensor_near(h[0][0], diag(y * 2));
  expect_tensor_near(h[0][1], diag(x * 2));
  expect_tensor_near(h[1][0], diag(x * 2));
  expect_tensor_near(h[1][1], zeros({2, 2}, kFloat64));
  // The same through a variable_list -> variable_list function.
  auto fl = [&](const variable_list& in) { return variable_list{f(in)}; };
  expect_tensor_near(F::hessian(fl, {x, y})[0][1], diag(x * 2));
  expect_error([&] { F::hessian(fl, {x, y}, false, /*strict=*/true); },
               "Output 1 of the user-provided function is independent of input 1. This is not allowed in strict mode.");
}

TEST(AutogradFunctional, HessianErrors) {
  Tensor x = vec({1, 2});
  expect_error([&] { F::hessian([](const Tensor& t) { return t * t; }, x); }, "should contain a single element");
  auto two = [](const variable_list& in) { return variable_list{in[0].sum(), in[0].sum()}; };
  expect_error([&] { F::hessian(two, {x}); }, "The function given to hessian should return a single Tensor");
  expect_error([&] { F::hessian([](const Tensor& t) { return (t * 2).sum(); }, x, false, /*strict=*/true); },
               "found that the jacobian of the user-provided function with respect to input 0 is independent of the "
               "input");
  // Not strict: a linear function has a zero hessian.
  expect_tensor_near(F::hessian([](const Tensor& t) { return (t * 2).sum(); }, x), zeros({2, 2}, kFloat64));
}

TEST(AutogradFunctional, VjpClosedForm) {
  Tensor x = vec({1, 2, 3});
  Tensor v = vec({1, 0.5, -1});
  auto [out, g] = F::vjp([](const Tensor& t) { return t * t; }, x, v);
  expect_tensor_near(out, vec({1, 4, 9}));
  expect_tensor_near(g, vec({2, 2, -6}));
  EXPECT_FALSE(out.requires_grad());
  EXPECT_FALSE(g.requires_grad());
  // A scalar output needs no v.
  auto [s, gs] = F::vjp([](const Tensor& t) { return (t * t).sum(); }, x);
  expect_tensor_near(s, full({}, 14.0, kFloat64));
  expect_tensor_near(gs, vec({2, 4, 6}));
  // Several inputs and outputs.
  Tensor y = vec({4, 5, 6});
  auto f = [](const variable_list& in) { return variable_list{in[0] * in[1], in[0].exp()}; };
  auto [outs, gl] = F::vjp(f, {x, y}, {v, vec({0, 0, 1})});
  ASSERT_EQ(outs.size(), 2u);
  ASSERT_EQ(gl.size(), 2u);
  expect_tensor_near(gl[0], v * y + vec({0, 0, std::exp(3.0)}));
  expect_tensor_near(gl[1], v * x);
}

TEST(AutogradFunctional, VjpCreateGraphAndStrict) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor v = vec({3, 4});
  auto [out, g] = F::vjp([](const Tensor& t) { return t * t * t; }, x, v, /*create_graph=*/true);
  ASSERT_TRUE(g.requires_grad());
  ASSERT_TRUE(out.requires_grad());
  expect_tensor_near(g, vec({9, 48}));                                   // 3 x^2 v
  expect_tensor_near(autograd::grad({g.sum()}, {x})[0], vec({18, 48}));  // 6 x v
  auto f = [](const variable_list& in) { return variable_list{in[0] * 2}; };
  Tensor y = vec({1, 1});
  auto [o2, g2] = F::vjp(f, {x, y}, {v});
  expect_tensor_near(g2[1], zeros({2}, kFloat64));
  expect_error([&] { F::vjp(f, {x, y}, {v}, false, /*strict=*/true); },
               "The output of the user-provided function is independent of input 1. This is not allowed in strict "
               "mode.");
  expect_error([&] { F::vjp([&](const Tensor&) { return y * 2; }, x, v, false, true); },
               "Output 0 of the user-provided function does not require gradients");
}

TEST(AutogradFunctional, ArgumentChecks) {
  Tensor x = vec({1, 2, 3});
  auto sq = [](const Tensor& t) { return t * t; };
  expect_error([&] { F::vjp(sq, x); }, "The vector v can only be None if the user-provided function returns");
  expect_error([&] { F::vjp(sq, x, vec({1, 2})); }, "v has invalid size: should be [3] but got [2].");
  expect_error([&] { F::jvp(sq, x); }, "The vector v can only be None if the input to the user-provided function");
  expect_error([&] { F::hvp([](const Tensor& t) { return (t * t).sum(); }, x, vec({1})); },
               "v has invalid size");
  auto f = [](const variable_list& in) { return variable_list{in[0] * in[1]}; };
  expect_error([&] { F::vjp(f, {x, x}, {x, x}); }, "v is a tuple of invalid length: should be 1 but got 2.");
  expect_error([&] { F::jvp(f, {x, x}, {x, vec({1})}); }, "Entry 1 in v has invalid size");
  expect_error([&] { F::vhp([](const Tensor& t) { return t * t; }, x, x); },
               "The Tensor returned by the function given to vhp should contain a single element");
}

TEST(AutogradFunctional, JvpAgreesWithJacobian) {
  Tensor x = vec({1, -2, 0.5});
  Tensor v = vec({0.3, 1, -2});
  auto f = [](const Tensor& t) { return t * t.sum(); };  // J_ij = d_ij sum(x) + x_i
  auto [out, jv] = F::jvp(f, x, v);
  expect_tensor_near(out, x * x.sum());
  expect_tensor_near(jv, v * x.sum() + x * v.sum());
  expect_tensor_near(jv, mv(F::jacobian(f, x), v));
  EXPECT_FALSE(jv.requires_grad());
  // Several inputs and outputs: out_k = sum_j J_kj v_j.
  Tensor y = vec({2, 3, 4});
  Tensor w = vec({1, 1, -1});
  auto g = [](const variable_list& in) { return variable_list{in[0] * in[1], (in[0].exp() * in[1]).sum()}; };
  auto [outs, jvs] = F::jvp(g, {x, y}, {v, w});
  std::vector<variable_list> j = F::jacobian(g, {x, y});
  expect_tensor_near(jvs[0], mv(j[0][0], v) + mv(j[0][1], w));
  expect_tensor_near(jvs[1], (j[1][0] * v).sum() + (j[1][1] * w).sum());
  // create_graph: differentiable w.r.t. the inputs.
  Tensor xg = x.clone().requires_grad_();
  auto [og, jg] = F::jvp(f, xg, v, /*create_graph=*/true);
  ASSERT_TRUE(jg.requires_grad());
  // d/dx sum(v S + x sum(v)) = sum(v) + sum(v) per element.
  expect_tensor_near(autograd::grad({jg.sum()}, {xg})[0], full({3}, 2 * v.sum().item<double>(), kFloat64));
  // strict: an output independent of an input.
  auto h = [](const variable_list& in) { return variable_list{in[0] * 2}; };
  auto [oh, jh] = F::jvp(h, {x, y}, {v, w});
  expect_tensor_near(jh[0], v * 2);
  expect_error([&] { F::jvp(h, {x, y}, {v, w}, false, /*strict=*/true); },
               "The output of the user-provided function is independent of input 1");
}

TEST(AutogradFunctional, HvpAndVhpAgreeWithHessian) {
  Tensor x = vec({1, -2, 0.5});
  Tensor v = vec({0.3, 1, -2});
  auto f = [](const Tensor& t) { return t.sum() * (t * t).sum() + (t.exp() * t).sum(); };
  Tensor h = F::hessian(f, x);
  auto [o1, hv] = F::hvp(f, x, v);
  auto [o2, vh] = F::vhp(f, x, v);
  expect_tensor_near(o1, f(x));
  expect_tensor_near(hv, mv(h, v));
  expect_tensor_near(vh, mv(h.t(), v));
  expect_tensor_near(hv, vh);  // H is symmetric
  EXPECT_FALSE(hv.requires_grad());
  // Several inputs: (H v)_i = sum_j H_ij v_j.
  Tensor y = vec({2, 3, 4});
  Tensor w = vec({1, 1, -1});
  auto g = [](const variable_list& in) { return (in[0] * in[0] * in[1]).sum() + (in[1] * in[1]).sum() * in[0].sum(); };
  std::vector<variable_list> hl = F::hessian(g, {x, y});
  auto [og, hvl] = F::hvp(g, {x, y}, {v, w});
  auto [og2, vhl] = F::vhp(g, {x, y}, {v, w});
  for (size_t i = 0; i < 2; ++i) {
    expect_tensor_near(hvl[i], mv(hl[i][0], v) + mv(hl[i][1], w));
    expect_tensor_near(vhl[i], mv(hl[0][i].t(), v) + mv(hl[1][i].t(), w));
  }
  // create_graph: d/dx sum(H v) for f = sum(x^3): H v = 6 x v, so the gradient is 6 v.
  Tensor xg = x.clone().requires_grad_();
  auto cube = [](const Tensor& t) { return (t * t * t).sum(); };
  auto [oc, hvc] = F::hvp(cube, xg, v, /*create_graph=*/true);
  auto [oc2, vhc] = F::vhp(cube, xg, v, /*create_graph=*/true);
  ASSERT_TRUE(hvc.requires_grad());
  expect_tensor_near(autograd::grad({hvc.sum()}, {xg})[0], v * 6);
  expect_tensor_near(autograd::grad({vhc.sum()}, {xg})[0], v * 6);
}

TEST(AutogradFunctional, SecondOrderStrictErrors) {
  Tensor x = vec({1, 2});
  Tensor v = vec({1, 1});
  auto linear = [](const Tensor& t) { return (t * 3).sum(); };
  // Not strict: zeros.
  expect_tensor_near(F::hvp(linear, x, v).second, zeros({2}, kFloat64));
  expect_tensor_near(F::vhp(linear, x, v).second, zeros({2}, kFloat64));
  expect_error([&] { F::vhp(linear, x, v, false, /*strict=*/true); },
               "found that the jacobian of the user-provided function with respect to input 0 is independent");
  expect_error([&] { F::hvp(linear, x, v, false, /*strict=*/true); },
               "found that the jacobian of the user-provided function with respect to input 0 is independent");
  // A function whose gradient ignores one input.
  auto g = [](const variable_list& in) { return (in[0] * in[0]).sum() + (in[1] * 2).sum(); };
  expect_error([&] { F::vhp(g, {x, x}, {v, v}, false, true); }, "with respect to input 1 is independent");
  // A function independent of input 1 altogether.
  auto h = [](const variable_list& in) { return (in[0] * in[0]).sum(); };
  expect_error([&] { F::vhp(h, {x, x}, {v, v}, false, true); },
               "The output of the user-provided function is independent of input 1");
  auto [o, r] = F::hvp(h, {x, x}, {v, v});
  expect_tensor_near(r[0], v * 2);
  expect_tensor_near(r[1], zeros({2}, kFloat64));
}

}  // namespace autograd_functional_test
}  // namespace ember
