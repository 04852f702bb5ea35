// CPU kernels of the sampling family: separable resampling (interpolate and
// its adjoint) and im2col/col2im (unfold/fold). See kernels/slots/sampling_kernels.h.
//
// Resampling runs two ways. Channels-last tensors (stride 1 over C) take
// the pixel-major path: each output pixel combines whole channel rows, an
// inner loop over C the compiler vectorizes. Other layouts run one (n, c)
// plane per task with the taps nested per dim. The backward accumulates, so
// it splits only where writes cannot collide: planes, or channel blocks.
#include <algorithm>
#include <vector>

#include "ember/core/dtype.h"
#include "ember/core/parallel.h"
#include "kernels/slots/sampling_kernels.h"

namespace ember {
namespace {

// One spatial dim padded to three (missing dims are outer dims of size 1).
template <class A>
struct DimTaps {
  int64_t out = 1;
  std::vector<int64_t> start{0, 1};  // CSR offsets
  std::vector<int64_t> off{0};       // element offsets in the "input side" tensor
  std::vector<A> w{A(1)};
  int64_t out_stride = 0;            // element stride in the "output side" tensor
};

// Taps padded to 3 dims: dim 3 - taps.size() + d is taps[d]. `in` is the
// tensor the taps index (src forward, grad_in backward), `out` the other.
template <class A>
std::vector<DimTaps<A>> pad_taps(const std::vector<ResampleTaps>& taps, const Tensor& in, const Tensor& out) {
  std::vector<DimTaps<A>> dims(3);
  const size_t skip = 3 - taps.size();
  for (size_t d = 0; d < taps.size(); ++d) {
    const ResampleTaps& t = taps[d];
    DimTaps<A>& p = dims[skip + d];
    p.out = t.out_size;
    p.start = t.offsets;
    const int64_t in_stride = in.stride(2 + static_cast<int64_t>(d));
    p.off.resize(t.index.size());
    p.w.resize(t.weight.size());
    for (size_t k = 0; k < t.index.size(); ++k) {
      p.off[k] = t.index[k] * in_stride;
      p.w[k] = static_cast<A>(t.weight[k]);
    }
    p.out_stride = out.stride(2 + static_cast<int64_t>(d));
  }
  return dims;
}

int64_t taps_per_output(const std::vector<ResampleTaps>& taps) {
  int64_t n = 1;
  for (const auto& t : taps) n *= std::max<int64_t>(1, static_cast<int64_t>(t.index.size()) / std::max<int64_t>(1, t.out_size));
  return n;
}

template <class T>
void resample_typed(const Tensor& src, Tensor& out, const std::vector<ResampleTaps>& taps) {
  using A = compute_type_t<T>;
  const auto dims = pad_taps<A>(taps, src, out);
  const DimTaps<A>&d1 = dims[0], &d2 = dims[1], &d3 = dims[2];
  const int64_t N = out.size(0), C = out.size(1);
  const int64_t pixels = d1.out * d2.out * d3.out;
  const T* in = src.data_ptr<T>();
  T* dst = out.data_ptr<T>();
  const int64_t sN = src.stride(0), sC = src.stride(1), oN = out.stride(0), oC = out.stride(1);
  const int64_t work = std::max<int64_t>(1, taps_per_output(taps));

  if (sC == 1 && oC == 1 && C > 1) {
    // Pixel-major: acc[c] += w * src[pixel_in, c] over whole channel rows.
    const int64_t grain = std::max<int64_t>(1, kGrainSize / (C * work));
    parallel_for(0, N * pixels, grain, [&](int64_t begin, int64_t end) {
      std::vector<A> acc(static_cast<size_t>(C));
      for (int64_t p = begin; p < end; ++p) {
        const int64_t n = p / pixels;
        int64_t r = p % pixels;
        const int64_t o3 = r % d3.out;
        r /= d3.out;
        const int64_t o2 = r % d2.out, o1 = r / d2.out;
        std::fill(acc.begin(), acc.end(), A(0));
        const T* base = in + n * sN;
        for (int64_t k1 = d1.start[o1]; k1 < d1.start[o1 + 1]; ++k1)
          for (int64_t k2 = d2.start[o2]; k2 < d2.start[o2 + 1]; ++k2) {
            const A w12 = d1.w[k1] * d2.w[k2];
            const T* b12 = base + d1.off[k1] + d2.off[k2];
            for (int64_t k3 = d3.start[o3]; k3 < d3.start[o3 + 1]; ++k3) {
              const A w = w12 * d3.w[k3];
              const T* s = b12 + d3.off[k3];
              A* a = acc.data();
              for (int64_t c = 0; c < C; ++c) a[c] += w * static_cast<A>(s[c]);
            }
          }
        T* o = dst + n * oN + o1 * d1.out_stride + o2 * d2.out_stride + o3 * d3.out_stride;
        for (int64_t c = 0; c < C; ++c) o[c] = static_cast<T>(acc[c]);
      }
    });
    return;
  }
  // Plane per task.
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, pixels * work));
  parallel_for(0, N * C, grain, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t n = p / C, c = p % C;
      const T* s = in + n * sN + c * sC;
      T* o = dst + n * oN + c * oC;
      for (int64_t o1 = 0; o1 < d1.out; ++o1)
        for (int64_t o2 = 0; o2 < d2.out; ++o2) {
          T* row = o + o1 * d1.out_stride + o2 * d2.out_stride;
          for (int64_t o3 = 0; o3 < d3.out; ++o3) {
            A acc1 = 0;
            for (int64_t k1 = d1.start[o1]; k1 < d1.start[o1 + 1]; ++k1) {
              A acc2 = 0;
              for (int64_t k2 = d2.start[o2]; k2 < d2.start[o2 + 1]; ++k2) {
                const T* b = s + d1.off[k1] + d2.off[k2];
                A acc3 = 0;
                for (int64_t k3 = d3.start[o3]; k3 < d3.start[o3 + 1]; ++k3)
                  acc3 += d3.w[k3] * static_cast<A>(b[d3.off[k3]]);
                acc2 += d2.w[k2] * acc3;
              }
              acc1 += d1.w[k1] * acc2;
            }
            row[o3 * d3.out_stride] = static_cast<T>(acc1);
          }
        }
    }
  });
}

