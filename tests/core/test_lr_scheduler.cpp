// LR schedulers against torch.optim.lr_scheduler (fixtures from scripts/fixtures/optim.py):
// get_last_lr() after construction and after each of 30 steps, for an SGD optimizer with two
// groups (lr 0.1 and 0.05); momentum / beta1 sequences for OneCycleLR.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>

#include <ember/ember.h>

#include "tensor_expect.h"

using namespace ember;
using namespace ember::optim;
using ember::testing::expect_error;

namespace lr_scheduler_test {

Tensor fx(const std::string& name) { return ember::testing::fixture("optim", name); }

struct Sched {
  Tensor a = zeros({2}).requires_grad_();
  Tensor b = zeros({3}).requires_grad_();
  std::unique_ptr<Optimizer> opt;
  explicit Sched(bool adam = false, double momentum = 0) {
    std::vector<ParamGroup> groups{{{a}, {{"lr", 0.1}}}, {{b}, {{"lr", 0.05}}}};
    if (adam)
      opt = std::make_unique<Adam>(groups, AdamOptions{});
    else
      opt = std::make_unique<SGD>(groups, SGDOptions{.lr = 0.01, .momentum = momentum});
  }
};

// Rows of lrs (one per group): after construction, then after each step.
void expect_sequence(LRScheduler& s, Optimizer& opt, const std::string& name,
                     const std::function<double(const ParamGroup&)>& momentum = nullptr) {
  Tensor expected = fx("sched_" + name);
  Tensor expected_m = momentum ? fx("sched_" + name + "_momentum") : Tensor();
  const int64_t rows = expected.size(0);
  for (int64_t e = 0; e < rows; ++e) {
    if (e > 0) {
      opt.step();
      s.step();
    }
    const auto& lrs = s.get_last_lr();
    ASSERT_EQ(static_cast<int64_t>(lrs.size()), expected.size(1));
    for (size_t g = 0; g < lrs.size(); ++g) {
      const double want = expected[e][static_cast<int64_t>(g)].item<double>();
      EXPECT_NEAR(lrs[g], want, 1e-12 * std::abs(want) + 1e-15) << name << " epoch " << e << " group " << g;
      EXPECT_EQ(opt.param_groups()[g].lr(), lrs[g]);
      if (momentum) {
        const double want_m = expected_m[e][static_cast<int64_t>(g)].item<double>();
        EXPECT_NEAR(momentum(opt.param_groups()[g]), want_m, 1e-12) << name << " momentum epoch " << e;
      }
    }
  }
}

TEST(LRScheduler, StepLR) {
  Sched s;
  StepLR sched(*s.opt, 7, 0.5);
  expect_sequence(sched, *s.opt, "step");
}

TEST(LRScheduler, MultiStepLRWithRepeatedMilestone) {
  Sched s;
  MultiStepLR sched(*s.opt, {5, 12, 12, 20}, 0.3);
  expect_sequence(sched, *s.opt, "multistep");
}

TEST(LRScheduler, ExponentialLR) {
  Sched s;
  ExponentialLR sched(*s.opt, 0.9);
  expect_sequence(sched, *s.opt, "exponential");
}

TEST(LRScheduler, CosineAnnealingLRRecursiveForm) {
  {
    Sched s;
    CosineAnnealingLR sched(*s.opt, 10, 0.001);
    expect_sequence(sched, *s.opt, "cosine");
  }
  Sched s;
  CosineAnnealingLR sched(*s.opt, 7);
  expect_sequence(sched, *s.opt, "cosine_nomin");
}

TEST(LRScheduler, CosineAnnealingWarmRestarts) {
  {
    Sched s;
    CosineAnnealingWarmRestarts sched(*s.opt, 5, 2, 0.01);
    expect_sequence(sched, *s.opt, "warm_restarts");
  }
  Sched s;
  CosineAnnealingWarmRestarts sched(*s.opt, 4);
  expect_sequence(sched, *s.opt, "warm_restarts_t1");
}

TEST(LRScheduler, CosineAnnealingWarmRestartsFractionalEpochs) {
  Sched s;
  CosineAnnealingWarmRestarts sched(*s.opt, 5, 2, 0.0);
  // Epoch 7.5 with T_0 = 5, T_mult = 2: second cycle (length 10), T_cur = 2.5.
  sched.step(7.5);
  EXPECT_EQ(sched.T_i(), 10);
  EXPECT_DOUBLE_EQ(sched.T_cur(), 2.5);
  EXPECT_EQ(sched.last_epoch(), 7);
  EXPECT_NEAR(sched.get_last_lr()[0], 0.1 * (1 + std::cos(M_PI * 2.5 / 10)) / 2, 1e-15);
  sched.step(int64_t{3});
  EXPECT_EQ(sched.T_i(), 5);
  EXPECT_NEAR(sched.get_last_lr()[1], 0.05 * (1 + std::cos(M_PI * 3 / 5)) / 2, 1e-15);
}

TEST(LRScheduler, LinearLR) {
  {
    Sched s;
    LinearLR sched(*s.opt, 0.25, 1.0, 8);
    expect_sequence(sched, *s.opt, "linear");
  }
  Sched s;
  LinearLR sched(*s.opt, 1.0, 0.1, 12);
  expect_sequence(sched, *s.opt, "linear_down");
}

TEST(LRScheduler, ConstantLR) {
  Sched s;
  ConstantLR sched(*s.opt, 0.5, 4);
  expect_sequence(sched, *s.opt, "constant");
}

TEST(LRScheduler, LambdaLR) {
  {
    Sched s;
    LambdaLR sched(*s.opt, [](int64_t e) { return std::pow(0.95, static_cast<double>(e)); });
    expect_sequence(sched, *s.opt, "lambda");
  }
  Sched s;
  LambdaLR sched(*s.opt, std::vector<LambdaLR::Lambda>{[](int64_t e) { return 1.0 / static_cast<double>(e + 1); },
                                                       [](int64_t e) { return std::pow(0.9, static_cast<double>(e)); }});
  expect_sequence(sched, *s.opt, "lambda_groups");
}

TEST(LRScheduler, MultiplicativeLR) {
  Sched s;
  MultiplicativeLR sched(*s.opt, [](int64_t) { return 0.9; });
  expect_sequence(sched, *s.opt, "multiplicative");
}

TEST(LRScheduler, PolynomialLR) {
  Sched s;
  PolynomialLR sched(*s.opt, 20, 2.0);
  expect_sequence(sched, *s.opt, "polynomial");
}

TEST(LRScheduler, OneCycleLR) {
  auto momentum = [](const ParamGroup& g) { return g.get_double("momentum"); };
  {
    Sched s(false, 0.9);
    OneCycleLR sched(*s.opt, {.max_lr = {0.5, 0.3}, .total_steps = 31});
    expect_sequence(sched, *s.opt, "onecycle_cos", momentum);
  }
  {
    Sched s(false, 0.9);
    OneCycleLR sched(*s.opt, {.max_lr = {0.4},
                              .total_steps = 30,
                              .pct_start = 0.25,
                              .anneal_strategy = "linear",
                              .div_factor = 10.0,
                              .final_div_factor = 100.0,
                              .three_phase = true});
    expect_sequence(sched, *s.opt, "onecycle_linear3", momentum);
  }
  {
    Sched s(/*adam=*/true);
    OneCycleLR sched(*s.opt,
                     {.max_lr = {0.2}, .epochs = 5, .steps_per_epoch = 7, .base_momentum = {0.8}, .max_momentum = {0.9}});
    expect_sequence(sched, *s.opt, "onecycle_adam",
                    [](const ParamGroup& g) { return g.at("betas").to_double_list()[0]; });
    EXPECT_EQ(s.opt->param_groups()[0].at("betas").to_double_list()[1], 0.999);
  }
  Sched s;
  OneCycleLR sched(*s.opt, {.max_lr = {0.3}, .total_steps = 40, .cycle_momentum = false});
  expect_sequence(sched, *s.opt, "onecycle_nomom");
}

TEST(LRScheduler, OneCycleLRErrors) {
  Sched s;
  expect_error([&] { OneCycleLR(*s.opt, {.max_lr = {0.1}}); }, "OneCycleLR: you must define either total_steps");
  expect_error([&] { OneCycleLR(*s.opt, {.max_lr = {0.1, 0.2, 0.3}, .total_steps = 5}); },
               "OneCycleLR: expected 2 values for max_lr, got 3");
  expect_error([&] { OneCycleLR(*s.opt, {.max_lr = {0.1}, .total_steps = 5, .anneal_strategy = "exp"}); },
               "anneal_strategy must by one of 'cos' or 'linear'");
  Sched a(/*adam=*/false);
  Tensor p = zeros({1}).requires_grad_();
  Adagrad ada({p}, {});
  expect_error([&] { OneCycleLR(ada, {.max_lr = {0.1}, .total_steps = 5}); }, "must support momentum");
  OneCycleLR sched(*a.opt, {.max_lr = {0.1}, .total_steps = 3, .cycle_momentum = false});
  for (int i = 0; i < 3; ++i) sched.step();
  expect_error([&] { sched.step(); }, "OneCycleLR: tried to step 5 times. The specified number of total steps is 3");
  // A warm-up of one step (pct_start * total_steps == 1) is an empty phase:
  // PyTorch divides zero by zero there (ZeroDivisionError), never a NaN lr.
  Sched e;
  expect_error([&] { OneCycleLR(*e.opt, {.max_lr = {0.1}, .total_steps = 4, .pct_start = 0.25}); },
               "OneCycleLR: phase 1 of the schedule is empty at step 0");
}

TEST(LRScheduler, SequentialLR) {
  {
    Sched s;
    auto warmup = std::make_shared<LinearLR>(*s.opt, 0.1, 1.0, 5);
    auto cosine = std::make_shared<CosineAnnealingLR>(*s.opt, 20);
    SequentialLR sched(*s.opt, {warmup, cosine}, {5});
    expect_sequence(sched, *s.opt, "sequential");
  }
  Sched s;
  auto c = std::make_shared<ConstantLR>(*s.opt, 0.3, 3);
  auto e = std::make_shared<ExponentialLR>(*s.opt, 0.9);
  auto st = std::make_shared<StepLR>(*s.opt, 4, 0.5);
  SequentialLR sched(*s.opt, {c, e, st}, {6, 15});
  expect_sequence(sched, *s.opt, "sequential3");
  expect_error([&] { SequentialLR(*s.opt, {c, e}, {1, 2}); }, "SequentialLR: expects number of schedulers");
  Sched other;
  expect_error([&] { SequentialLR(*other.opt, {c}, {}); }, "to belong to the same optimizer");
}

TEST(LRScheduler, ReduceLROnPlateau) {
  struct Case {
    const char* name;
    ReduceLROnPlateauOptions options;
  };
  const std::vector<Case> cases = {
      {"plateau_min_rel", {.mode = "min", .factor = 0.5, .patience = 2, .threshold = 0.01}},
      {"plateau_min_abs",
       {.factor = 0.3, .patience = 1, .threshold = 0.02, .threshold_mode = "abs", .cooldown = 2,
        .min_lr = {0.01, 0.004}}},
      {"plateau_max_rel", {.mode = "max", .factor = 0.5, .patience = 1, .threshold = 0.0, .min_lr = {0.02}}},
      {"plateau_max_abs",
       {.mode = "max", .factor = 0.1, .patience = 3, .threshold = 0.01, .threshold_mode = "abs", .cooldown = 1,
        .eps = 0.01}},
  };
  Tensor metrics = fx("plateau_metrics");
  for (const auto& c : cases) {
    Sched s;
    ReduceLROnPlateau sched(*s.opt, c.options);
    Tensor expected = fx(std::string("sched_") + c.name);
    for (int64_t e = 0; e < metrics.size(0); ++e) {
      s.opt->step();
      sched.step(metrics[e].item<double>());
      for (int64_t g = 0; g < 2; ++g)
        EXPECT_NEAR(sched.get_last_lr()[static_cast<size_t>(g)], expected[e][g].item<double>(), 1e-15)
            << c.name << " epoch " << e;
    }
    EXPECT_EQ(sched.last_epoch(), metrics.size(0));
  }
}

TEST(LRScheduler, ReduceLROnPlateauErrors) {
  Sched s;
  expect_error([&] { ReduceLROnPlateau(*s.opt, {.factor = 1.0}); }, "factor should be < 1.0");
  expect_error([&] { ReduceLROnPlateau(*s.opt, {.mode = "up"}); }, "mode 'up' is unknown");
  expect_error([&] { ReduceLROnPlateau(*s.opt, {.threshold_mode = "pct"}); }, "threshold mode 'pct' is unknown");
  expect_error([&] { ReduceLROnPlateau(*s.opt, {.min_lr = {0.1, 0.2, 0.3}}); }, "expected 2 values for min_lr");
}

TEST(LRScheduler, InitialLrAndResume) {
  Sched s;
  {
    StepLR sched(*s.opt, 2, 0.5);
    EXPECT_EQ(s.opt->param_groups()[0].get_double("initial_lr"), 0.1);
    EXPECT_EQ(sched.base_lrs(), (std::vector<double>{0.1, 0.05}));
    for (int i = 0; i < 4; ++i) sched.step();
    EXPECT_NEAR(s.opt->param_groups()[0].lr(), 0.025, 1e-15);
  }
  // Resuming: base_lrs come from initial_lr; the first step (epoch 4) applies the chainable
  // form to the current lr again, as in PyTorch; step(epoch) uses the closed form.
  StepLR resumed(*s.opt, 2, 0.5, /*last_epoch=*/3);
  EXPECT_EQ(resumed.base_lrs(), (std::vector<double>{0.1, 0.05}));
  EXPECT_NEAR(resumed.get_last_lr()[0], 0.0125, 1e-15);
  resumed.step(int64_t{5});
  EXPECT_NEAR(resumed.get_last_lr()[0], 0.025, 1e-15);
  resumed.step(int64_t{6});
  EXPECT_NEAR(resumed.get_last_lr()[1], 0.05 * 0.125, 1e-15);
  Sched fresh;
  expect_error([&] { StepLR(*fresh.opt, 2, 0.5, 3); }, "param 'initial_lr' is not specified in param_groups[0]");
}

// ---- state_dict: resuming from PyTorch checkpoints and from Ember's own ----

serialize::IValue sched_checkpoint(const std::string& name) {
  return serialize::load_torch(ember::testing::fixture_path("core/optim/sched_" + name + "_ckpt12.pt"));
}

// Sets the optimizer's lrs to the fixture's row `epoch` (what loading the
// optimizer's state would do), then steps on and compares the rest.
void expect_resumed_sequence(LRScheduler& s, Optimizer& opt, const std::string& name, int64_t epoch) {
  Tensor expected = fx("sched_" + name);
  for (size_t g = 0; g < opt.param_groups().size(); ++g)
    opt.param_groups()[g].set_lr(expected[epoch][static_cast<int64_t>(g)].item<double>());
  for (int64_t e = epoch + 1; e < expected.size(0); ++e) {
    opt.step();
    s.step();
    for (size_t g = 0; g < s.get_last_lr().size(); ++g) {
      const double want = expected[e][static_cast<int64_t>(g)].item<double>();
      EXPECT_NEAR(s.get_last_lr()[g], want, 1e-12 * std::abs(want) + 1e-15) << name << " epoch " << e;
    }
  }
}

TEST(LRSchedulerState, ResumeFromPyTorchCheckpoint) {
  {
    Sched s;
    CosineAnnealingLR sched(*s.opt, 10, 0.001);
    sched.load_state_dict(dict_from_torch(sched_checkpoint("cosine")));
    EXPECT_EQ(sched.last_epoch(), 12);
    expect_resumed_sequence(sched, *s.opt, "cosine", 12);
  }
  {
    Sched s;
    CosineAnnealingWarmRestarts sched(*s.opt, 5, 2, 0.01);
    sched.load_state_dict(dict_from_torch(sched_checkpoint("warm_restarts")));
    EXPECT_EQ(sched.T_i(), 10);
    expect_resumed_sequence(sched, *s.opt, "warm_restarts", 12);
  }
  {
    Sched s;
    auto warmup = std::make_shared<LinearLR>(*s.opt, 0.1, 1.0, 5);
    auto cosine = std::make_shared<CosineAnnealingLR>(*s.opt, 20);
    SequentialLR sched(*s.opt, {warmup, cosine}, {5});
    Dict state = dict_from_torch(sched_checkpoint("sequential"));
    EXPECT_TRUE(state.count("_schedulers.1.last_epoch"));
    sched.load_state_dict(state);
    expect_resumed_sequence(sched, *s.opt, "sequential", 12);
  }
}

TEST(LRSchedulerState, ReduceLROnPlateauFromPyTorchCheckpoint) {
  Tensor metrics = fx("plateau_metrics");
  Sched s;
  ReduceLROnPlateau sched(*s.opt, {.factor = 0.3, .patience = 1, .threshold = 0.02, .threshold_mode = "abs",
                                   .cooldown = 2, .min_lr = {0.01, 0.004}});
  serialize::IValue ckpt = sched_checkpoint("plateau_min_abs");
  s.opt->load_state_dict(optimizer_state_dict_from_torch(ckpt.at("optimizer")));
  sched.load_state_dict(dict_from_torch(ckpt.at("scheduler")));
  Tensor expected = fx("sched_plateau_min_abs");
  for (int64_t e = 12; e < metrics.size(0); ++e) {
    s.opt->step();
    sched.step(metrics[e].item<double>());
    for (int64_t g = 0; g < 2; ++g)
      EXPECT_NEAR(sched.get_last_lr()[static_cast<size_t>(g)], expected[e][g].item<double>(), 1e-15) << e;
  }
}

TEST(LRSchedulerState, RoundTripThroughMetadata) {
  Sched a, b;
  CosineAnnealingWarmRestarts sa(*a.opt, 3, 2, 0.001), sb(*b.opt, 3, 2, 0.001);
  for (int i = 0; i < 7; ++i) sa.step();
  Metadata meta;
  write_scheduler_state(sa.state_dict(), meta);
  sb.load_state_dict(read_scheduler_state(meta));
  for (size_t g = 0; g < 2; ++g) b.opt->param_groups()[g].set_lr(a.opt->param_groups()[g].lr());
  EXPECT_EQ(sb.T_cur(), sa.T_cur());
  for (int i = 0; i < 10; ++i) {
    sa.step();
    sb.step();
    EXPECT_EQ(sb.get_last_lr(), sa.get_last_lr()) << i;
  }
  expect_error([&] { sb.load_state_dict(Dict{{"base_lrs", std::vector<double>{0.1, 0.2}}}); }, "no 'last_epoch'");
  expect_error([&] { sb.load_state_dict(Dict{{"last_epoch", 3}, {"base_lrs", std::vector<double>{0.1}}}); },
               "'base_lrs' has 1 values but the optimizer has 2");
}

}  // namespace lr_scheduler_test
