// Conv, pooling and normalization modules against PyTorch through the
// checkpoint path (scripts/fixtures/nn_layers.py; tests/core/module_fixture.h).
#include <gtest/gtest.h>

#include <sstream>

#include <ember/ember.h>

#include "module_fixture.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::ModuleCase;

std::string repr(const nn::Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

TEST(NnLayersRepr, Conv) {
  EXPECT_EQ(repr(*nn::Conv2d({.in_channels = 3, .out_channels = 8, .kernel_size = 3, .stride = 2, .padding = 1,
                              .bias = false})),
            "Conv2d(3, 8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)");
  nn::Conv2d c(3, 8, 3);
  nn::LayerNorm ln(4);
  nn::LayerNorm ln2({.normalized_shape = {3, 4}});
  nn::LayerNorm ln3(std::vector<int64_t>{3, 4});
  nn::AdaptiveAvgPool2d gap({std::nullopt, 3});
  nn::AdaptiveAvgPool2d gap2(3);
  nn::MaxPool2d mp(2);
  nn::BatchNorm2d bn(4);
  nn::GroupNorm gn(2, 4);
  EXPECT_EQ(repr(*gap), "AdaptiveAvgPool2d(output_size=(None, 3))");
}

}  // namespace
}  // namespace ember
