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

namespace {

// A: the kernel's arithmetic dtype; T: the dtype written out.
template <class A, class T>
void evaluate(const SincTapSpec& spec, int64_t phase, const TapRange& range, T* out) {
  // torchaudio: t = arange(0, -new)[:, None, None] / new + arange(-width, width + orig)[None, None] / orig
  const A lpw = static_cast<A>(spec.lowpass_filter_width);
  const A base = static_cast<A>(base_freq(spec));
  const A pi = static_cast<A>(std::numbers::pi);
  const A scale = static_cast<A>(base_freq(spec) / static_cast<double>(spec.orig));
  // dtype None: the int64 arange divided by new is float32.
  const A phase_offset = spec.float32_kernel
                             ? static_cast<A>(static_cast<float>(-phase) / static_cast<float>(spec.next))
                             : static_cast<A>(-phase) / static_cast<A>(spec.next);
  // Note [Kaiser window denominator]: beta and I0(beta) are float32 in torchaudio.
  const float beta32 = static_cast<float>(spec.beta);
  const A beta = static_cast<A>(beta32);
  const A i0_beta = static_cast<A>(torch_float_i0(beta32));
  for (int64_t m = range.first; m <= range.last; ++m) {
    A t = phase_offset + static_cast<A>(m) / static_cast<A>(spec.orig);
    t = t * base;
    t = std::clamp(t, -lpw, lpw);
    A window;
    if (spec.kaiser) {
      const A u = t / lpw;
      window = i0_of<A>(beta * std::sqrt(A(1) - u * u)) / i0_beta;
    } else {
      const A c = std::cos(t * pi / lpw / A(2));
      window = c * c;
    }
    t = t * pi;
    const A sinc = t == A(0) ? A(1) : std::sin(t) / t;
    const A tap = sinc * (window * scale);
    out[m - range.first] = spec.float32_kernel ? static_cast<T>(static_cast<float>(tap)) : static_cast<T>(tap);
  }
}

}  // namespace

template <class T>
void sinc_taps(const SincTapSpec& spec, int64_t phase, const TapRange& range, T* out) {
  if (spec.float32_kernel) evaluate<double>(spec, phase, range, out);
  else evaluate<T>(spec, phase, range, out);
}

template void sinc_taps<float>(const SincTapSpec&, int64_t, const TapRange&, float*);
template void sinc_taps<double>(const SincTapSpec&, int64_t, const TapRange&, double*);

}  // namespace ember::audio::functional::detail
