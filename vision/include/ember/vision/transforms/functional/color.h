#pragma once
// Color and pixel functionals: torchvision.transforms.functional's tensor
// forms (torchvision 0.14), on CPU.
//
// Images are [..., C, H, W] (any number of leading batch dims), uint8 or
// floating point with values in [0, 1]; strided views (a decoded JPEG's
// interleaved [C, H, W] view, crops) are accepted. Results have the input's
// dtype unless the op says otherwise, and are contiguous. uint8 results follow
// torchvision's float32 arithmetic and truncating casts step by step (see
// docs/vision.md, "Color transforms"). Bad arguments raise ember::Error naming
// the op and the values. float16/bfloat16 images are computed in float32.
#include <cstdint>
#include <vector>

#include <ember/core/dtype.h>
#include <ember/core/tensor.h>

namespace ember::vision::transforms::functional {

// (tensor - mean[c]) / std[c] per channel; mean and std hold C values (or one
// for every channel) and are rounded to the tensor's dtype first (a std that
// rounds to 0 is an error). Floating point tensors only. With inplace, writes
// into `tensor` and returns it.
Tensor normalize(const Tensor& tensor, const std::vector<double>& mean, const std::vector<double>& std,
                 bool inplace = false);

// Converts between image dtypes, rescaling values: integers span [0, max of
// the type], floats [0, 1]. torchvision's rules: int -> float divides by the
// input's max; float -> int multiplies by (max + 1 - 1e-3) and truncates
// (float32 -> int32/int64 and float64 -> int64 are refused: not exact);
// int -> int shifts by the ratio of the ranges; float -> float casts.
// Returns `image` itself when it already has `dtype`.
Tensor convert_image_dtype(const Tensor& image, DType dtype = DType::Float32);

// normalize(convert_image_dtype(image, dtype), mean, std) in one pass over a
// uint8 image (a per-channel table of the 256 results), equal to the two
// steps value for value; floating point images are just normalized. The
// preprocessing of a training pipeline (ToTensor + Normalize) in one call.
Tensor convert_image_dtype_normalize(const Tensor& image, const std::vector<double>& mean,
                                     const std::vector<double>& std, DType dtype = DType::Float32);

// ITU-R 601-2 luma, 0.2989 R + 0.587 G + 0.114 B (uint8: truncated, as
// torchvision), repeated into num_output_channels (1 or 3) channels. A
// one-channel image is copied.
Tensor rgb_to_grayscale(const Tensor& img, int64_t num_output_channels = 1);

// Multiplies by brightness_factor (>= 0), clamped to the value range.
Tensor adjust_brightness(const Tensor& img, double brightness_factor);
// Blends with the mean of the image's grayscale (one mean per image):
// 0 gives a gray image, 1 the original.
Tensor adjust_contrast(const Tensor& img, double contrast_factor);
// Blends with the grayscale image: 0 gives grayscale, 1 the original. A
// one-channel image is returned as it is.
Tensor adjust_saturation(const Tensor& img, double saturation_factor);
// Rotates the hue by hue_factor (in [-0.5, 0.5], a fraction of the color
// wheel) in HSV space. A one-channel image is returned as it is.
Tensor adjust_hue(const Tensor& img, double hue_factor);
// gain * img^gamma on values in [0, 1] (gamma >= 0), clamped.
Tensor adjust_gamma(const Tensor& img, double gamma, double gain = 1);
// Blends with a smoothed image (3x3 kernel [[1,1,1],[1,5,1],[1,1,1]] / 13,
// borders kept): 0 blurs, 1 keeps, 2 sharpens. Images with H or W <= 2 are
// returned as they are.
Tensor adjust_sharpness(const Tensor& img, double sharpness_factor);

// bound - img (255 for uint8, 1 for floats).
Tensor invert(const Tensor& img);
// Keeps the top `bits` (0..8) bits of each uint8 value.
Tensor posterize(const Tensor& img, int64_t bits);
// Inverts the values >= threshold (threshold <= 255 for uint8, <= 1 for floats).
Tensor solarize(const Tensor& img, double threshold);
// Stretches each channel of each image to the full range (min -> 0,
// max -> bound); constant channels are kept.
Tensor autocontrast(const Tensor& img);
// Histogram equalization of each channel of each uint8 image (torchvision's
// algorithm, which is PIL's ImageOps.equalize).
Tensor equalize(const Tensor& img);

// Gaussian blur with reflect padding. kernel_size holds [kx] or [kx, ky]
// (odd, > 0; x is the width); sigma holds [] (torchvision's default
// 0.15 * k + 0.35 per side), [s] or [sx, sy] (> 0). uint8
// results are rounded. The kernel is torchvision's (float32 weights, the
// outer product of two normalized 1-D Gaussians), applied separably.
Tensor gaussian_blur(const Tensor& img, const std::vector<int64_t>& kernel_size,
                     const std::vector<double>& sigma = {});

}  // namespace ember::vision::transforms::functional
