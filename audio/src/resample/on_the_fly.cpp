// Note [On-the-fly resampling] (on_the_fly.h).
#include "on_the_fly.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <ember/autograd/function.h>
#include <ember/core/parallel.h>

namespace ember::audio::functional::detail {
namespace {

using autograd::AutogradContext;
using autograd::variable_list;

// Outputs per task of the backward pass (fixed, so that its sums do not
// depend on how the work is split between threads).
constexpr int64_t kScatterChunk = 1024;

struct OutputTaps {
  TapRange range;
  int64_t first_input = 0;  // x index of the range's first tap
};

OutputTaps output_taps(const SincTapSpec& spec, int64_t i) {
  const int64_t period = i / spec.next, phase = i % spec.next;
  OutputTaps o;
  o.range = sinc_tap_range(spec, phase);
  o.first_input = period * spec.orig + o.range.first;
  return o;
}

// y[r, i] = sum_m tap_p(m) x[r, n*orig + m] (zero outside the waveform).
template <class T>
void gather(const T* x, T* y, int64_t rows, int64_t length, int64_t target, const SincTapSpec& spec) {
  const int64_t grain = std::max<int64_t>(16, 4096 / static_cast<int64_t>(max_sinc_taps(spec)));
  parallel_for(0, target, grain, [&](int64_t begin, int64_t end) {
    std::vector<T> taps;
    for (int64_t i = begin; i < end; ++i) {
      const OutputTaps o = output_taps(spec, i);
      taps.resize(static_cast<size_t>(o.range.count()));
      sinc_taps(spec, i % spec.next, o.range, taps.data());
      const int64_t k_begin = std::max<int64_t>(0, -o.first_input);
      const int64_t k_end = std::min<int64_t>(o.range.count(), length - o.first_input);
      for (int64_t r = 0; r < rows; ++r) {
        const T* xr = x + r * length + o.first_input;
        double sum = 0;
        for (int64_t k = k_begin; k < k_end; ++k) sum += double(taps[k]) * double(xr[k]);
        y[r * target + i] = static_cast<T>(sum);
      }
    }
  });
}

// The transpose: dx[r, n*orig + m] += tap_p(m) g[r, i].
template <class T>
void scatter(const T* g, T* dx, int64_t rows, int64_t length, int64_t target, const SincTapSpec& spec) {
  const int64_t chunks = (target + kScatterChunk - 1) / kScatterChunk;
  struct Partial {
    int64_t begin = 0, end = 0;  // input span [begin, end), clipped to the waveform
    std::vector<double> sums;    // rows x span
  };
  std::vector<Partial> partials(static_cast<size_t>(chunks));
  parallel_for(0, chunks, 1, [&](int64_t chunk_begin, int64_t chunk_end) {
    std::vector<T> taps;
    for (int64_t c = chunk_begin; c < chunk_end; ++c) {
      const int64_t i_begin = c * kScatterChunk, i_end = std::min(target, i_begin + kScatterChunk);
      Partial& part = partials[static_cast<size_t>(c)];
      part.begin = length;
      part.end = 0;
      for (int64_t i = i_begin; i < i_end; ++i) {
        const OutputTaps o = output_taps(spec, i);
        part.begin = std::min(part.begin, std::max<int64_t>(0, o.first_input));
        part.end = std::max(part.end, std::min(length, o.first_input + o.range.count()));
      }
      if (part.end <= part.begin) continue;
      const int64_t span = part.end - part.begin;
      part.sums.assign(static_cast<size_t>(rows * span), 0.0);
      for (int64_t i = i_begin; i < i_end; ++i) {
        const OutputTaps o = output_taps(spec, i);
        taps.resize(static_cast<size_t>(o.range.count()));
        sinc_taps(spec, i % spec.next, o.range, taps.data());
        const int64_t k_begin = std::max<int64_t>(0, -o.first_input);
        const int64_t k_end = std::min<int64_t>(o.range.count(), length - o.first_input);
        for (int64_t r = 0; r < rows; ++r) {
          const double gi = double(g[r * target + i]);
          double* sums = part.sums.data() + r * span + (o.first_input - part.begin);
          for (int64_t k = k_begin; k < k_end; ++k) sums[k] += gi * double(taps[k]);
        }
      }
    }
  });
  std::vector<double> total(static_cast<size_t>(rows * length), 0.0);
  for (const Partial& part : partials) {
    const int64_t span = part.end - part.begin;
    if (span <= 0) continue;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t q = 0; q < span; ++q) total[r * length + part.begin + q] += part.sums[r * span + q];
  }
  for (size_t q = 0; q < total.size(); ++q) dx[q] = static_cast<T>(total[q]);
}

void save_spec(AutogradContext* ctx, const SincTapSpec& spec) {
  ctx->saved_data["spec_ints"] = std::vector<int64_t>{spec.orig, spec.next, spec.width, spec.lowpass_filter_width,
                                                      spec.kaiser ? 1 : 0, spec.float32_kernel ? 1 : 0};
  ctx->saved_data["rolloff"] = spec.rolloff;
  ctx->saved_data["beta"] = spec.beta;
}

SincTapSpec load_spec(AutogradContext* ctx) {
  const std::vector<int64_t> ints = ctx->saved_data["spec_ints"].toIntVector();
  SincTapSpec spec;
  spec.orig = ints[0];
  spec.next = ints[1];
  spec.width = ints[2];
  spec.lowpass_filter_width = ints[3];
  spec.kaiser = ints[4] != 0;
  spec.float32_kernel = ints[5] != 0;
  spec.rolloff = ctx->saved_data["rolloff"].toDouble();
  spec.beta = ctx->saved_data["beta"].toDouble();
  return spec;
}

// [N, L] contiguous CPU -> [N, target].
Tensor run_gather(const Tensor& rows, const SincTapSpec& spec, int64_t target) {
  const Tensor x = rows.contiguous();
  const int64_t n = x.size(0), length = x.size(1);
  Tensor y = empty({n, target}, TensorOptions(x.dtype()));
  if (n == 0 || target == 0) return y;
  if (x.dtype() == kFloat32) gather(x.data_ptr<float>(), y.data_ptr<float>(), n, length, target, spec);
  else gather(x.data_ptr<double>(), y.data_ptr<double>(), n, length, target, spec);
  return y;
}

// [N, target] contiguous CPU -> [N, length].
Tensor run_scatter(const Tensor& grad, const SincTapSpec& spec, int64_t length) {
  const Tensor g = grad.contiguous();
  const int64_t n = g.size(0), target = g.size(1);
  Tensor dx = empty({n, length}, TensorOptions(g.dtype()));
  if (n == 0 || length == 0) return dx;
  if (g.dtype() == kFloat32) scatter(g.data_ptr<float>(), dx.data_ptr<float>(), n, length, target, spec);
  else scatter(g.data_ptr<double>(), dx.data_ptr<double>(), n, length, target, spec);
  return dx;
}

struct TransposedResample;

struct OnTheFlyResample : autograd::Function<OnTheFlyResample> {
  static Tensor forward(AutogradContext* ctx, const Tensor& rows, const SincTapSpec& spec, int64_t target) {
    save_spec(ctx, spec);
    ctx->saved_data["length"] = rows.size(1);
    return run_gather(rows, spec, target);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads);
};

struct TransposedResample : autograd::Function<TransposedResample> {
  static Tensor forward(AutogradContext* ctx, const Tensor& grad, const SincTapSpec& spec, int64_t length) {
    save_spec(ctx, spec);
    ctx->saved_data["target"] = grad.size(1);
    return run_scatter(grad, spec, length);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const SincTapSpec spec = load_spec(ctx);
    const int64_t target = ctx->saved_data["target"].toInt();
    return {OnTheFlyResample::apply(grads[0], spec, target), Tensor(), Tensor()};
  }
};

variable_list OnTheFlyResample::backward(AutogradContext* ctx, variable_list grads) {
  const SincTapSpec spec = load_spec(ctx);
  const int64_t length = ctx->saved_data["length"].toInt();
  return {TransposedResample::apply(grads[0], spec, length), Tensor(), Tensor()};
}

}  // namespace

