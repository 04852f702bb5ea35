// CPU kernels of roi_align and ps_roi_align, forward and backward, after
// torchvision's roi_align_kernel.cpp and ps_roi_align_kernel.cpp: the same
// sample positions, clamps and float arithmetic in the input's dtype, so the
// results equal torchvision's to the last bits.
//
// Threading. Forward: over rois (each writes its own output rows). Backward:
// Note [Race-free RoI backward]: bins of different rois add into the same
// pixels of an image plane, so the backward runs over input channels (one
// thread owns whole planes) and visits the rois in order within a channel:
// no atomics, and the sums are added in torchvision's order.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <ember/core/parallel.h>

#include "kernels/slots/detection_kernels.h"

namespace ember::vision {
namespace {

// One bilinear sample: four pixel offsets in the plane and their weights
// (all zero for a sample outside [-1, size]).
template <class T>
struct Sample {
  int64_t pos1 = 0, pos2 = 0, pos3 = 0, pos4 = 0;
  T w1 = 0, w2 = 0, w3 = 0, w4 = 0;
  bool inside = false;
};

// torchvision's bilinear_interpolate(_gradient) clamps.
template <class T>
Sample<T> bilinear_sample(int64_t height, int64_t width, T y, T x) {
  Sample<T> s;
  if (y < -1.0 || y > static_cast<T>(height) || x < -1.0 || x > static_cast<T>(width)) return s;
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x), y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<T>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<T>(x_low);
  } else {
    x_high = x_low + 1;
  }
  const T ly = y - static_cast<T>(y_low), lx = x - static_cast<T>(x_low);
  const T hy = static_cast<T>(1) - ly, hx = static_cast<T>(1) - lx;
  s.w1 = hy * hx;
  s.w2 = hy * lx;
  s.w3 = ly * hx;
  s.w4 = ly * lx;
  s.pos1 = y_low * width + x_low;
  s.pos2 = y_low * width + x_high;
  s.pos3 = y_high * width + x_low;
  s.pos4 = y_high * width + x_high;
  s.inside = true;
  return s;
}

// torchvision computes the adaptive grid as ceil(size / pooled) in T, then int.
template <class T>
int64_t grid_size(int64_t sampling_ratio, T roi_size, int64_t pooled) {
  return sampling_ratio > 0 ? sampling_ratio : static_cast<int64_t>(std::ceil(roi_size / static_cast<T>(pooled)));
}

// ---- roi_align ----

// A roi's geometry and its samples, bin by bin (ph, pw), then iy, ix.
template <class T>
struct RoiSamples {
  int64_t batch = 0, grid_h = 0, grid_w = 0;
  std::vector<Sample<T>> samples;
};

template <class T>
RoiSamples<T> roi_align_samples(const T* roi, T scale, int64_t height, int64_t width, int64_t ph_count,
                                int64_t pw_count, int64_t sampling_ratio, bool aligned) {
  RoiSamples<T> r;
  r.batch = static_cast<int64_t>(roi[0]);
  const T offset = aligned ? static_cast<T>(0.5) : static_cast<T>(0);
  const T start_w = roi[1] * scale - offset, start_h = roi[2] * scale - offset;
  const T end_w = roi[3] * scale - offset, end_h = roi[4] * scale - offset;
  T roi_width = end_w - start_w, roi_height = end_h - start_h;
  if (!aligned) {
    roi_width = std::max(roi_width, static_cast<T>(1));
    roi_height = std::max(roi_height, static_cast<T>(1));
  }
  const T bin_h = roi_height / static_cast<T>(ph_count), bin_w = roi_width / static_cast<T>(pw_count);
  r.grid_h = grid_size(sampling_ratio, roi_height, ph_count);
  r.grid_w = grid_size(sampling_ratio, roi_width, pw_count);
  const int64_t gh = std::max<int64_t>(r.grid_h, 0), gw = std::max<int64_t>(r.grid_w, 0);
  r.samples.reserve(static_cast<size_t>(ph_count * pw_count * gh * gw));
  for (int64_t ph = 0; ph < ph_count; ++ph) {
    for (int64_t pw = 0; pw < pw_count; ++pw) {
      for (int64_t iy = 0; iy < gh; ++iy) {
        const T y = start_h + static_cast<T>(ph) * bin_h +
                    static_cast<T>(static_cast<float>(iy) + .5f) * bin_h / static_cast<T>(r.grid_h);
        for (int64_t ix = 0; ix < gw; ++ix) {
          const T x = start_w + static_cast<T>(pw) * bin_w +
                      static_cast<T>(static_cast<float>(ix) + .5f) * bin_w / static_cast<T>(r.grid_w);
          r.samples.push_back(bilinear_sample<T>(height, width, y, x));
        }
      }
    }
  }
  return r;
}

