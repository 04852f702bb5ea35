// The geometry transform classes: construction (holders and Options),
// get_params distributions, forward == the functional with the drawn
// parameters, reproducibility per seed, save/load round trips, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include <ember/ember.h>
#include <ember/vision/transforms.h>

#include "geometry_fixtures.h"

using namespace ember;
using namespace ember::testing;
namespace T = ember::vision::transforms;
namespace F = ember::vision::transforms::functional;

namespace geometry_transforms_test {

Tensor test_image() { return geometry_npy("img_f32_3x23x31"); }

void expect_same(const Tensor& a, const Tensor& b, const std::string& what) {
  expect_image_near(a, b, 0.0, what);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The message names the transform and a value.
void expect_error(const std::function<void()>& f, const std::string& type, const std::string& value) {
  const std::string msg = error_of(f);
  EXPECT_NE(msg.find(type), std::string::npos) << "expected an error naming " << type << ", got: " << msg;
  EXPECT_NE(msg.find(value), std::string::npos) << "expected an error naming " << value << ", got: " << msg;
}

TEST(GeometryTransforms, DeterministicTransformsEqualTheFunctionals) {
  const Tensor img = test_image();
  expect_same(T::Resize(17)(img), F::resize(img, {17}), "Resize(17)");
  expect_same(T::Resize({.size = {9, 40}, .interpolation = T::InterpolationMode::Bicubic, .antialias = true})(img),
              F::resize(img, {9, 40}, T::InterpolationMode::Bicubic, std::nullopt, true), "Resize options");
  expect_same(T::Resize(T::ResizeOptions{.size = {10}, .max_size = 12})(img), F::resize(img, {10}, T::InterpolationMode::Bilinear, 12),
              "Resize max_size");
  expect_same(T::CenterCrop(11)(img), F::center_crop(img, {11}), "CenterCrop");
  expect_same(T::CenterCrop({.size = {30, 8}})(img), F::center_crop(img, {30, 8}), "CenterCrop padded");
  expect_same(T::Pad(3)(img), F::pad(img, {3}), "Pad");
  expect_same(T::Pad({.padding = {1, 2, 3, 4}, .fill = 0.5})(img), F::pad(img, {1, 2, 3, 4}, 0.5), "Pad fill");
  expect_same(T::Pad({.padding = {2, 3}, .padding_mode = "symmetric"})(img), F::pad(img, {2, 3}, 0, "symmetric"),
              "Pad symmetric");
  // FiveCrop / TenCrop stack the crops along a new leading dim.
  const Tensor five = T::FiveCrop(7)(img);
  ASSERT_EQ(five.sizes(), (std::vector<int64_t>{5, 3, 7, 7}));
  const auto crops = F::five_crop(img, {7});
  for (int64_t i = 0; i < 5; ++i) expect_same(five.select(0, i), crops[static_cast<size_t>(i)], "FiveCrop");
  const Tensor ten = T::TenCrop({.size = {6, 9}, .vertical_flip = true})(img.unsqueeze(0));
  ASSERT_EQ(ten.sizes(), (std::vector<int64_t>{10, 1, 3, 6, 9}));
  const auto ten_crops = F::ten_crop(img.unsqueeze(0), {6, 9}, true);
  for (int64_t i = 0; i < 10; ++i) expect_same(ten.select(0, i), ten_crops[static_cast<size_t>(i)], "TenCrop");
}

TEST(GeometryTransforms, FlipFrequencyAndReproducibility) {
  const Tensor img = test_image();
  const Tensor flipped = F::hflip(img), vflipped = F::vflip(img);
  manual_seed(1);
  T::RandomHorizontalFlip h(0.3);
  T::RandomVerticalFlip v;
  EXPECT_EQ(v->p(), 0.5);
  int hs = 0, vs = 0;
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    const Tensor a = h(img);
    const bool is_flipped = a.is_same(img) ? false : true;
    if (is_flipped) expect_same(a, flipped, "hflip");
    hs += is_flipped;
    const Tensor b = v(img);
    if (!b.is_same(img)) {
      expect_same(b, vflipped, "vflip");
      ++vs;
    }
  }
  EXPECT_NEAR(hs / double(n), 0.3, 0.04);
  EXPECT_NEAR(vs / double(n), 0.5, 0.04);
  EXPECT_TRUE(T::RandomHorizontalFlip(0.0)(img).is_same(img));
  expect_same(T::RandomHorizontalFlip(1.0)(img), flipped, "p = 1");
}

TEST(GeometryTransforms, RandomCropParams) {
  const Tensor img = zeros({3, 10, 20});
  Generator g(3);
  std::vector<int> rows(5, 0), cols(15, 0);
  const int n = 6000;
  for (int k = 0; k < n; ++k) {
    const auto [i, j, h, w] = T::RandomCropImpl::get_params(img, {6, 6}, &g);
    ASSERT_TRUE(i >= 0 && i <= 4 && j >= 0 && j <= 14) << i << " " << j;
    EXPECT_EQ(h, 6);
    EXPECT_EQ(w, 6);
    ++rows[static_cast<size_t>(i)];
    ++cols[static_cast<size_t>(j)];
  }
  for (int c : rows) EXPECT_NEAR(c / double(n), 1.0 / 5, 0.02);
  for (int c : cols) EXPECT_NEAR(c / double(n), 1.0 / 15, 0.015);
  EXPECT_EQ(T::RandomCropImpl::get_params(img, {10, 20}, &g), (std::array<int64_t, 4>{0, 0, 10, 20}));
  expect_error([&] { T::RandomCropImpl::get_params(img, {11, 5}, &g); }, "RandomCrop", "(11, 5)");
}

TEST(GeometryTransforms, RandomCropForward) {
  const Tensor img = test_image();
  for (uint64_t seed : {1, 2, 3}) {
    // Without padding: forward == crop at get_params' draw.
    T::RandomCrop crop(9);
    Generator g1(seed), g2(seed);
    Tensor out;
    {
      GeneratorScope scope(g1);
      out = crop(img);
    }
    const auto [i, j, h, w] = T::RandomCropImpl::get_params(img, {9, 9}, &g2);
    expect_same(out, F::crop(img, i, j, h, w), "RandomCrop");
    // With padding and pad_if_needed: the padded image is cropped.
    T::RandomCrop padded({.size = {30, 40}, .padding = {2}, .pad_if_needed = true, .fill = 0.25,
                          .padding_mode = "constant"});
    Generator g3(seed), g4(seed);
    {
      GeneratorScope scope(g3);
      out = padded(img);
    }
    Tensor p = F::pad(img, {2}, 0.25);                    // 27 x 35
    p = F::pad(p, {40 - 35, 0}, 0.25);                    // width 45
    p = F::pad(p, {0, 30 - 27}, 0.25);                    // height 33
    const auto q = T::RandomCropImpl::get_params(p, {30, 40}, &g4);
    expect_same(out, F::crop(p, q[0], q[1], q[2], q[3]), "RandomCrop padded");
  }
  expect_error([] { T::RandomCrop(T::RandomCropOptions{.size = {3}, .padding = {1, 2, 3}}); }, "RandomCrop", "[1, 2, 3]");
  expect_error([] { T::RandomCrop(T::RandomCropOptions{.size = {3}, .padding_mode = "wrap"}); }, "RandomCrop", "wrap");
  expect_error([] { T::RandomCrop(T::RandomCropOptions{.size = {0}}); }, "RandomCrop", "0");
}

TEST(GeometryTransforms, RandomResizedCropParams) {
  const Tensor img = zeros({3, 60, 80});
  Generator g(5);
  const std::array<double, 2> scale = {0.2, 0.7}, ratio = {0.5, 2.0};
  double log_ratio_sum = 0;
  const int n = 4000;
  for (int k = 0; k < n; ++k) {
    const auto [i, j, h, w] = T::RandomResizedCropImpl::get_params(img, scale, ratio, &g);
    ASSERT_TRUE(h > 0 && w > 0 && i >= 0 && j >= 0 && i + h <= 60 && j + w <= 80) << i << " " << j << " " << h << " " << w;
    // Area and aspect ratio in range, up to the rounding to whole pixels.
    const double area = static_cast<double>(h * w) / (60.0 * 80.0);
    EXPECT_GE(area, 0.2 * 0.9);
    EXPECT_LE(area, 0.7 * 1.1);
    const double r = static_cast<double>(w) / static_cast<double>(h);
    EXPECT_GE(r, 0.5 * 0.85);
    EXPECT_LE(r, 2.0 * 1.15);
    log_ratio_sum += std::log(r);
  }
  // log-uniform aspect ratio over a range symmetric in log: mean log ratio ~ 0
  // (a little below: wide crops fail to fit more often in a 60 x 80 image? no: the image is wider).
  EXPECT_NEAR(log_ratio_sum / n, 0.0, 0.1);
  // The fallback: no try fits a 10 x 1000 strip, so the central crop of the
  // largest allowed ratio is taken.
  const Tensor strip = zeros({1, 10, 1000});
  EXPECT_EQ(T::RandomResizedCropImpl::get_params(strip, {0.08, 1.0}, {3.0 / 4.0, 4.0 / 3.0}, &g),
            (std::array<int64_t, 4>{0, (1000 - 13) / 2, 10, 13}));
  const Tensor tall = zeros({1, 1000, 10});
  EXPECT_EQ(T::RandomResizedCropImpl::get_params(tall, {0.08, 1.0}, {3.0 / 4.0, 4.0 / 3.0}, &g),
            (std::array<int64_t, 4>{(1000 - 13) / 2, 0, 13, 10}));
}

TEST(GeometryTransforms, RandomResizedCropForward) {
  const Tensor img = test_image();
  T::RandomResizedCrop rrc({.size = {8}, .scale = {0.3, 1.0}, .antialias = true});
  for (uint64_t seed : {1, 2, 3, 4}) {
    Generator g1(seed), g2(seed);
    Tensor out;
    {
      GeneratorScope scope(g1);
      out = rrc(img);
    }
    ASSERT_EQ(out.sizes(), (std::vector<int64_t>{3, 8, 8}));  // {8} is 8 x 8 here, as torchvision
    const auto [i, j, h, w] = T::RandomResizedCropImpl::get_params(img, {0.3, 1.0}, {3.0 / 4, 4.0 / 3}, &g2);
    expect_same(out, F::resized_crop(img, i, j, h, w, {8, 8}, T::InterpolationMode::Bilinear, true), "RRC");
  }
  // Reproducible per seed, different across seeds.
  manual_seed(9);
  const Tensor a = T::RandomResizedCrop(12)(img);
  manual_seed(9);
  const Tensor b = T::RandomResizedCrop(12)(img);
  expect_same(a, b, "same seed");
  expect_error([] { T::RandomResizedCrop({.size = {8}, .scale = {0.9, 0.1}}); }, "RandomResizedCrop", "0.9");
  expect_error([] { T::RandomResizedCrop({.size = {8}, .ratio = {-1, 2}}); }, "RandomResizedCrop", "-1");
  expect_error([] { T::RandomResizedCrop({.size = {8}, .interpolation = T::InterpolationMode::Nearest, .antialias = true}); },
               "RandomResizedCrop", "nearest");
}

TEST(GeometryTransforms, RandomRotation) {
  const Tensor img = test_image();
  Generator g(2);
  double lo = 1e9, hi = -1e9, sum = 0;
  for (int k = 0; k < 3000; ++k) {
    const double a = T::RandomRotationImpl::get_params({-10, 30}, &g);
    lo = std::min(lo, a), hi = std::max(hi, a), sum += a;
  }
  EXPECT_GE(lo, -10);
  EXPECT_LT(hi, 30);
  EXPECT_LT(lo, -9.5);
  EXPECT_GT(hi, 29.5);
  EXPECT_NEAR(sum / 3000, 10.0, 0.6);
  T::RandomRotation rot({.degrees = {25}, .interpolation = T::InterpolationMode::Bilinear, .expand = true,
                         .fill = {0.1, 0.2, 0.3}});
  for (uint64_t seed : {1, 2}) {
    Generator g1(seed), g2(seed);
    Tensor out;
    {
      GeneratorScope scope(g1);
      out = rot(img);
    }
    const double angle = T::RandomRotationImpl::get_params({-25, 25}, &g2);
    expect_same(out, F::rotate(img, angle, T::InterpolationMode::Bilinear, true, {}, {0.1, 0.2, 0.3}), "rotation");
  }
  expect_error([] { T::RandomRotation(-5.0); }, "RandomRotation", "-5");
  expect_error([] { T::RandomRotation({.degrees = {1, 2, 3}}); }, "RandomRotation", "[1, 2, 3]");
  expect_error([] { T::RandomRotation({.degrees = {5}, .interpolation = T::InterpolationMode::Bicubic}); },
               "RandomRotation", "bicubic");
  expect_error([&] { T::RandomRotation({.degrees = {5}, .fill = {1, 2}})(img); }, "RandomRotation", "[1, 2]");
}

TEST(GeometryTransforms, RandomAffine) {
  Generator g(4);
  const int n = 3000;
  std::set<int64_t> txs;
  for (int k = 0; k < n; ++k) {
    const T::AffineParams p =
        T::RandomAffineImpl::get_params({-20, 20}, std::array<double, 2>{0.1, 0.2}, std::array<double, 2>{0.8, 1.2},
                                        {-5, 5, 10, 15}, {31, 23}, &g);
    ASSERT_TRUE(p.angle >= -20 && p.angle < 20);
    ASSERT_TRUE(std::abs(p.translate[0]) <= 3 && std::abs(p.translate[1]) <= 5) << p.translate[0] << " " << p.translate[1];
    ASSERT_TRUE(p.scale >= 0.8 && p.scale < 1.2);
    ASSERT_TRUE(p.shear[0] >= -5 && p.shear[0] < 5 && p.shear[1] >= 10 && p.shear[1] < 15);
    txs.insert(p.translate[0]);
  }
  EXPECT_EQ(txs, (std::set<int64_t>{-3, -2, -1, 0, 1, 2, 3}));  // max_dx = 3.1
  // Without translate / scale / shear: identity parts, one draw only.
  Generator a(7), b(7);
  const T::AffineParams p = T::RandomAffineImpl::get_params({-20, 20}, std::nullopt, std::nullopt, {}, {31, 23}, &a);
  EXPECT_EQ(p.angle, uniform_scalar(-20, 20, &b));
  EXPECT_EQ(p.translate, (std::array<int64_t, 2>{0, 0}));
  EXPECT_EQ(p.scale, 1.0);
  EXPECT_EQ(p.shear, (std::array<double, 2>{0, 0}));

  const Tensor img = test_image();
  T::RandomAffine affine({.degrees = {10}, .translate = {0.1, 0.1}, .scale = {0.9, 1.1}, .shear = {8},
                          .interpolation = T::InterpolationMode::Bilinear, .fill = {0.5}, .center = {3, 4}});
  for (uint64_t seed : {1, 2, 3}) {
    Generator g1(seed), g2(seed);
    Tensor out;
    {
      GeneratorScope scope(g1);
      out = affine(img);
    }
    const T::AffineParams q = T::RandomAffineImpl::get_params({-10, 10}, std::array<double, 2>{0.1, 0.1},
                                                              std::array<double, 2>{0.9, 1.1}, {-8, 8}, {31, 23}, &g2);
    expect_same(out,
                F::affine(img, q.angle, {double(q.translate[0]), double(q.translate[1])}, q.scale, q.shear,
                          T::InterpolationMode::Bilinear, {0.5}, {3, 4}),
                "affine");
  }
  expect_error([] { T::RandomAffine({.degrees = {5}, .translate = {0.5, 1.5}}); }, "RandomAffine", "1.5");
  expect_error([] { T::RandomAffine({.degrees = {5}, .scale = {0, 1}}); }, "RandomAffine", "[0, 1]");
  expect_error([] { T::RandomAffine({.degrees = {5}, .shear = {1, 2, 3}}); }, "RandomAffine", "[1, 2, 3]");
  expect_error([] { T::RandomAffine({.degrees = {5}, .center = {1}}); }, "RandomAffine", "[1]");
}

TEST(GeometryTransforms, RandomPerspective) {
  Generator g(6);
  const int64_t w = 31, h = 23;
  for (int k = 0; k < 2000; ++k) {
    const auto [start, end] = T::RandomPerspectiveImpl::get_params(w, h, 0.6, &g);
    EXPECT_EQ(start, (std::vector<F::Point>{{0, 0}, {30, 0}, {30, 22}, {0, 22}}));
    // int(0.6 * 15) = 9, int(0.6 * 11) = 6: each corner moves inwards by at most that.
    ASSERT_TRUE(end[0][0] >= 0 && end[0][0] <= 9 && end[0][1] >= 0 && end[0][1] <= 6);
    ASSERT_TRUE(end[1][0] >= 21 && end[1][0] <= 30 && end[1][1] >= 0 && end[1][1] <= 6);
    ASSERT_TRUE(end[2][0] >= 21 && end[2][0] <= 30 && end[2][1] >= 16 && end[2][1] <= 22);
    ASSERT_TRUE(end[3][0] >= 0 && end[3][0] <= 9 && end[3][1] >= 16 && end[3][1] <= 22);
  }
  const Tensor img = test_image();
  T::RandomPerspective persp({.distortion_scale = 0.4, .p = 0.7, .fill = {0.9}});
  int applied = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Generator g1(seed), g2(seed);
    Tensor out;
    {
      GeneratorScope scope(g1);
      out = persp(img);
    }
    if (uniform_scalar(0, 1, &g2) < 0.7) {
      const auto [start, end] = T::RandomPerspectiveImpl::get_params(31, 23, 0.4, &g2);
      expect_same(out, F::perspective(img, start, end, T::InterpolationMode::Bilinear, {0.9}), "perspective");
      ++applied;
    } else {
      EXPECT_TRUE(out.is_same(img));
    }
  }
  EXPECT_GT(applied, 15);
  EXPECT_LT(applied, 40);
  expect_error([] { T::RandomPerspective({.distortion_scale = 1.5}); }, "RandomPerspective", "1.5");
  expect_error([] { T::RandomPerspective({.p = -0.1}); }, "RandomPerspective", "-0.1");
}

