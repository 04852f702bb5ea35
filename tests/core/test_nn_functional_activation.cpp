// nn::functional activations and the softmax family: values and gradients
// against scripts/fixtures/nn_functional.py (PyTorch 1.13), gradchecks
// (float64), in-place variants and argument errors.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include <ember/ember.h>

#include "tensor_expect.h"

using namespace ember;
namespace F = ember::nn::functional;
using autograd::variable_list;
using ember::testing::expect_error;
using ember::testing::expect_tensor_near;

namespace nn_functional_activation_test {

Tensor fx(const std::string& name) { return ember::testing::fixture("nn_functional", name); }

using Fn1 = std::function<Tensor(const Tensor&)>;

// The ops as scripts/fixtures/nn_functional.py calls them.
const std::map<std::string, Fn1>& activations() {
  static const std::map<std::string, Fn1> m = {
      {"relu", [](const Tensor& x) { return F::relu(x); }},
      {"relu6", [](const Tensor& x) { return F::relu6(x); }},
      {"leaky_relu", [](const Tensor& x) { return F::leaky_relu(x, 0.2); }},
      {"elu", [](const Tensor& x) { return F::elu(x, 1.5); }},
      {"celu", [](const Tensor& x) { return F::celu(x, 0.7); }},
      {"selu", [](const Tensor& x) { return F::selu(x); }},
      {"gelu", [](const Tensor& x) { return F::gelu(x); }},
      {"gelu_tanh", [](const Tensor& x) { return F::gelu(x, "tanh"); }},
      {"silu", [](const Tensor& x) { return F::silu(x); }},
      {"mish", [](const Tensor& x) { return F::mish(x); }},
      {"hardswish", [](const Tensor& x) { return F::hardswish(x); }},
      {"hardsigmoid", [](const Tensor& x) { return F::hardsigmoid(x); }},
      {"hardtanh", [](const Tensor& x) { return F::hardtanh(x, -2.0, 1.5); }},
      {"softplus", [](const Tensor& x) { return F::softplus(x, 2.0, 3.0); }},
      {"softsign", [](const Tensor& x) { return F::softsign(x); }},
      {"softshrink", [](const Tensor& x) { return F::softshrink(x, 0.7); }},
      {"hardshrink", [](const Tensor& x) { return F::hardshrink(x, 0.7); }},
      {"tanhshrink", [](const Tensor& x) { return F::tanhshrink(x); }},
      {"threshold", [](const Tensor& x) { return F::threshold(x, 0.3, -2.0); }},
      {"logsigmoid", [](const Tensor& x) { return F::logsigmoid(x); }},
      {"rrelu_eval", [](const Tensor& x) { return F::rrelu(x, 0.1, 0.3, false); }},
      {"glu", [](const Tensor& x) { return F::glu(x, 1); }},
      {"glu0", [](const Tensor& x) { return F::glu(x, 0); }},
      {"softmax1", [](const Tensor& x) { return F::softmax(x, 1); }},
      {"softmax0", [](const Tensor& x) { return F::softmax(x, 0); }},
      {"log_softmax1", [](const Tensor& x) { return F::log_softmax(x, 1); }},
      {"log_softmax0", [](const Tensor& x) { return F::log_softmax(x, 0); }},
      {"softmin1", [](const Tensor& x) { return F::softmin(x, 1); }},
  };
  return m;
}

bool check_grad(const autograd::GradcheckFn& f, const variable_list& xs, bool second = false) {
  try {
    return second ? autograd::gradgradcheck(f, xs) : autograd::gradcheck(f, xs);
  } catch (const Error& e) {
    ADD_FAILURE() << e.what();
    return false;
  }
}

// Inputs away from the kinks (0, +-3, thresholds) so central differences are smooth.
Tensor smooth_input() {
  return tensor({-3.7, -2.2, -1.1, -0.45, -0.2, 0.15, 0.4, 0.95, 1.8, 2.6, 3.4, 5.1, -0.85, 1.3, -1.6, 0.6},
                kFloat64)
      .view({4, 4})
      .requires_grad_();
}


TEST(NNFunctionalActivation, ValuesAndGradientsMatchTorch) {
  const Tensor x = fx("act_x");
  for (const auto& [name, fn] : activations()) {
    SCOPED_TRACE(name);
    Tensor xi = x.detach().clone().requires_grad_();
    Tensor out = fn(xi);
    expect_tensor_near(out, fx("act_" + name), 1e-7, 1e-10);
    out.backward(fx("act_" + name + "_gout"));
    expect_tensor_near(xi.grad(), fx("act_" + name + "_grad"), 1e-7, 1e-10);
  }
}

TEST(NNFunctionalActivation, Float32MatchesFloat64) {
  const Tensor x = fx("act_x");
  for (const auto& [name, fn] : activations()) {
    SCOPED_TRACE(name);
    Tensor out = fn(x.to(kFloat32));
    EXPECT_EQ(out.dtype(), kFloat32);
    expect_tensor_near(out, fx("act_" + name).to(kFloat32), 1e-5, 1e-6);
    // Longer than a SIMD vector, non-contiguous, 16-bit.
    Tensor big = x.to(kFloat32).repeat({3, 5}).t();
    expect_tensor_near(fn(big.t().contiguous().t()), fn(big.to(kFloat64)).to(kFloat32), 1e-5, 1e-6);
    if (name.rfind("glu", 0) != 0)
      expect_tensor_near(fn(x.to(kBFloat16)).to(kFloat32), fx("act_" + name).to(kFloat32), 2e-2, 2e-2);
  }
}

TEST(NNFunctionalActivation, Gradcheck) {
  for (const auto& [name, fn] : activations()) {
    SCOPED_TRACE(name);
    Tensor x = smooth_input();
    // Init-capture: clang before 16 cannot capture a structured binding.
    auto f = [&fn = fn](const variable_list& v) { return variable_list{fn(v[0])}; };
    EXPECT_TRUE(check_grad(f, {x}));
    EXPECT_TRUE(check_grad(f, {x}, /*second=*/true));
  }
  Tensor x = smooth_input();
  Tensor w = tensor({0.25, -0.5, 0.1, 2.0}, kFloat64).requires_grad_();
  EXPECT_TRUE(check_grad([](const variable_list& v) { return variable_list{F::prelu(v[0], v[1])}; }, {x, w}));
  Tensor w1 = tensor({0.3}, kFloat64).requires_grad_();
  EXPECT_TRUE(check_grad([](const variable_list& v) { return variable_list{F::prelu(v[0], v[1])}; }, {x, w1}));
  // Training rrelu: a fixed draw of slopes (same seed each call).
  EXPECT_TRUE(check_grad(
      [](const variable_list& v) {
        Generator gen(7);
        return variable_list{F::rrelu(v[0], 0.1, 0.4, true, &gen)};
      },
      {x}));
  // Softmax family along every dim of a 3-d input, dtype argument.
  Tensor s = (arange(24, kFloat64).view({2, 3, 4}).sin() * 2).requires_grad_();
  for (int64_t d = -3; d < 3; ++d) {
    SCOPED_TRACE(d);
    for (auto op : {F::softmax, F::log_softmax, F::softmin}) {
      auto f = [op, d](const variable_list& v) { return variable_list{op(v[0], d, std::nullopt)}; };
      EXPECT_TRUE(check_grad(f, {s}));
      EXPECT_TRUE(check_grad(f, {s}, true));
    }
  }
}

TEST(NNFunctionalActivation, PreluMatchesTorch) {
  Tensor x = fx("act_x").requires_grad_();
  Tensor w = fx("prelu_w").requires_grad_();
  Tensor out = F::prelu(x, w);
  expect_tensor_near(out, fx("act_prelu"), 1e-12, 1e-12);
  out.backward(fx("act_prelu_gout"));
  expect_tensor_near(x.grad(), fx("act_prelu_grad"), 1e-12, 1e-12);
  expect_tensor_near(w.grad(), fx("act_prelu_gradw"), 1e-10, 1e-12);
  expect_error([&] { F::prelu(x, ones({4}, kFloat64)); }, "prelu: Mismatch of parameter numbers");
}

TEST(NNFunctionalActivation, RreluTraining) {
  Tensor x = arange(-10, 10, kFloat32);
  Generator g1(3), g2(3);
  Tensor a = F::rrelu(x, 0.1, 0.3, true, &g1), b = F::rrelu(x, 0.1, 0.3, true, &g2);
  EXPECT_TRUE(equal(a, b));  // reproducible per generator
  Tensor neg = x.slice(0, 0, 10), slope = a.slice(0, 0, 10) / neg;
  EXPECT_TRUE((slope >= 0.1 - 1e-6).all().item<bool>());
  EXPECT_TRUE((slope <= 0.3 + 1e-6).all().item<bool>());
  EXPECT_TRUE(equal(a.slice(0, 10), x.slice(0, 10)));
  Tensor y = x.clone();
  Generator g3(3);
  F::rrelu_(y, 0.1, 0.3, true, &g3);
  EXPECT_TRUE(equal(y, a));
  expect_error([&] { F::rrelu(x, 0.5, 0.1, true); }, "rrelu: lower bound (0.5)");
}

TEST(NNFunctionalActivation, InPlaceVariants) {
  using Inplace = std::function<Tensor&(Tensor&)>;
  const std::vector<std::pair<Inplace, Fn1>> cases = {
      {[](Tensor& t) -> Tensor& { return F::relu_(t); }, [](const Tensor& t) { return F::relu(t); }},
      {[](Tensor& t) -> Tensor& { return F::relu6_(t); }, [](const Tensor& t) { return F::relu6(t); }},
      {[](Tensor& t) -> Tensor& { return F::leaky_relu_(t, 0.3); }, [](const Tensor& t) { return F::leaky_relu(t, 0.3); }},
      {[](Tensor& t) -> Tensor& { return F::elu_(t, 0.5); }, [](const Tensor& t) { return F::elu(t, 0.5); }},
      {[](Tensor& t) -> Tensor& { return F::celu_(t, 2.0); }, [](const Tensor& t) { return F::celu(t, 2.0); }},
      {[](Tensor& t) -> Tensor& { return F::selu_(t); }, [](const Tensor& t) { return F::selu(t); }},
      {[](Tensor& t) -> Tensor& { return F::silu_(t); }, [](const Tensor& t) { return F::silu(t); }},
      {[](Tensor& t) -> Tensor& { return F::mish_(t); }, [](const Tensor& t) { return F::mish(t); }},
      {[](Tensor& t) -> Tensor& { return F::hardswish_(t); }, [](const Tensor& t) { return F::hardswish(t); }},
      {[](Tensor& t) -> Tensor& { return F::hardsigmoid_(t); }, [](const Tensor& t) { return F::hardsigmoid(t); }},
      {[](Tensor& t) -> Tensor& { return F::hardtanh_(t, -0.5, 2.0); }, [](const Tensor& t) { return F::hardtanh(t, -0.5, 2.0); }},
      {[](Tensor& t) -> Tensor& { return F::threshold_(t, 0.1, 9.0); }, [](const Tensor& t) { return F::threshold(t, 0.1, 9.0); }},
      {[](Tensor& t) -> Tensor& { return F::rrelu_(t); }, [](const Tensor& t) { return F::rrelu(t); }},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& [inplace, fn] = cases[i];
    Tensor base = smooth_input().detach();
    Tensor y = base.clone();
    Tensor& r = inplace(y);
    EXPECT_TRUE(r.is_same(y));
    expect_tensor_near(y, fn(base), 1e-12, 1e-14);
    // Under autograd: through x * 1, gradient equals the out-of-place one.
    Tensor x = base.clone().requires_grad_();
    Tensor h = x * 1;
    inplace(h);
    h.sum().backward();
    Tensor x2 = base.clone().requires_grad_();
    fn(x2).sum().backward();
    expect_tensor_near(x.grad(), x2.grad(), 1e-12, 1e-14);
    // A leaf that requires grad cannot be written in place.
    Tensor leaf = base.clone().requires_grad_();
    EXPECT_THROW(inplace(leaf), Error);
  }
  // Integer inputs: hardtanh/relu6/threshold work (as PyTorch), others name the op.
  Tensor i = tensor({-3, 0, 4, 9});
  EXPECT_TRUE(equal(F::relu6(i), tensor({0, 0, 4, 6})));
  EXPECT_TRUE(equal(F::threshold(i, 1, -5), tensor({-5, -5, 4, 9})));
  expect_error([&] { F::elu(i); }, "elu");
}

TEST(NNFunctionalActivation, SoftmaxKernelsMatchTorch) {
  Tensor s = fx("sm_x");
  for (int d = 0; d < 3; ++d) {
    SCOPED_TRACE(d);
    const std::string ds = std::to_string(d);
    for (const std::string op : {"softmax", "log_softmax"}) {
      auto fn = op == "softmax" ? F::softmax : F::log_softmax;
      Tensor x = s.detach().clone().requires_grad_();
      Tensor y = fn(x, d, std::nullopt);
      expect_tensor_near(y, fx("sm_" + op + ds), 1e-5, 1e-6);
      y.backward(fx("sm_" + op + ds + "_gout"));
      expect_tensor_near(x.grad(), fx("sm_" + op + ds + "_grad"), 1e-4, 1e-5);
      // Non-contiguous input: same values.
      Tensor nc = s.transpose(0, 2).contiguous().transpose(0, 2);
      expect_tensor_near(fn(nc, d, std::nullopt), fx("sm_" + op + ds), 1e-5, 1e-6);
    }
  }
  Tensor y64 = F::softmax(s, 2, kFloat64);
  EXPECT_EQ(y64.dtype(), kFloat64);
  expect_tensor_near(y64, fx("sm_softmax2_f64"), 1e-12, 1e-14);
  Tensor bf = F::log_softmax(s.to(kBFloat16), 1);
  EXPECT_EQ(bf.dtype(), kBFloat16);
  expect_tensor_near(bf.to(kFloat32), fx("sm_log_softmax1_bf16"), 2e-2, 5e-2);
  Tensor sp = fx("sm_special");
  expect_tensor_near(F::softmax(sp, 1), fx("sm_special_softmax"), 1e-12, 1e-14);
  expect_tensor_near(F::log_softmax(sp, 1), fx("sm_special_log_softmax"), 1e-12, 1e-14);
  // Rows sum to one for a long last dim and a large inner dim.
  Tensor big = randn({7, 1000});
  expect_tensor_near(F::softmax(big, 1).sum({1}), ones({7}), 1e-5, 1e-5);
  expect_tensor_near(F::softmax(big, 0).sum({0}), ones({1000}), 1e-5, 1e-5);
  expect_tensor_near(F::log_softmax(big, 0).exp().sum({0}), ones({1000}), 1e-5, 1e-5);
  // 0-d and empty inputs.
  EXPECT_DOUBLE_EQ(F::softmax(scalar_tensor(3.0, kFloat64), 0).item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(F::log_softmax(scalar_tensor(3.0, kFloat64), -1).item<double>(), 0.0);
  EXPECT_EQ(F::softmax(empty({0, 4}), 1).numel(), 0);
  EXPECT_EQ(F::softmax(randn({3, 4}), 1).grad_fn(), nullptr);
  Tensor r = randn({3, 4}).requires_grad_();
  EXPECT_EQ(F::softmax(r, 1).grad_fn()->name(), "SoftmaxBackward0");
  EXPECT_EQ(F::log_softmax(r, 1).grad_fn()->name(), "LogSoftmaxBackward0");
}

TEST(NNFunctionalActivation, Errors) {
  Tensor x = randn({3, 5});
  expect_error([&] { F::softmax(x, 2); }, "softmax: dimension out of range");
  expect_error([&] { F::log_softmax(tensor({1, 2}), 0); }, "log_softmax: expected a floating point input");
  EXPECT_EQ(F::softmax(tensor({1, 2}), 0, kFloat32).dtype(), kFloat32);
  expect_error([&] { F::glu(x, 1); }, "glu: Halving dimension must be even, but dimension 1 is size 5");
  expect_error([&] { F::hardtanh(x, 1.0, -1.0); }, "hardtanh: max_val (-1) must be greater than or equal to min_val (1)");
  expect_error([&] { F::softshrink(x, -0.5); }, "softshrink: lambda must be greater or equal to 0");
  expect_error([&] { F::celu(x, 0.0); }, "celu: ZeroDivisionError");
  expect_error([&] { F::gelu(x, "fast"); }, "gelu: approximate must be 'none' or 'tanh'");
}

}  // namespace nn_functional_activation_test
