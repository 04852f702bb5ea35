// apply_sinc_resample_kernel, resample and speed (torchaudio 0.13 / 2.0).
#include <cmath>
#include <numeric>

#include <ember/audio/functional/resample.h>
#include <ember/nn/functional/conv.h>

#include "kernel_cache.h"
#include "on_the_fly.h"
#include "polyphase.h"
#include "resample_checks.h"

namespace ember::audio::functional {
namespace {

void check_waveform(const char* fn, const Tensor& waveform) {
  EMBER_CHECK(waveform.defined(), fn, ": waveform is undefined");
  EMBER_CHECK(waveform.dtype() == kFloat32 || waveform.dtype() == kFloat64, fn,
              ": expected a float32 or float64 waveform, got ", waveform.dtype());
  EMBER_CHECK(waveform.dim() >= 1, fn, ": expected a waveform of shape [..., time], got a 0-dim tensor");
}

// ceil(next * length / orig) as torchaudio computes it (in float64).
int64_t target_length(int64_t length, int64_t orig, int64_t next) {
  return static_cast<int64_t>(std::ceil(static_cast<double>(next) * static_cast<double>(length) /
                                        static_cast<double>(orig)));
}

// torchaudio's formulation: pad, strided conv1d, interleave the phases, crop.
// Used where autograd records the graph and on devices other than the CPU.
Tensor resample_by_conv1d(const Tensor& rows, int64_t orig, const Tensor& kernel, int64_t width, int64_t target) {
  const int64_t n = rows.size(0);
  Tensor padded = pad(rows, {width, width + orig});
  Tensor out = nn::functional::conv1d(padded.unsqueeze(1), kernel, {.stride = orig});
  return out.transpose(1, 2).reshape({n, -1}).narrow(-1, 0, target);
}

// Shared by apply_sinc_resample_kernel and resample: [..., time] -> rows,
// the fast CPU loop when nothing needs a gradient, torchaudio's ops otherwise.
Tensor run_resample(const Tensor& waveform, int64_t orig, int64_t next, const Tensor& kernel, int64_t width,
                    const detail::PolyphasePlan* plan) {
  std::vector<int64_t> shape = waveform.sizes().vec();
  const int64_t length = shape.back();
  const int64_t target = target_length(length, orig, next);
  int64_t batch = 1;  // explicit rather than -1: the time axis may be empty
  for (size_t d = 0; d + 1 < shape.size(); ++d) batch *= shape[d];
  Tensor rows = waveform.reshape({batch, length});
  Tensor out;
  const bool records_graph = is_grad_enabled() && (waveform.requires_grad() || kernel.requires_grad());
  if (!records_graph && waveform.device().is_cpu() && kernel.device().is_cpu()) {
    if (plan) {
      out = detail::polyphase_resample(rows.contiguous(), *plan, target);
    } else {
      const detail::PolyphasePlan own = detail::make_polyphase_plan(kernel.contiguous(), orig, width);
      out = detail::polyphase_resample(rows.contiguous(), own, target);
    }
  } else {
    out = resample_by_conv1d(rows, orig, kernel, width, target);
  }
  shape.back() = target;
  return out.reshape(shape);
}

}  // namespace

Tensor apply_sinc_resample_kernel(const Tensor& waveform, int64_t orig_freq, int64_t new_freq, int64_t gcd,
                                  const Tensor& kernel, int64_t width) {
  constexpr const char* fn = "apply_sinc_resample_kernel";
  check_waveform(fn, waveform);
  detail::check_resample_rates(fn, orig_freq, new_freq, gcd);
  const int64_t orig = orig_freq / gcd, next = new_freq / gcd;
  EMBER_CHECK(kernel.defined(), fn, ": kernel is undefined");
  EMBER_CHECK(kernel.dim() == 3 && kernel.size(0) == next && kernel.size(1) == 1 && width >= 0 &&
                  kernel.size(2) == 2 * width + orig,
              fn, ": expected a kernel of shape [", next, ", 1, ", 2 * width + orig, "] for rates ", orig, " -> ", next,
              " and width ", width, ", got ", kernel.sizes());
  EMBER_CHECK(kernel.dtype() == waveform.dtype(), fn, ": kernel dtype ", kernel.dtype(),
              " differs from the waveform's ", waveform.dtype());
  EMBER_CHECK(kernel.device() == waveform.device(), fn, ": kernel on ", kernel.device(), ", waveform on ",
              waveform.device());
  return run_resample(waveform, orig, next, kernel, width, nullptr);
}

Tensor resample(const Tensor& waveform, int64_t orig_freq, int64_t new_freq, int64_t lowpass_filter_width,
                double rolloff, const std::string& resampling_method, std::optional<double> beta) {
  constexpr const char* fn = "resample";
  check_waveform(fn, waveform);
  detail::check_resample_rates(fn, orig_freq, new_freq, 1);
  detail::check_resample_parameters(fn, lowpass_filter_width, rolloff, resampling_method, beta);
  if (orig_freq == new_freq) return waveform;
  const int64_t gcd = std::gcd(orig_freq, new_freq);
  const int64_t orig = orig_freq / gcd, next = new_freq / gcd;
  detail::check_resample_width(fn, orig, next, lowpass_filter_width, rolloff);
  const int64_t width = detail::resample_kernel_width(orig, next, lowpass_filter_width, rolloff);
  if (detail::resample_kernel_is_large(orig, next, width)) {
    return detail::resample_waveform_on_the_fly(
        fn, waveform,
        detail::make_sinc_tap_spec(orig, next, lowpass_filter_width, rolloff, resampling_method, beta));
  }
  const auto cached = detail::cached_resample_kernel(
      {orig, next, lowpass_filter_width, rolloff, resampling_method, beta, waveform.dtype(), waveform.device()});
  return run_resample(waveform, orig, next, cached->kernel, cached->width,
                      cached->plan ? &*cached->plan : nullptr);
}

std::pair<Tensor, std::optional<Tensor>> speed(const Tensor& waveform, int64_t orig_freq, double factor,
                                               const std::optional<Tensor>& lengths) {
  constexpr const char* fn = "speed";
  check_waveform(fn, waveform);
  EMBER_CHECK(orig_freq > 0, fn, ": orig_freq must be positive, got ", orig_freq);
  EMBER_CHECK(std::isfinite(factor) && factor > 0, fn, ": factor must be positive and finite, got ", factor);
  // Python's int(factor * orig_freq) truncates toward zero.
  const double scaled = factor * static_cast<double>(orig_freq);
  EMBER_CHECK(scaled >= 1 && scaled < 9.2e18, fn, ": factor ", factor, " times orig_freq ", orig_freq,
              " must give a rate of at least 1");
  int64_t source = static_cast<int64_t>(scaled);
  int64_t target = orig_freq;
  const int64_t gcd = std::gcd(source, target);
  source /= gcd;
  target /= gcd;
  std::optional<Tensor> out_lengths;
  if (lengths) {
    EMBER_CHECK(lengths->defined(), fn, ": lengths is undefined");
    out_lengths = (*lengths * target / source).ceil().to(lengths->dtype());
  }
  return {resample(waveform, source, target), out_lengths};
}

}  // namespace ember::audio::functional
