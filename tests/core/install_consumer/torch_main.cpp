// Built against the installed Ember through Ember::torch_compat alone, as a
// program ported from libtorch links it: <ember/torch.h> (libtorch's
// spelling) compiles with nothing before it, and a small training step runs.
#include <ember/torch.h>

#include <iostream>

struct Net : torch::nn::Module {
  Net() : fc1(torch::nn::LinearOptions(4, 8)), fc2(8, 2) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  torch::Tensor forward(torch::Tensor x) { return torch::log_softmax(fc2(torch::relu(fc1(x))), /*dim=*/1); }
  torch::nn::Linear fc1, fc2;
};

int main() {
  torch::manual_seed(0);
  auto net = std::make_shared<Net>();
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.5));
  auto x = torch::randn({16, 4});
  auto y = (x.sum(1) > 0).to(torch::kInt64);
  double first = 0, last = 0;
  for (int step = 0; step < 50; ++step) {
    optimizer.zero_grad();
    auto loss = torch::nll_loss(net->forward(x), y);
    loss.backward();
    optimizer.step();
    (step == 0 ? first : last) = loss.item<double>();
  }
  std::cout << "loss " << first << " -> " << last << "\n";
  return last < first ? 0 : 1;
}
