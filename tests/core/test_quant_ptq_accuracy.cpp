// Post-training quantization keeps a trained CNN's accuracy: a small CNN
// trained in float on a generated four-class image set (bars, diagonals and
// blobs in noise), then fused, prepared with the onednn qconfig, calibrated on
// training batches and converted; the int8 model's test accuracy must be
// within one point of the float model's (issue 27's target).
#include <gtest/gtest.h>

#include <ember/ao/quantization/quant_markers.h>
#include <ember/ao/quantization/quantize.h>
#include <ember/ember.h>

namespace ember {
namespace quant_ptq_accuracy_test {

using namespace ember::ao::quantization;

constexpr int64_t kSide = 10, kClasses = 4;

// One 1 x 10 x 10 image per label: 0 a horizontal bar, 1 a vertical bar,
// 2 the main diagonal shifted, 3 a 3 x 3 blob; Gaussian noise (sigma 0.35) on top.
std::pair<Tensor, Tensor> make_set(int64_t n) {
  const Tensor labels = randint(0, kClasses, {n});
  const Tensor where = randint(1, kSide - 3, {n, 2});
  Tensor images = randn({n, 1, kSide, kSide}) * 0.35;
  float* px = images.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t a = where[i][0].item<int64_t>(), b = where[i][1].item<int64_t>();
    float* img = px + i * kSide * kSide;
    auto on = [&](int64_t r, int64_t c) {
      if (r >= 0 && r < kSide && c >= 0 && c < kSide) img[r * kSide + c] += 1.0f;
    };
    switch (labels[i].item<int64_t>()) {
      case 0: for (int64_t c = 0; c < kSide; ++c) on(a, c); break;
      case 1: for (int64_t r = 0; r < kSide; ++r) on(r, a); break;
      case 2: for (int64_t r = 0; r < kSide; ++r) on(r, r + a - 4); break;
      default: for (int64_t r = 0; r < 3; ++r) for (int64_t c = 0; c < 3; ++c) on(a + r, b + c); break;
    }
  }
  return {images, labels};
}

double accuracy(QuantWrapper& m, const Tensor& x, const Tensor& y) {
  NoGradGuard no_grad;
  const Tensor pred = m(x).argmax(1);
  return 100.0 * pred.eq(y).sum().item<int64_t>() / static_cast<double>(y.numel());
}

TEST(QuantPtqAccuracy, Int8WithinOnePointOfFloat) {
  manual_seed(2027);
  const auto [train_x, train_y] = make_set(1024);
  const auto [test_x, test_y] = make_set(1000);
  QuantWrapper m(nn::AnyModule(nn::Sequential(
      nn::Conv2d({.in_channels = 1, .out_channels = 8, .kernel_size = 3, .padding = 1}), nn::BatchNorm2d(8),
      nn::ReLU(), nn::MaxPool2d(2), nn::Conv2d({.in_channels = 8, .out_channels = 16, .kernel_size = 3, .padding = 1}),
      nn::ReLU(), nn::Flatten(), nn::Linear(16 * 5 * 5, kClasses))));
  optim::SGD opt(m->parameters(), {.lr = 0.05, .momentum = 0.9});
  m->train();
  for (int epoch = 0; epoch < 4; ++epoch) {
    for (int64_t i = 0; i < 1024; i += 32) {
      opt.zero_grad();
      nn::functional::cross_entropy(m(train_x.narrow(0, i, 32)), train_y.narrow(0, i, 32)).backward();
      opt.step();
    }
  }
  m->eval();
  const double float_acc = accuracy(m, test_x, test_y);
  EXPECT_GT(float_acc, 90.0);  // the task is learnable; a broken float model would make the check vacuous

  fuse_modules(*m, {{"module.0", "module.1", "module.2"}, {"module.4", "module.5"}});
  prepare(*m, {{"", get_default_qconfig("onednn")}});
  for (int64_t i = 0; i < 256; i += 64) m(train_x.narrow(0, i, 64));
  convert(*m, {.strict = true});
  const double int8_acc = accuracy(m, test_x, test_y);
  EXPECT_NEAR(int8_acc, float_acc, 1.0) << "float " << float_acc << "%, int8 " << int8_acc << "%";
  RecordProperty("float_accuracy", std::to_string(float_acc));
  RecordProperty("int8_accuracy", std::to_string(int8_acc));
}

}  // namespace quant_ptq_accuracy_test
}  // namespace ember
