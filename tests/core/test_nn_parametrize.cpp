// nn::utils::parametrize (register/remove/cached/right_inverse/chains) and
// nn::utils::parametrizations (orthogonal, spectral_norm, weight_norm) against
// PyTorch through the checkpoint path (scripts/fixtures/nn_parametrize.py).
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "module_fixture.h"

namespace ember {
namespace nn_parametrize_test {

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

// ---- linalg ops the parametrizations use ----

Tensor fx(const std::string& name) { return testing::fixture("nn_parametrize", name); }
const TensorOptions f64 = TensorOptions(kFloat64);

// out vs <name>_out, and the gradients of sum(out * gout) vs <name>_gin<i>.
void check_op(const std::string& name, const Tensor& out, const std::vector<Tensor>& inputs) {
  SCOPED_TRACE(name);
  expect_tensor_near(out, fx(name + "_out"), 1e-9, 1e-10);
  (out * fx(name + "_gout")).sum().backward();
  for (size_t i = 0; i < inputs.size(); ++i)
    expect_tensor_near(inputs[i].grad(), fx(name + "_gin" + std::to_string(i)), 1e-8, 1e-10);
}

TEST(NnParametrizeLinalg, MatrixExp) {
  for (std::string name : {"matrix_exp", "matrix_exp_batch"}) {
    Tensor A = fx(name + "_A").requires_grad_();
    check_op(name, linalg::matrix_exp(A), {A});
  }
  expect_tensor_near(linalg::matrix_exp(zeros({3, 3})), eye(3), 0, 0);
  Tensor d = tensor({0.5, -1.0, 3.0}, f64);
  expect_tensor_near(linalg::matrix_exp(eye(3, f64) * d), eye(3, f64) * d.exp(), 1e-13, 1e-13);
  EXPECT_EQ(linalg::matrix_exp(zeros({2, 0, 0})).sizes(), IntArrayRef({2, 0, 0}));
  expect_error([&] { linalg::matrix_exp(zeros({2, 3})); }, "square matrices");
  Tensor A = (randn({3, 3}, f64) * 0.7).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck([](const autograd::variable_list& x) { return autograd::variable_list{linalg::matrix_exp(x[0])}; }, {A}));
  EXPECT_TRUE(autograd::gradgradcheck([](const autograd::variable_list& x) { return autograd::variable_list{linalg::matrix_exp(x[0])}; }, {A}));
}

TEST(NnParametrizeLinalg, Solve) {
  for (std::string name : {"solve", "solve_vec", "solve_bcast"}) {
    Tensor A = fx(name + "_A").requires_grad_(), B = fx(name + "_B").requires_grad_();
    check_op(name, linalg::solve(A, B), {A, B});
  }
  Tensor A = randn({3, 3}, f64) + eye(3, f64) * 3, B = randn({2, 3}, f64);
  // X A = B
  expect_tensor_near(linalg::solve(A, B, /*left=*/false).matmul(A), B, 1e-12, 1e-12);
  // A transposed view as input is not overwritten
  Tensor At = A.mT();
  Tensor keep = At.clone();
  linalg::solve(At, B.mT());
  expect_tensor_near(At, keep, 0, 0);
  expect_error([&] { linalg::solve(zeros({2, 2}, f64), ones({2}, f64)); }, "singular");
  expect_error([&] { linalg::solve(zeros({2, 3}, f64), ones({2}, f64)); }, "square matrices");
  A.requires_grad_();
  Tensor b = randn({3, 2}, f64).requires_grad_();
  auto fn = [](const autograd::variable_list& x) { return autograd::variable_list{linalg::solve(x[0], x[1])}; };
  EXPECT_TRUE(autograd::gradcheck(fn, {A, b}));
  EXPECT_TRUE(autograd::gradgradcheck(fn, {A, b}));
  Tensor v = randn({3}, f64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(fn, {A, v}));
  // float32
  Tensor Af = A.detach().to(kFloat32), bf = b.detach().to(kFloat32);
  expect_tensor_near(Af.matmul(linalg::solve(Af, bf)), bf, 1e-4, 1e-4);
}

TEST(NnParametrizeLinalg, HouseholderGeqrfQr) {
  Tensor A = fx("householder_A").requires_grad_(), tau = fx("householder_tau").requires_grad_();
  check_op("householder", linalg::householder_product(A, tau), {A, tau});
  {
    NoGradGuard no_grad;  // LAPACK path
    expect_tensor_near(linalg::householder_product(A, tau), fx("householder_out"), 1e-12, 1e-12);
  }
  auto hp = [](const autograd::variable_list& x) {
    return autograd::variable_list{linalg::householder_product(x[0], x[1])};
  };
  EXPECT_TRUE(autograd::gradcheck(hp, {randn({4, 3}, f64).requires_grad_(), rand({3}, f64).requires_grad_()}));
  expect_error([&] { linalg::householder_product(zeros({2, 3}, f64), zeros({1}, f64)); },
               "must be greater than or equal to");

  auto [a, t] = geqrf(fx("geqrf_A"));
  expect_tensor_near(a, fx("geqrf_a"), 1e-12, 1e-12);
  expect_tensor_near(t, fx("geqrf_tau"), 1e-12, 1e-12);

  for (std::string name : {"qr_tall", "qr_complete", "qr_wide"}) {
    SCOPED_TRACE(name);
    Tensor X = fx(name + "_A").requires_grad_();
    auto [Q, R] = linalg::qr(X, name == "qr_complete" ? "complete" : "reduced");
    expect_tensor_near(Q, fx(name + "_Q"), 1e-12, 1e-12);
    expect_tensor_near(R, fx(name + "_R"), 1e-12, 1e-12);
    if (name == "qr_complete") continue;
    ((Q * fx(name + "_gQ")).sum() + (R * fx(name + "_gR")).sum()).backward();
    expect_tensor_near(X.grad(), fx(name + "_gA"), 1e-9, 1e-10);
  }
  auto [Q, R] = linalg::qr(randn({2, 4, 4}, f64), "r");
  EXPECT_EQ(Q.numel(), 0);
  EXPECT_EQ(R.sizes(), IntArrayRef({2, 4, 4}));
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{4, 3}, std::vector<int64_t>{3, 4}}) {
    auto fn = [](const autograd::variable_list& x) {
      auto [q, r] = linalg::qr(x[0]);
      return autograd::variable_list{q, r};
    };
    EXPECT_TRUE(autograd::gradcheck(fn, {randn(shape, f64).requires_grad_()}));
  }
}

