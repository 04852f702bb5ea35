// nn::functional dropout family and the Dropout modules: statistics, edge
// cases (p = 0 / 1, eval), gradients (mask * scale), in-place, channel-wise
// masks, alpha dropout's moments, gradcheck, errors, printing.
#include <gtest/gtest.h>

#include <cmath>

#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace nn_dropout_test {

using testing::expect_error;
using testing::expect_tensor_near;
namespace F = nn::functional;

constexpr double kAlpha = 1.7580993408473766;

TEST(NnDropout, StatisticsAndScaling) {
  Generator g(7);
  Tensor x = ones({200000}, kFloat64);
  Tensor y = F::dropout(x, 0.3, true, false, &g);
  const double zeros_frac = (y == 0).to(kFloat64).mean().item<double>();
  EXPECT_NEAR(zeros_frac, 0.3, 0.01);
  EXPECT_NEAR(y.mean().item<double>(), 1.0, 0.01);  // inverted scaling keeps the mean
  // Kept elements are exactly x / (1 - p).
  EXPECT_NEAR(y.max().item<double>(), 1 / 0.7, 1e-12);
  EXPECT_TRUE(((y == 0) | ((y - 1 / 0.7).abs() < 1e-12)).all().item<bool>());
  // Float32 too, with the same generator seed giving the same mask.
  Generator g1(3), g2(3);
  Tensor a = F::dropout(ones({1000}), 0.5, true, false, &g1);
  Tensor b = F::dropout(ones({1000}, kFloat64), 0.5, true, false, &g2);
  EXPECT_TRUE((a == 0).equal(b == 0));
}

TEST(NnDropout, EdgeCases) {
  Tensor x = randn({4, 5});
  EXPECT_TRUE(F::dropout(x, 0.0).is_same(x));
  EXPECT_TRUE(F::dropout(x, 0.5, /*training=*/false).is_same(x));
  EXPECT_TRUE(F::dropout2d(x.reshape({2, 2, 5}), 0.5, false).equal(x.reshape({2, 2, 5})));
  EXPECT_TRUE(F::alpha_dropout(x, 0.5, false).is_same(x));
  Tensor z = F::dropout(x, 1.0);
  EXPECT_EQ(z.abs().sum().item<double>(), 0.0);
  EXPECT_EQ(F::alpha_dropout(x, 1.0, true).abs().sum().item<double>(), 0.0);
  EXPECT_EQ(F::dropout(empty({0, 3}), 0.5).numel(), 0);
  // p = 1 still gives a (zero) gradient.
  Tensor xg = randn({3}, kFloat64).requires_grad_();
  F::dropout(xg, 1.0).sum().backward();
  EXPECT_EQ(xg.grad().abs().sum().item<double>(), 0.0);
}

TEST(NnDropout, GradientIsMaskTimesScale) {
  Tensor x = randn({50, 40}, kFloat64).requires_grad_();
  Tensor y = F::dropout(x, 0.4);
  Tensor v = randn({50, 40}, kFloat64);
  y.backward(v);
  Tensor mask_scale = (y != 0).to(kFloat64) / 0.6;
  expect_tensor_near(x.grad(), v * mask_scale, 1e-12, 1e-12);
  expect_tensor_near(y, x.detach() * mask_scale, 1e-12, 1e-12);
}

TEST(NnDropout, InPlace) {
  Tensor x = randn({30, 30}, kFloat64).requires_grad_();
  Tensor h = x * 1;
  Tensor r = F::dropout(h, 0.5, true, /*inplace=*/true);
  EXPECT_TRUE(r.is_same(h));
  h.sum().backward();
  expect_tensor_near(x.grad(), (h != 0).to(kFloat64) * 2.0, 1e-12, 1e-12);
  // Without autograd.
  Tensor t = ones({1000});
  F::dropout(t, 0.25, true, true);
  EXPECT_NEAR((t == 0).to(kFloat64).mean().item<double>(), 0.25, 0.05);
  // A leaf that requires grad cannot be modified in place.
  Tensor leaf = randn({3}, kFloat64).requires_grad_();
  EXPECT_THROW(F::dropout(leaf, 0.5, true, true), Error);
}

// Every channel is either all zero or all scaled.
void expect_channelwise(const Tensor& y, const Tensor& x, int64_t channel_dims, double scale) {
  Tensor ratio = (y / x).flatten(channel_dims);  // [channels..., rest]
  Tensor first = ratio.select(-1, 0).unsqueeze(-1);
  EXPECT_TRUE(((ratio - first).abs() < 1e-9).all().item<bool>());
  EXPECT_TRUE((((first - scale).abs() < 1e-9) | (first == 0)).all().item<bool>());
}

TEST(NnDropout, ChannelWise) {
  Tensor x3 = rand({8, 16, 10}, kFloat64) + 1;
  expect_channelwise(F::dropout1d(x3, 0.5), x3, 2, 2.0);
  Tensor x2 = rand({16, 10}, kFloat64) + 1;  // unbatched
  expect_channelwise(F::dropout1d(x2, 0.5), x2, 1, 2.0);
  Tensor x4 = rand({4, 16, 3, 3}, kFloat64) + 1;
  expect_channelwise(F::dropout2d(x4, 0.25), x4, 2, 1 / 0.75);
  Tensor x5 = rand({2, 8, 2, 3, 3}, kFloat64) + 1;
  expect_channelwise(F::dropout3d(x5, 0.5), x5, 2, 2.0);
  Tensor u4 = rand({8, 2, 3, 3}, kFloat64) + 1;  // unbatched 3d
  expect_channelwise(F::dropout3d(u4, 0.5), u4, 1, 2.0);
  // About p of the channels are dropped.
  Tensor big = ones({100, 100, 2});
  Tensor d = F::dropout2d(big, 0.3);
  EXPECT_NEAR((d.select(2, 0) == 0).to(kFloat64).mean().item<double>(), 0.3, 0.03);
}

