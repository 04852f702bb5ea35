// Color transform classes: options and holders, parameter draws and their
// distributions, forward == functional with the drawn parameters,
// reproducibility per seed, save/load round trips, and argument errors of the
// transforms and the functionals.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>

#include <ember/ember.h>
#include <ember/vision/transforms.h>

#include "test_util.h"

using namespace ember;
namespace T = ember::vision::transforms;
namespace F = ember::vision::transforms::functional;

namespace color_transforms_test {

Tensor image_u8(std::vector<int64_t> shape, uint64_t seed) {
  Generator g(seed);
  return randint(0, 256, shape, kUInt8, &g);
}

Tensor image_f32(std::vector<int64_t> shape, uint64_t seed) {
  Generator g(seed);
  return rand(shape, kFloat32, &g);
}

// Runs f and returns the ember::Error's message ("" when nothing was thrown).
template <class Fn>
std::string error_of(Fn&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_ERROR_MENTIONS(stmt, ...)                                      \
  do {                                                                        \
    const std::string message = error_of([&] { (void)(stmt); });              \
    EXPECT_FALSE(message.empty()) << #stmt " did not throw";                  \
    for (const char* part : {__VA_ARGS__})                                    \
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message; \
  } while (0)


TEST(ColorTransforms, HoldersAndOptions) {
  T::Normalize n({0.485, 0.456, 0.406}, {0.229, 0.224, 0.225});
  EXPECT_EQ(n->options().mean.size(), 3u);
  T::Normalize n2({.mean = {0.5}, .std = {0.5}, .inplace = true});
  EXPECT_TRUE(n2->options().inplace);
  T::ConvertImageDtype c(kFloat64);
  EXPECT_EQ(c->options().dtype, kFloat64);
  T::Grayscale g;
  EXPECT_EQ(g->options().num_output_channels, 1);
  T::Grayscale g3(3);
  EXPECT_EQ(g3->options().num_output_channels, 3);
  T::RandomGrayscale rg;
  EXPECT_EQ(rg->options().p, 0.1);

  T::ColorJitter j({.brightness = 0.4, .contrast = {0.5, 1.5}, .saturation = 1.5, .hue = 0.1});
  EXPECT_EQ(*j->brightness(), (std::array<double, 2>{0.6, 1.4}));
  EXPECT_EQ(*j->contrast(), (std::array<double, 2>{0.5, 1.5}));
  EXPECT_EQ(*j->saturation(), (std::array<double, 2>{0.0, 2.5}));  // clipped at 0
  EXPECT_EQ(*j->hue(), (std::array<double, 2>{-0.1, 0.1}));
  T::ColorJitter none;
  EXPECT_FALSE(none->brightness() || none->contrast() || none->saturation() || none->hue());
  T::ColorJitter positional(0.2, 0.0, T::JitterRange(1.0, 1.0), 0.0);
  EXPECT_TRUE(positional->brightness().has_value());
  EXPECT_FALSE(positional->contrast() || positional->saturation() || positional->hue());

  T::GaussianBlur b1(3);
  EXPECT_EQ(b1->kernel_size(), (std::array<int64_t, 2>{3, 3}));
  EXPECT_EQ(b1->sigma(), (std::array<double, 2>{0.1, 2.0}));
  T::GaussianBlur b2({5, 3}, {0.5, 1.0});
  EXPECT_EQ(b2->kernel_size(), (std::array<int64_t, 2>{5, 3}));
  T::GaussianBlur b3(7, 1.5);
  EXPECT_EQ(b3->sigma(), (std::array<double, 2>{1.5, 1.5}));
  T::GaussianBlur b4({.kernel_size = {9}, .sigma = {0.2, 0.4}});
  EXPECT_EQ(b4->kernel_size(), (std::array<int64_t, 2>{9, 9}));

  EXPECT_EQ(T::RandomPosterize(4)->options().bits, 4);
  EXPECT_EQ(T::RandomSolarize(128.0, 0.3)->options().p, 0.3);
  EXPECT_EQ(T::RandomAdjustSharpness(2.0)->options().p, 0.5);
  EXPECT_EQ(T::RandomInvert()->options().p, 0.5);
  EXPECT_EQ(T::RandomAutocontrast(0.2)->options().p, 0.2);
  EXPECT_EQ(T::RandomEqualize({.p = 0.7})->options().p, 0.7);

  // Printing goes through params().
  EXPECT_EQ(T::RandomPosterize(4, 0.25)->str(), "RandomPosterize(bits=4, p=0.25)");
}

TEST(ColorTransforms, DeterministicTransformsEqualTheirFunctionals) {
  const Tensor img = image_u8({2, 3, 17, 19}, 1);
  const Tensor f = F::convert_image_dtype(img);
  EXPECT_TRUE(equal(T::ConvertImageDtype(kFloat32)(img), f));
  T::Normalize n({0.485, 0.456, 0.406}, {0.229, 0.224, 0.225});
  EXPECT_TRUE(equal(n(f), F::normalize(f, {0.485, 0.456, 0.406}, {0.229, 0.224, 0.225})));
  EXPECT_TRUE(equal(T::Grayscale(3)(img), F::rgb_to_grayscale(img, 3)));
  EXPECT_EQ(T::Grayscale(3)(img).sizes(), img.sizes());
}

TEST(ColorTransforms, FusedConvertNormalizeEqualsTwoSteps) {
  const std::vector<double> mean{0.485, 0.456, 0.406}, std{0.229, 0.224, 0.225};
  const Tensor img = image_u8({2, 3, 31, 29}, 2);
  // An interleaved [C, H, W] view of HWC rows, as io::decode_jpeg returns.
  const Tensor hwc = image_u8({31, 29, 3}, 3).permute({2, 0, 1});
  for (const Tensor& x : {img, hwc, img.narrow(-1, 3, 20)}) {
    for (DType dt : {kFloat32, kFloat64}) {
      const Tensor fused = F::convert_image_dtype_normalize(x, mean, std, dt);
      const Tensor two = F::normalize(F::convert_image_dtype(x, dt), mean, std);
      EXPECT_TRUE(equal(fused, two)) << dt;
      EXPECT_TRUE(fused.is_contiguous());
    }
  }
  // A single mean/std for every channel, and a float input (just normalized).
  EXPECT_TRUE(equal(F::convert_image_dtype_normalize(img, {0.5}, {0.25}),
                    F::normalize(F::convert_image_dtype(img), {0.5}, {0.25})));
  const Tensor f = image_f32({3, 8, 9}, 4);
  EXPECT_TRUE(equal(F::convert_image_dtype_normalize(f, mean, std), F::normalize(f, mean, std)));
}

TEST(ColorTransforms, ComposeFusesConvertAndNormalize) {
  const std::vector<double> mean{0.485, 0.456, 0.406}, std{0.229, 0.224, 0.225};
  const Tensor img = image_u8({3, 31, 29}, 20);
  const Tensor hwc = image_u8({31, 29, 3}, 21).permute({2, 0, 1});
  for (DType dt : {kFloat32, kFloat64}) {
    T::Compose pipeline({T::ConvertImageDtype(dt), T::Normalize(mean, std)});
    T::ConvertImageDtype convert(dt);
    T::Normalize normalize(mean, std);
    for (const Tensor& x : {img, hwc}) {
      const Tensor two = normalize(convert(x));
      EXPECT_TRUE(equal(pipeline(x), two));
      EXPECT_TRUE(equal(*T::fused_convert_normalize(*convert, *normalize, x), two));
    }
  }
  // Pairs that do not fuse: another order, a float image, an in-place Normalize.
  T::ConvertImageDtype convert(kFloat32);
  T::Normalize normalize(mean, std), inplace({.mean = mean, .std = std, .inplace = true});
  EXPECT_FALSE(T::fused_convert_normalize(*normalize, *convert, img));
  EXPECT_FALSE(T::fused_convert_normalize(*convert, *normalize, F::convert_image_dtype(img)));
  EXPECT_FALSE(T::fused_convert_normalize(*convert, *inplace, img));
  EXPECT_FALSE(T::fused_convert_normalize(*T::ConvertImageDtype(kInt16), *normalize, img));
  T::Compose other({T::ConvertImageDtype(kFloat32), T::Normalize({.mean = mean, .std = std, .inplace = true})});
  EXPECT_TRUE(equal(other(img), normalize(convert(img))));
}

TEST(ColorTransforms, NormalizeInplace) {
  const std::vector<double> mean{0.5, 0.4, 0.3}, std{0.2, 0.3, 0.4};
  const Tensor x = image_f32({2, 3, 6, 7}, 5);
  const Tensor expected = F::normalize(x, mean, std);
  Tensor y = x.clone();
  Tensor r = F::normalize(y, mean, std, /*inplace=*/true);
  EXPECT_TRUE(r.is_same(y));
  EXPECT_TRUE(equal(y, expected));
  // Through strides: a channels-last copy, normalized in place.
  Tensor cl = x.contiguous(MemoryFormat::ChannelsLast);
  F::normalize(cl, mean, std, true);
  EXPECT_FALSE(cl.is_contiguous());
  EXPECT_TRUE(equal(cl, expected));
  // Not in place: the input stays.
  const Tensor before = x.clone();
  (void)F::normalize(x, mean, std);
  EXPECT_TRUE(equal(x, before));
  // The transform with inplace=true.
  Tensor z = x.clone();
  T::Normalize({.mean = mean, .std = std, .inplace = true})(z);
  EXPECT_TRUE(equal(z, expected));
}

TEST(ColorTransforms, ReturnsAndDtypes) {
  const Tensor img = image_u8({3, 9, 8}, 6);
  EXPECT_TRUE(F::convert_image_dtype(img, kUInt8).is_same(img));
  const Tensor gray = image_u8({1, 9, 8}, 7);
  EXPECT_TRUE(F::adjust_saturation(gray, 0.3).is_same(gray));
  EXPECT_TRUE(F::adjust_hue(gray, 0.3).is_same(gray));
  const Tensor thin = image_u8({3, 2, 8}, 8);
  EXPECT_TRUE(F::adjust_sharpness(thin, 2.0).is_same(thin));
  // [H, W] images are one channel for brightness and gamma, as torchvision.
  const Tensor plane = image_u8({9, 8}, 9);
  EXPECT_TRUE(equal(F::adjust_brightness(plane, 0.5), F::adjust_brightness(plane.unsqueeze(0), 0.5).squeeze(0)));
  EXPECT_TRUE(equal(F::adjust_gamma(plane, 0.5), F::adjust_gamma(plane.unsqueeze(0), 0.5).squeeze(0)));
  // float16 images are computed in float32 and rounded back.
  const Tensor f = image_f32({3, 9, 8}, 10);
  const Tensor h = f.to(kFloat16);
  for (auto fn : {+[](const Tensor& x) { return F::adjust_contrast(x, 0.7); },
                  +[](const Tensor& x) { return F::adjust_hue(x, 0.2); },
                  +[](const Tensor& x) { return F::gaussian_blur(x, {3}, {1.0}); },
                  +[](const Tensor& x) { return F::normalize(x, {0.5}, {0.25}); }}) {
    const Tensor out = fn(h);
    EXPECT_EQ(out.dtype(), kFloat16);
    EXPECT_TRUE(allclose(out.to(kFloat32), fn(h.to(kFloat32)), 0, 4e-3));
  }
  // Empty images pass through.
  EXPECT_EQ(F::adjust_contrast(image_u8({0, 3, 4, 4}, 11), 0.5).numel(), 0);
  EXPECT_EQ(F::equalize(image_u8({3, 0, 4}, 11)).numel(), 0);
}

TEST(ColorTransforms, ColorJitterParamsDistribution) {
  Generator g(21);
  const T::ColorJitterImpl::Range b = std::array<double, 2>{0.6, 1.4}, h = std::array<double, 2>{-0.1, 0.1};
  std::map<std::array<int64_t, 4>, int> orders;
  double bsum = 0, hsum = 0, bmin = 10, bmax = -10;
  const int n = 24000;
  for (int i = 0; i < n; ++i) {
    const auto p = T::ColorJitterImpl::get_params(b, std::nullopt, std::nullopt, h, &g);
    ++orders[p.fn_idx];
    ASSERT_TRUE(p.brightness_factor && p.hue_factor);
    ASSERT_FALSE(p.contrast_factor || p.saturation_factor);
    bsum += *p.brightness_factor;
    hsum += *p.hue_factor;
    bmin = std::min(bmin, *p.brightness_factor);
    bmax = std::max(bmax, *p.brightness_factor);
    ASSERT_GE(*p.hue_factor, -0.1);
    ASSERT_LT(*p.hue_factor, 0.1);
  }
  EXPECT_EQ(orders.size(), 24u);  // every permutation of 4
  for (const auto& [order, count] : orders) EXPECT_NEAR(count, n / 24.0, 5 * std::sqrt(n / 24.0));
  EXPECT_NEAR(bsum / n, 1.0, 0.01);
  EXPECT_NEAR(hsum / n, 0.0, 0.003);
  EXPECT_GE(bmin, 0.6);
  EXPECT_LT(bmax, 1.4);
  EXPECT_GT(bmax - bmin, 0.79);
}

TEST(ColorTransforms, GaussianBlurParamsDistribution) {
  Generator g(22);
  double sum = 0, lo = 10, hi = 0;
  for (int i = 0; i < 10000; ++i) {
    const double s = T::GaussianBlurImpl::get_params(0.1, 2.0, &g);
    sum += s;
    lo = std::min(lo, s);
    hi = std::max(hi, s);
  }
  EXPECT_NEAR(sum / 10000, 1.05, 0.02);
  EXPECT_GE(lo, 0.1);
  EXPECT_LT(hi, 2.0);
  EXPECT_EQ(T::GaussianBlurImpl::get_params(1.5, 1.5, &g), 1.5);
}

TEST(ColorTransforms, ForwardEqualsFunctionalWithDrawnParams) {
  const Tensor img = image_u8({3, 21, 23}, 12);
  T::ColorJitter jitter({.brightness = 0.4, .contrast = 0.4, .saturation = 0.4, .hue = 0.1});
  T::GaussianBlur blur({5, 3}, {0.1, 2.0});
  for (uint64_t seed = 0; seed < 20; ++seed) {
    manual_seed(seed);
    const auto p = T::ColorJitterImpl::get_params(jitter->brightness(), jitter->contrast(), jitter->saturation(),
                                                   jitter->hue());
    Tensor expected = img;
    for (int64_t fn : p.fn_idx) {
      if (fn == 0) expected = F::adjust_brightness(expected, *p.brightness_factor);
      if (fn == 1) expected = F::adjust_contrast(expected, *p.contrast_factor);
      if (fn == 2) expected = F::adjust_saturation(expected, *p.saturation_factor);
      if (fn == 3) expected = F::adjust_hue(expected, *p.hue_factor);
    }
    manual_seed(seed);
    EXPECT_TRUE(equal(jitter(img), expected)) << "seed " << seed;

    manual_seed(seed);
    const double sigma = T::GaussianBlurImpl::get_params(0.1, 2.0);
    manual_seed(seed);
    EXPECT_TRUE(equal(blur(img), F::gaussian_blur(img, {5, 3}, {sigma, sigma}))) << "seed " << seed;
  }

  // The probability transforms: one uniform draw, then the functional.
  struct Case {
    T::TransformPtr transform;
    std::function<Tensor(const Tensor&)> fn;
  };
  const std::vector<Case> cases = {
      {T::RandomGrayscale(0.5), [](const Tensor& x) { return F::rgb_to_grayscale(x, 3); }},
      {T::RandomInvert(0.5), [](const Tensor& x) { return F::invert(x); }},
      {T::RandomPosterize(3, 0.5), [](const Tensor& x) { return F::posterize(x, 3); }},
      {T::RandomSolarize(100.0, 0.5), [](const Tensor& x) { return F::solarize(x, 100.0); }},
      {T::RandomAdjustSharpness(2.5, 0.5), [](const Tensor& x) { return F::adjust_sharpness(x, 2.5); }},
      {T::RandomAutocontrast(0.5), [](const Tensor& x) { return F::autocontrast(x); }},
      {T::RandomEqualize(0.5), [](const Tensor& x) { return F::equalize(x); }},
  };
  for (const auto& c : cases) {
    int applied = 0;
    for (uint64_t seed = 0; seed < 40; ++seed) {
      manual_seed(seed);
      const bool apply = uniform_scalar(0, 1) < 0.5;
      manual_seed(seed);
      const Tensor out = (*c.transform)(img);
      EXPECT_TRUE(equal(out, apply ? c.fn(img) : img)) << c.transform->name() << " seed " << seed;
      applied += apply;
    }
    EXPECT_GT(applied, 5);
    EXPECT_LT(applied, 35);
  }
}

TEST(ColorTransforms, ProbabilityFrequencies) {
  manual_seed(7);
  const Tensor img = image_u8({1, 4, 4}, 13);
  const Tensor inverted = F::invert(img);
  T::RandomInvert never(0.0), always(1.0), sometimes(0.3);
  int hits = 0;
  for (int i = 0; i < 4000; ++i) {
    EXPECT_TRUE(equal(never(img), img));
    EXPECT_TRUE(equal(always(img), inverted));
    hits += equal(sometimes(img), inverted);
  }
  EXPECT_NEAR(hits / 4000.0, 0.3, 0.03);
}

TEST(ColorTransforms, ReproduciblePerSeed) {
  const Tensor img = image_u8({2, 3, 16, 18}, 14);
  T::Compose pipeline({T::ColorJitter(0.4, 0.4, 0.4, 0.1), T::RandomGrayscale(0.3), T::GaussianBlur(3),
                       T::RandomSolarize(128.0), T::RandomEqualize(), T::ConvertImageDtype(kFloat32),
                       T::Normalize({0.5, 0.5, 0.5}, {0.25, 0.25, 0.25})});
  auto run = [&](uint64_t seed) {
    Generator g(seed);
    GeneratorScope scope(g);
    return pipeline(img);
  };
  EXPECT_TRUE(equal(run(1), run(1)));
  bool differs = false;
  for (uint64_t s = 2; s < 6 && !differs; ++s) differs = !equal(run(1), run(s));
  EXPECT_TRUE(differs);
}

TEST(ColorTransforms, SaveLoadRoundTrip) {
  T::Compose pipeline({T::ColorJitter({.brightness = 0.4, .contrast = {0.5, 1.5}, .hue = 0.1}),
                       T::RandomGrayscale(0.2), T::Grayscale(3), T::GaussianBlur({5, 3}, {0.5, 1.5}),
                       T::RandomInvert(0.4), T::RandomPosterize(4, 0.3), T::RandomSolarize(200.0, 0.6),
                       T::RandomAdjustSharpness(2.0, 0.7), T::RandomAutocontrast(0.1), T::RandomEqualize(0.9),
                       T::ConvertImageDtype(kFloat64), T::Normalize({0.485, 0.456, 0.406}, {0.229, 0.224, 0.225})});
  const std::string json = T::to_json(*pipeline);
  const T::TransformPtr loaded = T::from_json(json);
  EXPECT_EQ(T::to_json(*loaded), json);
  EXPECT_EQ(loaded->str(), pipeline->str());
  const Tensor img = image_u8({3, 15, 17}, 15);
  for (uint64_t seed : {1, 2, 3, 4, 5, 6}) {
    manual_seed(seed);
    const Tensor a = pipeline(img);
    manual_seed(seed);
    const Tensor b = (*loaded)(img);
    EXPECT_TRUE(equal(a, b)) << "seed " << seed;
    EXPECT_EQ(a.dtype(), kFloat64);
  }
  for (const char* name : {"Normalize", "ConvertImageDtype", "Grayscale", "RandomGrayscale", "ColorJitter",
                           "GaussianBlur", "RandomInvert", "RandomPosterize", "RandomSolarize",
                           "RandomAdjustSharpness", "RandomAutocontrast", "RandomEqualize"})
    EXPECT_TRUE(T::is_registered_transform(name)) << name;
  // Bad saved values are checked like constructor arguments.
  EXPECT_ERROR_MENTIONS(T::from_json(R"({"format": "ember.transform", "version": 1, "transform":
      {"type": "RandomPosterize", "params": {"bits": 12, "p": 0.5}, "children": []}})"),
                        "RandomPosterize", "12");
  EXPECT_ERROR_MENTIONS(T::from_json(R"({"format": "ember.transform", "version": 1, "transform":
      {"type": "ConvertImageDtype", "params": {"dtype": "float128"}, "children": []}})"),
                        "ConvertImageDtype", "float128");
  EXPECT_ERROR_MENTIONS(T::from_json(R"({"format": "ember.transform", "version": 1, "transform":
      {"type": "ColorJitter", "params": {"brightness": [1, 2, 3], "contrast": null, "saturation": null, "hue": null},
       "children": []}})"),
                        "ColorJitter", "brightness");
}