// ---- parametrizations against PyTorch through the checkpoint path ----

namespace PS = nn::utils::parametrizations;

TEST(NnParametrizeFixture, Symmetric) {
  ModuleCase c{"nn_parametrize", "symmetric"};
  nn::Linear m(4, 4);
  m->to(kFloat64);
  P::register_parametrization(*m, "weight", std::make_shared<Symmetric>());
  c.load(*m);
  Tensor x = c.leaf_in(0);
  c.check(*m, {m(x)}, {x});
}

bool orthonormal(const Tensor& W) {
  const Tensor Q = W.size(0) >= W.size(1) ? W : W.mT();
  return Q.mT().matmul(Q).allclose(eye(Q.size(1), Q.options()), 1e-10, 1e-10);
}

TEST(NnParametrizeFixture, Orthogonal) {
  struct Case {
    const char* name;
    int64_t in, out;
    std::optional<std::string> map;
    bool triv;
  };
  for (const Case& k : {Case{"orth_exp_wide", 5, 3, "matrix_exp", true}, Case{"orth_cayley_tall", 3, 5, "cayley", true},
                        Case{"orth_house_wide", 5, 3, "householder", true},
                        Case{"orth_exp_square", 4, 4, std::nullopt, true},
                        Case{"orth_house_notriv", 3, 5, "householder", false},
                        Case{"orth_cayley_notriv", 4, 4, "cayley", false}}) {
    SCOPED_TRACE(k.name);
    ModuleCase c{"nn_parametrize", k.name};
    nn::Linear m(k.in, k.out);
    m->to(kFloat64);
    PS::orthogonal(m, "weight", k.map, k.triv);
    // Orthogonal from registration on (the initial value is the weight orthogonalized).
    EXPECT_TRUE(orthonormal(m->weight));
    std::vector<std::string> keys = {"bias", "parametrizations.weight.original"};
    if (k.triv) keys.push_back("parametrizations.weight.0.base");
    EXPECT_EQ(m->state_dict().keys(), keys);
    c.load(*m);
    Tensor x = c.leaf_in(0);
    c.check(*m, {m(x)}, {x}, 1e-9, 1e-10);
    EXPECT_TRUE(orthonormal(P::get(*m, "weight")));
  }
  EXPECT_EQ(nn::Linear(3, 3)->name(), "Linear");
  nn::Linear sq(3, 3);
  PS::orthogonal(sq);
  EXPECT_EQ(sq->str(), "ParametrizedLinear(\n  in_features=3, out_features=3, bias=True\n  (parametrizations): ModuleDict(\n"
                       "    (weight): ParametrizationList(\n      (0): _Orthogonal()\n    )\n  )\n)");
  // Assigning an orthogonal matrix (right_inverse through the trivialization).
  Tensor Q = std::get<0>(linalg::qr(randn({3, 3})));
  P::assign(*sq, "weight", Q);
  expect_tensor_near(P::get(*sq, "weight"), Q, 1e-5, 1e-5);
  expect_error([&] { PS::orthogonal(nn::Linear(3, 3), "weight", "nope"); }, "orthogonal_map has to be one of");
  expect_error([&] { PS::orthogonal(nn::Linear(3, 3), "bias"); }, "Expected a matrix or batch of matrices");
  nn::Linear notriv(3, 3);
  PS::orthogonal(notriv, "weight", "matrix_exp", false);
  expect_error([&] { P::assign(*notriv, "weight", Q); }, "does not implement right_inverse");
}