TEST(GeometryTransforms, RandomErasing) {
  const Tensor img = zeros({3, 40, 50});
  Generator g(8);
  for (int k = 0; k < 2000; ++k) {
    const T::ErasingParams p =
        T::RandomErasingImpl::get_params(img, {0.02, 0.33}, {0.3, 3.3}, std::vector<double>{1, 2, 3}, &g);
    ASSERT_TRUE(p.i >= 0 && p.j >= 0 && p.h < 40 && p.w < 50 && p.i + p.h <= 40 && p.j + p.w <= 50);
    if (p.v.is_same(img)) continue;  // all ten tries failed
    const double area = static_cast<double>(p.h * p.w) / 2000.0;
    EXPECT_GE(area, 0.02 * 0.7);
    EXPECT_LE(area, 0.33 * 1.2);
    EXPECT_EQ(p.v.sizes(), (std::vector<int64_t>{3, 1, 1}));
  }
  // "random": normal noise of the region's size.
  const T::ErasingParams noise = T::RandomErasingImpl::get_params(zeros({3, 100, 100}), {0.3, 0.3}, {1, 1}, std::nullopt, &g);
  EXPECT_EQ(noise.v.sizes(), (std::vector<int64_t>{3, noise.h, noise.w}));
  EXPECT_EQ(noise.h, 55);  // round(sqrt(3000))
  EXPECT_NEAR(noise.v.mean().item<double>(), 0.0, 0.05);
  EXPECT_NEAR(noise.v.std().item<double>(), 1.0, 0.05);

  const Tensor image = test_image();
  T::RandomErasing erasing({.p = 0.8, .value = {0.1, 0.5, 0.9}});
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Generator g1(seed), g2(seed);
    Tensor out;
    {
      GeneratorScope scope(g1);
      out = erasing(image);
    }
    if (uniform_scalar(0, 1, &g2) < 0.8) {
      const T::ErasingParams p = T::RandomErasingImpl::get_params(image, {0.02, 0.33}, {0.3, 3.3},
                                                                  std::vector<double>{0.1, 0.5, 0.9}, &g2);
      expect_same(out, F::erase(image, p.i, p.j, p.h, p.w, p.v), "erasing");
    } else {
      EXPECT_TRUE(out.is_same(image));
    }
  }
  // inplace writes into the input.
  Tensor target = test_image().clone();
  const Tensor r = T::RandomErasing({.p = 1.0, .value = {7}, .inplace = true})(target);
  EXPECT_TRUE(r.is_same(target));
  EXPECT_EQ(target.max().item<float>(), 7.0f);
  expect_error([&] { T::RandomErasing({.p = 1.0, .value = {1, 2}})(image); }, "RandomErasing", "[1, 2]");
  expect_error([] { T::RandomErasing({.scale = {0.5, 1.5}}); }, "RandomErasing", "1.5");
  expect_error([] { T::RandomErasing({.p = 2}); }, "RandomErasing", "2");
}

