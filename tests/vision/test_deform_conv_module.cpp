// vision::ops::DeformConv2d (torchvision.ops.DeformConv2d) against torchvision
// 0.14 fixtures (scripts/fixtures/vision_deform_conv_module.py): parameter
// names (torchvision's state_dicts load strictly), repr, outputs and the
// gradients of input, offset, mask, weight and bias; the initialisation's bounds.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include <ember/ember.h>
#include <ember/serialize/torch_load.h>
#include <ember/vision/ops.h>

#include "detection_fixtures.h"

namespace ember {
namespace deform_conv_module_test {

namespace ops = vision::ops;
using testing::expect_close;
using testing::expect_error;
using testing::fixture_path;
using testing::load_npy;
using Ints = std::vector<int64_t>;  // the module wrapper forwards no braced lists

std::string path(const std::string& name) { return fixture_path("vision/vision_deform_conv_module/" + name); }
Tensor npy(const std::string& name) { return load_npy(path(name + ".npy")); }

std::string repr(const nn::Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

std::string first_line(const std::string& file) {
  std::ifstream f(file);
  std::string line;
  std::getline(f, line);
  return line;
}

void check_case(const std::string& c, ops::DeformConv2d m, bool with_mask) {
  m->to(kFloat64);
  const auto sd = serialize::load_torch_state_dict(path(c + ".pt"));
  EXPECT_EQ(m->state_dict().keys(), sd.keys()) << c;
  m->load_state_dict(sd);
  EXPECT_EQ(repr(*m), first_line(path(c + "_repr.txt"))) << c;
  const Tensor x = npy(c + "_in0").requires_grad_(), offset = npy(c + "_in1").requires_grad_();
  const Tensor mask = with_mask ? npy(c + "_in2").requires_grad_() : Tensor{};
  const Tensor out = m(x, offset, mask);
  expect_close(out, npy(c + "_out0"), 1e-12, 1e-12, c + " output");
  std::vector<Tensor> wrt{x, offset};
  if (with_mask) wrt.push_back(mask);
  wrt.push_back(m->weight);
  if (m->bias.defined()) wrt.push_back(m->bias);
  const auto g = testing::grads_of(out, npy(c + "_gout0"), wrt);
  expect_close(g[0], npy(c + "_gin0"), 1e-12, 1e-12, c + " d input");
  expect_close(g[1], npy(c + "_gin1"), 1e-12, 1e-12, c + " d offset");
  size_t k = 2;
  if (with_mask) expect_close(g[k++], npy(c + "_gin2"), 1e-12, 1e-12, c + " d mask");
  expect_close(g[k++], npy(c + "_g_weight"), 1e-12, 1e-12, c + " d weight");
  if (m->bias.defined()) expect_close(g[k], npy(c + "_g_bias"), 1e-12, 1e-12, c + " d bias");
}

TEST(DeformConv2dModule, Dcnv2MatchesTorchvision) {
  check_case("dcn_v2", ops::DeformConv2d(4, 6, 3, Ints{1, 2}, 1), true);
}

TEST(DeformConv2dModule, GroupsWithoutBiasOrMaskMatchTorchvision) {
  check_case("dcn_v1_groups", ops::DeformConv2d(4, 2, Ints{2, 3}, 1, Ints{0, 1}, Ints{2, 1}, 2, false), false);
}

TEST(DeformConv2dModule, Gradcheck) {
  ops::DeformConv2d m(2, 3, 2, 1, 1, 1, 1, true);
  m->to(kFloat64);
  manual_seed(3);
  const Tensor x = rand({1, 2, 4, 3}, kFloat64).requires_grad_();
  const Tensor offset = (randn({1, 8, 5, 4}, kFloat64) * 0.7).requires_grad_();
  const Tensor mask = rand({1, 4, 5, 4}, kFloat64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [&](const autograd::variable_list& v) {
        return autograd::variable_list{m(v[0], v[1], v[2])};
      },
      {x, offset, mask}));
  // The parameters take gradients through the module too.
  EXPECT_TRUE(autograd::gradcheck(
      [&](const autograd::variable_list& v) {
        return autograd::variable_list{
            ops::deform_conv2d(x.detach(), offset.detach(), v[0], v[1], {.padding = 1, .mask = mask.detach()})};
      },
      {m->weight.detach().requires_grad_(), m->bias.detach().requires_grad_()}));
}

TEST(DeformConv2dModule, InitialisationWithinTorchBounds) {
  // kaiming_uniform(a = sqrt 5) over fan_in = 8 * 3 * 3 and the bias both
  // draw from U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
  ops::DeformConv2d m(16, 32, 3, 1, 1, 1, 2);
  const double bound = 1 / std::sqrt(8.0 * 9.0);
  EXPECT_EQ(m->weight.sizes(), (std::vector<int64_t>{32, 8, 3, 3}));
  EXPECT_EQ(m->bias.sizes(), (std::vector<int64_t>{32}));
  for (const Tensor& t : {m->weight, m->bias}) {
    EXPECT_LE(t.abs().max().item<double>(), bound);
    EXPECT_GT(t.abs().max().item<double>(), 0.8 * bound);  // spread over the range, not a constant
  }
  EXPECT_NEAR(m->weight.std().item<double>(), bound / std::sqrt(3.0), 0.1 * bound);
  EXPECT_EQ(m->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(ops::DeformConv2d(4, 4, 1, 1, 0, 1, 1, false)->named_parameters().keys(),
            (std::vector<std::string>{"weight"}));
}

TEST(DeformConv2dModule, BadArguments) {
  expect_error([] { ops::DeformConv2d(3, 4, 3, 1, 0, 1, 2); }, "in_channels must be divisible by groups");
  expect_error([] { ops::DeformConv2d(4, 3, 3, 1, 0, 1, 2); }, "out_channels must be divisible by groups");
  expect_error([] { ops::DeformConv2d(4, 3, Ints{3, 3, 3}); }, "DeformConv2d");
  ops::DeformConv2d m(2, 2, 3);
  expect_error([&] { m(zeros({1, 2, 5, 5}), zeros({1, 17, 3, 3})); },
               "deform_conv2d: the shape of the offset tensor at dimension 1 is not valid");
}

}  // namespace deform_conv_module_test
}  // namespace ember
