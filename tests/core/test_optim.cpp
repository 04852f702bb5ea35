// Optimizers against torch.optim (fixtures from scripts/fixtures/optim.py): a 2-layer MLP
// (float64 weights as plain leaves) trained 20 steps with each optimizer and option set must
// end within 1e-6 relative of PyTorch's parameters; LBFGS trajectories too. Plus parameter
// groups, state_dict round trips and layout, zero_grad and option errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>

#include <ember/ember.h>

#include "tensor_expect.h"

using namespace ember;
using namespace ember::optim;
using ember::testing::expect_error;
using ember::testing::expect_tensor_near;

namespace optim_test {

Tensor fx(const std::string& name) { return ember::testing::fixture("optim", name); }

struct Model {
  Tensor x = fx("x"), y = fx("y");
  std::vector<Tensor> params;  // w1, b1, w2, b2
  Model() {
    for (const char* n : {"w1", "b1", "w2", "b2"}) params.push_back(fx(n).clone().requires_grad_());
  }
  Tensor loss() const {
    Tensor out = (x.matmul(params[0]) + params[1]).tanh().matmul(params[2]) + params[3];
    return (out - y).square().mean();
  }
  Tensor flat() const {
    std::vector<Tensor> v;
    for (const auto& p : params) v.push_back(p.detach().reshape({-1}));
    return cat(v, 0);
  }
};

std::vector<double> train(Model& m, Optimizer& opt, int steps) {
  std::vector<double> losses;
  for (int i = 0; i < steps; ++i) {
    opt.zero_grad();
    Tensor loss = m.loss();
    loss.backward();
    opt.step();
    losses.push_back(loss.item<double>());
  }
  return losses;
}

using Factory = std::function<std::unique_ptr<Optimizer>(const std::vector<Tensor>&)>;

struct Config {
  const char* name;
  Factory make;
};

template <class O, class Opts>
Factory plain(Opts options) {
  return [options](const std::vector<Tensor>& p) { return std::make_unique<O>(p, options); };
}

const std::vector<Config>& configs() {
  static const std::vector<Config> c = {
      {"sgd", plain<SGD>(SGDOptions{.lr = 0.1})},
      {"sgd_momentum", plain<SGD>(SGDOptions{.lr = 0.05, .momentum = 0.9, .dampening = 0.1, .weight_decay = 0.01})},
      {"sgd_nesterov", plain<SGD>(SGDOptions{.lr = 0.05, .momentum = 0.9, .weight_decay = 0.001, .nesterov = true})},
      {"sgd_maximize", plain<SGD>(SGDOptions{.lr = 0.01, .momentum = 0.5, .maximize = true})},
      {"sgd_groups",
       [](const std::vector<Tensor>& p) {
         return std::make_unique<SGD>(
             std::vector<ParamGroup>{{{p[0], p[1]}, {{"lr", 0.1}, {"weight_decay", 0.01}}},
                                     {{p[2], p[3]}, {{"momentum", 0.9}}}},
             SGDOptions{.lr = 0.02});
       }},
      {"adam", plain<Adam>(AdamOptions{.lr = 0.01})},
      {"adam_amsgrad",
       plain<Adam>(AdamOptions{.lr = 0.02, .betas = {0.8, 0.99}, .weight_decay = 0.01, .amsgrad = true})},
      {"adam_maximize", plain<Adam>(AdamOptions{.lr = 0.005, .eps = 1e-6, .maximize = true})},
      {"adam_groups",
       [](const std::vector<Tensor>& p) {
         return std::make_unique<Adam>(
             std::vector<ParamGroup>{{{p[0], p[2]}, {{"lr", 0.03}, {"weight_decay", 0.05}}},
                                     {{p[1], p[3]}, {{"amsgrad", true}}}},
             AdamOptions{.lr = 0.01});
       }},
      {"adamw", plain<AdamW>(AdamWOptions{.lr = 0.01, .weight_decay = 0.1})},
      {"adamw_amsgrad", plain<AdamW>(AdamWOptions{.lr = 0.02, .amsgrad = true, .maximize = true})},
      {"adagrad", plain<Adagrad>(AdagradOptions{
                      .lr = 0.1, .lr_decay = 0.01, .weight_decay = 0.01, .initial_accumulator_value = 0.1})},
      {"adagrad_maximize", plain<Adagrad>(AdagradOptions{.lr = 0.05, .eps = 1e-8, .maximize = true})},
      {"rmsprop", plain<RMSprop>(RMSpropOptions{.lr = 0.01})},
      {"rmsprop_centered", plain<RMSprop>(RMSpropOptions{
                               .lr = 0.005, .alpha = 0.9, .weight_decay = 0.01, .momentum = 0.9, .centered = true})},
      {"rmsprop_maximize", plain<RMSprop>(RMSpropOptions{.lr = 0.001, .momentum = 0.5, .maximize = true})},
      {"adadelta", plain<Adadelta>(AdadeltaOptions{.lr = 1.0, .rho = 0.9, .weight_decay = 0.01})},
      {"adadelta_maximize", plain<Adadelta>(AdadeltaOptions{.lr = 0.5, .eps = 1e-5, .maximize = true})},
      {"adamax", plain<Adamax>(AdamaxOptions{.lr = 0.02, .weight_decay = 0.01})},
      {"adamax_maximize", plain<Adamax>(AdamaxOptions{.lr = 0.01, .betas = {0.5, 0.9}, .maximize = true})},
      {"nadam", plain<NAdam>(NAdamOptions{.lr = 0.01, .weight_decay = 0.01})},
      {"nadam_decay", plain<NAdam>(NAdamOptions{.lr = 0.02, .betas = {0.8, 0.99}, .momentum_decay = 0.01})},
      {"radam", plain<RAdam>(RAdamOptions{.lr = 0.01, .weight_decay = 0.01})},
      {"radam_betas", plain<RAdam>(RAdamOptions{.lr = 0.02, .betas = {0.8, 0.9}})},
  };
  return c;
}

void PrintTo(const Config& c, std::ostream* os) { *os << c.name; }

const Config& config(const std::string& name) {
  for (const auto& c : configs())
    if (name == c.name) return c;
  throw std::runtime_error("no config " + name);
}

constexpr double kRtol = 1e-6;  // first-order optimizers agree to ~1e-11, LBFGS with line search to ~1e-9

class OptimizerTrajectory : public ::testing::TestWithParam<Config> {};

TEST_P(OptimizerTrajectory, MatchesPyTorchAfter20Steps) {
  const Config& c = GetParam();
  Model m;
  auto opt = c.make(m.params);
  auto losses = train(m, *opt, 20);
  expect_tensor_near(m.flat(), fx(std::string(c.name) + "_params"), kRtol, 1e-12);
  expect_tensor_near(tensor(losses, TensorOptions(kFloat64)), fx(std::string(c.name) + "_losses"), kRtol, 1e-12);
  // Steps leave the parameters leaves that require grad.
  for (const auto& p : m.params) {
    EXPECT_TRUE(p.is_leaf());
    EXPECT_TRUE(p.requires_grad());
  }
}

INSTANTIATE_TEST_SUITE_P(Optim, OptimizerTrajectory, ::testing::ValuesIn(configs()),
                         [](const auto& info) { return std::string(info.param.name); });

// ---- LBFGS ----

struct LBFGSCase {
  const char* name;
  LBFGSOptions options;
};

void PrintTo(const LBFGSCase& c, std::ostream* os) { *os << c.name; }

class LBFGSTrajectory : public ::testing::TestWithParam<LBFGSCase> {};

TEST_P(LBFGSTrajectory, MatchesPyTorch) {
  const auto& c = GetParam();
  Model m;
  LBFGS opt(m.params, c.options);
  auto closure = [&] {
    opt.zero_grad();
    Tensor loss = m.loss();
    loss.backward();
    return loss;
  };
  std::vector<double> losses;
  for (int i = 0; i < 5; ++i) losses.push_back(opt.step(closure).item<double>());
  expect_tensor_near(m.flat(), fx(std::string(c.name) + "_params"), kRtol, 1e-12);
  expect_tensor_near(tensor(losses, TensorOptions(kFloat64)), fx(std::string(c.name) + "_losses"), kRtol, 1e-12);
  Tensor counts = fx(std::string(c.name) + "_counts");
  const ParamState& st = opt.state(m.params[0]);
  EXPECT_EQ(st.at("func_evals").to_int(), counts[0].item<int64_t>());
  EXPECT_EQ(st.at("n_iter").to_int(), counts[1].item<int64_t>());
  EXPECT_EQ(opt.state_size(), 1u);  // LBFGS keeps its state with the first parameter
}

INSTANTIATE_TEST_SUITE_P(
    Optim, LBFGSTrajectory,
    ::testing::Values(LBFGSCase{"lbfgs", {.lr = 1, .max_iter = 5, .history_size = 4}},
                      LBFGSCase{"lbfgs_lr",
                                {.lr = 0.5, .max_iter = 7, .max_eval = 9, .tolerance_grad = 1e-9, .history_size = 3}},
                      LBFGSCase{"lbfgs_wolfe",
                                {.lr = 1, .max_iter = 6, .history_size = 3, .line_search_fn = "strong_wolfe"}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(OptimLBFGS, StateDictRoundTrip) {
  LBFGSOptions o{.lr = 1, .max_iter = 6, .history_size = 3, .line_search_fn = "strong_wolfe"};
  Model m;
  auto opt = std::make_unique<LBFGS>(m.params, o);
  auto closure_for = [&](Optimizer& op) {
    return [&] {
      op.zero_grad();
      Tensor loss = m.loss();
      loss.backward();
      return loss;
    };
  };
  for (int i = 0; i < 2; ++i) opt->step(closure_for(*opt));
  auto sd = opt->state_dict();
  opt.reset();
  LBFGS resumed(m.params, o);
  resumed.load_state_dict(sd);
  for (int i = 0; i < 3; ++i) resumed.step(closure_for(resumed));
  expect_tensor_near(m.flat(), fx("lbfgs_wolfe_params"), kRtol, 1e-12);
}

TEST(OptimLBFGS, Errors) {
  Model m;
  LBFGS opt(m.params, {});
  Optimizer& base = opt;
  expect_error([&] { base.step(); }, "LBFGS: step() needs a closure");
  expect_error([&] { LBFGS(std::vector<ParamGroup>{{{m.params[0]}}, {{m.params[1]}}}, {}); }, "LBFGS: doesn't support per-parameter options");
  expect_error([&] { LBFGS(m.params, {.line_search_fn = "armijo"}); }, "only 'strong_wolfe'");
  expect_error([&] { LBFGS(m.params, {.lr = -1}); }, "LBFGS: invalid learning rate: -1");
}

// ---- state_dict ----

class OptimizerStateDictRoundTrip : public ::testing::TestWithParam<const char*> {};

// Save after 10 steps, build a new optimizer, load, continue 10 steps: the same trajectory as
// 20 uninterrupted steps (which matches PyTorch).
TEST_P(OptimizerStateDictRoundTrip, ResumesTheSameTrajectory) {
  const Config& c = config(GetParam());
  Model m;
  auto opt = c.make(m.params);
  train(m, *opt, 10);
  OptimizerStateDict sd = opt->state_dict();
  opt.reset();
  auto resumed = c.make(m.params);
  resumed->load_state_dict(sd);
  train(m, *resumed, 10);
  expect_tensor_near(m.flat(), fx(std::string(c.name) + "_params"), kRtol, 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Optim, OptimizerStateDictRoundTrip,
                         ::testing::Values("sgd_momentum", "sgd_groups", "adam_amsgrad", "adam_groups", "adamw",
                                           "adagrad", "rmsprop_centered", "adadelta", "adamax", "nadam", "radam"));

// PyTorch checkpoints: torch.save({"optimizer": opt.state_dict(), "params": [...]}) after 10
// of the 20 steps; loading both and continuing 10 steps gives PyTorch's final parameters.
class OptimizerResumeFromTorch : public ::testing::TestWithParam<const char*> {};

TEST_P(OptimizerResumeFromTorch, ContinuesPyTorchsTrajectory) {
  const Config& c = config(GetParam());
  serialize::IValue ckpt = serialize::load_torch(
      ember::testing::fixture_path("core/optim/" + std::string(c.name) + "_ckpt10.pt"));
  Model m;
  const auto& saved = ckpt.at("params").to_list();
  ASSERT_EQ(saved.size(), m.params.size());
  {
    NoGradGuard no_grad;
    for (size_t i = 0; i < saved.size(); ++i) m.params[i].copy_(saved[i].to_tensor());
  }
  auto opt = c.make(m.params);
  opt->load_state_dict(optimizer_state_dict_from_torch(ckpt.at("optimizer")));
  train(m, *opt, 10);
  expect_tensor_near(m.flat(), fx(std::string(c.name) + "_params"), kRtol, 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Optim, OptimizerResumeFromTorch,
                         ::testing::Values("sgd_momentum", "sgd_groups", "adam_amsgrad", "adam_groups", "adamw",
                                           "adagrad", "rmsprop_centered", "adadelta", "adamax", "nadam", "radam"));

// ember::save of an optimizer state (safetensors) and back, mid-training.
class OptimizerStateFile : public ::testing::TestWithParam<const char*> {};

TEST_P(OptimizerStateFile, SaveLoadResumes) {
  const Config& c = config(GetParam());
  const std::string path = ::testing::TempDir() + "ember_opt_" + c.name + ".safetensors";
  Model m;
  auto opt = c.make(m.params);
  train(m, *opt, 10);
  ember::save(path, opt->state_dict());
  opt.reset();
  auto resumed = c.make(m.params);
  resumed->load_state_dict(load_optimizer_state_dict(path));
  train(m, *resumed, 10);
  expect_tensor_near(m.flat(), fx(std::string(c.name) + "_params"), kRtol, 1e-12);
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Optim, OptimizerStateFile,
                         ::testing::Values("sgd_momentum", "adam_groups", "adam_amsgrad", "rmsprop_centered",
                                           "adadelta", "nadam", "radam"));

TEST(OptimStateFile, OneCheckpointWithModelOptimizerAndScheduler) {
  Model m;
  Adam opt(m.params, {.lr = 0.01, .amsgrad = true});
  StepLR sched(opt, 3, 0.5);
  train(m, opt, 4);
  sched.step();
  StateDict tensors;
  for (size_t i = 0; i < m.params.size(); ++i) tensors.insert("param" + std::to_string(i), m.params[i]);
  Metadata meta{{"epoch", "4"}};
  write_optimizer_state(opt.state_dict(), tensors, meta);
  write_scheduler_state(sched.state_dict(), meta);
  const std::string path = ::testing::TempDir() + "ember_ckpt.safetensors";
  ember::save(path, tensors, meta);

  Metadata meta2;
  StateDict back = ember::load(path, &meta2);
  EXPECT_EQ(meta2.at("epoch"), "4");
  Model m2;
  {
    NoGradGuard no_grad;
    for (size_t i = 0; i < m2.params.size(); ++i) m2.params[i].copy_(back.at("param" + std::to_string(i)));
  }
  Adam opt2(m2.params, {.lr = 0.5});  // options come from the file
  StepLR sched2(opt2, 3, 0.5);
  opt2.load_state_dict(read_optimizer_state(back, meta2));
  sched2.load_state_dict(read_scheduler_state(meta2));
  EXPECT_EQ(sched2.last_epoch(), 1);
  EXPECT_EQ(opt2.param_groups()[0].lr(), 0.01);
  EXPECT_TRUE(opt2.param_groups()[0].options.at("amsgrad").to_bool());
  for (int i = 0; i < 3; ++i) {
    train(m, opt, 1);
    sched.step();
    train(m2, opt2, 1);
    sched2.step();
  }
  expect_tensor_near(m2.flat(), m.flat(), 0, 0);
  EXPECT_EQ(sched2.get_last_lr(), sched.get_last_lr());
  std::remove(path.c_str());
}

TEST(OptimStateFile, JsonValuesRoundTrip) {
  Dict d{{"none", Value()},        {"flag", true},           {"count", int64_t{-3}},
         {"whole", 2.0},           {"tiny", 1e-300},         {"inf", INFINITY},
         {"neg_inf", -INFINITY},   {"name", "cos\"quoted\""}, {"betas", std::vector<double>{0.9, 0.999}},
         {"empty", std::vector<double>{}}};
  Dict back = dict_from_json(dict_to_json(d));
  EXPECT_EQ(back.size(), d.size());
  for (const auto& [key, value] : d) EXPECT_TRUE(back.at(key) == value) << key << ": " << back.at(key);
  EXPECT_TRUE(back.at("whole").is_double());
  EXPECT_TRUE(back.at("count").is_int());
  Dict nan_dict{{"x", NAN}};
  EXPECT_TRUE(std::isnan(dict_from_json(dict_to_json(nan_dict)).at("x").to_double()));
  expect_error([] { dict_to_json(Dict{{"t", zeros({1})}}); }, "entry 't' holds a tensor");
}

TEST(OptimStateFile, Errors) {
  StateDict tensors;
  Metadata meta;
  expect_error([&] { read_optimizer_state(tensors, meta); }, "no 'optimizer' entry");
  meta.insert("optimizer", "{\"format\": \"ember.optim.v1\", \"state\": {\"0\": {\"step\": "
                           "{\"tensor\": \"optimizer.state.0.step\"}}}, \"param_groups\": []}");
  expect_error([&] { read_optimizer_state(tensors, meta); }, "refers to tensor 'optimizer.state.0.step'");
  meta.insert("optimizer", "{\"format\": \"other\"}");
  expect_error([&] { read_optimizer_state(tensors, meta); }, "not in the format ember.optim.v1");
  meta.insert("optimizer", "{\"format\": ");
  expect_error([&] { read_optimizer_state(tensors, meta); }, "optimizer state 'optimizer'");
  expect_error([] { optimizer_state_dict_from_torch(serialize::IValue(int64_t{3})); }, "expected the dict");
  // Loaded into an optimizer whose groups differ: the optimizer's own check.
  Model m;
  SGD opt(m.params, {.lr = 0.1, .momentum = 0.9});
  train(m, opt, 1);
  Metadata meta2;
  StateDict t2;
  write_optimizer_state(opt.state_dict(), t2, meta2);
  expect_error([&] { write_optimizer_state(opt.state_dict(), t2, meta2); }, "already has an entry 'optimizer'");
  SGD small({m.params[0]}, {.lr = 0.1});
  expect_error([&] { small.load_state_dict(read_optimizer_state(t2, meta2)); }, "doesn't match the size");
}

TEST(OptimStateDict, PyTorchLayout) {
  Model m;
  Adam opt(std::vector<ParamGroup>{{{m.params[0], m.params[1]}, {{"lr", 0.1}}}, {{m.params[2], m.params[3]}}},
           {.lr = 0.01, .amsgrad = true});
  // Only parameters with a gradient get state.
  Tensor loss = m.loss();
  loss.backward();
  m.params[3].set_grad(Tensor());
  opt.step();
  auto sd = opt.state_dict();
  ASSERT_EQ(sd.param_groups.size(), 2u);
  EXPECT_EQ(sd.param_groups[0].params, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(sd.param_groups[1].params, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(sd.param_groups[0].options.at("lr").to_double(), 0.1);
  EXPECT_EQ(sd.param_groups[1].options.at("lr").to_double(), 0.01);
  EXPECT_EQ(sd.param_groups[1].options.at("betas").to_double_list(), (std::vector<double>{0.9, 0.999}));
  EXPECT_TRUE(sd.param_groups[1].options.at("amsgrad").to_bool());
  for (const char* key : {"eps", "weight_decay", "maximize"}) EXPECT_TRUE(sd.param_groups[0].options.count(key));
  ASSERT_EQ(sd.state.size(), 3u);
  EXPECT_FALSE(sd.state.count(3));
  const ParamState& s0 = sd.state.at(0);
  EXPECT_EQ(s0.size(), 4u);
  const Tensor& step = s0.at("step").to_tensor();
  EXPECT_EQ(step.dim(), 0);
  EXPECT_EQ(step.dtype(), kFloat32);
  EXPECT_EQ(step.item<double>(), 1.0);
  for (const char* key : {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"}) {
    EXPECT_EQ(s0.at(key).to_tensor().sizes(), m.params[0].sizes()) << key;
    EXPECT_EQ(s0.at(key).to_tensor().dtype(), kFloat64) << key;
  }
  // state_dict shares the state tensors; load_state_dict copies them.
  EXPECT_TRUE(s0.at("exp_avg").to_tensor().is_same(opt.state(m.params[0]).at("exp_avg").to_tensor()));
}

TEST(OptimStateDict, LoadCopiesAndCasts) {
  Model m;
  SGD opt(m.params, {.lr = 0.1, .momentum = 0.9});
  train(m, opt, 2);
  auto sd = opt.state_dict();
  // Float32 state is cast to the (float64) parameters' dtype; "step"-like scalars are kept.
  for (auto& [i, st] : sd.state) st["momentum_buffer"] = st["momentum_buffer"].to_tensor().to(kFloat32);
  SGD other(m.params, {.lr = 0.5});
  other.load_state_dict(sd);
  EXPECT_EQ(other.param_groups()[0].lr(), 0.1);  // options come from the state dict
  EXPECT_EQ(other.param_groups()[0].get_double("momentum"), 0.9);
  const Tensor& buf = other.state(m.params[0]).at("momentum_buffer").to_tensor();
  EXPECT_EQ(buf.dtype(), kFloat64);
  EXPECT_FALSE(buf.is_same(opt.state(m.params[0]).at("momentum_buffer").to_tensor()));
  expect_tensor_near(buf, opt.state(m.params[0]).at("momentum_buffer").to_tensor(), 1e-6, 1e-7);
}

TEST(OptimStateDict, LoadErrors) {
  Model m;
  Adam opt(std::vector<ParamGroup>{{{m.params[0], m.params[1]}}, {{m.params[2], m.params[3]}}}, {});
  auto sd = opt.state_dict();
  Adam one_group(m.params, {});
  expect_error([&] { one_group.load_state_dict(sd); }, "Adam: loaded state dict has a different number of parameter groups");
  Adam other_sizes(std::vector<ParamGroup>{{{m.params[0]}}, {{m.params[1], m.params[2], m.params[3]}}}, {});
  expect_error([&] { other_sizes.load_state_dict(sd); }, "doesn't match the size of optimizer's group 0");
  sd.state[7] = ParamState{{"step", 1.0}};
  Adam same(std::vector<ParamGroup>{{{m.params[0], m.params[1]}}, {{m.params[2], m.params[3]}}}, {});
  expect_error([&] { same.load_state_dict(sd); }, "state for parameter 7");
}

// ---- groups, zero_grad, closures ----

TEST(OptimGroups, AddParamGroupTakesDefaults) {
  Model m;
  SGD opt({m.params[0], m.params[1]}, {.lr = 0.1, .momentum = 0.9});
  opt.add_param_group({{m.params[2]}, {{"lr", 0.01}}});
  opt.add_param_group({{m.params[3]}, SGDOptions{.lr = 0.5, .nesterov = false}});
  ASSERT_EQ(opt.param_groups().size(), 3u);
  EXPECT_EQ(opt.param_groups()[1].lr(), 0.01);
  EXPECT_EQ(opt.param_groups()[1].get_double("momentum"), 0.9);
  EXPECT_EQ(opt.param_groups()[2].get_double("momentum"), 0.0);  // a full options struct
  EXPECT_EQ(opt.parameters().size(), 4u);
  expect_error([&] { opt.add_param_group({{m.params[0]}}); }, "SGD: some parameters appear in more than one parameter group");
  expect_error([&] { opt.add_param_group({{m.params[0] * 2}}); }, "can't optimize a non-leaf Tensor");
  expect_error([&] { opt.add_param_group({{fx("x").requires_grad_()}, {{"lr", -1.0}}}); },
               "SGD: invalid learning rate: -1");
}

TEST(OptimGroups, GroupOptionsChangeBetweenSteps) {
  Model m;
  SGD opt(m.params, {.lr = 0.1});
  Tensor before = m.params[0].detach().clone();
  m.loss().backward();
  opt.param_groups()[0].set_lr(0.0);
  opt.step();
  expect_tensor_near(m.params[0].detach(), before, 0, 0);
  opt.param_groups()[0]["lr"] = 0.5;
  Tensor g = m.params[0].grad().clone();
  opt.step();
  expect_tensor_near(m.params[0].detach(), before - g * 0.5, 1e-12, 1e-14);
}

TEST(OptimZeroGrad, SetToNoneOrZero) {
  Model m;
  Adam opt(m.params, {});
  m.loss().backward();
  opt.zero_grad(/*set_to_none=*/false);
  for (const auto& p : m.params) {
    ASSERT_TRUE(p.grad().defined());
    EXPECT_EQ(p.grad().abs().sum().item<double>(), 0.0);
  }
  opt.zero_grad();
  for (const auto& p : m.params) EXPECT_FALSE(p.grad().defined());
  // Without gradients a step changes nothing and creates no state.
  Tensor before = m.flat();
  opt.step();
  expect_tensor_near(m.flat(), before, 0, 0);
  EXPECT_EQ(opt.state_size(), 0u);
}

TEST(OptimStep, ClosureRunsWithGradAndReturnsLoss) {
  Model m;
  SGD opt(m.params, {.lr = 0.1});
  NoGradGuard no_grad;  // the closure still records (PyTorch's enable_grad)
  Tensor loss = opt.step([&] {
    opt.zero_grad();
    Tensor l = m.loss();
    EXPECT_TRUE(l.requires_grad());
    l.backward();
    return l;
  });
  ASSERT_TRUE(loss.defined());
  EXPECT_NEAR(loss.item<double>(), fx("sgd_losses")[0].item<double>(), 1e-12);
  EXPECT_FALSE(opt.step().defined());
}

TEST(OptimStep, ComplexParametersUseTheRealView) {
  // Adam on a complex parameter = Adam on its (re, im) pairs, as torch.view_as_real.
  Tensor c = tensor<double>({0.5, -1.0, 2.0, 0.25, 1.5, -0.75}, TensorOptions(kFloat64)).view({3, 2});
  Tensor z0 = tensor<double>({1.0, 2.0, -0.5, 0.3, 0.7, -1.2}, TensorOptions(kFloat64)).view({3, 2});
  Tensor r = z0.clone().requires_grad_();
  Tensor z = z0.clone().view(kComplex128).squeeze(-1).requires_grad_();
  Adam opt_r({r}, {.lr = 0.1, .amsgrad = true});
  Adam opt_z({z}, {.lr = 0.1, .amsgrad = true});
  for (int i = 0; i < 5; ++i) {
    opt_r.zero_grad();
    opt_z.zero_grad();
    (r - c).square().sum().backward();
    Tensor g = z.detach().unsqueeze(-1).view(kFloat64) - c;  // d/dz of |z - c|^2 in PyTorch's convention
    z.set_grad((g * 2).view(kComplex128).squeeze(-1));
    opt_r.step();
    opt_z.step();
  }
  expect_tensor_near(z.detach().unsqueeze(-1).view(kFloat64), r.detach(), 1e-12, 1e-14);
}

// ---- option errors ----

TEST(OptimErrors, BadOptionsNameTheOptimizerAndValue) {
  Model m;
  const auto& p = m.params;
  expect_error([&] { SGD(p, {}); }, "SGD: the learning rate (lr) is required");
  expect_error([&] { SGD(p, {.lr = -0.1}); }, "SGD: invalid learning rate: -0.1");
  expect_error([&] { SGD(p, {.lr = 0.1, .momentum = -1}); }, "SGD: invalid momentum value: -1");
  expect_error([&] { SGD(p, {.lr = 0.1, .weight_decay = -0.5}); }, "SGD: invalid weight_decay value: -0.5");
  expect_error([&] { SGD(p, {.lr = 0.1, .nesterov = true}); }, "SGD: Nesterov momentum requires a momentum");
  expect_error([&] { Adam(p, {.lr = -1e-3}); }, "Adam: invalid learning rate: -0.001");
  expect_error([&] { Adam(p, {.betas = {1.0, 0.999}}); }, "Adam: invalid beta parameter at index 0: 1");
  expect_error([&] { AdamW(p, {.betas = {0.9, -0.1}}); }, "AdamW: invalid beta parameter at index 1: -0.1");
  expect_error([&] { AdamW(p, {.eps = -1}); }, "AdamW: invalid epsilon value: -1");
  expect_error([&] { Adagrad(p, {.lr_decay = -1}); }, "Adagrad: invalid lr_decay value: -1");
  expect_error([&] { Adagrad(p, {.initial_accumulator_value = -2}); }, "Adagrad: invalid initial_accumulator_value value: -2");
  expect_error([&] { RMSprop(p, {.alpha = -0.5}); }, "RMSprop: invalid alpha value: -0.5");
  expect_error([&] { Adadelta(p, {.rho = 1.5}); }, "Adadelta: invalid rho value: 1.5");
  expect_error([&] { Adamax(p, {.weight_decay = -3}); }, "Adamax: invalid weight_decay value: -3");
  expect_error([&] { NAdam(p, {.momentum_decay = -1}); }, "NAdam: invalid momentum_decay value: -1");
  expect_error([&] { RAdam(p, {.eps = -1e-8}); }, "RAdam: invalid epsilon value: -1e-08");
  expect_error([&] { SGD(std::vector<Tensor>{}, {.lr = 0.1}); }, "SGD: got an empty parameter list");
  expect_error([&] { SGD({p[0] * 2}, {.lr = 0.1}); }, "SGD: can't optimize a non-leaf Tensor");
  expect_error([&] { SGD({p[0], p[0]}, {.lr = 0.1}); }, "the same parameter twice");
  // Group options are validated too, and a wrongly typed option names the key.
  expect_error([&] { Adam(std::vector<ParamGroup>{{{p[0]}, {{"betas", 0.9}}}}, {}); }, "Adam: option 'betas'");
}

// Adam, AdamW, Adamax, NAdam and RAdam share their option checks and state setup
// (Note [Adam-family optimizers]): the same four checks with each one's name, the
// same state entries, and a loaded state that lacks a moment is an error naming
// the optimizer.
template <class Opt>
void check_adam_family(const char* name, const char* second_moment) {
  SCOPED_TRACE(name);
  Model m;
  const auto& p = m.params;
  const std::string who = name;
  expect_error([&] { Opt(p, {.eps = -1}); }, who + ": invalid epsilon value: -1");
  expect_error([&] { Opt(p, {.betas = {-0.5, 0.999}}); }, who + ": invalid beta parameter at index 0: -0.5");
  expect_error([&] { Opt(p, {.betas = {0.9, 1.0}}); }, who + ": invalid beta parameter at index 1: 1");
  expect_error([&] { Opt(p, {.weight_decay = -2}); }, who + ": invalid weight_decay value: -2");

  Opt opt(p, {.lr = 0.01});
  train(m, opt, 1);
  const ParamState* st = opt.find_state(p[0]);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->at("step").to_tensor().item<double>(), 1.0);
  EXPECT_EQ(st->at("step").to_tensor().dtype(), kFloat);
  EXPECT_EQ(st->at("exp_avg").to_tensor().sizes(), p[0].sizes());
  EXPECT_EQ(st->at(second_moment).to_tensor().sizes(), p[0].sizes());

  OptimizerStateDict sd = opt.state_dict();
  for (auto& [index, state] : sd.state) state.erase("exp_avg");
  Opt loaded(p, {.lr = 0.01});
  loaded.load_state_dict(sd);
  expect_error([&] { train(m, loaded, 1); }, who + ": parameter state has no tensor 'exp_avg'");
}

TEST(OptimErrors, AdamFamilySharesChecksAndState) {
  check_adam_family<Adam>("Adam", "exp_avg_sq");
  check_adam_family<AdamW>("AdamW", "exp_avg_sq");
  check_adam_family<Adamax>("Adamax", "exp_inf");
  check_adam_family<NAdam>("NAdam", "exp_avg_sq");
  check_adam_family<RAdam>("RAdam", "exp_avg_sq");
}

}  // namespace optim_test
