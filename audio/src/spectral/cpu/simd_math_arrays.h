#pragma once
// The phase vocoder's vectorized transcendentals (spectral/cpu/simd_math.h,
// Note [Vocoder transcendentals]) applied to arrays, for tests that compare
// them with libm value by value. n need not be a multiple of the vector width.
#include <cstdint>

namespace ember::audio::simd_math {

void atan2_array(const float* y, const float* x, float* out, int64_t n);
void atan2_array(const double* y, const double* x, double* out, int64_t n);
void sincos_array(const float* x, float* sin_out, float* cos_out, int64_t n);
void sincos_array(const double* x, double* sin_out, double* cos_out, int64_t n);
void hypot_array(const float* re, const float* im, float* out, int64_t n);
void hypot_array(const double* re, const double* im, double* out, int64_t n);

}  // namespace ember::audio::simd_math
