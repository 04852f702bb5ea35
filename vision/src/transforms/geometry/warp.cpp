// affine, rotate, perspective and their matrices.
#include <cmath>
#include <numbers>

#include <ember/core/error.h>

#include "ember/vision/transforms/functional/geometry.h"
#include "transforms/geometry/grid_sample.h"

namespace ember::vision::transforms::functional {
namespace {

// As Python's math.radians: x * (pi / 180).
double radians(double degrees) { return degrees * (std::numbers::pi / 180.0); }

// Center values in pixels, moved so that (0, 0) is the image center.
std::array<double, 2> centered(const std::vector<double>& center, const Tensor& img, const char* op) {
  EMBER_CHECK(center.empty() || center.size() == 2, op, ": center must be empty or (x, y), got ", center.size(),
              " values");
  if (center.empty()) return {0.0, 0.0};
  const double w = static_cast<double>(img.size(-1)), h = static_cast<double>(img.size(-2));
  return {1.0 * (center[0] - w * 0.5), 1.0 * (center[1] - h * 0.5)};
}

void check_image(const Tensor& img, const char* op) {
  EMBER_CHECK(img.defined(), op, ": the image is an undefined tensor");
  EMBER_CHECK(img.dim() >= 2, op, ": expected an image [..., C, H, W] (or [H, W]), got a tensor of shape ",
              img.sizes());
}

detail::Warp affine_warp(const std::array<double, 6>& matrix, int64_t out_h, int64_t out_w) {
  detail::Warp warp;
  warp.kind = detail::Warp::Kind::Affine;
  for (size_t i = 0; i < 6; ++i) warp.m[i] = matrix[i];
  warp.out_height = out_h;
  warp.out_width = out_w;
  return warp;
}

}  // namespace

std::array<double, 6> get_inverse_affine_matrix(const std::array<double, 2>& center, double angle,
                                                const std::array<double, 2>& translate, double scale,
                                                const std::array<double, 2>& shear, bool inverted) {
  // M = T * C * RotateScaleShear * C^-1, RSS = R(a) * S(s) * SHy(sy) * SHx(sx)
  // (torchvision's _get_inverse_affine_matrix, term by term).
  const double rot = radians(angle);
  const double sx = radians(shear[0]), sy = radians(shear[1]);
  const double cx = center[0], cy = center[1];
  const double tx = translate[0], ty = translate[1];
  const double a = std::cos(rot - sy) / std::cos(sy);
  const double b = -std::cos(rot - sy) * std::tan(sx) / std::cos(sy) - std::sin(rot);
  const double c = std::sin(rot - sy) / std::cos(sy);
  const double d = -std::sin(rot - sy) * std::tan(sx) / std::cos(sy) + std::cos(rot);
  std::array<double, 6> m{};
  if (inverted) {
    m = {d, -b, 0.0, -c, a, 0.0};
    for (double& v : m) v = v / scale;
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty);
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty);
    m[2] += cx;
    m[5] += cy;
  } else {
    m = {a, b, 0.0, c, d, 0.0};
    for (double& v : m) v = v * scale;
    m[2] += m[0] * (-cx) + m[1] * (-cy);
    m[5] += m[3] * (-cx) + m[4] * (-cy);
    m[2] += cx + tx;
    m[5] += cy + ty;
  }
  return m;
}

std::array<double, 8> get_perspective_coeffs(const std::vector<Point>& startpoints,
                                             const std::vector<Point>& endpoints) {
  EMBER_CHECK(startpoints.size() == 4 && endpoints.size() == 4,
              "perspective: startpoints and endpoints must hold 4 points each, got ", startpoints.size(), " and ",
              endpoints.size());
  // A x = b with a row pair per point (endpoint p1 -> startpoint p2), solved
  // by Gaussian elimination with partial pivoting.
  double a[8][9] = {};
  for (size_t i = 0; i < 4; ++i) {
    const double x1 = static_cast<double>(endpoints[i][0]), y1 = static_cast<double>(endpoints[i][1]);
    const double x2 = static_cast<double>(startpoints[i][0]), y2 = static_cast<double>(startpoints[i][1]);
    const double r0[9] = {x1, y1, 1, 0, 0, 0, -x2 * x1, -x2 * y1, x2};
    const double r1[9] = {0, 0, 0, x1, y1, 1, -y2 * x1, -y2 * y1, y2};
    for (int k = 0; k < 9; ++k) {
      a[2 * i][k] = r0[k];
      a[2 * i + 1][k] = r1[k];
    }
  }
  for (int col = 0; col < 8; ++col) {
    int pivot = col;
    for (int r = col + 1; r < 8; ++r)
      if (std::abs(a[r][col]) > std::abs(a[pivot][col])) pivot = r;
    EMBER_CHECK(std::abs(a[pivot][col]) > 1e-12, "perspective: the points do not define a perspective transform "
                "(three of the start or end points are collinear)");
    if (pivot != col)
      for (int k = 0; k < 9; ++k) std::swap(a[col][k], a[pivot][k]);
    for (int r = 0; r < 8; ++r) {
      if (r == col) continue;
      const double f = a[r][col] / a[col][col];
      for (int k = col; k < 9; ++k) a[r][k] -= f * a[col][k];
    }
  }
  std::array<double, 8> coeffs{};
  for (int i = 0; i < 8; ++i) coeffs[static_cast<size_t>(i)] = a[i][8] / a[i][i];
  return coeffs;
}