bool resample_kernel_is_large(int64_t orig, int64_t next, int64_t width) {
  return static_cast<double>(next) * (2.0 * static_cast<double>(width) + static_cast<double>(orig)) >
         static_cast<double>(kMaxBuiltKernelElements);
}

Tensor resample_on_the_fly(const char* fn, const Tensor& rows, const SincTapSpec& spec, int64_t target) {
  const double work = static_cast<double>(rows.size(0)) * static_cast<double>(target) * max_sinc_taps(spec);
  EMBER_CHECK(work <= kMaxOnTheFlyWork, fn, ": ", rows.size(0), " x ", target, " outputs of up to ",
              max_sinc_taps(spec), " taps each (rates ", spec.orig, " -> ", spec.next,
              " after dividing by their gcd) would take ", work, " multiply-adds, more than 2^50");
  if (rows.device().is_cpu()) return OnTheFlyResample::apply(rows, spec, target);
  return OnTheFlyResample::apply(rows.to(kCPU), spec, target).to(rows.device());
}

Tensor resample_waveform_on_the_fly(const char* fn, const Tensor& waveform, const SincTapSpec& spec) {
  std::vector<int64_t> shape = waveform.sizes().vec();
  const int64_t length = shape.back();
  // ceil(new * length / orig) in float64, as torchaudio; 2^62 and more come from absurd rates.
  const double samples =
      std::ceil(static_cast<double>(spec.next) * static_cast<double>(length) / static_cast<double>(spec.orig));
  EMBER_CHECK(samples < 4611686018427387904.0, fn, ": resampling ", length, " samples by ", spec.next, "/",
              spec.orig, " gives ", samples, " samples, more than 2^62");
  const auto target = static_cast<int64_t>(samples);
  int64_t batch = 1;  // explicit rather than -1: the time axis may be empty
  for (size_t d = 0; d + 1 < shape.size(); ++d) batch *= shape[d];
  const Tensor out = resample_on_the_fly(fn, waveform.reshape({batch, length}), spec, target);
  shape.back() = target;
  return out.reshape(shape);
}

}  // namespace ember::audio::functional::detail
