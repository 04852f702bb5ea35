// nn::functional poolings: forward, indices and gradients against PyTorch
// fixtures (scripts/fixtures/nn_conv.py) in row-major and channels-last,
// gradcheck / gradgradcheck in float64, argument errors.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <functional>
#include <map>
#include <string>

#include "tensor_expect.h"

namespace ember {
namespace nn_functional_pool_test {

namespace F = nn::functional;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::variable_list;
using testing::expect_error;
using testing::expect_tensor_near;

Tensor fx(const std::string& name) { return testing::fixture("nn_conv", name); }

// (output, indices or undefined)
using PoolFn = std::function<std::pair<Tensor, Tensor>(const Tensor&)>;
PoolFn plain(std::function<Tensor(const Tensor&)> f) {
  return [f](const Tensor& x) { return std::make_pair(f(x), Tensor()); };
}

// The cases of POOL_CASES in scripts/fixtures/nn_conv.py.
const std::map<std::string, PoolFn>& pool_cases() {
  static const std::map<std::string, PoolFn> cases{
      {"max_pool1d",
       [](const Tensor& x) {
         return F::max_pool1d_with_indices(x, 3, {.stride = 2, .padding = 1, .dilation = 2, .ceil_mode = true});
       }},
      {"max_pool2d", [](const Tensor& x) { return F::max_pool2d_with_indices(x, 3, {.stride = 2, .padding = 1}); }},
      {"max_pool2d_ceil_dil",
       [](const Tensor& x) {
         return F::max_pool2d_with_indices(
             x, {3, 2}, {.stride = {2, 1}, .padding = {1, 0}, .dilation = {2, 1}, .ceil_mode = true});
       }},
      {"max_pool3d",
       [](const Tensor& x) { return F::max_pool3d_with_indices(x, 2, {.stride = {2, 1, 2}, .ceil_mode = true}); }},
      {"avg_pool1d", plain([](const Tensor& x) {
         return F::avg_pool1d(x, 4, {.stride = 3, .padding = 2, .ceil_mode = true, .count_include_pad = false});
       })},
      {"avg_pool2d", plain([](const Tensor& x) { return F::avg_pool2d(x, 3, {.stride = 2, .padding = 1}); })},
      {"avg_pool2d_ceil_nopad", plain([](const Tensor& x) {
         return F::avg_pool2d(x, 3, {.stride = 2, .padding = 1, .ceil_mode = true, .count_include_pad = false});
       })},
      {"avg_pool2d_divisor",
       plain([](const Tensor& x) { return F::avg_pool2d(x, {2, 3}, {.stride = 2, .divisor_override = 5}); })},
      {"avg_pool3d", plain([](const Tensor& x) {
         return F::avg_pool3d(x, 3, {.stride = 2, .padding = 1, .ceil_mode = true});
       })},
      {"adaptive_avg_pool1d", plain([](const Tensor& x) { return F::adaptive_avg_pool1d(x, 4); })},
      {"adaptive_avg_pool2d", plain([](const Tensor& x) { return F::adaptive_avg_pool2d(x, {4, 3}); })},
      {"adaptive_avg_pool3d", plain([](const Tensor& x) { return F::adaptive_avg_pool3d(x, {2, 3, 4}); })},
      {"adaptive_max_pool1d", [](const Tensor& x) { return F::adaptive_max_pool1d_with_indices(x, 4); }},
      {"adaptive_max_pool2d", [](const Tensor& x) { return F::adaptive_max_pool2d_with_indices(x, {4, 3}); }},
      {"adaptive_max_pool3d", [](const Tensor& x) { return F::adaptive_max_pool3d_with_indices(x, {2, 3, 4}); }},
      {"lp_pool1d", plain([](const Tensor& x) { return F::lp_pool1d(x, 2, 3, {.stride = 2}); })},
      {"lp_pool2d", plain([](const Tensor& x) { return F::lp_pool2d(x, 1, {2, 3}, {.ceil_mode = true}); })},
  };
  return cases;
}

MemoryFormat cl_of(const Tensor& t) { return t.dim() == 5 ? MemoryFormat::ChannelsLast3d : MemoryFormat::ChannelsLast; }

void check_case(const std::string& name, const PoolFn& fn, DType dtype, bool channels_last) {
  SCOPED_TRACE(name + (channels_last ? " channels_last" : "") + (dtype == kFloat64 ? " float64" : ""));
  Tensor x = fx(name + "_x").to(dtype);
  const bool cl = channels_last && x.dim() >= 4;
  if (cl) x = x.contiguous(cl_of(x));
  x.requires_grad_();
  auto [y, idx] = fn(x);
  expect_tensor_near(y, fx(name + "_y").to(dtype), 1e-5, 1e-5);
  // PyTorch 1.13's 2-d pools keep channels-last; its 3-d pools return contiguous.
  if (cl && name.find("lp_") == std::string::npos) {
    EXPECT_TRUE(y.is_contiguous(x.dim() == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous));
  }
  if (idx.defined()) {
    EXPECT_TRUE(idx.equal(fx(name + "_idx")));
  }
  (y * fx(name + "_gy").to(dtype)).sum().backward();
  expect_tensor_near(x.grad(), fx(name + "_gx").to(dtype), 1e-5, 1e-5);
  if (cl && name.find("lp_") == std::string::npos) {
    EXPECT_TRUE(x.grad().is_contiguous(cl_of(x)));
  }
}

TEST(NnFunctionalPool, Fixtures) {
  for (const auto& [name, fn] : pool_cases()) {
    check_case(name, fn, kFloat32, false);
    check_case(name, fn, kFloat32, true);
    check_case(name, fn, kFloat64, false);
  }
}

Generator& gen() {
  static Generator g(99);
  return g;
}
// Distinct values (no ties: max pooling's gradient is not smooth at ties).
Tensor rnd(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t v : sizes) n *= v;
  return (randperm(n, TensorOptions(kFloat64), &gen()).reshape(sizes) * 0.1 + rand(sizes, kFloat64, &gen()) * 0.01)
      .requires_grad_();
}

TEST(NnFunctionalPool, Gradcheck) {
  const auto& cases = pool_cases();
  for (const char* name : {"max_pool2d_ceil_dil", "avg_pool2d_ceil_nopad", "avg_pool3d", "adaptive_avg_pool2d",
                           "adaptive_max_pool1d", "avg_pool2d_divisor", "max_pool3d"}) {
    SCOPED_TRACE(name);
    PoolFn f = cases.at(name);
    auto g = [f](const variable_list& v) { return variable_list{f(v[0]).first}; };
    Tensor x = std::string(name).find("3d") != std::string::npos ? rnd({1, 2, 4, 5, 3}) : rnd({1, 2, 7, 6});
    if (std::string(name).find("1d") != std::string::npos) x = rnd({2, 2, 7});
    EXPECT_TRUE(gradcheck(g, {x}));
    EXPECT_TRUE(gradgradcheck(g, {x}));
    Tensor xc = x.detach().contiguous(x.dim() == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous);
    EXPECT_TRUE(gradcheck(g, {xc.requires_grad_()}));
  }
  auto lp = [](const variable_list& v) { return variable_list{F::lp_pool2d(v[0], 2, 2)}; };
  EXPECT_TRUE(gradcheck(lp, {rnd({1, 2, 4, 4})}));
}

TEST(NnFunctionalPool, UnbatchedAndNaN) {
  Tensor x = fx("max_pool2d_x");
  auto [y, idx] = F::max_pool2d_with_indices(x[1], 3, {.stride = 2, .padding = 1});
  expect_tensor_near(y, fx("max_pool2d_y")[1]);
  EXPECT_TRUE(idx.equal(fx("max_pool2d_idx")[1]));
  Tensor n = tensor<float>({1, NAN, 3, 4}).view({1, 1, 4});
  auto [v, i] = F::max_pool1d_with_indices(n, 2);
  EXPECT_TRUE(std::isnan(v[0][0][0].item<float>()));
  EXPECT_EQ(i[0][0][0].item<int64_t>(), 1);
  EXPECT_EQ(v[0][0][1].item<float>(), 4.0f);
  Tensor e = F::avg_pool2d(empty({0, 3, 4, 4}), 2);
  EXPECT_EQ(e.sizes(), IntArrayRef({0, 3, 2, 2}));
}

TEST(NnFunctionalPool, Errors) {
  expect_error([] { F::max_pool2d(zeros({2, 3}), 2); }, "max_pool2d: Expected 3D or 4D (batch mode) input");
  expect_error([] { F::max_pool2d(zeros({1, 1, 4, 4}), 3, {.padding = 2}); },
               "pad should be at most half of effective kernel size");
  expect_error([] { F::avg_pool2d(zeros({1, 1, 2, 2}), 3); }, "Output size is too small");
  expect_error([] { F::avg_pool2d(zeros({1, 1, 4, 4}), 2, {.divisor_override = 0}); }, "divisor must be not zero");
  expect_error([] { F::max_pool3d(zeros({1, 1, 4, 4, 4}), {2, 2}); },
               "max_pool3d: expected kernel_size to be a single integer or a list of 3 integers");
  expect_error([] { F::adaptive_avg_pool2d(zeros({1, 1, 0, 4}), 2); }, "non-zero size for non-batch dimensions");
  expect_error([] { F::max_pool1d(zeros({1, 4, 4}, kInt64), 2); }, "max_pool1d: expected a float32 or float64 input");
}

// Reference 2-d max pool (PyTorch's rule: scan the window row-major, take a
// value greater than the best so far or a NaN): values and flat indices.
std::pair<Tensor, Tensor> brute_max_pool2d(const Tensor& x, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                                           int64_t ph, int64_t pw, int64_t oh_n, int64_t ow_n) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  Tensor xd = x.to(kFloat64).contiguous();
  Tensor y = empty({n, c, oh_n, ow_n}, kFloat64), idx = empty({n, c, oh_n, ow_n}, kInt64);
  const double* xp = xd.data_ptr<double>();
  double* yp = y.data_ptr<double>();
  int64_t* ip = idx.data_ptr<int64_t>();
  for (int64_t p = 0; p < n * c; ++p)
    for (int64_t oh = 0; oh < oh_n; ++oh)
      for (int64_t ow = 0; ow < ow_n; ++ow) {
        const int64_t h0 = std::max<int64_t>(0, oh * sh - ph), h1 = std::min(h, oh * sh - ph + kh);
        const int64_t w0 = std::max<int64_t>(0, ow * sw - pw), w1 = std::min(w, ow * sw - pw + kw);
        double best = -INFINITY;
        int64_t bi = h0 * w + w0;
        for (int64_t i = h0; i < h1; ++i)
          for (int64_t j = w0; j < w1; ++j) {
            const double v = xp[p * h * w + i * w + j];
            if (v > best || std::isnan(v)) best = v, bi = i * w + j;
          }
        yp[(p * oh_n + oh) * ow_n + ow] = best;
        ip[(p * oh_n + oh) * ow_n + ow] = bi;
      }
  return {y, idx};
}

