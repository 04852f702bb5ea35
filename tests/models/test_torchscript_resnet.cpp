// torch.jit.save(torch.jit.script(torchvision.models.resnet18(num_classes=10)))
// loads into models::resnet18 strictly (load_torch_state_dict reads the
// TorchScript archive's parameters and buffers by attribute path) and gives
// the scripted model's eval output (scripts/fixtures/torchscript.py).
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/models/resnet.h>

#include "models_test_util.h"

using namespace ember;

TEST(TorchScriptResNet, ScriptedTorchvisionResnet18LoadsIntoModelsResnet18) {
  const std::string archive = ember::testing::fixture_path("core/torchscript/resnet18_scripted.pt");
  const serialize::ScriptModuleState state = serialize::load_torchscript(archive);
  auto net = models::resnet18({.num_classes = 10});
  EXPECT_EQ(state.state_dict.keys(), net->state_dict().keys());
  EXPECT_EQ(state.parameters, net->named_parameters().keys());
  EXPECT_EQ(state.buffers, net->named_buffers().keys());
  net->load_state_dict(serialize::load_torch_state_dict(archive), /*strict=*/true);
  net->eval();
  const IValue io = serialize::load_torch(ember::testing::fixture_path("core/torchscript/resnet18_scripted_io.pt"));
  NoGradGuard no_grad;
  const Tensor out = net->forward(io.at("input").to_tensor());
  const Tensor expected = io.at("output").to_tensor();
  ASSERT_EQ(out.sizes().vec(), expected.sizes().vec());
  EXPECT_TRUE(out.allclose(expected, 1e-4, 1e-4)) << out << "\n" << expected;
}
