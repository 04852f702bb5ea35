#pragma once
// Argument checks and sizes shared by the resampling functions (each error
// names the calling function and the offending value).
#include <cstdint>
#include <optional>
#include <string>

namespace ember::audio::functional::detail {

// orig_freq, new_freq > 0; gcd > 0 divides both.
void check_resample_rates(const char* fn, int64_t orig_freq, int64_t new_freq, int64_t gcd);
// lowpass_filter_width > 0, rolloff > 0 (finite), the method's name, beta finite.
void check_resample_parameters(const char* fn, int64_t lowpass_filter_width, double rolloff,
                               const std::string& resampling_method, std::optional<double> beta);
// lowpass_filter_width * orig / (min(orig, new) * rolloff), the kernel's
// half width, must stay below 2^52 (a tiny rolloff or absurd rates).
void check_resample_width(const char* fn, int64_t orig, int64_t next, int64_t lowpass_filter_width, double rolloff);
// ceil(lowpass_filter_width * orig / (min(orig, new) * rolloff)), frequencies divided by gcd.
int64_t resample_kernel_width(int64_t orig, int64_t next, int64_t lowpass_filter_width, double rolloff);
// Refuses kernels beyond kMaxResampleKernelElements (rates whose gcd is small);
// for sinc_resample_kernel, which returns the whole kernel.
void check_resample_kernel_size(const char* fn, int64_t orig, int64_t next, int64_t width);

// new * (2 * width + orig) elements: 2^27 (1 GiB in float64) and more come
// from rates that share almost no factor (44100 -> 44099); they are refused
// with a clear error instead of an allocation that may exhaust memory.
// resample and PitchShift never build such kernels (on_the_fly.h).
inline constexpr int64_t kMaxResampleKernelElements = int64_t{1} << 27;

}  // namespace ember::audio::functional::detail
