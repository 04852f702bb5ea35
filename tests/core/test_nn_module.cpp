// nn::Module, containers, Linear/Bilinear/Flatten/Unflatten and nn::init.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace nn_module_test {

using testing::expect_error;
using testing::expect_tensor_near;
namespace F = nn::functional;

// A user-defined model, written as in PyTorch's C++ frontend.
struct NetImpl : nn::Module {
  NetImpl() : nn::Module("Net") {
    fc1 = register_module("fc1", nn::Linear(4, 8));
    body = register_module("body", nn::Sequential(nn::Linear(8, 8), nn::Identity()));
    fc2 = register_module("fc2", nn::Linear(nn::LinearOptions{.in = 8, .out = 3, .bias = false}));
    scale = register_parameter("scale", ones({3}));
    steps = register_buffer("steps", zeros({1}, kInt64));
    scratch = register_buffer("scratch", zeros({2}), /*persistent=*/false);
  }
  Tensor forward(const Tensor& x) { return fc2(body(fc1(x).tanh())) * scale; }
  nn::Linear fc1{nullptr}, fc2{nullptr};
  nn::Sequential body{nullptr};
  Tensor scale, steps, scratch;
};
EMBER_MODULE(Net);

TEST(NnModule, NamesFollowPyTorch) {
  Net net;
  EXPECT_EQ(net->named_parameters().keys(),
            (std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "body.0.weight", "body.0.bias", "fc2.weight"}));
  EXPECT_EQ(net->named_buffers().keys(), (std::vector<std::string>{"steps", "scratch"}));
  EXPECT_EQ(net->state_dict().keys(), (std::vector<std::string>{"scale", "steps", "fc1.weight", "fc1.bias",
                                                                "body.0.weight", "body.0.bias", "fc2.weight"}));
  EXPECT_EQ(net->named_modules().keys(), (std::vector<std::string>{"", "fc1", "body", "body.0", "body.1", "fc2"}));
  EXPECT_EQ(net->named_children().keys(), (std::vector<std::string>{"fc1", "body", "fc2"}));
  EXPECT_EQ(net->parameters(false).size(), 1u);
  for (const Tensor& p : net->parameters()) EXPECT_TRUE(p.requires_grad());
  EXPECT_FALSE(net->steps.requires_grad());
  expect_error([&] { net->register_parameter("fc1", ones({1})); }, "already exists");
  expect_error([&] { net->register_buffer("a.b", ones({1})); }, "must not contain '.'");
}

TEST(NnModule, ForwardBackwardAndZeroGrad) {
  Net net;
  Tensor x = randn({5, 4});
  Tensor y = net(x);
  EXPECT_EQ(y.sizes(), IntArrayRef({5, 3}));
  y.sum().backward();
  for (const auto& [name, p] : net->named_parameters()) EXPECT_TRUE(p.grad().defined()) << name;
  net->zero_grad(/*set_to_none=*/false);
  for (const Tensor& p : net->parameters()) EXPECT_EQ(p.grad().abs().sum().item<double>(), 0);
  net->zero_grad();
  for (const Tensor& p : net->parameters()) EXPECT_FALSE(p.grad().defined());
}

TEST(NnModule, TrainEvalApplyAndTo) {
  Net net;
  EXPECT_TRUE(net->is_training());
  net->eval();
  for (const auto& m : net->modules()) EXPECT_FALSE(m->is_training());
  net->train();
  EXPECT_TRUE(net->body->is_training());
  int count = 0;
  net->apply([&](nn::Module&) { ++count; });
  EXPECT_EQ(count, 6);
  // to(dtype) converts in place: handles held elsewhere (an optimizer) see it.
  Tensor held = net->fc1->weight;
  net->to(kFloat64);
  EXPECT_EQ(held.dtype(), kFloat64);
  EXPECT_TRUE(held.requires_grad());
  EXPECT_EQ(net->steps.dtype(), kInt64);  // integer buffers keep their dtype
  EXPECT_EQ(net(randn({2, 4}, kFloat64)).dtype(), kFloat64);
  expect_error([&] { net->to(kInt32); }, "floating point");
}

