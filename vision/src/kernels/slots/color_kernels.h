#pragma once
// Kernel slots of vision's color transforms (transforms/color/): functions of
// each value (invert, posterize, solarize, gamma, brightness), of each pixel
// (grayscale, saturation, hue), of each image (contrast: its mean gray;
// autocontrast and equalize: each plane's range and histogram), the 3x3
// sharpening and the Gaussian blur, and the conversions of uint8 images to
// float (with normalization fused) and normalize. Defined in the op files,
// filled by kernels/cpu/ (docs/architecture.md, "Device backends").
//
// `in` is an image [..., C, H, W] (C is 1 or 3 where the op needs it; some
// kernels take any strides, the op files pass the others contiguous, as each
// slot says) of dtype uint8, float32 or float64 unless a slot says otherwise;
// `out` is a contiguous tensor of in's shape (grayscale: its channel count)
// and dtype, allocated by the op file on in's device. Numerics:
// Note [Color arithmetic] (kernels/cpu/image_loops.h).
#include <cstdint>
#include <vector>

#include <ember/core/tensor.h>

#include "kernels/slots/kernel_slot.h"

namespace ember::vision {

// Functions of one value; `in` of any strides.
using ImageMapFn = void(Tensor& out, const Tensor& in);
extern KernelSlot<ImageMapFn> invert_slot;
// uint8 only: clears the low 8 - bits bits.
using PosterizeFn = void(Tensor& out, const Tensor& in, int64_t bits);
extern KernelSlot<PosterizeFn> posterize_slot;
using ImageScalarFn = void(Tensor& out, const Tensor& in, double value);
extern KernelSlot<ImageScalarFn> solarize_slot;    // value: the threshold
extern KernelSlot<ImageScalarFn> brightness_slot;  // value: the factor
using GammaFn = void(Tensor& out, const Tensor& in, double gamma, double gain);
extern KernelSlot<GammaFn> gamma_slot;

// Per pixel or per image; `in` contiguous, 3 channels (grayscale: 1 or 3).
extern KernelSlot<ImageMapFn> grayscale_slot;       // out: 1 or 3 channels
extern KernelSlot<ImageScalarFn> contrast_slot;     // value: the factor; in: 1 or 3 channels
extern KernelSlot<ImageScalarFn> saturation_slot;   // value: the factor
extern KernelSlot<ImageScalarFn> hue_slot;          // value: the hue shift in [-0.5, 0.5]
// `in` contiguous, 1 or 3 channels, at least 3x3.
extern KernelSlot<ImageScalarFn> sharpness_slot;    // value: the factor
// Per plane; `in` contiguous. equalize: uint8 only.
extern KernelSlot<ImageMapFn> autocontrast_slot;
extern KernelSlot<ImageMapFn> equalize_slot;

// The separable Gaussian blur with reflect padding: wx along W, wy along H
// (odd lengths, each half smaller than the image's side), float32 weights
// widened to float64 for float64 images; `in` of any strides.
using GaussianBlurFn = void(Tensor& out, const Tensor& in, const std::vector<float>& wx,
                            const std::vector<float>& wy);
extern KernelSlot<GaussianBlurFn> gaussian_blur_slot;

// (x - mean[c]) / std[c] per channel c, mean and std one value per channel
// (already rounded to in's dtype and checked non-zero there); float32 and
// float64. out may be in itself (in place, any strides); otherwise `in` of
// any strides.
using NormalizeFn = void(Tensor& out, const Tensor& in, const std::vector<double>& mean,
                         const std::vector<double>& std);
extern KernelSlot<NormalizeFn> normalize_slot;
// A uint8 image to out's float dtype (float32 or float64: the mask is over
// out's dtype), v / 255; with mean and std (one value per channel, else both
// empty) normalized in the same pass. `in` of any strides.
extern KernelSlot<NormalizeFn> uint8_to_float_slot;

}  // namespace ember::vision