TEST(ColorTransforms, TransformArgumentErrors) {
  EXPECT_ERROR_MENTIONS(T::Normalize({0.5, 0.5}, {0.2, 0.0}), "Normalize", "std[1]", "0");
  EXPECT_ERROR_MENTIONS(T::Normalize(std::vector<double>{}, std::vector<double>{1.0}), "Normalize", "empty");
  EXPECT_ERROR_MENTIONS(T::ColorJitter(0.0, 0.0, 0.0, 0.7), "ColorJitter", "hue", "0.7");
  EXPECT_ERROR_MENTIONS(T::ColorJitter(0.0, 0.0, 0.0, T::JitterRange(-0.6, 0.2)), "ColorJitter", "hue", "-0.6");
  EXPECT_ERROR_MENTIONS(T::ColorJitter(-0.1), "ColorJitter", "brightness", "-0.1");
  EXPECT_ERROR_MENTIONS(T::ColorJitter(T::JitterRange(1.5, 0.5)), "ColorJitter", "brightness", "1.5");
  EXPECT_ERROR_MENTIONS(T::ColorJitter(0.0, T::JitterRange(-1.0, 1.0)), "ColorJitter", "contrast", "-1");
  EXPECT_ERROR_MENTIONS(T::RandomPosterize(9), "RandomPosterize", "9");
  EXPECT_ERROR_MENTIONS(T::RandomPosterize(-1), "RandomPosterize", "-1");
  EXPECT_ERROR_MENTIONS(T::RandomInvert(1.5), "RandomInvert", "1.5");
  EXPECT_ERROR_MENTIONS(T::RandomGrayscale(-0.1), "RandomGrayscale", "-0.1");
  EXPECT_ERROR_MENTIONS(T::RandomAdjustSharpness(-2.0), "RandomAdjustSharpness", "-2");
  EXPECT_ERROR_MENTIONS(T::Grayscale(2), "Grayscale", "2");
  EXPECT_ERROR_MENTIONS(T::GaussianBlur(4), "GaussianBlur", "4");
  EXPECT_ERROR_MENTIONS(T::GaussianBlur(std::vector<int64_t>{3, 5, 7}), "GaussianBlur", "kernel_size");
  EXPECT_ERROR_MENTIONS(T::GaussianBlur(3, std::vector<double>{2.0, 1.0}), "GaussianBlur", "sigma", "2");
  EXPECT_ERROR_MENTIONS(T::GaussianBlur(3, 0.0), "GaussianBlur", "sigma");
  EXPECT_ERROR_MENTIONS(T::ConvertImageDtype(kBool), "ConvertImageDtype", "bool");
  // Errors of the functional name the transform's op.
  EXPECT_ERROR_MENTIONS(T::Normalize({0.5, 0.5}, {0.2, 0.2})(image_f32({3, 4, 4}, 1)), "normalize", "2");
}