TEST(NnParametrizeFixture, SpectralNorm) {
  {
    ModuleCase c{"nn_parametrize", "spectral_train"};
    nn::Linear m(4, 3);
    m->to(kFloat64);
    PS::spectral_norm(m);
    EXPECT_EQ(m->state_dict().keys(), (std::vector<std::string>{"bias", "parametrizations.weight.original",
                                                                "parametrizations.weight.0._u",
                                                                "parametrizations.weight.0._v"}));
    c.load(*m);
    Tensor x = c.leaf_in(0);
    c.check(*m, {m(x)}, {x});
    // Three more training forwards: one power iteration each (inputs don't matter).
    for (int i = 0; i < 3; ++i) m(randn({2, 4}, f64));
    const auto state = m->state_dict();
    expect_tensor_near(state.at("parametrizations.weight.0._u"), fx("spectral_train_u3"), 1e-10, 1e-12);
    expect_tensor_near(state.at("parametrizations.weight.0._v"), fx("spectral_train_v3"), 1e-10, 1e-12);
    expect_tensor_near(P::get(*m, "weight"), fx("spectral_train_w3"), 1e-10, 1e-12);
  }
  {
    ModuleCase c{"nn_parametrize", "spectral_eval"};
    nn::Linear m(4, 3);
    m->to(kFloat64);
    PS::spectral_norm(m, "weight", 2);
    m->eval();
    c.load(*m);
    const Tensor u = m->state_dict().at("parametrizations.weight.0._u").clone();
    Tensor x = c.leaf_in(0);
    c.check(*m, {m(x)}, {x});
    expect_tensor_near(m->state_dict().at("parametrizations.weight.0._u"), u, 0, 0);  // no iteration in eval
  }
  {
    ModuleCase c{"nn_parametrize", "spectral_bilinear_dim1"};
    nn::Bilinear m(3, 2, 4);
    m->to(kFloat64);
    PS::spectral_norm(m, "weight", 1, 1e-12, 1);
    c.load(*m);
    Tensor a = c.leaf_in(0), b = c.leaf_in(1);
    c.check(*m, {m(a, b)}, {a, b});
  }
  // The largest singular value of a spectral-normalized weight approaches 1.
  nn::Linear big(6, 5);
  big->to(kFloat64);
  PS::spectral_norm(big, "weight", 50);
  Tensor W = P::get(*big, "weight").detach();
  Tensor v = randn({6}, f64);
  for (int i = 0; i < 200; ++i) v = W.mT().mv(W.mv(v)), v = v / v.norm();
  EXPECT_NEAR(W.mv(v).norm().item<double>(), 1.0, 1e-6);
  expect_error([&] { PS::spectral_norm(nn::Linear(3, 3), "weight", 0); }, "Expected n_power_iterations to be positive");
  expect_error([&] { PS::spectral_norm(nn::Linear(3, 3), "weight", 1, 1e-12, 2); }, "Dimension out of range");
}

