// CPU kernels of roi_pool and ps_roi_pool, forward and backward, after
// torchvision's roi_pool_kernel.cpp and ps_roi_pool_kernel.cpp (the same
// rounding of the box to whole pixels, bin edges and clamps). Threading as
// roi_align's (Note [Race-free RoI backward] in roi_align_kernels.cpp).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <ember/core/parallel.h>

#include "kernels/slots/detection_kernels.h"

namespace ember::vision {
namespace {

// One bin: [hstart, hend) x [wstart, wend) in the image plane.
struct Bin {
  int64_t hstart, hend, wstart, wend;
  bool empty() const { return hend <= hstart || wend <= wstart; }
};

// The bins of a box rounded (std::round, half away from zero) to the feature
// map. torchvision's two pooling kernels differ in two details, kept apart here
// by BinRule: roi_pool adds one pixel to the box's size and clamps bins to
// [0, size]; ps_roi_pool adds none and clamps to [0, size - 1] (so its last row
// and column are never pooled, as in torchvision).
struct BinRule {
  int64_t extra_pixel;  // added to the rounded box's width and height
  int64_t clamp_shave;  // bins clamp to [0, size - clamp_shave]
};
constexpr BinRule kRoiPoolRule{.extra_pixel = 1, .clamp_shave = 0};
constexpr BinRule kPsRoiPoolRule{.extra_pixel = 0, .clamp_shave = 1};

template <class T>
std::vector<Bin> pool_bins(BinRule rule, const T* roi, T scale, int64_t height, int64_t width, int64_t ph_count,
                           int64_t pw_count) {
  const int64_t start_w = static_cast<int64_t>(std::round(roi[1] * scale));
  const int64_t start_h = static_cast<int64_t>(std::round(roi[2] * scale));
  const int64_t end_w = static_cast<int64_t>(std::round(roi[3] * scale));
  const int64_t end_h = static_cast<int64_t>(std::round(roi[4] * scale));
  const int64_t roi_width = std::max<int64_t>(end_w - start_w + rule.extra_pixel, 1);
  const int64_t roi_height = std::max<int64_t>(end_h - start_h + rule.extra_pixel, 1);
  const T bin_h = static_cast<T>(roi_height) / static_cast<T>(ph_count);
  const T bin_w = static_cast<T>(roi_width) / static_cast<T>(pw_count);
  const int64_t max_h = height - rule.clamp_shave, max_w = width - rule.clamp_shave;
  std::vector<Bin> bins;
  bins.reserve(static_cast<size_t>(ph_count * pw_count));
  for (int64_t ph = 0; ph < ph_count; ++ph) {
    for (int64_t pw = 0; pw < pw_count; ++pw) {
      Bin b;
      b.hstart = static_cast<int64_t>(std::floor(static_cast<T>(ph) * bin_h));
      b.wstart = static_cast<int64_t>(std::floor(static_cast<T>(pw) * bin_w));
      b.hend = static_cast<int64_t>(std::ceil(static_cast<T>(ph + 1) * bin_h));
      b.wend = static_cast<int64_t>(std::ceil(static_cast<T>(pw + 1) * bin_w));
      b.hstart = std::min(std::max<int64_t>(b.hstart + start_h, 0), max_h);
      b.hend = std::min(std::max<int64_t>(b.hend + start_h, 0), max_h);
      b.wstart = std::min(std::max<int64_t>(b.wstart + start_w, 0), max_w);
      b.wend = std::min(std::max<int64_t>(b.wend + start_w, 0), max_w);
      bins.push_back(b);
    }
  }
  return bins;
}

template <class T>
void roi_pool_forward_impl(Tensor& out, Tensor& argmax, const Tensor& input, const Tensor& rois, double spatial_scale) {
  const int64_t k_count = rois.size(0), channels = input.size(1), height = input.size(2), width = input.size(3);
  const int64_t ph_count = out.size(2), pw_count = out.size(3), nbins = ph_count * pw_count;
  const T* in = input.data_ptr<T>();
  const T* r = rois.data_ptr<T>();
  T* o = out.data_ptr<T>();
  int64_t* am = argmax.data_ptr<int64_t>();
  const T scale = static_cast<T>(spatial_scale);
  parallel_for(0, k_count, 1, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      const int64_t batch = static_cast<int64_t>(r[n * 5]);
      const std::vector<Bin> bins = pool_bins<T>(kRoiPoolRule, r + n * 5, scale, height, width, ph_count, pw_count);
      for (int64_t c = 0; c < channels; ++c) {
        const T* plane = in + (batch * channels + c) * height * width;
        for (int64_t b = 0; b < nbins; ++b) {
          const Bin& bin = bins[b];
          // torchvision starts from -FLT_MAX (also for double) and keeps the
          // first maximum in row-major order.
          T maxval = bin.empty() ? static_cast<T>(0) : static_cast<T>(-FLT_MAX);
          int64_t maxidx = -1;
          for (int64_t h = bin.hstart; h < bin.hend; ++h) {
            for (int64_t w = bin.wstart; w < bin.wend; ++w) {
              const int64_t idx = h * width + w;
              if (plane[idx] > maxval) {
                maxval = plane[idx];
                maxidx = idx;
              }
            }
          }
          o[(n * channels + c) * nbins + b] = maxval;
          am[(n * channels + c) * nbins + b] = maxidx;
        }
      }
    }
  });
}