TEST(NnModule, StateDictRoundTripAndErrors) {
  Net a, b;
  b->load_state_dict(a->state_dict());
  Tensor x = randn({3, 4});
  expect_tensor_near(b(x), a(x));
  auto state = a->state_dict();
  state.erase("fc2.weight");
  state.insert("extra", ones({1}));
  expect_error([&] { b->load_state_dict(state); }, "Missing key(s) in state_dict: \"fc2.weight\"");
  expect_error([&] { b->load_state_dict(state); }, "Unexpected key(s) in state_dict: \"extra\"");
  auto result = b->load_state_dict(state, /*strict=*/false);
  EXPECT_EQ(result.missing_keys, std::vector<std::string>{"fc2.weight"});
  EXPECT_EQ(result.unexpected_keys, std::vector<std::string>{"extra"});
  auto bad = a->state_dict();
  bad.insert("fc1.weight", zeros({2, 2}));
  expect_error([&] { b->load_state_dict(bad, false); },
               "size mismatch for fc1.weight: copying a param with shape [2, 2] from checkpoint, the shape in current "
               "model is [8, 4].");
}

TEST(NnModule, ForwardHooks) {
  nn::Linear fc(2, 2);
  std::vector<int> order;
  const uint64_t pre = fc->register_forward_pre_hook([&](nn::Module&, std::vector<Tensor>& in) {
    order.push_back(1);
    in[0] = in[0] * 0;
  });
  fc->register_forward_hook([&](nn::Module& m, const std::vector<Tensor>&, Tensor& out) {
    order.push_back(2);
    EXPECT_EQ(m.name(), "Linear");
    out = out + 100;
  });
  Tensor y = fc(ones({1, 2}));
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  expect_tensor_near(y, (fc->bias + 100).unsqueeze(0).detach());
  fc->remove_hook(pre);
  Tensor y2 = fc(ones({1, 2}));
  expect_tensor_near(y2, (fc->weight.sum(1) + fc->bias + 100).unsqueeze(0).detach());
}

TEST(NnModule, PrintsLikePyTorch) {
  nn::Sequential seq(nn::Linear(3, 4), nn::Flatten(), nn::Unflatten(nn::UnflattenOptions{1, {2, 2}}),
                     nn::Sequential(nn::Identity(), nn::Linear(nn::LinearOptions{.in = 2, .out = 3, .bias = false})));
  std::ostringstream ss;
  ss << *seq;
  EXPECT_EQ(ss.str(),
            "Sequential(\n"
            "  (0): Linear(in_features=3, out_features=4, bias=True)\n"
            "  (1): Flatten(start_dim=1, end_dim=-1)\n"
            "  (2): Unflatten(dim=1, unflattened_size=(2, 2))\n"
            "  (3): Sequential(\n"
            "    (0): Identity()\n"
            "    (1): Linear(in_features=2, out_features=3, bias=False)\n"
            "  )\n"
            ")");
  EXPECT_EQ(nn::Bilinear(2, 3, 4)->str(), "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)");
  nn::ParameterList list(std::vector<Tensor>{ones({3, 4})});
  EXPECT_EQ(list->str(), "ParameterList(\n    (0): Parameter containing: [torch.float32 of size 3x4]\n)");
}

