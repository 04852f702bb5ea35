// Activation, loss and distance modules against PyTorch through the checkpoint
// path (scripts/fixtures/nn_act_loss.py; tests/core/module_fixture.h): PReLU's
// weight and the losses' weight / pos_weight buffers come from the .pt files,
// loaded strict (so the state_dict keys equal PyTorch's). Also reprs, in-place
// variants, RReLU in train and eval mode, and argument errors.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <functional>
#include <memory>

#include "module_fixture.h"

namespace ember {
namespace nn_act_loss_modules_test {

using testing::expect_error;
using testing::ModuleCase;
namespace F = nn::functional;
using autograd::variable_list;
using nn::Reduction;

constexpr const char* kFamily = "nn_act_loss";

// One fixture case: a module built as the generator's, called with the saved inputs.
struct Entry {
  std::string name;
  std::shared_ptr<nn::Module> module;
  int arity = 0;
  std::function<Tensor(const std::vector<Tensor>&)> forward;
};

template <class H>
Entry entry(std::string name, H m) {
  using Impl = typename H::ImplType;
  Entry e{std::move(name), m.ptr(), 0, nullptr};
  if constexpr (requires(Impl& i, const Tensor& t) { i.forward(t, t, t, t); }) {
    e.arity = 4;
    e.forward = [m](const std::vector<Tensor>& x) { return m(x[0], x[1], x[2], x[3]); };
  } else if constexpr (requires(Impl& i, const Tensor& t) { i.forward(t, t, t); }) {
    e.arity = 3;
    e.forward = [m](const std::vector<Tensor>& x) { return m(x[0], x[1], x[2]); };
  } else if constexpr (requires(Impl& i, const Tensor& t) { i.forward(t, t); }) {
    e.arity = 2;
    e.forward = [m](const std::vector<Tensor>& x) { return m(x[0], x[1]); };
  } else {
    e.arity = 1;
    e.forward = [m](const std::vector<Tensor>& x) { return m(x[0]); };
  }
  return e;
}

// The saved inputs; those with a saved gradient are leaves that require grad.
std::vector<Tensor> case_inputs(const ModuleCase& c, int arity) {
  std::vector<Tensor> x;
  for (int i = 0; i < arity; ++i) x.push_back(c.has("_gin" + std::to_string(i)) ? c.leaf_in(i) : c.in(i));
  return x;
}

Tensor w4() { return zeros({4}); }  // initial weights, overwritten by the .pt

nn::RReLU rrelu_eval() {
  nn::RReLU m(0.1, 0.3);
  m->eval();
  return m;
}

std::vector<Entry> activation_entries() {
  return {
      entry("relu", nn::ReLU()),
      entry("relu6", nn::ReLU6()),
      entry("leaky_relu", nn::LeakyReLU(0.2)),
      entry("prelu1", nn::PReLU()),
      entry("prelu3", nn::PReLU(3)),
      entry("rrelu_eval", rrelu_eval()),
      entry("elu", nn::ELU(0.5)),
      entry("celu", nn::CELU(1.5)),
      entry("selu", nn::SELU()),
      entry("gelu", nn::GELU()),
      entry("gelu_tanh", nn::GELU("tanh")),
      entry("silu", nn::SiLU()),
      entry("mish", nn::Mish()),
      entry("hardswish", nn::Hardswish()),
      entry("hardsigmoid", nn::Hardsigmoid()),
      entry("hardtanh", nn::Hardtanh(-0.5, 1.5)),
      entry("softplus", nn::Softplus(2.0, 1.0)),
      entry("softsign", nn::Softsign()),
      entry("softshrink", nn::Softshrink(0.3)),
      entry("hardshrink", nn::Hardshrink(0.4)),
      entry("tanhshrink", nn::Tanhshrink()),
      entry("threshold", nn::Threshold(0.1, 20.0)),
      entry("glu", nn::GLU(1)),
      entry("logsigmoid", nn::LogSigmoid()),
      entry("sigmoid", nn::Sigmoid()),
      entry("tanh", nn::Tanh()),
      entry("softmax", nn::Softmax(1)),
      entry("log_softmax", nn::LogSoftmax(-1)),
      entry("softmin", nn::Softmin(0)),
      entry("softmax2d", nn::Softmax2d()),
      entry("softmax2d_3d", nn::Softmax2d()),
      entry("cosine_similarity", nn::CosineSimilarity(1)),
      entry("pairwise_distance", nn::PairwiseDistance({.p = 1.0, .keepdim = true})),
      entry("pairwise_distance_p2", nn::PairwiseDistance()),
  };
}

std::vector<Entry> loss_entries() {
  return {
      entry("l1_loss", nn::L1Loss({.reduction = Reduction::None})),
      entry("mse_loss", nn::MSELoss({.reduction = Reduction::Sum})),
      entry("smooth_l1_loss", nn::SmoothL1Loss({.beta = 0.5})),
      entry("huber_loss", nn::HuberLoss({.reduction = Reduction::None, .delta = 0.7})),
      entry("cross_entropy", nn::CrossEntropyLoss({.weight = w4(), .ignore_index = 1, .label_smoothing = 0.1})),
      entry("cross_entropy_probs", nn::CrossEntropyLoss({.reduction = Reduction::Sum})),
      entry("cross_entropy_kdim", nn::CrossEntropyLoss({.reduction = Reduction::None})),
      entry("nll_loss", nn::NLLLoss({.weight = w4()})),
      entry("bce_loss", nn::BCELoss({.weight = w4()})),
      entry("bce_with_logits", nn::BCEWithLogitsLoss({.weight = w4(), .pos_weight = w4()})),
      entry("kl_div", nn::KLDivLoss({.reduction = Reduction::BatchMean})),
      entry("kl_div_log_target", nn::KLDivLoss({.reduction = Reduction::Sum, .log_target = true})),
      entry("poisson_nll", nn::PoissonNLLLoss()),
      entry("poisson_nll_full", nn::PoissonNLLLoss({.log_input = false, .full = true, .reduction = Reduction::None})),
      entry("gaussian_nll", nn::GaussianNLLLoss({.full = true})),
      entry("ctc_loss", nn::CTCLoss()),
      entry("ctc_loss_sum", nn::CTCLoss({.blank = 3, .reduction = Reduction::Sum, .zero_infinity = true})),
      entry("margin_ranking", nn::MarginRankingLoss({.margin = 0.2})),
      entry("hinge_embedding", nn::HingeEmbeddingLoss({.margin = 1.5, .reduction = Reduction::None})),
      entry("multilabel_margin", nn::MultiLabelMarginLoss()),
      entry("multilabel_soft_margin", nn::MultiLabelSoftMarginLoss({.weight = w4()})),
      entry("soft_margin", nn::SoftMarginLoss({.reduction = Reduction::Sum})),
      entry("cosine_embedding", nn::CosineEmbeddingLoss({.margin = 0.1})),
      entry("triplet_margin", nn::TripletMarginLoss({.margin = 0.5, .swap = true})),
      entry("triplet_distance", nn::TripletMarginWithDistanceLoss()),
      entry("triplet_distance_cos",
            nn::TripletMarginWithDistanceLoss(
                {.distance_function = [](const Tensor& a, const Tensor& b) { return 1.0 - F::cosine_similarity(a, b); },
                 .margin = 0.8,
                 .swap = true,
                 .reduction = Reduction::None})),
      entry("multi_margin", nn::MultiMarginLoss({.p = 2, .margin = 0.7, .weight = w4()})),
  };
}

void check_entries(const std::vector<Entry>& entries) {
  for (const Entry& e : entries) {
    SCOPED_TRACE(e.name);
    ModuleCase c{kFamily, e.name};
    c.load(*e.module);
    std::vector<Tensor> x = case_inputs(c, e.arity);
    c.check(*e.module, {e.forward(x)}, x);
  }
}

TEST(NnActLossModules, ActivationsMatchPyTorch) { check_entries(activation_entries()); }

TEST(NnActLossModules, LossesMatchPyTorch) { check_entries(loss_entries()); }

// A small model ported line by line: nested state_dict keys (1.weight is
// PReLU's), loaded strict from PyTorch's checkpoint; all parameter gradients.
TEST(NnActLossModules, SequentialModelMatchesPyTorch) {
  ModuleCase c{kFamily, "sequential"};
  nn::Sequential m(nn::Linear(5, 4), nn::PReLU(4, 0.1), nn::Linear(4, 3), nn::LogSoftmax(1));
  c.load(*m);
  Tensor x = c.leaf_in(0);
  c.check(*m, {m(x)}, {x});
  EXPECT_EQ(m->str(),
            "Sequential(\n  (0): Linear(in_features=5, out_features=4, bias=True)\n  (1): PReLU(num_parameters=4)\n"
            "  (2): Linear(in_features=4, out_features=3, bias=True)\n  (3): LogSoftmax(dim=1)\n)");
}

// Float32 modules on float32 inputs (PReLU's weight and a loss's weight buffer
// are float32 by default), and forward hooks on a three-input loss.
TEST(NnActLossModules, Float32AndHooks) {
  Tensor x = randn({2, 3, 4});
  nn::PReLU prelu(3);
  Tensor y = prelu(x);
  EXPECT_EQ(y.dtype(), kFloat32);
  testing::expect_tensor_near(y, where(x >= 0, x, x * 0.25), 1e-6, 1e-7);
  nn::CrossEntropyLoss ce({.weight = tensor({1.0f, 2.0f, 0.5f})});
  Tensor logits = randn({4, 3}).requires_grad_();
  Tensor loss = ce(logits, tensor(std::vector<int64_t>{0, 1, 2, 1}));
  EXPECT_EQ(loss.dtype(), kFloat32);
  loss.backward();
  EXPECT_TRUE(logits.grad().defined());

  nn::MarginRankingLoss mr({.margin = 0.5});
  int calls = 0;
  mr->register_forward_hook([&](nn::Module&, const std::vector<Tensor>& in, Tensor& out) {
    calls += static_cast<int>(in.size());
    out = out * 2;
  });
  Tensor a = randn({5}), b = randn({5}), t = sign(randn({5}));
  testing::expect_tensor_near(mr(a, b, t), 2 * F::margin_ranking_loss(a, b, t, {.margin = 0.5}), 1e-6, 1e-7);
  EXPECT_EQ(calls, 3);
}

// inplace=True: the module overwrites its input (a non-leaf here) and the
// gradient still reaches the leaf, equal to PyTorch's out-of-place one.
TEST(NnActLossModules, InplaceVariantsMatchPyTorch) {
  std::vector<Entry> entries = {
      entry("relu", nn::ReLU(true)),
      entry("relu6", nn::ReLU6(true)),
      entry("leaky_relu", nn::LeakyReLU(0.2, true)),
      entry("rrelu_eval", [] {
        nn::RReLU m(0.1, 0.3, true);
        m->eval();
        return m;
      }()),
      entry("elu", nn::ELU(0.5, true)),
      entry("celu", nn::CELU(1.5, true)),
      entry("selu", nn::SELU(true)),
      entry("silu", nn::SiLU(true)),
      entry("mish", nn::Mish(true)),
      entry("hardswish", nn::Hardswish(true)),
      entry("hardsigmoid", nn::Hardsigmoid(true)),
      entry("hardtanh", nn::Hardtanh(-0.5, 1.5, true)),
      entry("threshold", nn::Threshold(0.1, 20.0, true)),
  };
  for (const Entry& e : entries) {
    SCOPED_TRACE(e.name);
    ModuleCase c{kFamily, e.name};
    c.load(*e.module);
    Tensor x = c.leaf_in(0);
    Tensor y = x * 1;
    Tensor out = e.forward({y});
    EXPECT_TRUE(out.is_same(y));
    c.check(*e.module, {out}, {x});
  }
}

TEST(NnActLossModules, Reprs) {
  auto repr = [](const nn::Module& m) { return m.str(); };
  EXPECT_EQ(repr(*nn::ReLU()), "ReLU()");
  EXPECT_EQ(repr(*nn::ReLU(true)), "ReLU(inplace=True)");
  EXPECT_EQ(repr(*nn::ReLU6()), "ReLU6()");
  EXPECT_EQ(repr(*nn::ReLU6(true)), "ReLU6(inplace=True)");
  EXPECT_EQ(repr(*nn::LeakyReLU()), "LeakyReLU(negative_slope=0.01)");
  EXPECT_EQ(repr(*nn::LeakyReLU(0.2, true)), "LeakyReLU(negative_slope=0.2, inplace=True)");
  EXPECT_EQ(repr(*nn::PReLU()), "PReLU(num_parameters=1)");
  EXPECT_EQ(repr(*nn::PReLU(3, 0.1)), "PReLU(num_parameters=3)");
  EXPECT_EQ(repr(*nn::RReLU()), "RReLU(lower=0.125, upper=0.3333333333333333)");
  EXPECT_EQ(repr(*nn::RReLU(0.1, 0.3, true)), "RReLU(lower=0.1, upper=0.3, inplace=True)");
  EXPECT_EQ(repr(*nn::ELU()), "ELU(alpha=1.0)");
  EXPECT_EQ(repr(*nn::ELU(0.5, true)), "ELU(alpha=0.5, inplace=True)");
  EXPECT_EQ(repr(*nn::CELU()), "CELU(alpha=1.0)");
  EXPECT_EQ(repr(*nn::CELU(2.0, true)), "CELU(alpha=2.0, inplace=True)");
  EXPECT_EQ(repr(*nn::SELU()), "SELU()");
  EXPECT_EQ(repr(*nn::SELU(true)), "SELU(inplace=True)");
  EXPECT_EQ(repr(*nn::GELU()), "GELU(approximate='none')");
  EXPECT_EQ(repr(*nn::GELU("tanh")), "GELU(approximate='tanh')");
  EXPECT_EQ(repr(*nn::SiLU()), "SiLU()");
  EXPECT_EQ(repr(*nn::SiLU(true)), "SiLU(inplace=True)");
  EXPECT_EQ(repr(*nn::Mish()), "Mish()");
  EXPECT_EQ(repr(*nn::Mish(true)), "Mish(inplace=True)");
  EXPECT_EQ(repr(*nn::Hardswish(true)), "Hardswish()");
  EXPECT_EQ(repr(*nn::Hardsigmoid(true)), "Hardsigmoid()");
  EXPECT_EQ(repr(*nn::Hardtanh()), "Hardtanh(min_val=-1.0, max_val=1.0)");
  EXPECT_EQ(repr(*nn::Hardtanh(-2, 3, true)), "Hardtanh(min_val=-2.0, max_val=3.0, inplace=True)");
  EXPECT_EQ(repr(*nn::Softplus()), "Softplus(beta=1.0, threshold=20.0)");
  EXPECT_EQ(repr(*nn::Softplus(2, 10)), "Softplus(beta=2.0, threshold=10.0)");
  EXPECT_EQ(repr(*nn::Softsign()), "Softsign()");
  EXPECT_EQ(repr(*nn::Softshrink()), "Softshrink(0.5)");
  EXPECT_EQ(repr(*nn::Softshrink(0.3)), "Softshrink(0.3)");
  EXPECT_EQ(repr(*nn::Hardshrink()), "Hardshrink(0.5)");
  EXPECT_EQ(repr(*nn::Tanhshrink()), "Tanhshrink()");
  EXPECT_EQ(repr(*nn::Threshold(0.1, 20)), "Threshold(threshold=0.1, value=20.0)");
  EXPECT_EQ(repr(*nn::Threshold(0.1, 20, true)), "Threshold(threshold=0.1, value=20.0, inplace=True)");
  EXPECT_EQ(repr(*nn::GLU()), "GLU(dim=-1)");
  EXPECT_EQ(repr(*nn::GLU(1)), "GLU(dim=1)");
  EXPECT_EQ(repr(*nn::LogSigmoid()), "LogSigmoid()");
  EXPECT_EQ(repr(*nn::Sigmoid()), "Sigmoid()");
  EXPECT_EQ(repr(*nn::Tanh()), "Tanh()");
  EXPECT_EQ(repr(*nn::Softmax(1)), "Softmax(dim=1)");
  EXPECT_EQ(repr(*nn::LogSoftmax(-1)), "LogSoftmax(dim=-1)");
  EXPECT_EQ(repr(*nn::Softmin(0)), "Softmin(dim=0)");
  EXPECT_EQ(repr(*nn::Softmax2d()), "Softmax2d()");
  EXPECT_EQ(repr(*nn::CosineSimilarity(0, 1e-6)), "CosineSimilarity()");
  EXPECT_EQ(repr(*nn::PairwiseDistance(1.0, 1e-3, true)), "PairwiseDistance()");

  // Losses print without their options (PyTorch's _Loss has no extra_repr).
  EXPECT_EQ(repr(*nn::L1Loss()), "L1Loss()");
  EXPECT_EQ(repr(*nn::MSELoss()), "MSELoss()");
  EXPECT_EQ(repr(*nn::SmoothL1Loss()), "SmoothL1Loss()");
  EXPECT_EQ(repr(*nn::HuberLoss()), "HuberLoss()");
  EXPECT_EQ(repr(*nn::CrossEntropyLoss({.weight = ones({3})})), "CrossEntropyLoss()");
  EXPECT_EQ(repr(*nn::NLLLoss()), "NLLLoss()");
  EXPECT_EQ(repr(*nn::BCELoss()), "BCELoss()");
  EXPECT_EQ(repr(*nn::BCEWithLogitsLoss()), "BCEWithLogitsLoss()");
  EXPECT_EQ(repr(*nn::KLDivLoss()), "KLDivLoss()");
  EXPECT_EQ(repr(*nn::PoissonNLLLoss()), "PoissonNLLLoss()");
  EXPECT_EQ(repr(*nn::GaussianNLLLoss()), "GaussianNLLLoss()");
  EXPECT_EQ(repr(*nn::CTCLoss()), "CTCLoss()");
  EXPECT_EQ(repr(*nn::MarginRankingLoss()), "MarginRankingLoss()");
  EXPECT_EQ(repr(*nn::HingeEmbeddingLoss()), "HingeEmbeddingLoss()");
  EXPECT_EQ(repr(*nn::MultiLabelMarginLoss()), "MultiLabelMarginLoss()");
  EXPECT_EQ(repr(*nn::MultiLabelSoftMarginLoss()), "MultiLabelSoftMarginLoss()");
  EXPECT_EQ(repr(*nn::SoftMarginLoss()), "SoftMarginLoss()");
  EXPECT_EQ(repr(*nn::CosineEmbeddingLoss()), "CosineEmbeddingLoss()");
  EXPECT_EQ(repr(*nn::TripletMarginLoss()), "TripletMarginLoss()");
  EXPECT_EQ(repr(*nn::MultiMarginLoss()), "MultiMarginLoss()");
  EXPECT_EQ(repr(*nn::TripletMarginWithDistanceLoss()),
            "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)");
  EXPECT_EQ(repr(*nn::TripletMarginWithDistanceLoss(
                {.distance_function = [](const Tensor& a, const Tensor& b) { return (a - b).abs().sum(-1); }})),
            "TripletMarginWithDistanceLoss()");

  // Inside a container, as PyTorch's nested repr.
  nn::Sequential seq(nn::Linear(3, 4), nn::ReLU(true), nn::Softmax(1));
  EXPECT_EQ(seq->str(),
            "Sequential(\n  (0): Linear(in_features=3, out_features=4, bias=True)\n  (1): ReLU(inplace=True)\n"
            "  (2): Softmax(dim=1)\n)");
}

TEST(NnActLossModules, RReLUTrainAndEval) {
  const double lower = 0.1, upper = 0.3;
  nn::RReLU m(lower, upper);
  Tensor x = randn({2000}, TensorOptions().dtype(kFloat64)).requires_grad_();
  ASSERT_TRUE(m->is_training());
  Tensor y = m(x);
  y.sum().backward();
  Tensor neg = x.detach() < 0;
  Tensor slope = y.detach() / x.detach();
  Tensor neg_slopes = slope.masked_select(neg);
  EXPECT_GE(neg_slopes.min().item<double>(), lower);
  EXPECT_LE(neg_slopes.max().item<double>(), upper);
  // Random slopes (not all the mean one).
  EXPECT_GT((neg_slopes.max() - neg_slopes.min()).item<double>(), 0.1);
  EXPECT_NEAR(neg_slopes.mean().item<double>(), (lower + upper) / 2, 0.01);
  testing::expect_tensor_near(y.detach().masked_select(~neg), x.detach().masked_select(~neg), 0, 0);
  // The gradient is the slope used.
  testing::expect_tensor_near(x.grad(), slope, 1e-12, 1e-12);

  // Eval: the mean slope, deterministic.
  m->eval();
  Tensor ye = m(x);
  testing::expect_tensor_near(ye, F::leaky_relu(x.detach(), (lower + upper) / 2), 1e-12, 1e-12);
  testing::expect_tensor_near(m(x), ye, 0, 0);
}

TEST(NnActLossModules, StateDictKeysAndBuffers) {
  auto keys = [](const nn::Module& m) {
    std::vector<std::string> k;
    for (const auto& [name, t] : m.state_dict()) k.push_back(name);
    return k;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(keys(*nn::PReLU(3)), V{"weight"});
  EXPECT_EQ(nn::PReLU(3)->parameters().size(), 1u);
  testing::expect_tensor_near(nn::PReLU(3, 0.1)->weight, full({3}, 0.1), 0, 0);
  EXPECT_EQ(keys(*nn::ReLU()), V{});
  EXPECT_EQ(keys(*nn::CrossEntropyLoss()), V{});
  EXPECT_EQ(keys(*nn::CrossEntropyLoss({.weight = ones({3})})), V{"weight"});
  EXPECT_EQ(keys(*nn::BCEWithLogitsLoss({.weight = ones({3}), .pos_weight = ones({3})})), (V{"weight", "pos_weight"}));
  EXPECT_EQ(keys(*nn::BCEWithLogitsLoss({.pos_weight = ones({3})})), V{"pos_weight"});
  for (const auto& m : std::vector<std::shared_ptr<nn::Module>>{
           nn::NLLLoss({.weight = ones({3})}).ptr(), nn::BCELoss({.weight = ones({3})}).ptr(),
           nn::MultiLabelSoftMarginLoss({.weight = ones({3})}).ptr(),
           nn::MultiMarginLoss({.weight = ones({3})}).ptr()}) {
    EXPECT_EQ(keys(*m), V{"weight"}) << m->name();
    EXPECT_TRUE(m->parameters().empty()) << m->name();  // a buffer, not a parameter
  }
  EXPECT_EQ(keys(*nn::TripletMarginWithDistanceLoss()), V{});

  // The weight given at construction is used (through the buffer), and
  // follows the module's conversions.
  Tensor w = tensor({0.5, 2.0, 1.0});
  nn::CrossEntropyLoss ce({.weight = w, .label_smoothing = 0.2});
  EXPECT_FALSE(ce->options.weight.defined());
  Tensor logits = randn({4, 3}, TensorOptions().dtype(kFloat64)), target = tensor(std::vector<int64_t>{0, 2, 1, 2});
  ce->to(kFloat64);
  EXPECT_EQ(ce->weight.dtype(), kFloat64);
  testing::expect_tensor_near(ce(logits, target),
                              F::cross_entropy(logits, target, {.weight = w.to(kFloat64), .label_smoothing = 0.2}),
                              1e-12, 1e-12);
  // CTCLoss with length lists equals the tensor form.
  Tensor lp = F::log_softmax(randn({5, 2, 4}, TensorOptions().dtype(kFloat64)), 2);
  Tensor tg = tensor(std::vector<int64_t>{1, 2, 3, 1}).reshape({2, 2});
  nn::CTCLoss ctc;
  testing::expect_tensor_near(ctc(lp, tg, std::vector<int64_t>{5, 4}, std::vector<int64_t>{2, 2}),
                              ctc(lp, tg, tensor(std::vector<int64_t>{5, 4}), tensor(std::vector<int64_t>{2, 2})),
                              1e-12, 1e-12);
}

// The functional op added for TripletMarginWithDistanceLoss: first and second
// derivatives, default and custom distances, with swap.
TEST(NnActLossModules, TripletMarginWithDistanceGradcheck) {
  auto opts = TensorOptions().dtype(kFloat64);
  variable_list xs = {randn({3, 4}, opts).requires_grad_(), randn({3, 4}, opts).requires_grad_(),
                      randn({3, 4}, opts).requires_grad_()};
  auto cosine = [](const Tensor& a, const Tensor& b) { return 1.0 - F::cosine_similarity(a, b); };
  for (bool swap : {false, true}) {
    SCOPED_TRACE(swap);
    auto loss = [swap](F::DistanceFunction d, Reduction r) {
      return [=](const variable_list& v) {
        return variable_list{F::triplet_margin_with_distance_loss(
            v[0], v[1], v[2], {.distance_function = d, .margin = 1.5, .swap = swap, .reduction = r})};
      };
    };
    EXPECT_TRUE(autograd::gradcheck(loss(nullptr, Reduction::Mean), xs));
    EXPECT_TRUE(autograd::gradcheck(loss(cosine, Reduction::None), xs));
    EXPECT_TRUE(autograd::gradgradcheck(loss(nullptr, Reduction::Sum), xs));
  }
  // Equals triplet_margin_loss with the default (p = 2) distance.
  testing::expect_tensor_near(F::triplet_margin_with_distance_loss(xs[0], xs[1], xs[2], {.swap = true}),
                              F::triplet_margin_loss(xs[0], xs[1], xs[2], {.swap = true}), 1e-12, 1e-12);
}

TEST(NnActLossModules, Errors) {
  expect_error([] { nn::Softmax m(nn::SoftmaxOptions{}); }, "Softmax: dim is required");
  expect_error([] { nn::LogSoftmax m(nn::LogSoftmaxOptions{}); }, "LogSoftmax: dim is required");
  expect_error([] { nn::Softmin m(nn::SoftminOptions{}); }, "Softmin: dim is required");
  expect_error([] { nn::Softmax2d()(randn({3, 4})); }, "Softmax2d: expected input to be 3D or 4D, got 2D instead");
  expect_error([] { nn::Hardtanh(1.0, 0.0); }, "Hardtanh: max_val");
  expect_error([] { nn::RReLU(0.5, 0.1); }, "RReLU: lower bound");
  expect_error([] { F::rrelu(randn({3}), 0.5, 0.1, false); }, "rrelu: lower bound");
  expect_error([] { nn::GELU("fast"); }, "GELU: approximate argument must be either none or tanh");
  expect_error([] { nn::Softshrink(-1.0); }, "Softshrink: lambda must be greater or equal to 0");
  expect_error([] { nn::CELU(0.0); }, "CELU");
  expect_error([] { nn::PReLU(0); }, "PReLU: num_parameters must be positive");
  expect_error([] { nn::PReLU(3)(randn({2, 4, 5})); }, "prelu");
  expect_error([] { nn::L1Loss({.reduction = Reduction::BatchMean}); }, "L1Loss: batchmean is not a valid value");
  expect_error([] { nn::CrossEntropyLoss({.reduction = Reduction::BatchMean}); }, "CrossEntropyLoss: batchmean");
  expect_error([] { nn::TripletMarginWithDistanceLoss({.margin = 0.0}); },
               "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got 0 instead");
  expect_error([] { F::triplet_margin_with_distance_loss(randn({2, 3}), randn({2, 3}), randn({3})); },
               "same number of dimensions");
  expect_error([] { nn::CrossEntropyLoss({.weight = ones({3})})(randn({2, 4}), tensor(std::vector<int64_t>{0, 1})); },
               "weight tensor should be defined either for all 4 classes or no classes");
  expect_error([] { nn::CTCLoss({.blank = -1}); }, "CTCLoss: blank must be a non-negative");
  // Loading a checkpoint without the weight buffer into a weighted loss: strict load reports it.
  expect_error([] { nn::NLLLoss({.weight = ones({4})})->load_state_dict({}, true); }, "weight");
}

}  // namespace nn_act_loss_modules_test
}  // namespace ember
