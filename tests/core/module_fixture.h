#pragma once
// Module tests against PyTorch through the checkpoint path: the fixture
// generator (scripts/fixtures/__init__.py: save_module_case) torch.save's the
// PyTorch module's state_dict; the test loads that file with
// load_torch_state_dict and module.load_state_dict(strict), runs forward on the
// saved inputs, backward of sum(out_i * gout_i), and compares outputs, input
// gradients and parameter gradients.
#include <filesystem>
#include <string>
#include <vector>

#include "tensor_expect.h"

namespace ember::testing {

struct ModuleCase {
  std::string family, name;

  Tensor in(int i) const { return fixture(family, name + "_in" + std::to_string(i)); }
  // An input that requires grad (its gradient is checked by check_backward).
  Tensor leaf_in(int i) const { return in(i).requires_grad_(); }
  Tensor out(int i) const { return fixture(family, name + "_out" + std::to_string(i)); }
  Tensor gout(int i) const { return fixture(family, name + "_gout" + std::to_string(i)); }
  bool has(const std::string& suffix) const {
    return std::filesystem::exists(fixture_path("core/" + family + "/" + name + suffix + ".npy"));
  }

  // Loads <name>.pt into the module (strict) after converting it to the
  // checkpoint's dtype (fixtures are float64).
  void load(nn::Module& m, DType dtype = kFloat64) const {
    m.to(dtype);
    m.load_state_dict(serialize::load_torch_state_dict(fixture_path("core/" + family + "/" + name + ".pt")), true);
  }

  // Compares outputs with <name>_out<i>, then runs backward of
  // sum(out_i * gout_i) and compares the gradients of `inputs` (those with a
  // <name>_gin<i> file) and every parameter of m that has a <name>_g_<key> file.
  void check(nn::Module& m, const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
             double rtol = 1e-7, double atol = 1e-9) const {
    Tensor loss;
    for (size_t i = 0; i < outputs.size(); ++i) {
      SCOPED_TRACE(name + " output " + std::to_string(i));
      expect_tensor_near(outputs[i], out(static_cast<int>(i)), rtol, atol);
      Tensor term = (outputs[i] * gout(static_cast<int>(i))).sum();
      loss = loss.defined() ? loss + term : term;
    }
    if (!loss.defined() || !loss.requires_grad()) return;
    loss.backward();
    for (size_t i = 0; i < inputs.size(); ++i) {
      const std::string key = "_gin" + std::to_string(i);
      if (!inputs[i].defined() || !has(key)) continue;
      SCOPED_TRACE(name + " input grad " + std::to_string(i));
      ASSERT_TRUE(inputs[i].grad().defined());
      expect_tensor_near(inputs[i].grad(), fixture(family, name + key), rtol, atol);
    }
    for (const auto& [key, p] : m.named_parameters()) {
      if (!has("_g_" + key)) continue;
      SCOPED_TRACE(name + " grad of " + key);
      ASSERT_TRUE(p.grad().defined());
      expect_tensor_near(p.grad(), fixture(family, name + "_g_" + key), rtol, atol);
    }
  }
};

}  // namespace ember::testing