TEST(NnModule, Containers) {
  nn::ModuleList list(nn::Linear(2, 3), nn::Linear(3, 1));
  EXPECT_EQ(list->size(), 2u);
  EXPECT_EQ(list->ptr<nn::LinearImpl>(1)->options.in, 3);
  expect_error([&] { list->ptr<nn::BilinearImpl>(0); }, "not the requested type");
  expect_error([&] { (*list)[5]; }, "out of range");
  EXPECT_EQ(list->named_parameters().keys(), (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias"}));
  nn::ModuleDict dict;
  dict->insert("enc", nn::Linear(2, 2));
  EXPECT_TRUE(dict->contains("enc"));
  EXPECT_EQ(dict->named_parameters().keys(), (std::vector<std::string>{"enc.weight", "enc.bias"}));
  nn::ParameterDict pd;
  pd->insert("alpha", zeros({2}));
  EXPECT_TRUE((*pd)["alpha"].requires_grad());
  nn::Sequential named(std::vector<std::pair<std::string, nn::AnyModule>>{{"conv", nn::Linear(2, 2)},
                                                                          {"act", nn::Identity()}});
  EXPECT_EQ(named->named_parameters().keys(), (std::vector<std::string>{"conv.weight", "conv.bias"}));
  EXPECT_EQ(named->ptr<nn::LinearImpl>(0)->options.out, 2);
}

TEST(NnLayers, LinearAndBilinearMatchFormulas) {
  nn::Linear fc(5, 3);
  fc->to(kFloat64);
  Tensor x = randn({2, 7, 5}, kFloat64);
  expect_tensor_near(fc(x), x.matmul(fc->weight.t()).detach() + fc->bias.detach(), 1e-12, 1e-12);
  const double bound = 1 / std::sqrt(5.0);
  EXPECT_LE(fc->weight.abs().max().item<double>(), bound);  // kaiming_uniform(a=sqrt 5) bound = 1/sqrt(fan_in)
  EXPECT_LE(fc->bias.abs().max().item<double>(), bound);
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) { return autograd::variable_list{F::linear(in[0], in[1], in[2])}; },
      {randn({3, 4}, kFloat64).requires_grad_(), randn({2, 4}, kFloat64).requires_grad_(),
       randn({2}, kFloat64).requires_grad_()}));
  nn::Bilinear bl(3, 4, 2);
  bl->to(kFloat64);
  Tensor x1 = randn({5, 3}, kFloat64), x2 = randn({5, 4}, kFloat64);
  Tensor ref = einsum("bi,oij,bj->bo", {x1, bl->weight.detach(), x2}) + bl->bias.detach();
  expect_tensor_near(bl(x1, x2), ref, 1e-12, 1e-12);
  expect_error([&] { fc(randn({2, 4}, kFloat64)); }, "linear: input of shape [2, 4] does not match weight");
}

TEST(NnInit, GainsFansAndDistributions) {
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("relu"), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("tanh"), 5.0 / 3);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("leaky_relu", 0.2), std::sqrt(2.0 / 1.04));
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("selu"), 0.75);
  expect_error([] { nn::init::calculate_gain("swish"); }, "unsupported nonlinearity");
  Tensor w = empty({64, 32, 3, 3});
  auto [fan_in, fan_out] = nn::init::calculate_fan_in_and_fan_out(w);
  EXPECT_EQ(fan_in, 32 * 9);
  EXPECT_EQ(fan_out, 64 * 9);
  Generator g(5);
  Tensor big = empty({400, 300}, kFloat64);
  nn::init::kaiming_normal_(big, 0, nn::init::FanMode::FanIn, "relu", &g);
  EXPECT_NEAR(big.std().item<double>(), std::sqrt(2.0 / 300), 0.002);
  nn::init::xavier_uniform_(big, 1, &g);
  EXPECT_LE(big.abs().max().item<double>(), std::sqrt(6.0 / 700) + 1e-12);
  nn::init::trunc_normal_(big, 0.5, 1, -0.5, 1.0, &g);
  EXPECT_GE(big.min().item<double>(), -0.5);
  EXPECT_LE(big.max().item<double>(), 1.0);
  // Mean of N(0.5, 1) truncated to [-0.5, 1]: mu + sigma (phi(a) - phi(b)) / (Phi(b) - Phi(a)).
  auto phi = [](double z) { return std::exp(-z * z / 2) / std::sqrt(2 * M_PI); };
  auto Phi = [](double z) { return (1 + std::erf(z / std::sqrt(2.0))) / 2; };
  EXPECT_NEAR(big.mean().item<double>(), 0.5 + (phi(-1) - phi(0.5)) / (Phi(0.5) - Phi(-1)), 0.01);
  // float32 tensors: the same float64 steps, rounded once at the end.
  Tensor big32 = empty({400, 300});
  nn::init::trunc_normal_(big32, 0.5, 1, -0.5, 1.0, &g);
  EXPECT_GE(big32.min().item<double>(), -0.5);
  EXPECT_LE(big32.max().item<double>(), 1.0);
  EXPECT_NEAR(big32.mean().item<double>(), 0.5 + (phi(-1) - phi(0.5)) / (Phi(0.5) - Phi(-1)), 0.01);
  Tensor normal32 = empty({400, 300});
  nn::init::trunc_normal_(normal32, 0, 0.1, -2, 2, &g);  // untruncated in effect: N(0, 0.1)
  EXPECT_NEAR(normal32.std().item<double>(), 0.1, 0.001);
  Tensor q = empty({6, 10}, kFloat64);
  nn::init::orthogonal_(q, 2.0, &g);
  expect_tensor_near(q.matmul(q.t()), eye(6, kFloat64) * 4, 1e-10, 1e-10);
  Tensor tall = empty({10, 6}, kFloat64);
  nn::init::orthogonal_(tall, 1.0, &g);
  expect_tensor_near(tall.t().matmul(tall), eye(6, kFloat64), 1e-10, 1e-10);
  Tensor d = empty({4, 2, 3, 3});
  nn::init::dirac_(d, 2);
  EXPECT_EQ(d.sum().item<double>(), 4);
  EXPECT_EQ(d.index({2, 0, 1, 1}).item<double>(), 1);
  Tensor s = empty({10, 5});
  nn::init::sparse_(s, 0.3, 0.01, &g);
  EXPECT_EQ((s == 0).sum().item<int64_t>(), 15);
  Tensor e = empty({2, 3});
  nn::init::eye_(e);
  expect_tensor_near(e, eye(2, 3));
}

