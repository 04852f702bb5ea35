#pragma once
// Kernel slots of the sampling family (nn/functional/sampling.cpp).
//
// Resampling (interpolate) is separable: along each spatial dim, output
// position o reads a few input positions with weights ("taps": 1 for
// nearest, 2 for linear, 4 for cubic, a box for area). The op builds the
// taps per dim; the kernels only apply them (forward) or their transpose
// (backward), so every mode shares two kernels.
#include <cstdint>
#include <vector>

#include "ember/core/tensor.h"
#include "kernels/slots/kernel_slot.h"

namespace ember {

// Taps of one spatial dim, CSR style: output o reads index[k] with
// weight[k] for k in [offsets[o], offsets[o + 1]).
struct ResampleTaps {
  int64_t in_size = 0;
  int64_t out_size = 0;
  std::vector<int64_t> offsets;
  std::vector<int64_t> index;
  std::vector<double> weight;
};

// out[n, c, o...] = sum over taps of w1*w2*w3 * src[n, c, i...]. src and out
// are [N, C, spatial...] (1 to 3 spatial dims, taps.size() of them), any
// strides, same floating dtype.
using ResampleFn = void(const Tensor& src, Tensor& out, const std::vector<ResampleTaps>& taps);
extern KernelSlot<ResampleFn> resample_slot;
// The transpose: grad_in (zero-filled by the caller) += A^T grad_out.
using ResampleBackwardFn = void(const Tensor& grad_out, Tensor& grad_in, const std::vector<ResampleTaps>& taps);
extern KernelSlot<ResampleBackwardFn> resample_backward_slot;

// Geometry of im2col/col2im over a 2-d image.
struct Im2ColGeometry {
  int64_t batch, channels;        // images and their channels
  int64_t height, width;          // image size
  int64_t kernel_h, kernel_w;
  int64_t dilation_h, dilation_w;
  int64_t pad_h, pad_w;
  int64_t stride_h, stride_w;
  int64_t out_h, out_w;           // blocks per dim (L = out_h * out_w)
};
// im2col: image [N, C, H, W] -> columns [N, C*kh*kw, L] (both contiguous,
// N and C taken from the geometry); col2im: the transpose (image written whole).
using Im2ColFn = void(const Tensor& image, Tensor& columns, const Im2ColGeometry& g);
using Col2ImFn = void(const Tensor& columns, Tensor& image, const Im2ColGeometry& g);
extern KernelSlot<Im2ColFn> im2col_slot;
extern KernelSlot<Col2ImFn> col2im_slot;

}  // namespace ember
