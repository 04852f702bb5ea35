// Linear and Bilinear against PyTorch through the checkpoint path
// (scripts/fixtures/nn_linear.py; tests/core/module_fixture.h).
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "module_fixture.h"

namespace ember {
namespace nn_linear_fixture_test {

using testing::ModuleCase;

TEST(NnLinearFixture, Linear) {
  for (const char* name : {"linear", "linear_nobias_3d"}) {
    ModuleCase c{"nn_linear", name};
    nn::Linear m(nn::LinearOptions{.in = 5, .out = 3, .bias = std::string(name) == "linear"});
    c.load(*m);
    Tensor x = c.leaf_in(0);
    c.check(*m, {m(x)}, {x});
  }
}

TEST(NnLinearFixture, Bilinear) {
  ModuleCase c{"nn_linear", "bilinear"};
  nn::Bilinear m(4, 3, 2);
  c.load(*m);
  Tensor a = c.leaf_in(0), b = c.leaf_in(1);
  c.check(*m, {m(a, b)}, {a, b});
}

}  // namespace nn_linear_fixture_test
}  // namespace ember
