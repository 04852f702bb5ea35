#pragma once
// Geometry functionals on tensor images, as torchvision 0.14's
// torchvision.transforms.functional on tensors: resize, crops, pad, flips,
// affine / rotate / perspective warps and erase.
//
// Images are [..., C, H, W] (any number of leading batch dims), uint8 or
// floating point (float32 and float64 natively; float16, bfloat16 and the
// other integer types through float32, as torchvision casts them), with any
// strides: channels-last / interleaved inputs (what io::decode_jpeg returns)
// are read in place and give outputs of the same layout. Outputs keep the
// input's dtype. Views are returned where torchvision returns views (crop
// inside the image, resize to the same size returns the input itself).
//
// Optional torchvision arguments that are lists map to std::vector with
// "empty means None": `fill = {}` is torchvision's fill=None, `center = {}`
// the image center.
//
//   using namespace ember::vision::transforms;
//   Tensor small = functional::resize(img, {256});                  // smaller edge -> 256
//   Tensor crop = functional::center_crop(small, {224});
//   Tensor turned = functional::rotate(img, 30.0, InterpolationMode::Bilinear, /*expand=*/true);
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ember/core/tensor.h>

#include "ember/vision/transforms/interpolation.h"

namespace ember::vision::transforms::functional {

// ---- resize ----

// Resizes the last two dims. size: {s} resizes the smaller edge to s keeping
// the aspect ratio (the longer edge is int(s * long / short)), {h, w} gives the
// output size. max_size (only with {s}) caps the longer edge, shrinking the
// smaller one below s when needed. antialias (bilinear and bicubic only;
// default false, as torchvision 0.14's tensor path) low-pass filters when
// downscaling, as F.interpolate(..., antialias=True) and PIL: the filter
// support grows with the scale. uint8 results are rounded (and bicubic ones
// clamped) as torchvision does.
Tensor resize(const Tensor& img, const std::vector<int64_t>& size,
              InterpolationMode interpolation = InterpolationMode::Bilinear,
              std::optional<int64_t> max_size = std::nullopt, std::optional<bool> antialias = std::nullopt);

// The {height, width} that resize(img of height x width, size, max_size)
// produces (torchvision's _compute_resized_output_size).
std::array<int64_t, 2> resized_output_size(int64_t height, int64_t width, const std::vector<int64_t>& size,
                                           std::optional<int64_t> max_size = std::nullopt);

// ---- crops, pad, flips ----

// The box [top, top + height) x [left, left + width) (height, width > 0). A
// box inside the image gives a view; parts outside the image are zero.
Tensor crop(const Tensor& img, int64_t top, int64_t left, int64_t height, int64_t width);

// The central {h, w} crop ({s}: s x s). A crop larger than the image pads it
// with zeros first, as torchvision.
Tensor center_crop(const Tensor& img, const std::vector<int64_t>& output_size);

// Pads the last two dims. padding: {all}, {left/right, top/bottom} or {left,
// top, right, bottom}; negative values crop. padding_mode: "constant" (with
// fill, cast to the image's dtype), "edge", "reflect" (mirrors without the
// edge pixel; each pad must be smaller than the dim) or "symmetric" (mirrors
// with it).
Tensor pad(const Tensor& img, const std::vector<int64_t>& padding, double fill = 0,
           const std::string& padding_mode = "constant");

Tensor hflip(const Tensor& img);
Tensor vflip(const Tensor& img);

// crop(img, top, left, height, width), then resize(..., size, interpolation, antialias).
Tensor resized_crop(const Tensor& img, int64_t top, int64_t left, int64_t height, int64_t width,
                    const std::vector<int64_t>& size, InterpolationMode interpolation = InterpolationMode::Bilinear,
                    std::optional<bool> antialias = std::nullopt);

// The four corner crops and the central one, {top-left, top-right,
// bottom-left, bottom-right, center}, each {h, w} ({s}: s x s), views of img.
std::vector<Tensor> five_crop(const Tensor& img, const std::vector<int64_t>& size);
// five_crop of img, then five_crop of its horizontal (or vertical) flip.
std::vector<Tensor> ten_crop(const Tensor& img, const std::vector<int64_t>& size, bool vertical_flip = false);

// ---- warps (inverse mapping + grid sampling, as torchvision's tensor path) ----

// Rotation by `angle` degrees (clockwise), translation (pixels, after the
// rotation), scale and shear ({x, y} degrees; {s} is {s, 0}) about `center`
// ({x, y} pixels from the top-left corner; {} is the image center). Pixels that
// map from outside the image are fill ({} = None: zero, and no fill mask; one
// value, or one per channel). Nearest or bilinear.
Tensor affine(const Tensor& img, double angle, const std::array<double, 2>& translate, double scale,
              const std::array<double, 2>& shear, InterpolationMode interpolation = InterpolationMode::Nearest,
              const std::vector<double>& fill = {}, const std::vector<double>& center = {});

// Rotation by `angle` degrees counter-clockwise about `center` ({} = the image
// center). expand: the output grows to hold the whole rotated image (assumes
// rotation about the center).
Tensor rotate(const Tensor& img, double angle, InterpolationMode interpolation = InterpolationMode::Nearest,
              bool expand = false, const std::vector<double>& center = {}, const std::vector<double>& fill = {});

// A point {x, y} in pixels.
using Point = std::array<int64_t, 2>;

// The perspective warp that moves the four startpoints (top-left, top-right,
// bottom-right, bottom-left of the original image) to the endpoints.
Tensor perspective(const Tensor& img, const std::vector<Point>& startpoints, const std::vector<Point>& endpoints,
                   InterpolationMode interpolation = InterpolationMode::Bilinear, const std::vector<double>& fill = {});

// img[..., i:i+h, j:j+w] = v (v broadcasts to [..., C, h, w]); a copy unless inplace.
Tensor erase(const Tensor& img, int64_t i, int64_t j, int64_t h, int64_t w, const Tensor& v, bool inplace = false);

// ---- the matrices behind the warps (torchvision's helpers) ----

// The 2x3 matrix, row-major, that maps output pixels to input pixels (or,
// with inverted = false, input to output) for affine(): torchvision's
// _get_inverse_affine_matrix. center and translate in pixels, angle and shear
// in degrees.
std::array<double, 6> get_inverse_affine_matrix(const std::array<double, 2>& center, double angle,
                                                const std::array<double, 2>& translate, double scale,
                                                const std::array<double, 2>& shear, bool inverted = true);

// The coefficients (a, b, c, d, e, f, g, h) of the map from endpoints to
// startpoints, x' = (a x + b y + c) / (g x + h y + 1), y' = (d x + e y + f) /
// (g x + h y + 1) (torchvision's _get_perspective_coeffs; solved in double,
// where torchvision solves in float32).
std::array<double, 8> get_perspective_coeffs(const std::vector<Point>& startpoints,
                                             const std::vector<Point>& endpoints);

// torchvision.transforms.functional_tensor's affine / rotate / perspective:
// the warps with the matrix given. matrix maps output pixels to input pixels
// relative to the image centers; rotate's expand enlarges the output.
Tensor affine_with_matrix(const Tensor& img, const std::array<double, 6>& matrix,
                          InterpolationMode interpolation = InterpolationMode::Nearest,
                          const std::vector<double>& fill = {});
Tensor rotate_with_matrix(const Tensor& img, const std::array<double, 6>& matrix,
                          InterpolationMode interpolation = InterpolationMode::Nearest, bool expand = false,
                          const std::vector<double>& fill = {});
Tensor perspective_with_coeffs(const Tensor& img, const std::array<double, 8>& coeffs,
                               InterpolationMode interpolation = InterpolationMode::Bilinear,
                               const std::vector<double>& fill = {});

}  // namespace ember::vision::transforms::functional