// SkipInitGuard: initializers still check their arguments but write nothing,
// for this thread and this scope only (modules built meanwhile keep what
// their fresh memory holds).
TEST(NnInit, SkipInitGuard) {
  Tensor w = full({4, 3}, 7.0f);
  {
    nn::init::SkipInitGuard skip;
    EXPECT_TRUE(nn::init::is_init_skipped());
    nn::init::kaiming_normal_(w);
    nn::init::uniform_(w);
    nn::init::constant_(w, 1);
    nn::init::orthogonal_(w);
    EXPECT_TRUE(w.eq(7.0f).all().item<bool>());
    Tensor cube = zeros({2, 2, 2});
    expect_error([&] { nn::init::eye_(cube); }, "only 2-d tensors");
    {
      nn::init::SkipInitGuard nested;
    }
    EXPECT_TRUE(nn::init::is_init_skipped());
  }
  EXPECT_FALSE(nn::init::is_init_skipped());
  nn::init::constant_(w, 1);
  EXPECT_TRUE(w.eq(1.0f).all().item<bool>());
}

TEST(NnUtils, ClipGradNormValueAndVectors) {
  Tensor a = tensor({3.0, 4.0}, kFloat64).requires_grad_();
  Tensor b = tensor({12.0}, kFloat64).requires_grad_();
  a.mutable_grad() = tensor({3.0, 4.0}, kFloat64);
  b.mutable_grad() = tensor({12.0}, kFloat64);
  Tensor norm = nn::utils::clip_grad_norm_({a, b}, 6.5);
  EXPECT_NEAR(norm.item<double>(), 13.0, 1e-12);  // sqrt(9 + 16 + 144)
  testing::expect_tensor_near(a.grad(), tensor({1.5, 2.0}, kFloat64), 1e-6, 1e-6);
  Tensor inf_norm = nn::utils::clip_grad_norm_({a, b}, 100, INFINITY);
  EXPECT_NEAR(inf_norm.item<double>(), 6.0, 1e-5);
  b.mutable_grad() = tensor({NAN}, kFloat64);
  testing::expect_error([&] { nn::utils::clip_grad_norm_({a, b}, 1, 2, true); }, "non-finite");
  b.mutable_grad() = tensor({-9.0}, kFloat64);
  nn::utils::clip_grad_value_({a, b}, 1.8);
  testing::expect_tensor_near(b.grad(), tensor({-1.8}, kFloat64));
  testing::expect_tensor_near(a.grad(), tensor({1.5, 1.8}, kFloat64), 1e-6, 1e-6);
  Tensor v = nn::utils::parameters_to_vector({a, b});
  testing::expect_tensor_near(v.detach(), tensor({3.0, 4.0, 12.0}, kFloat64));
  EXPECT_TRUE(v.requires_grad());
  nn::utils::vector_to_parameters(tensor({1.0, 2.0, 3.0}, kFloat64), {a, b});
  testing::expect_tensor_near(b.detach(), tensor({3.0}, kFloat64));
  testing::expect_error([&] { nn::utils::vector_to_parameters(tensor({1.0}, kFloat64), {a, b}); }, "parameters hold 3");
}
}  // namespace nn_module_test
}  // namespace ember