TEST(GeometryTransforms, SaveLoadRoundTrip) {
  T::Compose pipeline({
      T::RandomResizedCrop({.size = {20, 24}, .scale = {0.5, 1.0}, .antialias = true}),
      T::RandomCrop({.size = {18}, .padding = {1, 2}, .pad_if_needed = true, .fill = 0.5, .padding_mode = "reflect"}),
      T::RandomHorizontalFlip(0.4),
      T::RandomVerticalFlip(0.6),
      T::RandomRotation({.degrees = {-10, 20}, .interpolation = T::InterpolationMode::Bilinear, .center = {5, 6}}),
      T::RandomAffine({.degrees = {15}, .translate = {0.1, 0.2}, .scale = {0.9, 1.1}, .shear = {-3, 3, -2, 2},
                       .fill = {0.25, 0.5, 0.75}}),
      T::RandomPerspective({.distortion_scale = 0.3, .p = 0.9}),
      T::Pad({.padding = {1, 2, 3, 4}, .padding_mode = "edge"}),
      T::Resize({.size = {16}, .interpolation = T::InterpolationMode::Bicubic, .max_size = 30, .antialias = false}),
      T::CenterCrop({.size = {14, 15}}),
      T::RandomErasing({.p = 0.7, .value = {}}),
      T::RandomErasing({.p = 0.7, .value = {0.5}}),
  });
  const std::string json = T::to_json(*pipeline);
  T::TransformPtr loaded = T::from_json(json);
  EXPECT_EQ(T::to_json(*loaded), json);
  EXPECT_EQ(loaded->str(), pipeline->str());
  const Tensor img = test_image();
  for (uint64_t seed : {1, 2, 3, 4, 5, 6}) {
    manual_seed(seed);
    const Tensor a = pipeline(img);
    manual_seed(seed);
    const Tensor b = (*loaded)(img);
    expect_same(a, b, "seed " + std::to_string(seed));
  }
  for (const T::TransformPtr& t :
       {T::TransformPtr(T::FiveCrop(5)), T::TransformPtr(T::TenCrop(4, true)), T::TransformPtr(T::Resize(7))}) {
    const std::string j = T::to_json(*t);
    EXPECT_EQ(T::to_json(*T::from_json(j)), j);
    expect_same((*T::from_json(j))(img), (*t)(img), j);
  }
  // Every geometry transform is registered.
  for (const char* name : {"Resize", "CenterCrop", "RandomCrop", "RandomResizedCrop", "FiveCrop", "TenCrop", "Pad",
                           "RandomHorizontalFlip", "RandomVerticalFlip", "RandomRotation", "RandomAffine",
                           "RandomPerspective", "RandomErasing"})
    EXPECT_TRUE(T::is_registered_transform(name)) << name;
}