Tensor affine_with_matrix(const Tensor& img, const std::array<double, 6>& matrix, InterpolationMode interpolation,
                          const std::vector<double>& fill) {
  check_image(img, "affine");
  return detail::apply_warp(img, affine_warp(matrix, img.size(-2), img.size(-1)), interpolation, fill, "affine");
}

Tensor rotate_with_matrix(const Tensor& img, const std::array<double, 6>& matrix, InterpolationMode interpolation,
                          bool expand, const std::vector<double>& fill) {
  check_image(img, "rotate");
  const int64_t w = img.size(-1), h = img.size(-2);
  int64_t ow = w, oh = h;
  if (expand) {
    const auto size = detail::affine_output_size(matrix, w, h);
    ow = size[0];
    oh = size[1];
  }
  return detail::apply_warp(img, affine_warp(matrix, oh, ow), interpolation, fill, "rotate");
}

Tensor perspective_with_coeffs(const Tensor& img, const std::array<double, 8>& coeffs,
                               InterpolationMode interpolation, const std::vector<double>& fill) {
  check_image(img, "perspective");
  detail::Warp warp;
  warp.kind = detail::Warp::Kind::Perspective;
  warp.m = coeffs;
  warp.out_height = img.size(-2);
  warp.out_width = img.size(-1);
  return detail::apply_warp(img, warp, interpolation, fill, "perspective");
}

Tensor affine(const Tensor& img, double angle, const std::array<double, 2>& translate, double scale,
              const std::array<double, 2>& shear, InterpolationMode interpolation, const std::vector<double>& fill,
              const std::vector<double>& center) {
  check_image(img, "affine");
  EMBER_CHECK(scale > 0 && std::isfinite(scale), "affine: scale must be positive, got ", scale);
  EMBER_CHECK(std::isfinite(angle) && std::isfinite(translate[0]) && std::isfinite(translate[1]) &&
                  std::isfinite(shear[0]) && std::isfinite(shear[1]),
              "affine: angle, translate and shear must be finite, got angle ", angle, ", translate (", translate[0],
              ", ", translate[1], "), shear (", shear[0], ", ", shear[1], ")");
  const auto c = centered(center, img, "affine");
  const auto matrix = get_inverse_affine_matrix(c, angle, {1.0 * translate[0], 1.0 * translate[1]}, scale, shear);
  return affine_with_matrix(img, matrix, interpolation, fill);
}

Tensor rotate(const Tensor& img, double angle, InterpolationMode interpolation, bool expand,
              const std::vector<double>& center, const std::vector<double>& fill) {
  check_image(img, "rotate");
  EMBER_CHECK(std::isfinite(angle), "rotate: angle must be finite, got ", angle);
  const auto c = centered(center, img, "rotate");
  // torchvision's rotate turns counter-clockwise, its affine clockwise: -angle.
  const auto matrix = get_inverse_affine_matrix(c, -angle, {0.0, 0.0}, 1.0, {0.0, 0.0});
  return rotate_with_matrix(img, matrix, interpolation, expand, fill);
}

Tensor perspective(const Tensor& img, const std::vector<Point>& startpoints, const std::vector<Point>& endpoints,
                   InterpolationMode interpolation, const std::vector<double>& fill) {
  check_image(img, "perspective");
  return perspective_with_coeffs(img, get_perspective_coeffs(startpoints, endpoints), interpolation, fill);
}

}  // namespace ember::vision::transforms::functional
