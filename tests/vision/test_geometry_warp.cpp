// affine, rotate and perspective against torchvision 0.14's tensor path
// (inverse grid + grid_sample, fill through the mask channel), and the
// matrices behind them.
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/vision/transforms/functional.h>

#include "geometry_fixtures.h"

using namespace ember;
using namespace ember::testing;
namespace T = ember::vision::transforms;
namespace F = ember::vision::transforms::functional;

namespace geometry_warp_test {

std::array<double, 2> pair_of(const std::vector<double>& v) { return {v.at(0), v.at(1)}; }

// Nearest warps move pixels: exact. Bilinear ones within the resampling tolerance.
double warp_tolerance(const GeometryCase& c, DType dtype) {
  return c.str("interpolation") == "nearest" ? 0.0 : resample_tolerance(dtype);
}

TEST(GeometryWarp, AffineMatchesTorchvision) {
  const auto matrices = geometry_matrices();
  for (const auto& c : geometry_cases("affine")) {
    SCOPED_TRACE(c.name);
    const Tensor img = c.image();
    std::vector<double> center = c.doubles("center");
    const auto translate = pair_of(c.doubles("translate"));
    const auto shear = pair_of(c.doubles("shear"));
    const Tensor out = F::affine(img, c.number("angle"), translate, c.number("scale"), shear, c.interpolation(),
                                 c.doubles("fill"), center);
    expect_image_near(out, c.expected(), warp_tolerance(c, img.dtype()), c.name);
    expect_image_near(F::affine(interleaved(img), c.number("angle"), translate, c.number("scale"), shear,
                                c.interpolation(), c.doubles("fill"), center),
                      c.expected(), warp_tolerance(c, img.dtype()), c.name + " (channels last)");
    // The inverse matrix, bit for bit (the same double arithmetic).
    std::array<double, 2> cf = {0, 0};
    if (!center.empty()) cf = {center[0] - img.size(-1) * 0.5, center[1] - img.size(-2) * 0.5};
    const auto m = F::get_inverse_affine_matrix(cf, c.number("angle"), translate, c.number("scale"), shear);
    const auto& expected = matrices.at(c.name).at("inverse_affine");
    for (size_t i = 0; i < 6; ++i) EXPECT_EQ(m[i], expected[i]) << i;
  }
}

TEST(GeometryWarp, RotateMatchesTorchvision) {
  const auto matrices = geometry_matrices();
  for (const auto& c : geometry_cases("rotate")) {
    SCOPED_TRACE(c.name);
    const Tensor img = c.image();
    const Tensor out = F::rotate(img, c.number("angle"), c.interpolation(), c.flag("expand"), c.doubles("center"),
                                 c.doubles("fill"));
    expect_image_near(out, c.expected(), warp_tolerance(c, img.dtype()), c.name);
    if (c.flag("expand")) {
      const auto& size = matrices.at(c.name).at("output_size");  // (w, h)
      EXPECT_EQ(out.size(-1), static_cast<int64_t>(size[0]));
      EXPECT_EQ(out.size(-2), static_cast<int64_t>(size[1]));
    }
  }
}

TEST(GeometryWarp, PerspectiveWithTorchvisionCoefficients) {
  for (const auto& c : geometry_cases("perspective_coeffs")) {
    SCOPED_TRACE(c.name);
    const auto v = c.doubles("coeffs");
    std::array<double, 8> coeffs{};
    std::copy(v.begin(), v.end(), coeffs.begin());
    const Tensor out = F::perspective_with_coeffs(c.image(), coeffs, c.interpolation(), c.doubles("fill"));
    expect_image_near(out, c.expected(), warp_tolerance(c, c.image().dtype()), c.name);
  }
}

TEST(GeometryWarp, PerspectiveCoefficients) {
  // Solved in double; torchvision's lstsq runs in float32, so they agree to
  // float32's precision.
  const auto matrices = geometry_matrices();
  for (const auto& c : geometry_cases("perspective")) {
    const std::string base = c.name.substr(0, c.name.find("_nearest") != std::string::npos ? c.name.find("_nearest")
                                                                                               : c.name.find("_bilinear"));
    const auto it = matrices.find(base);
    ASSERT_NE(it, matrices.end()) << base;
    const auto s = c.ints("startpoints"), e = c.ints("endpoints");
    std::vector<F::Point> start, end;
    for (size_t i = 0; i < 4; ++i) {
      start.push_back({s[2 * i], s[2 * i + 1]});
      end.push_back({e[2 * i], e[2 * i + 1]});
    }
    const auto coeffs = F::get_perspective_coeffs(start, end);
    const auto& expected = it->second.at("perspective_coeffs");
    for (size_t i = 0; i < 8; ++i) EXPECT_NEAR(coeffs[i], expected[i], 2e-5 * std::max(1.0, std::abs(expected[i]))) << i;
    // The map sends each endpoint to its startpoint.
    for (size_t i = 0; i < 4; ++i) {
      const double x = static_cast<double>(end[i][0]), y = static_cast<double>(end[i][1]);
      const double den = coeffs[6] * x + coeffs[7] * y + 1;
      EXPECT_NEAR((coeffs[0] * x + coeffs[1] * y + coeffs[2]) / den, static_cast<double>(start[i][0]), 1e-9);
      EXPECT_NEAR((coeffs[3] * x + coeffs[4] * y + coeffs[5]) / den, static_cast<double>(start[i][1]), 1e-9);
    }
  }
}

TEST(GeometryWarp, PerspectiveFromPoints) {
  // End to end the coefficients differ from torchvision's float32 solution in
  // the 7th digit: bilinear values move by ~1e-4, a nearest pixel on a rounding
  // edge can pick its neighbour.
  for (const auto& c : geometry_cases("perspective")) {
    SCOPED_TRACE(c.name);
    const auto s = c.ints("startpoints"), e = c.ints("endpoints");
    std::vector<F::Point> start, end;
    for (size_t i = 0; i < 4; ++i) {
      start.push_back({s[2 * i], s[2 * i + 1]});
      end.push_back({e[2 * i], e[2 * i + 1]});
    }
    const Tensor img = c.image();
    const Tensor out = F::perspective(img, start, end, c.interpolation(), c.doubles("fill"));
    const Tensor expected = c.expected();
    ASSERT_EQ(out.sizes(), expected.sizes());
    if (c.str("interpolation") == "nearest") {
      EXPECT_LE(difference(out, expected, 0.0).count, out.numel() / 50) << c.name;
    } else {
      expect_image_near(out, expected, img.dtype() == kUInt8 ? 1.0 : 1e-3, c.name);
    }
  }
}

TEST(GeometryWarp, IdentityAndSimpleMaps) {
  const Tensor img = geometry_npy("img_f32_3x13x17");
  for (auto mode : {T::InterpolationMode::Nearest, T::InterpolationMode::Bilinear}) {
    expect_image_near(F::affine(img, 0, {0, 0}, 1, {0, 0}, mode), img, 1e-6, "identity");
    expect_image_near(F::rotate(img, 0, mode), img, 1e-6, "rotate 0");
    // An integer translation moves pixels, zeros come in.
    const Tensor moved = F::affine(img, 0, {3, -2}, 1, {0, 0}, mode);
    expect_image_near(moved.narrow(-2, 0, 11).narrow(-1, 3, 14), img.narrow(-2, 2, 11).narrow(-1, 0, 14), 1e-6,
                      "translate");
    EXPECT_EQ(moved.narrow(-1, 0, 3).abs().max().item<float>(), 0.0f);
  }
  // Rotating by 180 degrees about the center flips both axes.
  expect_image_near(F::rotate(img, 180, T::InterpolationMode::Nearest), F::vflip(F::hflip(img)), 0, "rotate 180");
}

TEST(GeometryWarp, Errors) {
  const Tensor img = geometry_npy("img_u8_3x13x17");
  EXPECT_THROW(F::affine(img, 0, {0, 0}, 0, {0, 0}), Error);
  EXPECT_THROW(F::affine(img, 0, {0, 0}, 1, {0, 0}, T::InterpolationMode::Bicubic), Error);
  EXPECT_THROW(F::affine(img, 0, {0, 0}, 1, {0, 0}, T::InterpolationMode::Nearest, {1, 2}), Error);
  EXPECT_THROW(F::rotate(img, 10, T::InterpolationMode::Nearest, false, {1}), Error);
  EXPECT_THROW(F::rotate(img, NAN), Error);
  EXPECT_THROW(F::perspective(img, {{0, 0}, {1, 0}}, {{0, 0}, {1, 0}}), Error);
  EXPECT_THROW(F::perspective(img, {{0, 0}, {1, 1}, {2, 2}, {3, 3}}, {{0, 0}, {1, 1}, {2, 2}, {3, 3}}), Error);
  try {
    F::affine(img, 0, {0, 0}, -2, {0, 0});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("affine: scale"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("-2"), std::string::npos) << e.what();
  }
}

}  // namespace geometry_warp_test