template <class T>
void roi_pool_backward_impl(Tensor& grad_input, const Tensor& grad, const Tensor& argmax, const Tensor& rois) {
  const int64_t k_count = rois.size(0), channels = grad_input.size(1);
  const int64_t plane_size = grad_input.size(2) * grad_input.size(3);
  const int64_t nbins = grad.size(2) * grad.size(3);
  const T* r = rois.data_ptr<T>();
  const T* g = grad.data_ptr<T>();
  const int64_t* am = argmax.data_ptr<int64_t>();
  T* gi = grad_input.data_ptr<T>();
  // Note [Race-free RoI backward] (roi_align_kernels.cpp)
  parallel_for(0, channels, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      for (int64_t n = 0; n < k_count; ++n) {
        T* plane = gi + (static_cast<int64_t>(r[n * 5]) * channels + c) * plane_size;
        const int64_t base = (n * channels + c) * nbins;
        for (int64_t b = 0; b < nbins; ++b)
          if (am[base + b] != -1) plane[am[base + b]] += g[base + b];
      }
    }
  });
}

template <class T>
void ps_roi_pool_forward_impl(Tensor& out, const Tensor& input, const Tensor& rois, double spatial_scale) {
  const int64_t k_count = rois.size(0), channels = input.size(1), height = input.size(2), width = input.size(3);
  const int64_t channels_out = out.size(1), ph_count = out.size(2), pw_count = out.size(3);
  const int64_t nbins = ph_count * pw_count;
  const T* in = input.data_ptr<T>();
  const T* r = rois.data_ptr<T>();
  T* o = out.data_ptr<T>();
  const T scale = static_cast<T>(spatial_scale);
  parallel_for(0, k_count, 1, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      const int64_t batch = static_cast<int64_t>(r[n * 5]);
      const std::vector<Bin> bins = pool_bins<T>(kPsRoiPoolRule, r + n * 5, scale, height, width, ph_count, pw_count);
      for (int64_t c_out = 0; c_out < channels_out; ++c_out) {
        for (int64_t b = 0; b < nbins; ++b) {
          const Bin& bin = bins[b];
          const int64_t c_in = c_out * nbins + b;
          const T* plane = in + (batch * channels + c_in) * height * width;
          T sum = 0;
          for (int64_t h = bin.hstart; h < bin.hend; ++h)
            for (int64_t w = bin.wstart; w < bin.wend; ++w) sum += plane[h * width + w];
          const T area = static_cast<T>((bin.hend - bin.hstart) * (bin.wend - bin.wstart));
          o[(n * channels_out + c_out) * nbins + b] = bin.empty() ? static_cast<T>(0) : sum / area;
        }
      }
    }
  });
}