TEST(ColorTransforms, FunctionalArgumentErrors) {
  const Tensor u8 = image_u8({3, 8, 8}, 16);
  const Tensor f32 = image_f32({3, 8, 8}, 17);
  EXPECT_ERROR_MENTIONS(F::normalize(u8, {0.5}, {0.5}), "normalize", "uint8");
  EXPECT_ERROR_MENTIONS(F::normalize(f32, {0.5}, {1e-50}), "normalize", "std", "zero");
  EXPECT_ERROR_MENTIONS(F::normalize(f32, {0.5, 0.5}, {0.5}), "normalize", "2 means");
  EXPECT_ERROR_MENTIONS(F::normalize(image_f32({8, 8}, 1), {0.5}, {0.5}), "normalize", "3 dimensions");
  EXPECT_ERROR_MENTIONS(F::convert_image_dtype(f32, kInt32), "convert_image_dtype", "float32", "int32");
  EXPECT_ERROR_MENTIONS(F::convert_image_dtype(f32.to(kFloat64), kInt64), "convert_image_dtype", "int64");
  EXPECT_ERROR_MENTIONS(F::convert_image_dtype(u8, kComplex64), "convert_image_dtype", "complex64");
  EXPECT_ERROR_MENTIONS(F::rgb_to_grayscale(image_u8({4, 5, 5}, 1)), "rgb_to_grayscale", "4");
  EXPECT_ERROR_MENTIONS(F::rgb_to_grayscale(u8, 2), "rgb_to_grayscale", "num_output_channels", "2");
  EXPECT_ERROR_MENTIONS(F::adjust_brightness(u8, -0.5), "adjust_brightness", "-0.5");
  EXPECT_ERROR_MENTIONS(F::adjust_contrast(u8, -1.0), "adjust_contrast", "-1");
  EXPECT_ERROR_MENTIONS(F::adjust_saturation(u8, -2.0), "adjust_saturation", "-2");
  EXPECT_ERROR_MENTIONS(F::adjust_sharpness(u8, -3.0), "adjust_sharpness", "-3");
  EXPECT_ERROR_MENTIONS(F::adjust_hue(u8, 0.6), "adjust_hue", "0.6", "[-0.5, 0.5]");
  EXPECT_ERROR_MENTIONS(F::adjust_hue(u8, -0.51), "adjust_hue", "-0.51");
  EXPECT_ERROR_MENTIONS(F::adjust_gamma(u8, -1.0), "adjust_gamma", "-1");
  EXPECT_ERROR_MENTIONS(F::adjust_brightness(image_u8({2, 5, 5}, 1), 0.5), "adjust_brightness", "2");
  EXPECT_ERROR_MENTIONS(F::adjust_brightness(u8.to(kInt16), 0.5), "adjust_brightness", "int16");
  EXPECT_ERROR_MENTIONS(F::posterize(u8, 9), "posterize", "9");
  EXPECT_ERROR_MENTIONS(F::posterize(f32, 4), "posterize", "float32");
  EXPECT_ERROR_MENTIONS(F::equalize(f32), "equalize", "float32");
  EXPECT_ERROR_MENTIONS(F::solarize(u8, 256.0), "solarize", "256");
  EXPECT_ERROR_MENTIONS(F::solarize(f32, 1.5), "solarize", "1.5");
  EXPECT_ERROR_MENTIONS(F::invert(image_u8({5, 5}, 1)), "invert", "3 dimensions");
  EXPECT_ERROR_MENTIONS(F::autocontrast(image_u8({2, 5, 5}, 1)), "autocontrast", "2");
  EXPECT_ERROR_MENTIONS(F::gaussian_blur(u8, {4}), "gaussian_blur", "4");
  EXPECT_ERROR_MENTIONS(F::gaussian_blur(u8, {3, -1}), "gaussian_blur", "-1");
  EXPECT_ERROR_MENTIONS(F::gaussian_blur(u8, {3}, {0.0}), "gaussian_blur", "sigma");
  EXPECT_ERROR_MENTIONS(F::gaussian_blur(u8, {3}, {1.0, 1.0, 1.0}), "gaussian_blur", "sigma");
  EXPECT_ERROR_MENTIONS(F::gaussian_blur(u8, {17, 3}), "gaussian_blur", "17", "8");  // reflect pad 8 >= width 8
  EXPECT_ERROR_MENTIONS(F::convert_image_dtype_normalize(u8, {0.5}, {0.5}, kInt32), "convert_image_dtype_normalize",
                        "int32");
}