template <class T>
void roi_align_forward_impl(Tensor& out, const Tensor& input, const Tensor& rois, double spatial_scale,
                            int64_t sampling_ratio, bool aligned) {
  const int64_t k_count = rois.size(0), channels = input.size(1), height = input.size(2), width = input.size(3);
  const int64_t ph_count = out.size(2), pw_count = out.size(3), bins = ph_count * pw_count;
  const T* in = input.data_ptr<T>();
  const T* r = rois.data_ptr<T>();
  T* o = out.data_ptr<T>();
  const T scale = static_cast<T>(spatial_scale);
  parallel_for(0, k_count, 1, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      const RoiSamples<T> rs =
          roi_align_samples<T>(r + n * 5, scale, height, width, ph_count, pw_count, sampling_ratio, aligned);
      const T count = static_cast<T>(std::max<int64_t>(rs.grid_h * rs.grid_w, 1));
      const size_t per_bin = rs.samples.size() / static_cast<size_t>(bins);
      for (int64_t c = 0; c < channels; ++c) {
        const T* plane = in + (rs.batch * channels + c) * height * width;
        T* dst = o + (n * channels + c) * bins;
        const Sample<T>* s = rs.samples.data();
        for (int64_t b = 0; b < bins; ++b) {
          T val = 0;
          for (size_t i = 0; i < per_bin; ++i, ++s)
            val += s->w1 * plane[s->pos1] + s->w2 * plane[s->pos2] + s->w3 * plane[s->pos3] + s->w4 * plane[s->pos4];
          dst[b] = val / count;
        }
      }
    }
  });
}

template <class T>
void roi_align_backward_impl(Tensor& grad_input, const Tensor& grad, const Tensor& rois, double spatial_scale,
                             int64_t sampling_ratio, bool aligned) {
  const int64_t k_count = rois.size(0), channels = grad_input.size(1);
  const int64_t height = grad_input.size(2), width = grad_input.size(3);
  const int64_t ph_count = grad.size(2), pw_count = grad.size(3), bins = ph_count * pw_count;
  const T* r = rois.data_ptr<T>();
  const T* g = grad.data_ptr<T>();
  T* gi = grad_input.data_ptr<T>();
  const T scale = static_cast<T>(spatial_scale);
  // The samples of a chunk of rois at a time: with adaptive sampling a large
  // box has many samples per bin (1,000 boxes of 50 pixels pooled to 7x7
  // would need ~200 MB at once), so the memory stays bounded by the chunk.
  constexpr int64_t kRoiChunk = 32;
  std::vector<RoiSamples<T>> chunk(static_cast<size_t>(std::min(k_count, kRoiChunk)));
  for (int64_t first = 0; first < k_count; first += kRoiChunk) {
    const int64_t count_in_chunk = std::min(kRoiChunk, k_count - first);
    parallel_for(0, count_in_chunk, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        chunk[i] = roi_align_samples<T>(r + (first + i) * 5, scale, height, width, ph_count, pw_count, sampling_ratio,
                                        aligned);
    });
    // Note [Race-free RoI backward]
    parallel_for(0, channels, 1, [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        for (int64_t i = 0; i < count_in_chunk; ++i) {
          const int64_t n = first + i;
          const RoiSamples<T>& rs = chunk[i];
          // torchvision's backward divides by the grid size without the
          // forward's max(., 1): an empty grid has no samples to divide.
          const T count = static_cast<T>(rs.grid_h * rs.grid_w);
          const size_t per_bin = rs.samples.size() / static_cast<size_t>(bins);
          T* plane = gi + (rs.batch * channels + c) * height * width;
          const T* src = g + (n * channels + c) * bins;
          const Sample<T>* s = rs.samples.data();
          for (int64_t b = 0; b < bins; ++b) {
            const T gb = src[b];
            for (size_t k = 0; k < per_bin; ++k, ++s) {
              if (!s->inside) continue;
              plane[s->pos1] += gb * s->w1 / count;
              plane[s->pos2] += gb * s->w2 / count;
              plane[s->pos3] += gb * s->w3 / count;
              plane[s->pos4] += gb * s->w4 / count;
            }
          }
        }
      }
    });
  }
}

