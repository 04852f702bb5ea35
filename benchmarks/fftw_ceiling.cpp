// FFTW ceilings of the fft suite (see fftw_ceiling.h).
#include "fftw_ceiling.h"

#include <fftw3.h>

#include <complex>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace ember_bench::fftw {

namespace {

using cfloat = std::complex<float>;
constexpr unsigned kPlanFlags = FFTW_MEASURE;

// fftwf_malloc'd (SIMD-aligned) buffers, shared by the Ceiling's copies.
template <class T>
std::shared_ptr<T> buffer(int64_t n) {
  void* p = fftwf_malloc(static_cast<size_t>(n) * sizeof(T));
  if (!p) throw std::runtime_error("fftwf_malloc failed");
  return std::shared_ptr<T>(static_cast<T*>(p), [](T* q) { fftwf_free(q); });
}

// std::complex<float> and fftwf_complex (float[2]) have the same layout.
fftwf_complex* as_fftw(cfloat* p) { return reinterpret_cast<fftwf_complex*>(p); }

using Plan = std::shared_ptr<fftwf_plan_s>;
Plan own(fftwf_plan p) {
  if (!p) throw std::runtime_error("FFTW planning failed");
  return Plan(p, fftwf_destroy_plan);
}

// Before every planning call: plans made now use as many threads as Ember.
void plan_with_ember_threads() {
  static const bool initialised = fftwf_init_threads() != 0;
  if (!initialised) throw std::runtime_error("fftwf_init_threads failed");
  fftwf_plan_with_nthreads(ember::get_num_threads());
}

// Copies after planning: FFTW_MEASURE overwrites the buffers while it plans.
template <class T>
void fill(T* dst, const at::Tensor& src) {
  const at::Tensor c = src.contiguous();
  std::memcpy(dst, c.data_ptr(), static_cast<size_t>(c.numel()) * sizeof(T));
}

// A view of the ceiling's output buffer as a libtorch tensor, for the check.
std::function<at::Tensor()> result_view(std::shared_ptr<cfloat> out, std::vector<int64_t> sizes) {
  return [out, sizes] { return at::from_blob(out.get(), sizes, at::kComplexFloat); };
}

}  // namespace

std::optional<Ceiling> rfft(const at::Tensor& x) {
  const int64_t n = x.numel();
  auto in = buffer<float>(n);
  auto out = buffer<cfloat>(n / 2 + 1);
  plan_with_ember_threads();
  Plan plan = own(fftwf_plan_dft_r2c_1d(static_cast<int>(n), in.get(), as_fftw(out.get()), kPlanFlags));
  fill(in.get(), x);
  // Out-of-place r2c plans leave the input intact, so every run sees the same signal.
  return Ceiling{"fftw", [plan, in] { fftwf_execute(plan.get()); }, result_view(out, {n / 2 + 1})};
}

std::optional<Ceiling> fft(const at::Tensor& x) {
  const int64_t n = x.numel();
  auto in = buffer<cfloat>(n);
  auto out = buffer<cfloat>(n);
  plan_with_ember_threads();
  Plan plan = own(fftwf_plan_dft_1d(static_cast<int>(n), as_fftw(in.get()), as_fftw(out.get()),
                                    FFTW_FORWARD, kPlanFlags));
  fill(in.get(), x);
  return Ceiling{"fftw", [plan, in] { fftwf_execute(plan.get()); }, result_view(out, {n})};
}

std::optional<Ceiling> fft2(const at::Tensor& x) {
  const int64_t h = x.size(0), w = x.size(1);
  auto in = buffer<cfloat>(h * w);
  auto out = buffer<cfloat>(h * w);
  plan_with_ember_threads();
  Plan plan = own(fftwf_plan_dft_2d(static_cast<int>(h), static_cast<int>(w), as_fftw(in.get()),
                                    as_fftw(out.get()), FFTW_FORWARD, kPlanFlags));
  fill(in.get(), x);
  return Ceiling{"fftw", [plan, in] { fftwf_execute(plan.get()); }, result_view(out, {h, w})};
}

std::optional<Ceiling> stft(const at::Tensor& x, int64_t n_fft, int64_t hop, const at::Tensor& window) {
  const int64_t length = x.numel(), pad = n_fft / 2, n_freq = n_fft / 2 + 1;
  if (length <= pad || window.numel() != n_fft) throw std::runtime_error("fftw::stft: unsupported shape");
  const int64_t frames = 1 + (length + 2 * pad - n_fft) / hop;
  auto signal = buffer<float>(length), win = buffer<float>(n_fft);
  auto framed = buffer<float>(frames * n_fft);
  auto out = buffer<cfloat>(frames * n_freq);
  plan_with_ember_threads();
  const int n = static_cast<int>(n_fft);
  Plan plan = own(fftwf_plan_many_dft_r2c(1, &n, static_cast<int>(frames), framed.get(), nullptr, 1, n,
                                          as_fftw(out.get()), nullptr, 1, static_cast<int>(n_freq),
                                          kPlanFlags));
  fill(signal.get(), x);
  fill(win.get(), window);
  const int threads = ember::get_num_threads();
  auto run = [=] {
    const float* s = signal.get();
    const float* w = win.get();
    float* f = framed.get();
    // Frame t covers padded samples [t * hop, t * hop + n_fft), i.e. signal
    // samples from t * hop - pad; outside the signal, reflect (without
    // repeating the edge sample), as torch.stft's reflect padding.
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t t = 0; t < frames; ++t) {
      const int64_t start = t * hop - pad;
      float* dst = f + t * n_fft;
      if (start >= 0 && start + n_fft <= length) {
        for (int64_t k = 0; k < n_fft; ++k) dst[k] = s[start + k] * w[k];
      } else {
        for (int64_t k = 0; k < n_fft; ++k) {
          int64_t i = start + k;
          if (i < 0) i = -i;
          if (i >= length) i = 2 * (length - 1) - i;
          dst[k] = s[i] * w[k];
        }
      }
    }
    fftwf_execute(plan.get());
  };
  // FFTW writes [frames, n_freq]; torch.stft's layout is [n_freq, frames].
  auto frames_first = result_view(out, {frames, n_freq});
  return Ceiling{"fftw", run, [frames_first] { return frames_first().t(); }};
}

}  // namespace ember_bench::fftw
