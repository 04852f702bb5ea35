#pragma once
// The recipes that an Ember program and a libtorch program both follow to
// exchange archives (tests/compat/test_torch_libtorch_archives.cpp and
// tests/compat/libtorch/libtorch_exchange.cpp): written in the spelling the two
// share, so this one header compiles against <torch/torch.h> and against
// <ember/torch.h>. Values are chosen exact in float32 where they are inputs
// (parameters, data), so the two sides start from identical bits.
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace exchange {

struct NetImpl : torch::nn::Module {
  NetImpl() : fc1(torch::nn::LinearOptions(3, 4)), fc2(torch::nn::LinearOptions(4, 2)) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::tanh(fc1(x))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Net);

// Parameter k (in parameters() order) holds (arange(numel) * 0.125 - 0.25 * k + shift).
inline Net make_net(double shift = 0) {
  Net net;
  torch::NoGradGuard no_grad;
  int64_t k = 0;
  for (torch::Tensor p : net->parameters()) {
    p.copy_((torch::arange(p.numel(), torch::kFloat32) * 0.125 - 0.25 * static_cast<double>(k) + shift)
                .reshape(p.sizes()));
    ++k;
  }
  return net;
}

inline const std::vector<std::string>& optimizer_names() {
  static const std::vector<std::string> names = {"sgd", "adam", "adamw", "rmsprop", "adagrad"};
  return names;
}

inline std::unique_ptr<torch::optim::Optimizer> make_optimizer(const std::string& name, Net& net) {
  namespace optim = torch::optim;
  if (name == "sgd") return std::make_unique<optim::SGD>(net->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  if (name == "adam")
    return std::make_unique<optim::Adam>(net->parameters(),
                                         optim::AdamOptions(0.01).betas(std::make_tuple(0.8, 0.9)).amsgrad(true));
  if (name == "adamw")
    return std::make_unique<optim::AdamW>(net->parameters(), optim::AdamWOptions(0.01).weight_decay(0.1));
  if (name == "rmsprop")
    return std::make_unique<optim::RMSprop>(net->parameters(),
                                            optim::RMSpropOptions(0.01).momentum(0.5).centered(true));
  return std::make_unique<optim::Adagrad>(net->parameters(), optim::AdagradOptions(0.1));
}

// `steps` steps on a fixed batch.
inline void train(Net& net, torch::optim::Optimizer& optimizer, int steps) {
  const torch::Tensor x = (torch::arange(12, torch::kFloat32) * 0.25 - 1.5).reshape({4, 3});
  const torch::Tensor y = (torch::arange(8, torch::kFloat32) * 0.5 - 2).reshape({4, 2});
  for (int i = 0; i < steps; ++i) {
    optimizer.zero_grad();
    torch::Tensor loss = (net->forward(x) - y).pow(2).mean();
    loss.backward();
    optimizer.step();
  }
}

// The tensors of the tensor archives.
inline torch::Tensor single_tensor() {
  return torch::arange(12, torch::kFloat64).reshape({3, 4}) * 0.5 - 1;
}
inline std::vector<torch::Tensor> tensor_list() {
  return {torch::ones({2}, torch::kFloat32), torch::arange(5, torch::kInt64) - 2,
          torch::arange(6, torch::kInt32).reshape({2, 3})};
}

}  // namespace exchange
