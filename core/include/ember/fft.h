#pragma once
// ember::fft: discrete Fourier transforms with numpy.fft's semantics (as
// torch.fft in PyTorch 1.7+). Every function is differentiable.
//
//  - n / s: signal length(s) to transform; the input is cropped or zero-padded
//    at the end of each transformed dim to that length. Omitted: the input's size
//    (for irfft/hfft: 2 * (m - 1), m the input's size along the last dim).
//  - dim: dims to transform. fftn/rfftn/irfftn without dim transform the last
//    s.size() dims (all dims when s is omitted too).
//  - norm: "backward" (default: no scaling forward, 1/n inverse), "ortho" (1/sqrt(n)
//    both ways) or "forward" (1/n forward, none inverse).
// Real inputs to the complex transforms are promoted (integers to the default
// float dtype, then to complex); float32/float64 give complex64/complex128.
// The engine is Ember's own (core/src/fft/): mixed radix for small factors,
// Bluestein for large primes, real-input/Hermitian-output fast paths, cached plans.
#include <cstdint>
#include <optional>
#include <string_view>

#include "ember/core/tensor.h"

namespace ember::fft {

using OptionalIntArrayRef = std::optional<IntArrayRef>;
using OptionalNorm = std::optional<std::string_view>;

// One dim.
Tensor fft(const Tensor& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
           OptionalNorm norm = std::nullopt);
Tensor ifft(const Tensor& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
            OptionalNorm norm = std::nullopt);
// Real input -> the n/2 + 1 non-negative frequencies.
Tensor rfft(const Tensor& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
            OptionalNorm norm = std::nullopt);
// Inverse of rfft: a one-sided spectrum -> real signal of length n.
Tensor irfft(const Tensor& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
             OptionalNorm norm = std::nullopt);
// A Hermitian-symmetric signal given by its first half -> its real spectrum.
Tensor hfft(const Tensor& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
            OptionalNorm norm = std::nullopt);
// Inverse of hfft: real input -> the one-sided half of a Hermitian signal.
Tensor ihfft(const Tensor& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
             OptionalNorm norm = std::nullopt);

// Two dims (default the last two).
Tensor fft2(const Tensor& input, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
            OptionalNorm norm = std::nullopt);
Tensor ifft2(const Tensor& input, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
             OptionalNorm norm = std::nullopt);
Tensor rfft2(const Tensor& input, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
             OptionalNorm norm = std::nullopt);
Tensor irfft2(const Tensor& input, OptionalIntArrayRef s = std::nullopt, IntArrayRef dim = {-2, -1},
              OptionalNorm norm = std::nullopt);

// Any number of dims.
Tensor fftn(const Tensor& input, OptionalIntArrayRef s = std::nullopt, OptionalIntArrayRef dim = std::nullopt,
            OptionalNorm norm = std::nullopt);
Tensor ifftn(const Tensor& input, OptionalIntArrayRef s = std::nullopt, OptionalIntArrayRef dim = std::nullopt,
             OptionalNorm norm = std::nullopt);
Tensor rfftn(const Tensor& input, OptionalIntArrayRef s = std::nullopt, OptionalIntArrayRef dim = std::nullopt,
             OptionalNorm norm = std::nullopt);
Tensor irfftn(const Tensor& input, OptionalIntArrayRef s = std::nullopt, OptionalIntArrayRef dim = std::nullopt,
              OptionalNorm norm = std::nullopt);

// Sample frequencies: fftfreq gives [0, 1, ..., (n-1)/2, -(n/2), ..., -1] / (d n),
// rfftfreq [0, 1, ..., n/2] / (d n). Default dtype: the default float dtype.
Tensor fftfreq(int64_t n, double d = 1.0, const TensorOptions& options = {});
Tensor rfftfreq(int64_t n, double d = 1.0, const TensorOptions& options = {});

// Moves the zero frequency to the centre (rolls each dim by size/2; all dims when
// dim is omitted); ifftshift undoes it.
Tensor fftshift(const Tensor& input, OptionalIntArrayRef dim = std::nullopt);
Tensor ifftshift(const Tensor& input, OptionalIntArrayRef dim = std::nullopt);

}  // namespace ember::fft