TEST(NnParametrizeFixture, WeightNorm) {
  for (auto [name, dim] : {std::pair<const char*, std::optional<int64_t>>{"weight_norm_dim0", 0},
                           {"weight_norm_dim1", 1}, {"weight_norm_all", std::nullopt}}) {
    SCOPED_TRACE(name);
    ModuleCase c{"nn_parametrize", name};
    nn::Linear m(4, 3);
    m->to(kFloat64);
    Tensor w = m->weight.detach().clone();
    PS::weight_norm(m, "weight", dim);
    // g * v / |v| reproduces the weight at registration.
    expect_tensor_near(m->weight, w, 1e-12, 1e-12);
    EXPECT_EQ(m->state_dict().keys(), (std::vector<std::string>{"bias", "parametrizations.weight.original0",
                                                                "parametrizations.weight.original1"}));
    c.load(*m);
    Tensor x = c.leaf_in(0);
    c.check(*m, {m(x)}, {x});
  }
}

TEST(NnParametrizeFixture, SgdThroughOrthogonalWeight) {
  nn::Linear m(4, 4);
  m->to(kFloat64);
  PS::orthogonal(m, "weight", "cayley");
  m->load_state_dict(serialize::load_torch_state_dict(testing::fixture_path("core/nn_parametrize/sgd_orth.pt")));
  optim::SGD opt(m->parameters(), {.lr = 0.1, .momentum = 0.9});
  Tensor x = fx("sgd_orth_x");
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    m(x).pow(2).sum().backward();
    opt.step();
  }
  expect_tensor_near(P::parametrizations(*m, "weight").original(), fx("sgd_orth_original"), 1e-9, 1e-11);
  expect_tensor_near(P::get(*m, "weight"), fx("sgd_orth_weight"), 1e-9, 1e-11);
  expect_tensor_near(m->bias, fx("sgd_orth_bias"), 1e-9, 1e-11);
  EXPECT_TRUE(orthonormal(P::get(*m, "weight")));
}

TEST(NnParametrizeFixture, ConvModules) {
  // ConvTranspose: spectral_norm's default dim is 1 (out_channels rows).
  nn::ConvTranspose2d up(nn::ConvTranspose2dOptions{.in_channels = 3, .out_channels = 5, .kernel_size = 2});
  PS::spectral_norm(up);
  EXPECT_EQ(up->state_dict().at("parametrizations.weight.0._u").sizes(), IntArrayRef({5}));
  EXPECT_EQ(up->name(), "ParametrizedConvTranspose2d");
  // weight_norm on a Conv2d: forward uses g * v / |v|.
  nn::Conv2d conv(2, 4, 3);
  conv->to(kFloat64);
  PS::weight_norm(conv);
  auto& list = P::parametrizations(*conv, "weight");
  EXPECT_EQ(list.original(0).sizes(), IntArrayRef({4, 1, 1, 1}));
  Tensor x = randn({1, 2, 5, 5}, f64);
  Tensor w = P::get(*conv, "weight").detach();
  expect_tensor_near(conv(x), nn::functional::conv2d(x, w, {.bias = conv->bias}), 1e-12, 1e-12);
}

}  // namespace nn_parametrize_test
}  // namespace ember