void resample_kernel(const Tensor& src, Tensor& out, const std::vector<ResampleTaps>& taps) {
  if (out.numel() == 0) return;
  dispatch<kMaskFloating>(src.dtype(), "interpolate", [&](auto tag) {
    resample_typed<decltype(tag)>(src, out, taps);
  });
}

// grad_in (zero-filled by the caller) += A^T grad_out.
template <class T>
void resample_backward_typed(const Tensor& grad_out, Tensor& grad_in, const std::vector<ResampleTaps>& taps) {
  using A = compute_type_t<T>;
  const auto dims = pad_taps<A>(taps, grad_in, grad_out);
  const DimTaps<A>&d1 = dims[0], &d2 = dims[1], &d3 = dims[2];
  const int64_t N = grad_out.size(0), C = grad_out.size(1);
  const int64_t pixels = d1.out * d2.out * d3.out;
  const T* go = grad_out.data_ptr<T>();
  T* gi = grad_in.data_ptr<T>();
  const int64_t oN = grad_out.stride(0), oC = grad_out.stride(1), iN = grad_in.stride(0), iC = grad_in.stride(1);
  const int64_t work = std::max<int64_t>(1, taps_per_output(taps));
  constexpr bool exact = std::is_same_v<A, T>;

  if constexpr (exact) {
   if (oC == 1 && iC == 1 && C > 1) {
    // Channel blocks: each task owns channels [c0, c1) of one image.
    constexpr int64_t kBlock = 64;
    const int64_t blocks = (C + kBlock - 1) / kBlock;
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, pixels * work * std::min(C, kBlock)));
    parallel_for(0, N * blocks, grain, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t n = t / blocks, c0 = (t % blocks) * kBlock, c1 = std::min(C, c0 + kBlock);
        const T* gob = go + n * oN + c0;
        T* gib = gi + n * iN + c0;
        for (int64_t o1 = 0; o1 < d1.out; ++o1)
          for (int64_t o2 = 0; o2 < d2.out; ++o2)
            for (int64_t o3 = 0; o3 < d3.out; ++o3) {
              const T* g = gob + o1 * d1.out_stride + o2 * d2.out_stride + o3 * d3.out_stride;
              for (int64_t k1 = d1.start[o1]; k1 < d1.start[o1 + 1]; ++k1)
                for (int64_t k2 = d2.start[o2]; k2 < d2.start[o2 + 1]; ++k2) {
                  const A w12 = d1.w[k1] * d2.w[k2];
                  for (int64_t k3 = d3.start[o3]; k3 < d3.start[o3 + 1]; ++k3) {
                    const A w = w12 * d3.w[k3];
                    T* dst = gib + d1.off[k1] + d2.off[k2] + d3.off[k3];
                    for (int64_t c = 0; c < c1 - c0; ++c) dst[c] += w * g[c];
                  }
                }
            }
      }
    });
    return;
  }
  }
  // Plane per task; reduced precision accumulates in float over a plane buffer.
  int64_t in_pixels = 1;
  for (const auto& t : taps) in_pixels *= t.in_size;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, pixels * work));
  parallel_for(0, N * C, grain, [&](int64_t begin, int64_t end) {
    std::vector<A> buffer;
    std::vector<DimTaps<A>> local;
    if constexpr (!exact) {
      // Offsets into a contiguous plane buffer instead of grad_in.
      buffer.resize(static_cast<size_t>(in_pixels));
      local = dims;
      const size_t skip = 3 - taps.size();
      int64_t stride = 1;
      for (size_t t = taps.size(); t-- > 0;) {
        const ResampleTaps& tp = taps[t];
        for (size_t k = 0; k < tp.index.size(); ++k) local[skip + t].off[k] = tp.index[k] * stride;
        stride *= tp.in_size;
      }
    }
    const std::vector<DimTaps<A>>& use = exact ? dims : local;
    const DimTaps<A>&e1 = use[0], &e2 = use[1], &e3 = use[2];
    for (int64_t p = begin; p < end; ++p) {
      const int64_t n = p / C, c = p % C;
      const T* g = go + n * oN + c * oC;
      A* acc;
      if constexpr (exact) {
        acc = gi + n * iN + c * iC;
      } else {
        std::fill(buffer.begin(), buffer.end(), A(0));
        acc = buffer.data();
      }
      for (int64_t o1 = 0; o1 < d1.out; ++o1)
        for (int64_t o2 = 0; o2 < d2.out; ++o2)
          for (int64_t o3 = 0; o3 < d3.out; ++o3) {
            const A v = static_cast<A>(g[o1 * d1.out_stride + o2 * d2.out_stride + o3 * d3.out_stride]);
            for (int64_t k1 = e1.start[o1]; k1 < e1.start[o1 + 1]; ++k1) {
              const A v1 = v * e1.w[k1];
              for (int64_t k2 = e2.start[o2]; k2 < e2.start[o2 + 1]; ++k2) {
                const A v2 = v1 * e2.w[k2];
                A* b = acc + e1.off[k1] + e2.off[k2];
                for (int64_t k3 = e3.start[o3]; k3 < e3.start[o3 + 1]; ++k3) b[e3.off[k3]] += v2 * e3.w[k3];
              }
            }
          }
      if constexpr (!exact) {
        // Buffer (contiguous plane) -> grad_in plane (its strides).
        T* dst = gi + n * iN + c * iC;
        const size_t skip = 3 - taps.size();
        int64_t size[3] = {1, 1, 1}, stride[3] = {0, 0, 0};
        for (size_t d = 0; d < taps.size(); ++d) {
          size[skip + d] = taps[d].in_size;
          stride[skip + d] = grad_in.stride(2 + static_cast<int64_t>(d));
        }
        int64_t k = 0;
        for (int64_t i1 = 0; i1 < size[0]; ++i1)
          for (int64_t i2 = 0; i2 < size[1]; ++i2)
            for (int64_t i3 = 0; i3 < size[2]; ++i3)
              dst[i1 * stride[0] + i2 * stride[1] + i3 * stride[2]] = static_cast<T>(buffer[k++]);
      }
    }
  });
}