TEST(ColorTransforms, LayoutsAndThreadCountsAgree) {
  // Large enough (two chunks of kImageGrain = 256 K values) for the kernels
  // to split runs across threads, in layouts whose rows are and are not
  // evenly spaced; the halves split mid-row and mid-plane.
  const Tensor base = image_u8({1, 3, 421, 419}, 18);
  const Tensor big = image_u8({1, 3, 426, 426}, 19);
  big.narrow(-2, 3, 421).narrow(-1, 5, 419).copy_(base);
  const std::vector<Tensor> layouts = {
      base,
      big.narrow(-2, 3, 421).narrow(-1, 5, 419),              // a crop: rows not evenly spaced
      base.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}),  // interleaved HWC
      base.flip({-1}).flip({-1}),                               // a copy, for good measure
  };
  const std::vector<double> mean{0.485, 0.456, 0.406}, std{0.229, 0.224, 0.225};
  const std::vector<std::function<Tensor(const Tensor&)>> ops = {
      [](const Tensor& x) { return F::convert_image_dtype(x); },
      [&](const Tensor& x) { return F::convert_image_dtype_normalize(x, mean, std); },
      [&](const Tensor& x) { return F::normalize(F::convert_image_dtype(x, kFloat64), mean, std); },
      [](const Tensor& x) { return F::adjust_brightness(x, 1.3); },
      [](const Tensor& x) { return F::adjust_gamma(x, 0.7, 1.1); },
      [](const Tensor& x) { return F::adjust_gamma(F::convert_image_dtype(x), 0.7, 1.1); },
      [](const Tensor& x) { return F::invert(x); },
      [](const Tensor& x) { return F::solarize(x, 100.0); },
      [](const Tensor& x) { return F::posterize(x, 3); },
      [](const Tensor& x) { return F::gaussian_blur(x, {5, 3}, {1.2, 0.8}); },
  };
  const int threads = get_num_threads();
  for (size_t k = 0; k < ops.size(); ++k) {
    set_num_threads(1);
    const Tensor reference = ops[k](base);
    set_num_threads(std::max(2, threads));
    for (size_t l = 0; l < layouts.size(); ++l) {
      EXPECT_TRUE(equal(ops[k](layouts[l]), reference)) << "op " << k << " layout " << l;
    }
  }
  set_num_threads(threads);
  // In-place normalize through the strides of each layout.
  const Tensor expected = F::normalize(F::convert_image_dtype(base), mean, std);
  for (const Tensor& layout : layouts) {
    Tensor f = F::convert_image_dtype(layout.contiguous()).permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
    F::normalize(f, mean, std, true);
    EXPECT_TRUE(equal(f, expected));
  }
}