// Note [ps_roi_pool backward]: torchvision's ps_roi_pool backward clamps the
// bins to [0, size] while its forward clamps them to [0, size - 1], so for a
// box reaching the map's last row or column its gradient is not the
// derivative of its forward (off by the bin areas; checked numerically in
// scripts/fixtures/vision_detection_ops.py). Ember's backward uses the
// forward's bins: the true gradient (gradchecked); it equals torchvision's
// wherever no bin reaches the border.
template <class T>
void ps_roi_pool_backward_impl(Tensor& grad_input, const Tensor& grad, const Tensor& rois, double spatial_scale) {
  const int64_t k_count = rois.size(0), channels = grad_input.size(1);
  const int64_t height = grad_input.size(2), width = grad_input.size(3);
  const int64_t channels_out = grad.size(1), ph_count = grad.size(2), pw_count = grad.size(3);
  const int64_t nbins = ph_count * pw_count;
  const T* r = rois.data_ptr<T>();
  const T* g = grad.data_ptr<T>();
  T* gi = grad_input.data_ptr<T>();
  const T scale = static_cast<T>(spatial_scale);
  std::vector<std::vector<Bin>> all(static_cast<size_t>(k_count));
  for (int64_t n = 0; n < k_count; ++n)
    all[n] = pool_bins<T>(kPsRoiPoolRule, r + n * 5, scale, height, width, ph_count, pw_count);
  // Note [Race-free RoI backward]: input channel c_in = c_out * nbins + bin.
  parallel_for(0, channels_out * nbins, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c_in = begin; c_in < end; ++c_in) {
      const int64_t c_out = c_in / nbins, b = c_in % nbins;
      for (int64_t n = 0; n < k_count; ++n) {
        const Bin& bin = all[n][b];
        T* plane = gi + (static_cast<int64_t>(r[n * 5]) * channels + c_in) * height * width;
        const T area = static_cast<T>((bin.hend - bin.hstart) * (bin.wend - bin.wstart));
        const T diff = bin.empty() ? static_cast<T>(0) : g[(n * channels_out + c_out) * nbins + b] / area;
        for (int64_t h = bin.hstart; h < bin.hend; ++h)
          for (int64_t w = bin.wstart; w < bin.wend; ++w) plane[h * width + w] += diff;
      }
    }
  });
}

void roi_pool_forward_kernel(Tensor& out, Tensor& argmax, const Tensor& input, const Tensor& rois,
                             double spatial_scale) {
  if (input.dtype() == kFloat64) return roi_pool_forward_impl<double>(out, argmax, input, rois, spatial_scale);
  roi_pool_forward_impl<float>(out, argmax, input, rois, spatial_scale);
}

void roi_pool_backward_kernel(Tensor& grad_input, const Tensor& grad, const Tensor& argmax, const Tensor& rois) {
  if (grad.dtype() == kFloat64) return roi_pool_backward_impl<double>(grad_input, grad, argmax, rois);
  roi_pool_backward_impl<float>(grad_input, grad, argmax, rois);
}

void ps_roi_pool_forward_kernel(Tensor& out, const Tensor& input, const Tensor& rois, double spatial_scale) {
  if (input.dtype() == kFloat64) return ps_roi_pool_forward_impl<double>(out, input, rois, spatial_scale);
  ps_roi_pool_forward_impl<float>(out, input, rois, spatial_scale);
}

void ps_roi_pool_backward_kernel(Tensor& grad_input, const Tensor& grad, const Tensor& rois, double spatial_scale) {
  if (grad.dtype() == kFloat64) return ps_roi_pool_backward_impl<double>(grad_input, grad, rois, spatial_scale);
  ps_roi_pool_backward_impl<float>(grad_input, grad, rois, spatial_scale);
}

constexpr uint32_t kFloatMask = dtype_bit(kFloat32) | dtype_bit(kFloat64);

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(roi_pool_forward_slot, CPU, roi_pool_forward_kernel, kFloatMask);
EMBER_REGISTER_KERNEL_FOR_DTYPES(roi_pool_backward_slot, CPU, roi_pool_backward_kernel, kFloatMask);
EMBER_REGISTER_KERNEL_FOR_DTYPES(ps_roi_pool_forward_slot, CPU, ps_roi_pool_forward_kernel, kFloatMask);
EMBER_REGISTER_KERNEL_FOR_DTYPES(ps_roi_pool_backward_slot, CPU, ps_roi_pool_backward_kernel, kFloatMask);

}  // namespace ember::vision