void resample_backward_kernel(const Tensor& grad_out, Tensor& grad_in, const std::vector<ResampleTaps>& taps) {
  if (grad_out.numel() == 0 || grad_in.numel() == 0) return;
  dispatch<kMaskFloating>(grad_out.dtype(), "interpolate backward", [&](auto tag) {
    resample_backward_typed<decltype(tag)>(grad_out, grad_in, taps);
  });
}

// ---- im2col / col2im ----

template <class T>
void im2col_typed(const Tensor& image, Tensor& columns, const Im2ColGeometry& g) {
  const int64_t N = g.batch, C = g.channels;
  const int64_t L = g.out_h * g.out_w, KK = g.kernel_h * g.kernel_w, HW = g.height * g.width;
  const T* img = image.data_ptr<T>();
  T* col = columns.data_ptr<T>();
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, KK * L));
  parallel_for(0, N * C, grain, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const T* src = img + p * HW;
      T* dst = col + p * KK * L;  // rows of channel c are consecutive in [N, C*KK, L]
      for (int64_t ki = 0; ki < g.kernel_h; ++ki)
        for (int64_t kj = 0; kj < g.kernel_w; ++kj, dst += L)
          for (int64_t oh = 0; oh < g.out_h; ++oh) {
            T* row = dst + oh * g.out_w;
            const int64_t ih = oh * g.stride_h - g.pad_h + ki * g.dilation_h;
            if (ih < 0 || ih >= g.height) {
              std::fill(row, row + g.out_w, T(0));
              continue;
            }
            const T* line = src + ih * g.width;
            const int64_t iw0 = kj * g.dilation_w - g.pad_w;
            if (g.stride_w == 1 && iw0 >= 0 && iw0 + g.out_w <= g.width) {
              std::copy(line + iw0, line + iw0 + g.out_w, row);
              continue;
            }
            for (int64_t ow = 0; ow < g.out_w; ++ow) {
              const int64_t iw = iw0 + ow * g.stride_w;
              row[ow] = (iw >= 0 && iw < g.width) ? line[iw] : T(0);
            }
          }
    }
  });
}