// ---- ps_roi_align ----

// The geometry of a position-sensitive roi (boxes always shifted by -0.5,
// no minimum size).
template <class T>
struct PsRoi {
  int64_t batch, grid_h, grid_w;
  T start_h, start_w, bin_h, bin_w;
};

template <class T>
PsRoi<T> ps_roi_geometry(const T* roi, T scale, int64_t ph_count, int64_t pw_count, int64_t sampling_ratio) {
  PsRoi<T> p;
  p.batch = static_cast<int64_t>(roi[0]);
  p.start_w = roi[1] * scale - static_cast<T>(0.5);
  p.start_h = roi[2] * scale - static_cast<T>(0.5);
  const T end_w = roi[3] * scale - static_cast<T>(0.5), end_h = roi[4] * scale - static_cast<T>(0.5);
  const T roi_width = end_w - p.start_w, roi_height = end_h - p.start_h;
  p.bin_h = roi_height / static_cast<T>(ph_count);
  p.bin_w = roi_width / static_cast<T>(pw_count);
  p.grid_h = grid_size(sampling_ratio, roi_height, ph_count);
  p.grid_w = grid_size(sampling_ratio, roi_width, pw_count);
  return p;
}

// Calls f(sample) for the samples of bin (ph, pw), in torchvision's order.
template <class T, class F>
void for_each_ps_sample(const PsRoi<T>& p, int64_t height, int64_t width, int64_t ph, int64_t pw, const F& f) {
  const T hstart = static_cast<T>(ph) * p.bin_h + p.start_h, wstart = static_cast<T>(pw) * p.bin_w + p.start_w;
  for (int64_t iy = 0; iy < p.grid_h; ++iy) {
    const T y = hstart + static_cast<T>(static_cast<float>(iy) + .5f) * p.bin_h / static_cast<T>(p.grid_h);
    for (int64_t ix = 0; ix < p.grid_w; ++ix) {
      const T x = wstart + static_cast<T>(static_cast<float>(ix) + .5f) * p.bin_w / static_cast<T>(p.grid_w);
      f(bilinear_sample<T>(height, width, y, x));
    }
  }
}

template <class T>
void ps_roi_align_forward_impl(Tensor& out, const Tensor& input, const Tensor& rois, double spatial_scale,
                               int64_t sampling_ratio) {
  const int64_t k_count = rois.size(0), channels = input.size(1), height = input.size(2), width = input.size(3);
  const int64_t channels_out = out.size(1), ph_count = out.size(2), pw_count = out.size(3);
  const T* in = input.data_ptr<T>();
  const T* r = rois.data_ptr<T>();
  T* o = out.data_ptr<T>();
  const T scale = static_cast<T>(spatial_scale);
  parallel_for(0, k_count, 1, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      const PsRoi<T> p = ps_roi_geometry<T>(r + n * 5, scale, ph_count, pw_count, sampling_ratio);
      // 0 / 0 = NaN for an empty grid, as torchvision's.
      const T count = static_cast<T>(p.grid_h * p.grid_w);
      for (int64_t c_out = 0; c_out < channels_out; ++c_out) {
        for (int64_t ph = 0; ph < ph_count; ++ph) {
          for (int64_t pw = 0; pw < pw_count; ++pw) {
            const int64_t c_in = (c_out * ph_count + ph) * pw_count + pw;
            const T* plane = in + (p.batch * channels + c_in) * height * width;
            T sum = 0;
            for_each_ps_sample<T>(p, height, width, ph, pw, [&](const Sample<T>& s) {
              sum += s.w1 * plane[s.pos1] + s.w2 * plane[s.pos2] + s.w3 * plane[s.pos3] + s.w4 * plane[s.pos4];
            });
            o[((n * channels_out + c_out) * ph_count + ph) * pw_count + pw] = sum / count;
          }
        }
      }
    }
  });
}

