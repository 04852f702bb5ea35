// The fused CPU framing pass (frame_kernel.h).
#include "frame_kernel.h"

#include <algorithm>

#include <ember/core/parallel.h>

namespace ember::audio::kaldi::detail {
namespace {

template <class T>
void run(const T* src, const T* window, const T* noise, T* out, T* energy, const FrameKernelArgs& a) {
  const int64_t ws = a.window_size, padded = a.padded_window_size;
  const T dither = static_cast<T>(a.dither);
  const T coeff = static_cast<T>(a.preemphasis_coefficient);
  parallel_for(0, a.frames, std::max<int64_t>(1, 16384 / padded), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      T* x = out + i * padded;
      const T* s = src + i * a.window_shift;
      if (noise) {
        const T* g = noise + i * ws;
        for (int64_t j = 0; j < ws; ++j) x[j] = s[j] + g[j] * dither;
      } else {
        std::copy(s, s + ws, x);
      }
      if (a.remove_dc_offset) {
        double sum = 0;
        for (int64_t j = 0; j < ws; ++j) sum += x[j];
        const T mean = static_cast<T>(sum / static_cast<double>(ws));
        for (int64_t j = 0; j < ws; ++j) x[j] -= mean;
      }
      auto sum_of_squares = [&] {
        double sum = 0;
        for (int64_t j = 0; j < ws; ++j) sum += static_cast<double>(x[j] * x[j]);
        return static_cast<T>(sum);
      };
      if (a.raw_energy) energy[i] = sum_of_squares();
      if (coeff != T(0)) {
        for (int64_t j = ws - 1; j > 0; --j) x[j] -= coeff * x[j - 1];
        x[0] -= coeff * x[0];
      }
      for (int64_t j = 0; j < ws; ++j) x[j] *= window[j];
      std::fill(x + ws, x + padded, T(0));
      if (!a.raw_energy) energy[i] = sum_of_squares();
    }
  });
}

}  // namespace

Tensor process_frames(const Tensor& source, const Tensor& window, const FrameKernelArgs& args, Tensor& energy) {
  const TensorOptions options(source.dtype());
  Tensor out = empty({args.frames, args.padded_window_size}, options);
  energy = empty({args.frames}, options);
  if (args.frames == 0) return out;
  if (source.dtype() == kFloat32) {
    run(source.data_ptr<float>(), window.data_ptr<float>(), args.noise ? args.noise->data_ptr<float>() : nullptr,
        out.data_ptr<float>(), energy.data_ptr<float>(), args);
  } else {
    run(source.data_ptr<double>(), window.data_ptr<double>(), args.noise ? args.noise->data_ptr<double>() : nullptr,
        out.data_ptr<double>(), energy.data_ptr<double>(), args);
  }
  return out;
}

}  // namespace ember::audio::kaldi::detail
