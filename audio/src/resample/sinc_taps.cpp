// Note [On-the-fly sinc taps] (sinc_taps.h).
#include "sinc_taps.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "resample_checks.h"
#include "torch_float_i0.h"

namespace ember::audio::functional::detail {
namespace {

double base_freq(const SincTapSpec& spec) {
  return static_cast<double>(std::min(spec.orig, spec.next)) * spec.rolloff;
}

template <class T>
T i0_of(T x) {
  if constexpr (sizeof(T) == sizeof(float)) return torch_float_i0(x);
  else return torch_double_i0(x);
}

}  // namespace

SincTapSpec make_sinc_tap_spec(int64_t orig, int64_t next, int64_t lowpass_filter_width, double rolloff,
                               const std::string& resampling_method, std::optional<double> beta) {
  SincTapSpec spec;
  spec.orig = orig;
  spec.next = next;
  spec.width = resample_kernel_width(orig, next, lowpass_filter_width, rolloff);
  spec.lowpass_filter_width = lowpass_filter_width;
  spec.rolloff = rolloff;
  spec.kaiser = resampling_method == "kaiser_window";
  spec.beta = beta.value_or(14.769656459379492);
  return spec;
}

TapRange sinc_tap_range(const SincTapSpec& spec, int64_t phase) {
  // |m/orig - p/next| < lpw/base, widened by two offsets for the roundings.
  const double center = static_cast<double>(spec.orig) * static_cast<double>(phase) / static_cast<double>(spec.next);
  const double half = static_cast<double>(spec.orig) * static_cast<double>(spec.lowpass_filter_width) / base_freq(spec);
  TapRange range;
  range.first = std::max(-spec.width, static_cast<int64_t>(std::floor(center - half)) - 2);
  range.last = std::min(spec.orig + spec.width - 1, static_cast<int64_t>(std::ceil(center + half)) + 2);
  return range;
}

double max_sinc_taps(const SincTapSpec& spec) {
  return 2.0 * static_cast<double>(spec.orig) * static_cast<double>(spec.lowpass_filter_width) / base_freq(spec) + 8.0;
}

template <class T>
void sinc_taps(const SincTapSpec& spec, int64_t phase, const TapRange& range, T* out) {
  // torchaudio: t = arange(0, -new)[:, None, None] / new + arange(-width, width + orig)[None, None] / orig
  const T lpw = static_cast<T>(spec.lowpass_filter_width);
  const T base = static_cast<T>(base_freq(spec));
  const T pi = static_cast<T>(std::numbers::pi);
  const T scale = static_cast<T>(base_freq(spec) / static_cast<double>(spec.orig));
  const T phase_offset = static_cast<T>(-phase) / static_cast<T>(spec.next);
  // Note [Kaiser window denominator]: beta and I0(beta) are float32 in torchaudio.
  const float beta32 = static_cast<float>(spec.beta);
  const T beta = static_cast<T>(beta32);
  const T i0_beta = static_cast<T>(torch_float_i0(beta32));
  for (int64_t m = range.first; m <= range.last; ++m) {
    T t = phase_offset + static_cast<T>(m) / static_cast<T>(spec.orig);
    t = t * base;
    t = std::clamp(t, -lpw, lpw);
    T window;
    if (spec.kaiser) {
      const T u = t / lpw;
      window = i0_of<T>(beta * std::sqrt(T(1) - u * u)) / i0_beta;
    } else {
      const T c = std::cos(t * pi / lpw / T(2));
      window = c * c;
    }
    t = t * pi;
    const T sinc = t == T(0) ? T(1) : std::sin(t) / t;
    out[m - range.first] = sinc * (window * scale);
  }
}

template void sinc_taps<float>(const SincTapSpec&, int64_t, const TapRange&, float*);
template void sinc_taps<double>(const SincTapSpec&, int64_t, const TapRange&, double*);

}  // namespace ember::audio::functional::detail
