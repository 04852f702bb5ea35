// crop, center_crop, pad, flips, resized_crop, five_crop / ten_crop and
// erase against torchvision 0.14's tensor functionals.
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/vision/transforms/functional.h>

#include "geometry_fixtures.h"

using namespace ember;
using namespace ember::testing;
namespace T = ember::vision::transforms;
namespace F = ember::vision::transforms::functional;

TEST(GeometryCropPad, Crop) {
  for (const auto& c : geometry_cases("crop")) {
    SCOPED_TRACE(c.name);
    const Tensor img = c.image();
    const Tensor out = F::crop(img, c.integer("top"), c.integer("left"), c.integer("height"), c.integer("width"));
    expect_image_near(out, c.expected(), 0.0, c.name);
    expect_image_near(F::crop(interleaved(img), c.integer("top"), c.integer("left"), c.integer("height"),
                              c.integer("width")),
                      c.expected(), 0.0, c.name + " (channels last)");
  }
  // Inside the image a crop is a view, as in torchvision.
  const Tensor img = geometry_npy("img_u8_3x23x31");
  const Tensor v = F::crop(img, 2, 3, 10, 12);
  EXPECT_EQ(v.storage().get(), img.storage().get());
  EXPECT_THROW(F::crop(img, 0, 0, 0, 5), Error);
  EXPECT_THROW(F::crop(zeros({4}), 0, 0, 1, 1), Error);
}

TEST(GeometryCropPad, CenterCrop) {
  for (const auto& c : geometry_cases("center_crop")) {
    SCOPED_TRACE(c.name);
    expect_image_near(F::center_crop(c.image(), c.ints("output_size")), c.expected(), 0.0, c.name);
  }
  const Tensor img = geometry_npy("img_u8_3x23x31");
  EXPECT_THROW(F::center_crop(img, {}), Error);
  EXPECT_THROW(F::center_crop(img, {1, 2, 3}), Error);
  EXPECT_THROW(F::center_crop(img, {-1}), Error);
}

TEST(GeometryCropPad, Pad) {
  for (const auto& c : geometry_cases("pad")) {
    SCOPED_TRACE(c.name);
    const Tensor img = c.image();
    const Tensor out = F::pad(img, c.ints("padding"), c.number("fill"), c.str("padding_mode"));
    expect_image_near(out, c.expected(), 0.0, c.name);
    expect_image_near(F::pad(interleaved(img), c.ints("padding"), c.number("fill"), c.str("padding_mode")),
                      c.expected(), 0.0, c.name + " (channels last)");
  }
  const Tensor img = geometry_npy("img_u8_3x23x31");
  EXPECT_THROW(F::pad(img, {1, 2, 3}), Error);
  EXPECT_THROW(F::pad(img, {1}, 0, "wrap"), Error);
  EXPECT_THROW(F::pad(img, {23}, 0, "reflect"), Error);     // must be < H
  EXPECT_THROW(F::pad(img, {24}, 0, "symmetric"), Error);   // must be <= H
  EXPECT_THROW(F::pad(img, {-16}, 0, "edge"), Error);       // crops away everything
  EXPECT_NO_THROW(F::pad(img, {23}, 0, "symmetric"));
  // Each mode on a row, as torchvision's docstring: [1, 2, 3, 4] padded by 2.
  const Tensor row = arange(1, 5, kFloat32).view({1, 1, 4});
  auto values = [](const Tensor& t) {
    std::vector<float> v;
    for (int64_t i = 0; i < t.size(-1); ++i) v.push_back(t.select(-1, i).item<float>());
    return v;
  };
  EXPECT_EQ(values(F::pad(row, {2, 0}, 0, "reflect")), (std::vector<float>{3, 2, 1, 2, 3, 4, 3, 2}));
  EXPECT_EQ(values(F::pad(row, {2, 0}, 0, "symmetric")), (std::vector<float>{2, 1, 1, 2, 3, 4, 4, 3}));
  EXPECT_EQ(values(F::pad(row, {2, 0}, 0, "edge")), (std::vector<float>{1, 1, 1, 2, 3, 4, 4, 4}));
  EXPECT_EQ(values(F::pad(row, {2, 0}, 9, "constant")), (std::vector<float>{9, 9, 1, 2, 3, 4, 9, 9}));
}

TEST(GeometryCropPad, Flips) {
  for (const std::string op : {"hflip", "vflip"})
    for (const auto& c : geometry_cases(op)) {
      SCOPED_TRACE(c.name);
      const Tensor img = c.image();
      expect_image_near(op == "hflip" ? F::hflip(img) : F::vflip(img), c.expected(), 0.0, c.name);
      expect_image_near(op == "hflip" ? F::hflip(interleaved(img)) : F::vflip(interleaved(img)), c.expected(), 0.0,
                        c.name + " (channels last)");
    }
}

TEST(GeometryCropPad, ResizedCrop) {
  for (const auto& c : geometry_cases("resized_crop")) {
    SCOPED_TRACE(c.name);
    const Tensor out = F::resized_crop(c.image(), c.integer("top"), c.integer("left"), c.integer("height"),
                                       c.integer("width"), c.ints("size"), c.interpolation(), c.flag("antialias"));
    expect_image_near(out, c.expected(), resample_tolerance(out.dtype()), c.name);
  }
}

TEST(GeometryCropPad, FiveAndTenCrop) {
  for (const std::string op : {"five_crop", "ten_crop"})
    for (const auto& c : geometry_cases(op)) {
      SCOPED_TRACE(c.name);
      const std::vector<Tensor> crops = op == "five_crop" ? F::five_crop(c.image(), c.ints("size"))
                                                          : F::ten_crop(c.image(), c.ints("size"), c.flag("vertical_flip"));
      ASSERT_EQ(crops.size(), op == "five_crop" ? 5u : 10u);
      for (size_t i = 0; i < crops.size(); ++i)
        expect_image_near(crops[i], c.expected(static_cast<int>(i)), 0.0, c.name + " #" + std::to_string(i));
    }
  const Tensor img = geometry_npy("img_u8_3x23x31");
  EXPECT_THROW(F::five_crop(img, {24, 5}), Error);
  EXPECT_THROW(F::ten_crop(img, {5, 32}), Error);
}

TEST(GeometryCropPad, Erase) {
  for (const auto& c : geometry_cases("erase")) {
    SCOPED_TRACE(c.name);
    const Tensor img = c.image();
    const Tensor v = tensor(c.doubles("v")).to(img.dtype()).view({3, 1, 1});
    const Tensor before = img.clone();
    const Tensor out = F::erase(img, c.integer("i"), c.integer("j"), c.integer("h"), c.integer("w"), v);
    expect_image_near(out, c.expected(), 0.0, c.name);
    expect_image_near(img, before, 0.0, "input untouched");
    Tensor in_place = img.clone();
    const Tensor same = F::erase(in_place, c.integer("i"), c.integer("j"), c.integer("h"), c.integer("w"), v, true);
    EXPECT_TRUE(same.is_same(in_place));
    expect_image_near(in_place, c.expected(), 0.0, c.name + " inplace");
  }
  const Tensor img = zeros({3, 8, 8});
  EXPECT_THROW(F::erase(img, 5, 5, 4, 2, zeros({1})), Error);
  EXPECT_THROW(F::erase(img, -1, 0, 2, 2, zeros({1})), Error);
}
