// Argument checks of the resampling functions (resample_checks.h).
#include "resample_checks.h"

#include <algorithm>
#include <cmath>

#include <ember/core/error.h>

namespace ember::audio::functional::detail {

void check_resample_rates(const char* fn, int64_t orig_freq, int64_t new_freq, int64_t gcd) {
  EMBER_CHECK(orig_freq > 0 && new_freq > 0, fn, ": orig_freq and new_freq must be positive, got ", orig_freq,
              " and ", new_freq);
  EMBER_CHECK(gcd > 0 && orig_freq % gcd == 0 && new_freq % gcd == 0, fn, ": gcd ", gcd,
              " must be a positive common divisor of orig_freq ", orig_freq, " and new_freq ", new_freq);
}

void check_resample_parameters(const char* fn, int64_t lowpass_filter_width, double rolloff,
                               const std::string& resampling_method, std::optional<double> beta) {
  EMBER_CHECK(lowpass_filter_width > 0, fn, ": lowpass_filter_width must be positive, got ", lowpass_filter_width);
  EMBER_CHECK(std::isfinite(rolloff) && rolloff > 0.0, fn, ": rolloff must be positive and finite, got ",
              rolloff);
  EMBER_CHECK(resampling_method == "sinc_interpolation" || resampling_method == "kaiser_window", fn,
              ": resampling_method must be \"sinc_interpolation\" or \"kaiser_window\", got \"", resampling_method,
              "\"");
  EMBER_CHECK(!beta || std::isfinite(*beta), fn, ": beta must be finite, got ", beta.value_or(0.0));
}

void check_resample_width(const char* fn, int64_t orig, int64_t next, int64_t lowpass_filter_width, double rolloff) {
  const double low = static_cast<double>(std::min(orig, next));
  const double half_width = static_cast<double>(lowpass_filter_width) * static_cast<double>(orig) / (low * rolloff);
  EMBER_CHECK(half_width <= 4503599627370496.0, fn, ": lowpass_filter_width ", lowpass_filter_width, " * orig ", orig,
              " / (min(orig, new) ", low, " * rolloff ", rolloff, ") = ", half_width,
              " taps on each side of the filter, more than 2^52");
}

int64_t resample_kernel_width(int64_t orig, int64_t next, int64_t lowpass_filter_width, double rolloff) {
  const double base_freq = static_cast<double>(std::min(orig, next)) * rolloff;
  return static_cast<int64_t>(
      std::ceil(static_cast<double>(lowpass_filter_width) * static_cast<double>(orig) / base_freq));
}

void check_resample_kernel_size(const char* fn, int64_t orig, int64_t next, int64_t width) {
  const double elements = static_cast<double>(next) * static_cast<double>(2 * width + orig);
  EMBER_CHECK(elements <= static_cast<double>(kMaxResampleKernelElements), fn, ": the rates reduce to ", orig,
              " -> ", next, " (after dividing by their gcd), a kernel of ", next, " x ", 2 * width + orig,
              " taps; choose rates with a larger common divisor");
}

}  // namespace ember::audio::functional::detail
