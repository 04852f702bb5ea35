// pytorch/examples cpp/autograd, written against <ember/torch.h> in
// libtorch's idiom: basic backward, vector-Jacobian products, no_grad,
// higher-order gradients (a gradient penalty) and custom functions. Each
// gradient is checked against its closed form computed here in double.
#include <ember/torch.h>
#include <gtest/gtest.h>

#include <cmath>

using namespace torch::autograd;

namespace {

// y = x W^T + b for a 2-d input, with its hand-written backward (the
// example's LinearFunction).
class LinearFunction : public Function<LinearFunction> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor input, torch::Tensor weight,
                               torch::Tensor bias = torch::Tensor()) {
    ctx->save_for_backward({input, weight, bias});
    auto output = input.mm(weight.t());
    if (bias.defined()) output += bias.unsqueeze(0).expand_as(output);
    return output;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    auto saved = ctx->get_saved_variables();
    auto input = saved[0];
    auto weight = saved[1];
    auto bias = saved[2];
    auto grad_output = grad_outputs[0];
    auto grad_input = grad_output.mm(weight);
    auto grad_weight = grad_output.t().mm(input);
    auto grad_bias = torch::Tensor();
    if (bias.defined()) grad_bias = grad_output.sum(0);
    return {grad_input, grad_weight, grad_bias};
  }
};

// x * constant, the constant kept in saved_data (the example's MulConstant).
class MulConstant : public Function<MulConstant> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor tensor, double constant) {
    ctx->saved_data["constant"] = constant;
    return tensor * constant;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    return {grad_outputs[0] * ctx->saved_data["constant"].to_double(), torch::Tensor()};
  }
};

double at(const torch::Tensor& t, int64_t i, int64_t j) { return t[i][j].item<double>(); }

}  // namespace

TEST(TorchAutograd, BasicOperations) {
  torch::manual_seed(0);
  auto x = torch::ones({2, 2}, torch::requires_grad());
  EXPECT_TRUE(x.requires_grad());
  auto y = x + 2;
  ASSERT_NE(y.grad_fn(), nullptr);
  auto z = y * y * 3;
  auto out = z.mean();
  out.backward();
  // out = mean(3 (x + 2)^2): d out / dx = 6 (x + 2) / 4 = 4.5 at x = 1.
  EXPECT_TRUE(torch::allclose(x.grad(), torch::full({2, 2}, 4.5)));

  auto a = torch::randn({2, 2});
  a = ((a * 3) / (a - 1));
  EXPECT_FALSE(a.requires_grad());
  a.requires_grad_(true);
  EXPECT_TRUE(a.requires_grad());
  auto b = (a * a).sum();
  EXPECT_EQ(b.grad_fn()->name(), "SumBackward0");
}

TEST(TorchAutograd, VectorJacobianProductAndNoGrad) {
  torch::manual_seed(1);
  auto x = torch::randn(3, torch::requires_grad());
  auto y = x * 2;
  double scale = 2;
  while (y.norm().item<double>() < 1000) {
    y = y * 2;
    scale *= 2;
  }
  auto v = torch::tensor({0.1, 1.0, 0.0001}, torch::kFloat);
  y.backward(v);
  // y = scale * x, so v^T dy/dx = scale * v.
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_NEAR(x.grad()[i].item<double>(), scale * v[i].item<double>(), 1e-6 * scale);

  EXPECT_TRUE(x.requires_grad());
  EXPECT_TRUE(x.pow(2).requires_grad());
  {
    torch::NoGradGuard no_grad;
    EXPECT_FALSE(x.pow(2).requires_grad());
  }
  auto detached = x.detach();
  EXPECT_FALSE(detached.requires_grad());
  EXPECT_TRUE(x.eq(detached).all().item<bool>());
}

TEST(TorchAutograd, HigherOrderGradientPenalty) {
  torch::manual_seed(2);
  auto model = torch::nn::Linear(4, 3);
  auto input = torch::randn({3, 4}).requires_grad_(true);
  auto output = model(input);

  auto target = torch::randn({3, 3});
  auto loss = torch::nn::MSELoss()(output, target);
  EXPECT_GT(loss.item<double>(), 0);

  auto grad_output = torch::ones_like(output);
  auto gradient =
      torch::autograd::grad({output}, {input}, /*grad_outputs=*/{grad_output}, /*retain_graph=*/true,
                            /*create_graph=*/true)[0];
  auto gradient_penalty = torch::pow((gradient.norm(2, /*dim=*/{1}) - 1), 2).mean();
  gradient_penalty.backward();

  // gradient = ones(3, 3) W: every row is s = sum_j W[j, :], so the penalty is
  // (|s| - 1)^2 and d penalty / d W[j, k] = 2 (|s| - 1) s_k / |s| for every j.
  const torch::Tensor w = model->weight.detach();
  double s[4], norm = 0;
  for (int64_t k = 0; k < 4; ++k) {
    s[k] = at(w, 0, k) + at(w, 1, k) + at(w, 2, k);
    norm += s[k] * s[k];
  }
  norm = std::sqrt(norm);
  for (int64_t k = 0; k < 4; ++k) EXPECT_NEAR(at(gradient, 1, k), s[k], 1e-5);
  EXPECT_NEAR(gradient_penalty.item<double>(), (norm - 1) * (norm - 1), 1e-5);
  for (int64_t j = 0; j < 3; ++j)
    for (int64_t k = 0; k < 4; ++k)
      EXPECT_NEAR(at(model->weight.grad(), j, k), 2 * (norm - 1) * s[k] / norm, 1e-5);
  EXPECT_FALSE(input.grad().defined());  // the penalty does not depend on the input
}

TEST(TorchAutograd, CustomFunctions) {
  torch::manual_seed(3);
  auto x = torch::randn({2, 3}).requires_grad_();
  auto weight = torch::randn({4, 3}).requires_grad_();
  auto y = LinearFunction::apply(x, weight);
  y.sum().backward();
  // d sum(x W^T) / dx = ones(2, 4) W, / dW = ones(4, 2) x.
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t k = 0; k < 3; ++k)
      EXPECT_NEAR(at(x.grad(), i, k), at(weight, 0, k) + at(weight, 1, k) + at(weight, 2, k) + at(weight, 3, k),
                  1e-5);
  for (int64_t j = 0; j < 4; ++j)
    for (int64_t k = 0; k < 3; ++k) EXPECT_NEAR(at(weight.grad(), j, k), at(x, 0, k) + at(x, 1, k), 1e-5);

  auto bias = torch::randn({4}).requires_grad_();
  auto yb = LinearFunction::apply(x.detach(), weight.detach(), bias);
  yb.sum().backward();
  EXPECT_TRUE(torch::allclose(bias.grad(), torch::full({4}, 2.0)));

  auto t = torch::randn({2}).requires_grad_();
  auto m = MulConstant::apply(t, 5.5);
  m.sum().backward();
  EXPECT_TRUE(torch::allclose(t.grad(), torch::full({2}, 5.5)));
}