TEST(ColorTransforms, HugeFactorsClampLikeTorchvision) {
  // Factors beyond 2^20 take the kernels' general clamp; the results are
  // torchvision's float formula, clamped and truncated.
  const Tensor img = image_u8({3, 9, 11}, 22);
  for (double f : {1048576.0, 1048577.0, 5e9}) {
    EXPECT_TRUE(equal(F::adjust_brightness(img, f), img.gt(0).to(kUInt8) * 255)) << f;
    const Tensor sat = F::adjust_saturation(img, f);
    const Tensor gray = F::rgb_to_grayscale(img);
    const float a = static_cast<float>(f), b = static_cast<float>(1.0 - f);
    for (int64_t c = 0; c < 3; ++c)
      for (int64_t y = 0; y < 9; ++y)
        for (int64_t x = 0; x < 11; ++x) {
          // volatile: each product rounded on its own, as torch (no fused multiply-add).
          const volatile float p1 = a * static_cast<float>(ember::testing::at<uint8_t>(img, {c, y, x}));
          const volatile float p2 = b * static_cast<float>(ember::testing::at<uint8_t>(gray, {0, y, x}));
          const float v = p1 + p2;
          const auto expected = static_cast<uint8_t>(std::min(std::max(v, 0.0f), 255.0f));
          ASSERT_EQ(ember::testing::at<uint8_t>(sat, {c, y, x}), expected) << f << " at " << c << "," << y << "," << x;
        }
  }
}

}  // namespace color_transforms_test
