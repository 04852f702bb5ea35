// pytorch/examples cpp/regression, written against <ember/torch.h> in
// libtorch's idiom: fit a degree-4 polynomial with torch::nn::Linear, SGD and
// smooth_l1_loss until the loss is below 1e-3, then compare the learned
// coefficients with the target's.
#include <ember/torch.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#define POLY_DEGREE 4

namespace {

// Builds features i.e. a matrix with columns [x, x^2, x^3, x^4].
torch::Tensor make_features(torch::Tensor x) {
  x = x.unsqueeze(1);
  std::vector<torch::Tensor> xs;
  for (int64_t i = 0; i < POLY_DEGREE; ++i) xs.push_back(x.pow(i + 1));
  return torch::cat(xs, 1);
}

// Approximated function.
torch::Tensor f(torch::Tensor x, torch::Tensor W_target, torch::Tensor b_target) {
  return x.mm(W_target) + b_target.item();
}

// Creates a string description of a polynomial.
std::string poly_desc(torch::Tensor W, torch::Tensor b) {
  auto size = W.size(0);
  std::ostringstream stream;
  stream << "y = ";
  for (int64_t i = 0; i < size; ++i) stream << W[i].item<float>() << " x^" << size - i << " ";
  stream << "+ " << b[0].item<float>();
  return stream.str();
}

// Builds a batch i.e. (x, f(x)) pair.
std::pair<torch::Tensor, torch::Tensor> get_batch(torch::Tensor W_target, torch::Tensor b_target,
                                                  int64_t batch_size = 32) {
  auto random = torch::randn({batch_size});
  auto x = make_features(random);
  auto y = f(x, W_target, b_target);
  return std::make_pair(x, y);
}

}  // namespace

TEST(TorchRegression, PolynomialFitConverges) {
  torch::manual_seed(7);
  auto W_target = torch::randn({POLY_DEGREE, 1}) * 5;
  auto b_target = torch::randn({1}) * 5;

  // Define the model and optimizer
  auto fc = torch::nn::Linear(W_target.size(0), 1);
  torch::optim::SGD optim(fc->parameters(), .1);

  float loss = 0;
  int64_t batch_idx = 0;
  while (++batch_idx) {
    // Get data
    auto batch = get_batch(W_target, b_target);
    auto batch_x = batch.first;
    auto batch_y = batch.second;

    // Reset gradients
    optim.zero_grad();

    // Forward pass
    auto output = torch::smooth_l1_loss(fc(batch_x), batch_y);
    loss = output.item<float>();

    // Backward pass
    output.backward();

    // Apply gradients
    optim.step();

    // Stop criterion
    if (loss < 1e-3f) break;
    ASSERT_LT(batch_idx, 100000) << "no convergence; loss " << loss;
  }
  SCOPED_TRACE("Loss: " + std::to_string(loss) + " after " + std::to_string(batch_idx) + " batches");
  SCOPED_TRACE("Learned function: " + poly_desc(fc->weight.view({-1}), fc->bias));
  SCOPED_TRACE("Actual function: " + poly_desc(W_target.view({-1}), b_target));

  // The fit holds beyond the last batch: on 4096 fresh points the mean
  // absolute error is small beside the targets' spread, and the coefficients
  // are close to the target's.
  torch::NoGradGuard no_grad;
  auto fresh = get_batch(W_target, b_target, 4096);
  const double error = (fc(fresh.first) - fresh.second).abs().mean().item<double>();
  const double spread = fresh.second.std().item<double>();
  EXPECT_LT(error, 0.02 * spread) << "error " << error << ", spread " << spread;
  for (int64_t i = 0; i < POLY_DEGREE; ++i)
    EXPECT_NEAR(fc->weight[0][i].item<double>(), W_target[i][0].item<double>(), 0.15) << "x^" << i + 1;
  EXPECT_NEAR(fc->bias[0].item<double>(), b_target[0].item<double>(), 0.15);
}