template <class T>
void ps_roi_align_backward_impl(Tensor& grad_input, const Tensor& grad, const Tensor& rois, double spatial_scale,
                                int64_t sampling_ratio) {
  const int64_t k_count = rois.size(0), channels = grad_input.size(1);
  const int64_t height = grad_input.size(2), width = grad_input.size(3);
  const int64_t channels_out = grad.size(1), ph_count = grad.size(2), pw_count = grad.size(3);
  const T* r = rois.data_ptr<T>();
  const T* g = grad.data_ptr<T>();
  T* gi = grad_input.data_ptr<T>();
  const T scale = static_cast<T>(spatial_scale);
  std::vector<PsRoi<T>> geo(static_cast<size_t>(k_count));
  for (int64_t n = 0; n < k_count; ++n)
    geo[n] = ps_roi_geometry<T>(r + n * 5, scale, ph_count, pw_count, sampling_ratio);
  // Note [Race-free RoI backward]: input channel c_in is read by exactly one
  // (c_out, ph, pw) of every roi.
  parallel_for(0, channels_out * ph_count * pw_count, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c_in = begin; c_in < end; ++c_in) {
      const int64_t pw = c_in % pw_count, ph = (c_in / pw_count) % ph_count, c_out = c_in / (pw_count * ph_count);
      for (int64_t n = 0; n < k_count; ++n) {
        const PsRoi<T>& p = geo[n];
        const T count = static_cast<T>(p.grid_h * p.grid_w);
        T* plane = gi + (p.batch * channels + c_in) * height * width;
        const T gb = g[((n * channels_out + c_out) * ph_count + ph) * pw_count + pw];
        for_each_ps_sample<T>(p, height, width, ph, pw, [&](const Sample<T>& s) {
          if (!s.inside) return;
          plane[s.pos1] += gb * s.w1 / count;
          plane[s.pos2] += gb * s.w2 / count;
          plane[s.pos3] += gb * s.w3 / count;
          plane[s.pos4] += gb * s.w4 / count;
        });
      }
    }
  });
}

void roi_align_forward_kernel(Tensor& out, const Tensor& input, const Tensor& rois, double spatial_scale,
                              int64_t sampling_ratio, bool aligned) {
  if (input.dtype() == kFloat64)
    return roi_align_forward_impl<double>(out, input, rois, spatial_scale, sampling_ratio, aligned);
  roi_align_forward_impl<float>(out, input, rois, spatial_scale, sampling_ratio, aligned);
}

void roi_align_backward_kernel(Tensor& grad_input, const Tensor& grad, const Tensor& rois, double spatial_scale,
                               int64_t sampling_ratio, bool aligned) {
  if (grad.dtype() == kFloat64)
    return roi_align_backward_impl<double>(grad_input, grad, rois, spatial_scale, sampling_ratio, aligned);
  roi_align_backward_impl<float>(grad_input, grad, rois, spatial_scale, sampling_ratio, aligned);
}

void ps_roi_align_forward_kernel(Tensor& out, const Tensor& input, const Tensor& rois, double spatial_scale,
                                 int64_t sampling_ratio) {
  if (input.dtype() == kFloat64)
    return ps_roi_align_forward_impl<double>(out, input, rois, spatial_scale, sampling_ratio);
  ps_roi_align_forward_impl<float>(out, input, rois, spatial_scale, sampling_ratio);
}

void ps_roi_align_backward_kernel(Tensor& grad_input, const Tensor& grad, const Tensor& rois, double spatial_scale,
                                  int64_t sampling_ratio) {
  if (grad.dtype() == kFloat64)
    return ps_roi_align_backward_impl<double>(grad_input, grad, rois, spatial_scale, sampling_ratio);
  ps_roi_align_backward_impl<float>(grad_input, grad, rois, spatial_scale, sampling_ratio);
}

constexpr uint32_t kFloatMask = dtype_bit(kFloat32) | dtype_bit(kFloat64);

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(roi_align_forward_slot, CPU, roi_align_forward_kernel, kFloatMask);
EMBER_REGISTER_KERNEL_FOR_DTYPES(roi_align_backward_slot, CPU, roi_align_backward_kernel, kFloatMask);
EMBER_REGISTER_KERNEL_FOR_DTYPES(ps_roi_align_forward_slot, CPU, ps_roi_align_forward_kernel, kFloatMask);
EMBER_REGISTER_KERNEL_FOR_DTYPES(ps_roi_align_backward_slot, CPU, ps_roi_align_backward_kernel, kFloatMask);

}  // namespace ember::vision
