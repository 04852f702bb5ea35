// CPU kernels of deform_conv2d's sampling (deform_im2col_slot) and its
// backward (deform_col2im_slot), after torchvision's deform_conv2d_kernel.cpp:
// the same bilinear sampling (zero outside the image), coordinate weights and
// order of additions.
//
// Columns: row (c * KH + i) * KW + j, column (n * OH + oy) * OW + ox.
// Threading: im2col over rows (channel, tap) and images; the input gradient
// over (image, channel) planes, each one thread's (race-free, torchvision's
// order within a plane); the offset / mask gradients over their own entries.
#include <cmath>
#include <cstdint>

#include <ember/core/parallel.h>

#include "kernels/slots/detection_kernels.h"

namespace ember::vision {
namespace {

// torchvision's bilinear_interpolate of deform_conv2d: zero beyond one pixel
// outside the image, missing neighbours count as zero.
template <class T>
T sample(const T* in, int64_t height, int64_t width, T h, T w) {
  if (h <= -1 || static_cast<T>(height) <= h || w <= -1 || static_cast<T>(width) <= w) return 0;
  const int64_t h_low = static_cast<int64_t>(std::floor(h)), w_low = static_cast<int64_t>(std::floor(w));
  const int64_t h_high = h_low + 1, w_high = w_low + 1;
  const T lh = h - static_cast<T>(h_low), lw = w - static_cast<T>(w_low);
  const T hh = 1 - lh, hw = 1 - lw;
  T v1 = 0, v2 = 0, v3 = 0, v4 = 0;
  if (h_low >= 0 && w_low >= 0) v1 = in[h_low * width + w_low];
  if (h_low >= 0 && w_high <= width - 1) v2 = in[h_low * width + w_high];
  if (h_high <= height - 1 && w_low >= 0) v3 = in[h_high * width + w_low];
  if (h_high <= height - 1 && w_high <= width - 1) v4 = in[h_high * width + w_high];
  const T w1 = hh * hw, w2 = hh * lw, w3 = lh * hw, w4 = lh * lw;
  return w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;
}

// d sample / d y (is_y) or d x: torchvision's get_coordinate_weight.
template <class T>
T coordinate_weight(const T* in, int64_t height, int64_t width, T y, T x, bool is_y) {
  const int64_t y_l = static_cast<int64_t>(std::floor(y)), x_l = static_cast<int64_t>(std::floor(x));
  const int64_t y_h = y_l + 1, x_h = x_l + 1;
  const bool valid_y_l = 0 <= y_l && y_l < height, valid_y_h = 0 <= y_h && y_h < height;
  const bool valid_x_l = 0 <= x_l && x_l < width, valid_x_h = 0 <= x_h && x_h < width;
  const T v_yx = (valid_y_l && valid_x_l) ? in[y_l * width + x_l] : 0;
  const T v_yX = (valid_y_l && valid_x_h) ? in[y_l * width + x_h] : 0;
  const T v_Yx = (valid_y_h && valid_x_l) ? in[y_h * width + x_l] : 0;
  const T v_YX = (valid_y_h && valid_x_h) ? in[y_h * width + x_h] : 0;
  if (is_y) {
    const T dx = x - static_cast<T>(x_l);
    return dx * (v_YX - v_yX) + (1 - dx) * (v_Yx - v_yx);
  }
  const T dy = y - static_cast<T>(y_l);
  return dy * (v_YX - v_Yx) + (1 - dy) * (v_yX - v_yx);
}

// The shapes every loop needs.
struct Dims {
  int64_t n, channels, height, width, oh, ow, taps, c_per_group;
};

Dims dims_of(const Tensor& input, const Tensor& offset, const DeformGeometry& g) {
  return Dims{input.size(0),  input.size(1),  input.size(2), input.size(3),
              offset.size(2), offset.size(3), g.kh * g.kw,   input.size(1) / g.offset_groups};
}

template <class T>
void im2col_impl(Tensor& columns, const Tensor& input, const Tensor& offset, const Tensor& mask,
                 const DeformGeometry& g) {
  const Dims d = dims_of(input, offset, g);
  const T* in = input.data_ptr<T>();
  const T* off = offset.data_ptr<T>();
  const T* msk = mask.defined() ? mask.data_ptr<T>() : nullptr;
  T* col = columns.data_ptr<T>();
  const int64_t l = d.oh * d.ow;
  parallel_for(0, d.channels * d.n, 1, [&](int64_t begin, int64_t end) {
    for (int64_t cb = begin; cb < end; ++cb) {
      const int64_t c = cb / d.n, b = cb % d.n, grp = c / d.c_per_group;
      const T* plane = in + (b * d.channels + c) * d.height * d.width;
      const T* off_g = off + (b * g.offset_groups + grp) * 2 * d.taps * l;
      const T* msk_g = msk ? msk + (b * g.offset_groups + grp) * d.taps * l : nullptr;
      for (int64_t i = 0; i < g.kh; ++i) {
        for (int64_t j = 0; j < g.kw; ++j) {
          const int64_t tap = i * g.kw + j;
          T* row = col + (c * d.taps + tap) * (d.n * l) + b * l;
          for (int64_t oy = 0; oy < d.oh; ++oy) {
            for (int64_t ox = 0; ox < d.ow; ++ox) {
              const int64_t p = oy * d.ow + ox;
              const T mv = msk_g ? msk_g[tap * l + p] : static_cast<T>(1);
              const T y = static_cast<T>(oy * g.stride_h - g.pad_h + i * g.dil_h) + off_g[(2 * tap) * l + p];
              const T x = static_cast<T>(ox * g.stride_w - g.pad_w + j * g.dil_w) + off_g[(2 * tap + 1) * l + p];
              row[p] = mv * sample<T>(plane, d.height, d.width, y, x);
            }
          }
        }
      }
    }
  });
}

template <class T>
void col2im_impl(Tensor& grad_input, Tensor& grad_offset, Tensor& grad_mask, const Tensor& grad_columns,
                 const Tensor& input, const Tensor& offset, const Tensor& mask, const DeformGeometry& g) {
  const Dims d = dims_of(input, offset, g);
  const T* in = input.data_ptr<T>();
  const T* off = offset.data_ptr<T>();
  const T* msk = mask.defined() ? mask.data_ptr<T>() : nullptr;
  const T* gcol = grad_columns.data_ptr<T>();
  T* gin = grad_input.data_ptr<T>();
  T* goff = grad_offset.data_ptr<T>();
  T* gmsk = grad_mask.defined() ? grad_mask.data_ptr<T>() : nullptr;
  const int64_t l = d.oh * d.ow;

  // The input: each column entry spreads to the (up to 4) pixels around its
  // sample, with torchvision's weights (1 - |y - yp|) (1 - |x - xp|).
  parallel_for(0, d.n * d.channels, 1, [&](int64_t begin, int64_t end) {
    for (int64_t bc = begin; bc < end; ++bc) {
      const int64_t b = bc / d.channels, c = bc % d.channels, grp = c / d.c_per_group;
      T* plane = gin + bc * d.height * d.width;
      const T* off_g = off + (b * g.offset_groups + grp) * 2 * d.taps * l;
      const T* msk_g = msk ? msk + (b * g.offset_groups + grp) * d.taps * l : nullptr;
      for (int64_t i = 0; i < g.kh; ++i) {
        for (int64_t j = 0; j < g.kw; ++j) {
          const int64_t tap = i * g.kw + j;
          const T* row = gcol + (c * d.taps + tap) * (d.n * l) + b * l;
          for (int64_t oy = 0; oy < d.oh; ++oy) {
            for (int64_t ox = 0; ox < d.ow; ++ox) {
              const int64_t p = oy * d.ow + ox;
              const T mv = msk_g ? msk_g[tap * l + p] : static_cast<T>(1);
              const T y = static_cast<T>(oy * g.stride_h - g.pad_h + i * g.dil_h) + off_g[(2 * tap) * l + p];
              const T x = static_cast<T>(ox * g.stride_w - g.pad_w + j * g.dil_w) + off_g[(2 * tap + 1) * l + p];
              for (int64_t dy = -1; dy <= 1; ++dy) {
                for (int64_t dx = -1; dx <= 1; ++dx) {
                  const int64_t yp = static_cast<int64_t>(y) + dy, xp = static_cast<int64_t>(x) + dx;
                  if (0 <= yp && yp < d.height && 0 <= xp && xp < d.width && std::abs(y - static_cast<T>(yp)) < 1 &&
                      std::abs(x - static_cast<T>(xp)) < 1) {
                    const T weight = (1 - std::abs(y - static_cast<T>(yp))) * (1 - std::abs(x - static_cast<T>(xp)));
                    plane[yp * d.width + xp] += mv * weight * row[p];
                  }
                }
              }
            }
          }
        }
      }
    }
  });

  // The offsets (and the mask): per offset entry, a sum over the group's
  // channels of the column gradient times the sample's derivative.
  const int64_t offset_channels = 2 * g.offset_groups * d.taps;
  parallel_for(0, d.n * offset_channels, 1, [&](int64_t begin, int64_t end) {
    for (int64_t bo = begin; bo < end; ++bo) {
      const int64_t b = bo / offset_channels, oc = bo % offset_channels;
      const int64_t grp = oc / (2 * d.taps), offset_c = oc - grp * 2 * d.taps;
      const bool is_y = offset_c % 2 == 0;
      const int64_t tap = offset_c / 2, i = tap / g.kw, j = tap % g.kw;
      const T* off_g = off + (b * g.offset_groups + grp) * 2 * d.taps * l;
      const T* msk_g = msk ? msk + (b * g.offset_groups + grp) * d.taps * l : nullptr;
      for (int64_t oy = 0; oy < d.oh; ++oy) {
        for (int64_t ox = 0; ox < d.ow; ++ox) {
          const int64_t p = oy * d.ow + ox;
          const T mv = msk_g ? msk_g[tap * l + p] : static_cast<T>(1);
          const T y = static_cast<T>(oy * g.stride_h - g.pad_h + i * g.dil_h) + off_g[(2 * tap) * l + p];
          const T x = static_cast<T>(ox * g.stride_w - g.pad_w + j * g.dil_w) + off_g[(2 * tap + 1) * l + p];
          T val = 0, mval = 0;
          for (int64_t cc = 0; cc < d.c_per_group; ++cc) {
            const int64_t c = grp * d.c_per_group + cc;
            const T* plane = in + (b * d.channels + c) * d.height * d.width;
            const T gc = gcol[(c * d.taps + tap) * (d.n * l) + b * l + p];
            val += coordinate_weight<T>(plane, d.height, d.width, y, x, is_y) * gc * mv;
            if (gmsk && is_y) mval += gc * sample<T>(plane, d.height, d.width, y, x);
          }
          goff[bo * l + p] = val;
          if (gmsk && is_y) gmsk[((b * g.offset_groups + grp) * d.taps + tap) * l + p] = mval;
        }
      }
    }
  });
}

void im2col_kernel(Tensor& columns, const Tensor& input, const Tensor& offset, const Tensor& mask,
                   const DeformGeometry& g) {
  if (input.dtype() == kFloat64) return im2col_impl<double>(columns, input, offset, mask, g);
  im2col_impl<float>(columns, input, offset, mask, g);
}

void col2im_kernel(Tensor& grad_input, Tensor& grad_offset, Tensor& grad_mask, const Tensor& grad_columns,
                   const Tensor& input, const Tensor& offset, const Tensor& mask, const DeformGeometry& g) {
  if (input.dtype() == kFloat64)
    return col2im_impl<double>(grad_input, grad_offset, grad_mask, grad_columns, input, offset, mask, g);
  col2im_impl<float>(grad_input, grad_offset, grad_mask, grad_columns, input, offset, mask, g);
}

constexpr uint32_t kFloatMask = dtype_bit(kFloat32) | dtype_bit(kFloat64);

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(deform_im2col_slot, CPU, im2col_kernel, kFloatMask);
EMBER_REGISTER_KERNEL_FOR_DTYPES(deform_col2im_slot, CPU, col2im_kernel, kFloatMask);

}  // namespace ember::vision
