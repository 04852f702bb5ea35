// torch::load of checkpoints that PyTorch's torch.save wrote
// (tests/data/core/torch_compat, scripts/fixtures/torch_compat.py): a module's
// state_dict with BatchNorm buffers, an SGD state_dict with momentum buffers
// and a tensor; and torch::save's own files beside them.
#include <ember/torch.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "compat/compat_test_util.h"
#include "npy.h"

namespace {

std::string fixture(const std::string& name) {
  return ember::testing::fixture_path("core/torch_compat/" + name);
}

struct NetImpl : torch::nn::Module {
  NetImpl() : fc1(4, 8), bn(8), fc2(8, 3) {
    register_module("fc1", fc1);
    register_module("bn", bn);
    register_module("fc2", fc2);
  }
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(bn(fc1(x)))); }
  torch::nn::Linear fc1;
  torch::nn::BatchNorm1d bn;
  torch::nn::Linear fc2;
};
TORCH_MODULE(Net);

}  // namespace

TEST(TorchCheckpoint, LoadsPyTorchModuleStateDict) {
  Net net;
  torch::load(net, fixture("net_state_dict.pt"));
  net->eval();
  const torch::Tensor x = ember::testing::load_npy(fixture("net_x.npy"));
  const torch::Tensor expected = ember::testing::load_npy(fixture("net_y.npy"));
  EXPECT_TRUE(torch::allclose(net->forward(x), expected, 1e-5, 1e-6));
  EXPECT_EQ(net->bn->named_buffers().at("num_batches_tracked").item<int64_t>(), 3);

  // Saved again by torch::save (Ember's format) and loaded back: the same model.
  const std::string path = ::testing::TempDir() + "torch_checkpoint_net.pt";
  torch::save(net, path);
  Net copy;
  torch::load(copy, path);
  copy->eval();
  EXPECT_TRUE(torch::equal(copy->forward(x), net->forward(x)));
  std::remove(path.c_str());
}

TEST(TorchCheckpoint, LoadsPyTorchOptimizerStateDict) {
  Net net;
  torch::load(net, fixture("net_state_dict.pt"));
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.5).momentum(0.1));
  torch::load(optimizer, fixture("sgd_state_dict.pt"));
  const auto state = optimizer.state_dict();
  EXPECT_EQ(state.param_groups.at(0).options.at("lr").to_double(), 0.1);
  EXPECT_EQ(state.param_groups.at(0).options.at("momentum").to_double(), 0.9);
  ASSERT_EQ(state.state.size(), net->parameters().size());
  const torch::Tensor momentum = optimizer.state(net->fc1->weight).at("momentum_buffer").to_tensor();
  EXPECT_TRUE(torch::allclose(momentum, ember::testing::load_npy(fixture("sgd_momentum_fc1_weight.npy"))));
}

TEST(TorchCheckpoint, LoadsPyTorchTensorAndRefusesMismatches) {
  torch::Tensor t;
  torch::load(t, fixture("tensor.pt"));
  EXPECT_EQ(t.dtype(), torch::kFloat64);
  EXPECT_TRUE(torch::equal(t, ember::testing::load_npy(fixture("tensor.npy"))));

  // A state dict is not a tensor, and a tensor is not a state dict.
  EXPECT_ERROR_WITH(torch::load(t, fixture("net_state_dict.pt")), "net_state_dict.pt", "not a tensor");
  Net net;
  EXPECT_ERROR_WITH(torch::load(net, fixture("tensor.pt")), "tensor.pt");
  // Another architecture's state dict names what does not match.
  torch::nn::Linear other(4, 8);
  EXPECT_ERROR_WITH(torch::load(other, fixture("net_state_dict.pt")), "fc1.weight");
}