TEST(GeometryTransforms, ConstructionErrors) {
  expect_error([] { T::Resize({.size = {1, 2, 3}}); }, "Resize", "[1, 2, 3]");
  expect_error([] { T::Resize({.size = {10, 10}, .max_size = 20}); }, "Resize", "20");
  expect_error([] { T::Resize({.size = {30}, .max_size = 20}); }, "Resize", "20");
  expect_error([] { T::Resize({.size = {30}, .interpolation = T::InterpolationMode::Nearest, .antialias = true}); },
               "Resize", "nearest");
  expect_error([] { T::CenterCrop({.size = {}}); }, "CenterCrop", "[]");
  expect_error([] { T::FiveCrop(-2); }, "FiveCrop", "-2");
  expect_error([] { T::Pad({.padding = {1, 2, 3}}); }, "Pad", "[1, 2, 3]");
  expect_error([] { T::Pad({.padding = {1}, .padding_mode = "circular"}); }, "Pad", "circular");
  expect_error([] { T::RandomHorizontalFlip(1.5); }, "RandomHorizontalFlip", "1.5");
  expect_error([] { T::RandomVerticalFlip(-1.0); }, "RandomVerticalFlip", "-1");
  // A saved document with a bad value is rejected by the transform's own checks.
  expect_error([] {
    T::from_json(R"({"format": "ember.transform", "version": 1, "transform": {"type": "Resize", "params": )"
                 R"({"size": [0], "interpolation": "bilinear", "max_size": null, "antialias": null}, "children": []}})");
  }, "Resize", "[0]");
  expect_error([] {
    T::from_json(R"({"format": "ember.transform", "version": 1, "transform": {"type": "Resize", "params": )"
                 R"({"size": [4], "interpolation": "lanczos", "max_size": null, "antialias": null}, "children": []}})");
  }, "Resize", "lanczos");
}

}  // namespace geometry_transforms_test