template <class T>
void col2im_typed(const Tensor& columns, Tensor& image, const Im2ColGeometry& g) {
  using A = compute_type_t<T>;
  const int64_t N = g.batch, C = g.channels;
  const int64_t L = g.out_h * g.out_w, KK = g.kernel_h * g.kernel_w, HW = g.height * g.width;
  const T* col = columns.data_ptr<T>();
  T* img = image.data_ptr<T>();
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, KK * L));
  parallel_for(0, N * C, grain, [&](int64_t begin, int64_t end) {
    std::vector<A> acc(static_cast<size_t>(HW));
    for (int64_t p = begin; p < end; ++p) {
      std::fill(acc.begin(), acc.end(), A(0));
      const T* src = col + p * KK * L;
      for (int64_t ki = 0; ki < g.kernel_h; ++ki)
        for (int64_t kj = 0; kj < g.kernel_w; ++kj, src += L)
          for (int64_t oh = 0; oh < g.out_h; ++oh) {
            const int64_t ih = oh * g.stride_h - g.pad_h + ki * g.dilation_h;
            if (ih < 0 || ih >= g.height) continue;
            const T* row = src + oh * g.out_w;
            A* line = acc.data() + ih * g.width;
            const int64_t iw0 = kj * g.dilation_w - g.pad_w;
            for (int64_t ow = 0; ow < g.out_w; ++ow) {
              const int64_t iw = iw0 + ow * g.stride_w;
              if (iw >= 0 && iw < g.width) line[iw] += static_cast<A>(row[ow]);
            }
          }
      T* dst = img + p * HW;
      for (int64_t i = 0; i < HW; ++i) dst[i] = static_cast<T>(acc[i]);
    }
  });
}

void im2col_kernel(const Tensor& image, Tensor& columns, const Im2ColGeometry& g) {
  if (columns.numel() == 0) return;
  dispatch<kMaskFloating>(image.dtype(), "unfold", [&](auto tag) { im2col_typed<decltype(tag)>(image, columns, g); });
}

void col2im_kernel(const Tensor& columns, Tensor& image, const Im2ColGeometry& g) {
  if (image.numel() == 0) return;
  dispatch<kMaskFloating>(columns.dtype(), "fold", [&](auto tag) { col2im_typed<decltype(tag)>(columns, image, g); });
}

}  // namespace

// The floating dtypes (the dispatches above).
EMBER_REGISTER_KERNEL_FOR_DTYPES(resample_slot, CPU, &resample_kernel, kMaskFloating);
EMBER_REGISTER_KERNEL_FOR_DTYPES(resample_backward_slot, CPU, &resample_backward_kernel, kMaskFloating);
EMBER_REGISTER_KERNEL_FOR_DTYPES(im2col_slot, CPU, &im2col_kernel, kMaskFloating);
EMBER_REGISTER_KERNEL_FOR_DTYPES(col2im_slot, CPU, &col2im_kernel, kMaskFloating);

}  // namespace ember
