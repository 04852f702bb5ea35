// nn::utils::parametrize (register/remove/cached/right_inverse/chains) and
// nn::utils::parametrizations (orthogonal, spectral_norm, weight_norm) against
// PyTorch through the checkpoint path (scripts/fixtures/nn_parametrize.py).
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "module_fixture.h"

namespace ember {
namespace {

namespace P = nn::utils::parametrize;
using testing::ModuleCase;
using testing::expect_error;
using testing::expect_tensor_near;

// X -> triu(X) + triu(X, 1)^T, right_inverse A -> triu(A) (PyTorch's docs example).
class Symmetric : public P::Parametrization {
 public:
  Symmetric() : Parametrization("Symmetric") {}
  int calls = 0;
  Tensor forward(const Tensor& X) override {
    ++calls;
    return X.triu() + X.triu(1).mT();
  }
  P::Originals right_inverse(const Tensor& A) override { return A.triu(); }
};

// (x, y) -> x y^T, right_inverse: the first column and the first row scaled.
class RankOne : public P::Parametrization {
 public:
  RankOne() : Parametrization("RankOne") {}
  Tensor forward(const std::vector<Tensor>& xs) override { return xs[0].unsqueeze(-1).matmul(xs[1].unsqueeze(-2)); }
  P::Originals right_inverse(const Tensor& Z) override {
    return std::vector<Tensor>{Z.select(1, 0).contiguous(), ones({Z.size(1)}, TensorOptions(Z.dtype()))};
  }
};

std::vector<std::string> keys(const OrderedDict<Tensor>& d) { return d.keys(); }

TEST(NnParametrize, RegisterMovesTheOriginal) {
  nn::Linear fc(4, 4);
  Tensor w = fc->weight;
  auto sym = std::make_shared<Symmetric>();
  P::register_parametrization(*fc, "weight", sym);
  EXPECT_TRUE(P::is_parametrized(*fc));
  EXPECT_TRUE(P::is_parametrized(*fc, "weight"));
  EXPECT_FALSE(P::is_parametrized(*fc, "bias"));
  // Same TensorImpl as the old weight (optimizers built before keep it), now triu'd.
  Tensor original = P::parametrizations(*fc, "weight").original();
  EXPECT_TRUE(original.is_same(w));
  expect_tensor_near(original, original.triu(), 0, 0);
  EXPECT_EQ(keys(fc->state_dict()), (std::vector<std::string>{"bias", "parametrizations.weight.original"}));
  EXPECT_EQ(keys(fc->named_parameters()), (std::vector<std::string>{"bias", "parametrizations.weight.original"}));
  EXPECT_EQ(fc->name(), "ParametrizedLinear");
  EXPECT_EQ(fc->str(),
            "ParametrizedLinear(\n  in_features=4, out_features=4, bias=True\n  (parametrizations): ModuleDict(\n"
            "    (weight): ParametrizationList(\n      (0): Symmetric()\n    )\n  )\n)");
  // The member is the parametrized value (symmetric), and forward uses it.
  expect_tensor_near(fc->weight, fc->weight.mT(), 0, 0);
  Tensor x = randn({3, 4}, TensorOptions(kFloat64));
  fc->to(kFloat64);
  Tensor y = fc(x);
  expect_tensor_near(y, x.matmul(P::get(*fc, "weight").mT()) + fc->bias, 1e-12, 1e-12);
  // Gradients flow to the original.
  y.sum().backward();
  ASSERT_TRUE(original.grad().defined());
  EXPECT_FALSE(fc->bias.grad().sum().item<double>() == 0);
}

TEST(NnParametrize, Errors) {
  nn::Linear fc(3, 4);
  expect_error([&] { P::register_parametrization(*fc, "nope", std::make_shared<Symmetric>()); },
               "does not have a parameter, a buffer, or a parametrized element with name 'nope'");
  expect_error([&] { P::register_parametrization(*fc, "weight", P::make_parametrization([](const Tensor& w) {
                       return w.mT();
                     })); },
               "may not change the shape");
  P::register_parametrization(*fc, "weight", P::make_parametrization([](const Tensor& w) { return w.mT(); }),
                              /*unsafe=*/true);
  EXPECT_EQ(fc->weight.sizes(), IntArrayRef({3, 4}));
  P::remove_parametrizations(*fc, "weight", false);
  EXPECT_FALSE(P::is_parametrized(*fc));
  expect_error([&] { P::remove_parametrizations(*fc, "weight"); }, "does not have a parametrization on weight");
  // A module tensor not bound to a member cannot be parametrized.
  struct Raw : nn::Module {
    Raw() { register_parameter("w", zeros({2, 2})); }
  } raw;
  expect_error([&] { P::register_parametrization(raw, "w", std::make_shared<Symmetric>()); },
               "is not bound to a member");
  // Assignment needs right_inverse.
  nn::Linear sq(2, 2);
  P::register_parametrization(*sq, "weight", P::make_parametrization([](const Tensor& x) { return x * 2; }));
  expect_error([&] { P::assign(*sq, "weight", zeros({2, 2})); }, "does not implement right_inverse");
}

TEST(NnParametrize, ForwardRecomputesAfterAnOptimizerStep) {
  nn::Linear fc(3, 3);
  fc->to(kFloat64);
  optim::SGD opt(fc->parameters(), {.lr = 0.1});  // built before: holds the original weight
  P::register_parametrization(*fc, "weight", std::make_shared<Symmetric>());
  Tensor x = randn({5, 3}, TensorOptions(kFloat64));
  Tensor before = P::get(*fc, "weight").detach().clone();
  fc(x).pow(2).sum().backward();
  opt.step();
  Tensor after = P::get(*fc, "weight");
  EXPECT_GT((after - before).abs().max().item<double>(), 0);
  expect_tensor_near(after, after.mT(), 0, 0);
  // forward read the new value
  expect_tensor_near(fc(x), x.matmul(after.mT()) + fc->bias, 1e-12, 1e-12);
}

TEST(NnParametrize, ChainAndAssign) {
  nn::Linear fc(3, 3);
  fc->to(kFloat64);
  P::register_parametrization(*fc, "weight", std::make_shared<Symmetric>());
  P::register_parametrization(*fc, "weight", P::make_parametrization([](const Tensor& x) { return x * 3; },
                                                                     [](const Tensor& x) { return x / 3; }, "Scale"));
  EXPECT_EQ(P::parametrizations(*fc, "weight").size(), 2u);
  EXPECT_EQ(keys(fc->state_dict()), (std::vector<std::string>{"bias", "parametrizations.weight.original"}));
  Tensor A = randn({3, 3}, TensorOptions(kFloat64));
  A = A + A.mT();
  P::assign(*fc, "weight", A);
  expect_tensor_near(P::get(*fc, "weight"), A, 1e-12, 1e-12);
  expect_tensor_near(fc->weight, A, 1e-12, 1e-12);
}

TEST(NnParametrize, SeveralOriginals) {
  nn::Linear fc(4, 3);
  fc->to(kFloat64);
  Tensor w = fc->weight.detach().clone();
  P::register_parametrization(*fc, "weight", std::make_shared<RankOne>());
  EXPECT_EQ(keys(fc->state_dict()), (std::vector<std::string>{"bias", "parametrizations.weight.original0",
                                                              "parametrizations.weight.original1"}));
  auto& list = P::parametrizations(*fc, "weight");
  EXPECT_FALSE(list.is_tensor());
  EXPECT_EQ(list.ntensors(), 2);
  EXPECT_TRUE(list.original(0).requires_grad());
  // x y^T with y = 1: every column is w's first column.
  expect_tensor_near(fc->weight, w.select(1, 0).unsqueeze(1).expand({3, 4}), 1e-12, 1e-12);
  Tensor x = randn({2, 4}, TensorOptions(kFloat64));
  fc(x).sum().backward();
  EXPECT_TRUE(list.original(0).grad().defined());
  EXPECT_TRUE(list.original(1).grad().defined());
  expect_error([&] { P::remove_parametrizations(*fc, "weight", false); }, "Cannot leave unparametrized");
  Tensor value = P::get(*fc, "weight").detach().clone();
  P::remove_parametrizations(*fc, "weight");
  EXPECT_FALSE(P::is_parametrized(*fc));
  EXPECT_EQ(fc->name(), "Linear");
  EXPECT_EQ(keys(fc->state_dict()), (std::vector<std::string>{"bias", "weight"}));
  expect_tensor_near(fc->weight, value, 0, 0);
  EXPECT_TRUE(fc->weight.requires_grad());
  EXPECT_TRUE(fc->weight.is_same(fc->named_parameters().at("weight")));
}

TEST(NnParametrize, RemoveLeavesParametrizedOrNot) {
  for (bool leave : {true, false}) {
    nn::Linear fc(3, 3);
    fc->to(kFloat64);
    Tensor w = fc->weight;
    P::register_parametrization(*fc, "weight", P::make_parametrization([](const Tensor& x) { return x * 2; }));
    Tensor original = P::parametrizations(*fc, "weight").original().detach().clone();
    Tensor value = P::get(*fc, "weight").detach().clone();
    P::remove_parametrizations(*fc, "weight", leave);
    EXPECT_EQ(fc->str(), "Linear(in_features=3, out_features=3, bias=True)");
    EXPECT_EQ(keys(fc->state_dict()), (std::vector<std::string>{"bias", "weight"}));
    // The same tensor as before registration comes back, as PyTorch's.
    EXPECT_TRUE(fc->weight.is_same(w));
    EXPECT_TRUE(fc->weight.requires_grad());
    expect_tensor_near(fc->weight, leave ? value : original, 0, 0);
    Tensor x = randn({2, 3}, TensorOptions(kFloat64));
    expect_tensor_near(fc(x), x.matmul(fc->weight.mT()) + fc->bias, 1e-12, 1e-12);
  }
}

TEST(NnParametrize, Cached) {
  nn::Linear fc(3, 3);
  auto sym = std::make_shared<Symmetric>();
  P::register_parametrization(*fc, "weight", sym);
  const int after_register = sym->calls;
  Tensor x = randn({2, 3});
  fc(x);
  fc(x);
  EXPECT_EQ(sym->calls, after_register + 2);
  {
    auto guard = P::cached();
    Tensor a = fc(x);
    Tensor b = fc(x);
    Tensor w1 = P::get(*fc, "weight");
    {
      auto inner = P::cached();
      EXPECT_TRUE(P::get(*fc, "weight").is_same(w1));
    }
    EXPECT_TRUE(P::get(*fc, "weight").is_same(w1));
    EXPECT_EQ(sym->calls, after_register + 3);
  }
  fc(x);
  EXPECT_EQ(sym->calls, after_register + 4);
}

TEST(NnParametrize, Buffer) {
  struct WithBuffer : nn::Module {
    WithBuffer() : Module("WithBuffer") { register_buffer("scale", full({3}, 2.0), &scale); }
    Tensor forward(const Tensor& x) { return x * scale; }
    Tensor scale;
  };
  auto m = std::make_shared<WithBuffer>();
  P::register_parametrization(*m, "scale", P::make_parametrization([](const Tensor& s) { return s.exp(); }));
  EXPECT_EQ(keys(m->state_dict()), (std::vector<std::string>{"parametrizations.scale.original"}));
  EXPECT_TRUE(m->named_parameters().empty());
  EXPECT_EQ(keys(m->named_buffers()), (std::vector<std::string>{"parametrizations.scale.original"}));
  Tensor x = ones({3});
  expect_tensor_near(nn::detail::call_forward(*m, x), full({3}, std::exp(2.0)), 1e-6, 1e-6);
  P::remove_parametrizations(*m, "scale", false);
  EXPECT_EQ(keys(m->named_buffers()), (std::vector<std::string>{"scale"}));
  expect_tensor_near(m->scale, full({3}, 2.0), 0, 0);
}

TEST(NnParametrize, RecurrentWeightsAndTrainMode) {
  nn::RNN rnn(nn::RNNOptions{.input_size = 3, .hidden_size = 3, .num_layers = 2});
  rnn->to(kFloat64);
  auto sym = std::make_shared<Symmetric>();
  nn::LSTMCell cell(3, 3);
  P::register_parametrization(*cell, "weight_hh", P::make_parametrization([](const Tensor& w) { return w * 0; }));
  Tensor xc = randn({2, 3});
  // weight_hh = 0: h' does not depend on h.
  auto [h1, c1] = cell(xc, std::make_tuple(randn({2, 3}), zeros({2, 3})));
  auto [h2, c2] = cell(xc, std::make_tuple(randn({2, 3}), zeros({2, 3})));
  expect_tensor_near(h1, h2, 1e-6, 1e-6);
  // Multi-layer modules read their flat weights.
  for (const char* name : {"weight_hh_l0", "weight_hh_l1"})
    P::register_parametrization(*rnn, name, P::make_parametrization([](const Tensor& w) { return w * 0; }));
  EXPECT_TRUE(rnn->named_parameters().contains("parametrizations.weight_hh_l1.original"));
  Tensor x = randn({4, 1, 3}, TensorOptions(kFloat64));
  Tensor y = std::get<0>(rnn(x));
  Tensor y1 = std::get<0>(rnn(x.narrow(0, 1, 1)));
  // With no recurrence, the step at t = 1 is the first step on x[1].
  expect_tensor_near(y.narrow(0, 1, 1), y1, 1e-12, 1e-12);
  // The parametrization takes the module's mode.
  nn::Linear fc(3, 3);
  fc->eval();
  P::register_parametrization(*fc, "weight", sym);
  EXPECT_FALSE(sym->is_training());
  fc->train();
  EXPECT_TRUE(sym->is_training());
}

}  // namespace
}  // namespace ember