TEST(NnDropout, AlphaDropoutKeepsMoments) {
  Generator g(11);
  Tensor x = randn({400000}, kFloat64);
  const double p = 0.2;
  Tensor y = F::alpha_dropout(x, p, true, false, &g);
  EXPECT_NEAR(y.mean().item<double>(), 0.0, 0.01);
  EXPECT_NEAR(y.std().item<double>(), 1.0, 0.01);
  // Kept: a*x + alpha*a*p; dropped: alpha*a*(p-1).
  const double a = 1 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  Tensor dropped_value = full({1}, kAlpha * a * (p - 1), kFloat64);
  Tensor kept = (y - (x * a + kAlpha * a * p)).abs() < 1e-9;
  Tensor dropped = (y - dropped_value).abs() < 1e-9;
  EXPECT_TRUE((kept | dropped).all().item<bool>());
  EXPECT_NEAR(dropped.to(kFloat64).mean().item<double>(), p, 0.01);
  // Gradient: a where kept, 0 where dropped.
  Generator g2(5), g3(5);
  Tensor xg = randn({1000}, kFloat64).requires_grad_();
  Tensor yg = F::alpha_dropout(xg, 0.3, true, false, &g2);
  yg.sum().backward();
  const double a3 = 1 / std::sqrt((kAlpha * kAlpha * 0.3 + 1) * 0.7);
  Tensor keep3 = ((yg.detach() - (xg.detach() * a3 + kAlpha * a3 * 0.3)).abs() < 1e-9).to(kFloat64);
  expect_tensor_near(xg.grad(), keep3 * a3, 1e-12, 1e-12);
  // Feature variant: per channel.
  Tensor xf = randn({64, 32, 5}, kFloat64);
  Tensor yf = F::feature_alpha_dropout(xf, 0.5, true);
  Tensor af = full({1}, 1 / std::sqrt((kAlpha * kAlpha * 0.5 + 1) * 0.5), kFloat64);
  Tensor kept_f = ((yf - (xf * af + kAlpha * af * 0.5)).abs() < 1e-9).all(2);
  Tensor dropped_f = ((yf - kAlpha * af * (0.5 - 1)).abs() < 1e-9).all(2);
  EXPECT_TRUE((kept_f | dropped_f).all().item<bool>());
}

TEST(NnDropout, Gradcheck) {
  Tensor x = randn({3, 4, 2}, kFloat64).requires_grad_();
  using Fn = Tensor (*)(const Tensor&, double, bool, bool, Generator*);
  for (Fn f : {Fn(&F::dropout), Fn(&F::dropout1d), Fn(&F::dropout2d), Fn(&F::alpha_dropout),
               Fn(&F::feature_alpha_dropout)}) {
    auto fn = [f](const autograd::variable_list& in) {
      Generator g(42);  // the same mask on every call
      return autograd::variable_list{f(in[0], 0.4, true, false, &g)};
    };
    EXPECT_TRUE(autograd::gradcheck(fn, {x}));
    EXPECT_TRUE(autograd::gradgradcheck(fn, {x}));
  }
}

TEST(NnDropout, Errors) {
  expect_error([] { F::dropout(randn({3}), 1.5); }, "dropout: dropout probability has to be between 0 and 1, but got 1.5");
  expect_error([] { F::alpha_dropout(randn({3}), -0.1, true); }, "alpha_dropout: dropout probability");
  expect_error([] { F::dropout1d(randn({2, 3, 4, 5}), 0.5); }, "dropout1d: Expected 2D or 3D input");
  expect_error([] { F::feature_alpha_dropout(randn({3}), 0.5, true); }, "Feature dropout requires at least 2 dimensions");
  expect_error([] { nn::Dropout(2.0); }, "Dropout: dropout probability has to be between 0 and 1");
}

TEST(NnDropout, Modules) {
  nn::Dropout d(0.5);
  Tensor x = ones({1000});
  Tensor y = d(x);
  EXPECT_GT((y == 0).to(kFloat64).sum().item<double>(), 300);
  d->eval();
  EXPECT_TRUE(d(x).equal(x));
  nn::Dropout2d d2({.p = 0.2, .inplace = true});
  Tensor t = ones({4, 8, 2, 2});
  EXPECT_TRUE(d2(t).is_same(t));
  nn::Sequential seq(nn::Dropout1d(0.3), nn::Dropout3d(), nn::AlphaDropout(0.1), nn::FeatureAlphaDropout(0.2));
  seq->eval();
  EXPECT_TRUE(seq->children().size() == 4);
  EXPECT_EQ(nn::Dropout()->str(), "Dropout(p=0.5, inplace=False)");
  EXPECT_EQ(d2->str(), "Dropout2d(p=0.2, inplace=True)");
  EXPECT_EQ(nn::AlphaDropout(0.1)->str(), "AlphaDropout(p=0.1, inplace=False)");
  EXPECT_EQ(nn::FeatureAlphaDropout()->str(), "FeatureAlphaDropout(p=0.5, inplace=False)");
}

}  // namespace nn_dropout_test
}  // namespace ember