// The row-major 2-d max pool runs a separable kernel (Note [Separable planar
// max pooling]): values and indices equal a window-by-window scan, including
// ties (small integers), NaNs, -inf, partial border windows and ceil_mode.
TEST(NnFunctionalPool, SeparableMaxPoolMatchesWindowScan) {
  struct Case {
    int64_t h, w, kh, kw, sh, sw, ph, pw;
    bool ceil;
  };
  const Case cases[] = {{23, 37, 3, 3, 2, 2, 1, 1, false}, {17, 9, 2, 3, 1, 2, 0, 1, true},
                        {8, 40, 3, 5, 3, 1, 1, 2, true},   {5, 5, 5, 5, 1, 1, 2, 2, false},
                        {30, 30, 2, 2, 2, 2, 0, 0, false}, {12, 64, 3, 3, 1, 1, 1, 1, false}};
  for (const Case& k : cases) {
    Tensor x = randint(0, 4, {2, 3, k.h, k.w}).to(kFloat32);  // many ties
    float* xp = x.data_ptr<float>();
    xp[5] = NAN;
    xp[7] = NAN;
    xp[k.w + 3] = -INFINITY;
    xp[x.numel() - 1] = NAN;
    for (DType dt : {kFloat32, kFloat64}) {
      Tensor xt = x.to(dt);
      auto [y, idx] = F::max_pool2d_with_indices(
          xt, {k.kh, k.kw}, {.stride = {k.sh, k.sw}, .padding = {k.ph, k.pw}, .ceil_mode = k.ceil});
      Tensor y_only;
      {
        NoGradGuard no_grad;
        y_only = F::max_pool2d(xt, {k.kh, k.kw}, {.stride = {k.sh, k.sw}, .padding = {k.ph, k.pw}, .ceil_mode = k.ceil});
      }
      auto [ry, ridx] = brute_max_pool2d(x, k.kh, k.kw, k.sh, k.sw, k.ph, k.pw, y.size(2), y.size(3));
      EXPECT_TRUE(allclose(y.to(kFloat64), ry, 0, 0, /*equal_nan=*/true)) << k.h << "x" << k.w;
      EXPECT_TRUE(allclose(y_only.to(kFloat64), ry, 0, 0, /*equal_nan=*/true)) << k.h << "x" << k.w;
      EXPECT_TRUE(idx.equal(ridx)) << k.h << "x" << k.w << " kernel " << k.kh << "x" << k.kw;
    }
  }
}

}  // namespace nn_functional_pool_test
}  // namespace ember
