#pragma once
// Vectorized atan2, sincos and |z| for the phase vocoder's CPU kernel
// (spectral/cpu/phase_vocoder_kernels.cpp), on 32-byte GCC vectors: 4 float64
// or 8 float32 lanes. Core's complex angle and polar call the scalar libm per
// element; these evaluate a whole register at once. Include only from files
// compiled with -ffp-contract=off (audio/CMakeLists.txt): the fused
// multiply-adds here are the explicit ones. spectral/cpu/simd_math_arrays.h
// exposes them on arrays (for the tests).
//
// Note [Vocoder transcendentals]
// Arithmetic: float64 throughout; the float32 functions widen their lanes to
// two float64 registers and round the results once, so they are correctly
// rounded but for exact results within ~2^-27 float32 ulp of a tie (the
// float64 error; libm's float32 functions are within one ulp, torch's
// vectorized atan2 within one).
// - atan2(y, x): |y| and |x| sorted into num <= den, t = num / den in [0, 1];
//   t > tan(pi/8) is mapped to (t - 1) / (t + 1) (computed as (num - den) /
//   (num + den), halved above 1 so the sum cannot overflow), plus pi/4. Then
//   atan(u) = u + u z P(z) (z = u^2, |u| <= tan(pi/8), scripts/
//   audio_simd_math_coeffs.py), unfolded as k pi/4 +- atan(u) (pi/2 - a when
//   swapped, pi - a for x negative or -0) with pi/4 in two parts, and y's
//   sign. Within 2.5 ulp in float64 (measured 2.3: the upper range's quotient
//   carries the roundings of num - den and num + den). Zeros, infinities and
//   NaN as C's atan2: atan2(+-0, -0) = +-pi, atan2(+-inf, +-inf) = +-pi/4 or
//   +-3pi/4, NaN in -> NaN out.
// - sincos(x): x = k pi/2 + r, k = round(x 2/pi), r = x - k P1 - k P2 - k P3
//   with P1 + P2 + P3 = pi/2 to 160 bits, each step one fused multiply-add
//   (Cody-Waite: each rounding is relative to the remainder, not to x, so r
//   keeps float64 precision however close x lies to a multiple of pi/2, for
//   |x| <= 2^30; the vocoder's accumulated phases reach ~1e6 rad). sin r and
//   cos r are near-minimax polynomials on |r| <= pi/4 (cos with fdlibm's
//   compensated 1 - z/2), swapped and negated by k mod 4. Within 2 ulp in
//   float64 (measured 1.6). Lanes with |x| > 2^30, infinite or NaN get libm's
//   sin and cos themselves (NaN for infinities); sin(-0) = -0.
// - abs(z) = sqrt(re * re + im * im), each operation rounded in the lanes'
//   type: torch's vectorized complex abs, bit for bit. Registers where a
//   square could overflow or underflow (a part beyond 2^+-60 in float32,
//   2^+-480 in float64), or holding NaN or inf, are computed exactly
//   instead: float32 from float64 squares, float64 by libm's hypot; +-inf in
//   either part gives +inf, as hypot.
#include <cmath>
#include <cstdint>
#include <cstring>
#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace ember::audio::simd_math {

typedef float VecF __attribute__((vector_size(32)));
typedef double VecD __attribute__((vector_size(32)));
typedef int32_t MaskF __attribute__((vector_size(32)));
typedef int64_t MaskD __attribute__((vector_size(32)));
typedef float HalfF __attribute__((vector_size(16)));  // 4 float32 lanes, one float64 register's worth

inline VecD splat(double v) { return VecD{v, v, v, v}; }
inline VecF splat(float v) { return VecF{v, v, v, v, v, v, v, v}; }

inline bool any(MaskF m) {
#if defined(__AVX__)
  return _mm256_movemask_ps(reinterpret_cast<__m256>(m)) != 0;
#else
  bool r = false;
  for (int l = 0; l < 8; ++l) r |= m[l] != 0;
  return r;
#endif
}
inline bool any(MaskD m) {
#if defined(__AVX__)
  return _mm256_movemask_pd(reinterpret_cast<__m256d>(m)) != 0;
#else
  return (m[0] | m[1] | m[2] | m[3]) != 0;
#endif
}

// a * b + c with one rounding.
inline VecD fma(VecD a, VecD b, VecD c) {
#if defined(__FMA__)
  return _mm256_fmadd_pd(a, b, c);
#else
  VecD r;
  for (int l = 0; l < 4; ++l) r[l] = std::fma(a[l], b[l], c[l]);
  return r;
#endif
}

inline VecD abs(VecD v) { return reinterpret_cast<VecD>(reinterpret_cast<MaskD>(v) & INT64_MAX); }
inline VecF abs(VecF v) { return reinterpret_cast<VecF>(reinterpret_cast<MaskF>(v) & INT32_MAX); }
inline MaskD sign_bits(VecD v) { return reinterpret_cast<MaskD>(v) & INT64_MIN; }
inline VecD xor_bits(VecD v, MaskD bits) { return reinterpret_cast<VecD>(reinterpret_cast<MaskD>(v) ^ bits); }

inline VecD sqrt(VecD v) {
#if defined(__AVX__)
  return _mm256_sqrt_pd(v);
#else
  VecD r;
  for (int l = 0; l < 4; ++l) r[l] = std::sqrt(v[l]);
  return r;
#endif
}

inline VecF sqrt(VecF v) {
#if defined(__AVX__)
  return _mm256_sqrt_ps(v);
#else
  VecF r;
  for (int l = 0; l < 8; ++l) r[l] = std::sqrt(v[l]);
  return r;
#endif
}

// Round to the nearest integer, ties to even (torch.round): adding and
// subtracting 1.5 * 2^(mantissa bits) rounds in the current (nearest-even)
// mode; values that large are integers already.
inline VecF round_half_even(VecF v) {
  const VecF magic = splat(float(0x1.8p23));
  return abs(v) < splat(float(0x1p22)) ? (v + magic) - magic : v;
}
inline VecD round_half_even(VecD v) {
  const VecD magic = splat(0x1.8p52);
  return abs(v) < splat(0x1p51) ? (v + magic) - magic : v;
}

// float32 <-> two float64 registers (lanes 0-3, 4-7).
inline void widen(VecF v, VecD& lo, VecD& hi) {
  HalfF a, b;
  std::memcpy(&a, &v, sizeof(a));
  std::memcpy(&b, reinterpret_cast<const char*>(&v) + sizeof(a), sizeof(b));
  lo = __builtin_convertvector(a, VecD);
  hi = __builtin_convertvector(b, VecD);
}
inline VecF narrow(VecD lo, VecD hi) {
  const HalfF a = __builtin_convertvector(lo, HalfF), b = __builtin_convertvector(hi, HalfF);
  VecF v;
  std::memcpy(&v, &a, sizeof(a));
  std::memcpy(reinterpret_cast<char*>(&v) + sizeof(a), &b, sizeof(b));
  return v;
}

namespace coeffs {
// scripts/audio_simd_math_coeffs.py, highest power first.
// fit error 3.16e-17, relative to the result 5.43e-18
inline constexpr double kAtan[] = {-0.01917688711906226, 0.03923165829558719, -0.0508544973794026,
                                   0.0585814891280221, -0.06664511447381948, 0.07692183190826087,
                                   -0.09090904578123903, 0.11111111015256361, -0.14285714284666542,
                                   0.1999999999999552, -0.3333333333333333};
// fit error 2.07e-17, relative to the result 1.28e-17
inline constexpr double kSin[] = {1.5917848524808262e-10, -2.5051127944014188e-08, 2.755731608381636e-06,
                                  -0.00019841269836722418, 0.008333333333330925, -0.16666666666666666};
// fit error 1.29e-18, relative to the result 6.99e-19
inline constexpr double kCos[] = {-1.1382456778061306e-11, 2.0876143827993133e-09, -2.7557317260008837e-07,
                                  2.480158729874307e-05, -0.0013888888888887382, 0.041666666666666664};
// pi/2 = kPio2[0] + kPio2[1] + kPio2[2] (to ~160 bits); 2/pi; tan(pi/8).
inline constexpr double kPio2[] = {0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54, -0x1.f1976b7ed8fbcp-110};
inline constexpr double kTwoOverPi = 0.6366197723675814;
inline constexpr double kTanPiOver8 = 0.41421356237309503;
// Beyond this the remainder's three-constant reduction loses bits: libm instead.
inline constexpr double kMaxReduced = 0x1p30;
}  // namespace coeffs

// c[0] z^(N-1) + ... + c[N-1] (highest power first), by Horner's rule. (Estrin's
// scheme, with its shorter dependency chains, measured slower here: the
// vocoder's loops are bound by arithmetic throughput, not latency.)
template <int N>
inline VecD polynomial(VecD z, const double (&c)[N]) {
  VecD p = splat(c[0]);
  for (int i = 1; i < N; ++i) p = fma(p, z, splat(c[i]));
  return p;
}

// atan2(y, x) per lane (Note [Vocoder transcendentals]).
inline VecD atan2(VecD y, VecD x) {
  using namespace coeffs;
  const VecD inf = splat(double(INFINITY));
  VecD ax = abs(x), ay = abs(y);
  const MaskD both_inf = (ax == inf) & (ay == inf);
  ax = both_inf ? splat(1.0) : ax;
  ay = both_inf ? splat(1.0) : ay;
  const MaskD swapped = ay > ax;
  const VecD num = swapped ? ax : ay, den = swapped ? ay : ax;
  // num > tan(pi/8) den: atan(num/den) = pi/4 + atan((num - den) / (num + den)).
  const MaskD upper = num > splat(kTanPiOver8) * den;
  const VecD scale = den > splat(1.0) ? splat(0.5) : splat(1.0);
  const VecD hn = num * scale, hd = den * scale;
  VecD n = upper ? hn - hd : num;
  VecD d = upper ? hn + hd : den;
  d = den == VecD{} ? splat(1.0) : d;  // both zero: atan2(+-0, +-0) from u = 0
  const VecD u = n / d;
  const VecD z = u * u;
  const VecD r = fma(u * z, polynomial(z, kAtan), u);  // atan(u), |u| <= tan(pi/8)
  // The angle is k pi/4 +- r: k = 1 for the upper range, 2 - k when swapped, 4 - k
  // for negative x, with r's sign flipped by either of the last two. k pi/4 =
  // k Q1 + k Q2 with Q1 = pi/4 to 50 bits (kPio2[0] / 2 ends in three zero bits,
  // so k Q1 is exact), which leaves one rounding of consequence: the last.
  const VecD b = upper ? splat(1.0) : VecD{};
  const VecD k1 = swapped ? 2.0 - b : b;
  const MaskD x_negative = sign_bits(x) != 0;
  const VecD k = x_negative ? 4.0 - k1 : k1;
  const VecD signed_r = xor_bits(r, (swapped ^ x_negative) & INT64_MIN);
  const VecD a = fma(k, splat(0.5 * kPio2[0]), fma(k, splat(0.5 * kPio2[1]), signed_r));
  return xor_bits(a, sign_bits(y));
}
inline VecF atan2(VecF y, VecF x) {
  VecD y0, y1, x0, x1;
  widen(y, y0, y1);
  widen(x, x0, x1);
  return narrow(atan2(y0, x0), atan2(y1, x1));
}

// sin(x), cos(x) per lane (Note [Vocoder transcendentals]).
inline void sincos(VecD x, VecD& sin_x, VecD& cos_x) {
  using namespace coeffs;
  const VecD magic = splat(0x1.8p52);
  const MaskD reduced = abs(x) <= splat(kMaxReduced);
  const VecD xr = reduced ? x : VecD{};  // other lanes: libm below
  const VecD shifted = xr * splat(kTwoOverPi) + magic;
  const MaskD k_bits = reinterpret_cast<MaskD>(shifted);  // k in the low mantissa bits
  const VecD k = shifted - magic;
  VecD r = fma(-k, splat(kPio2[0]), xr);
  r = fma(-k, splat(kPio2[1]), r);
  r = fma(-k, splat(kPio2[2]), r);
  const VecD z = r * r;
  const VecD s = fma(r * z, polynomial(z, kSin), r);
  // cos r = 1 - z/2 + z^2 C(z), with 1 - z/2's rounding error added back (fdlibm's __kernel_cos).
  const VecD hz = 0.5 * z;
  const VecD w = 1.0 - hz;
  const VecD c = w + (((1.0 - w) - hz) + z * z * polynomial(z, kCos));
  const MaskD odd = (k_bits & 1) != 0;
  sin_x = xor_bits(odd ? c : s, ((k_bits & 2) != 0) & INT64_MIN);
  sin_x = x == VecD{} ? x : sin_x;  // sin(-0) = -0 (the reduction's zeros are +0)
  cos_x = xor_bits(odd ? s : c, (((k_bits + 1) & 2) != 0) & INT64_MIN);
  if (any(~reduced)) [[unlikely]] {
    for (int l = 0; l < 4; ++l) {
      if (reduced[l]) continue;
      sin_x[l] = std::sin(x[l]);
      cos_x[l] = std::cos(x[l]);
    }
  }
}
inline void sincos(VecF x, VecF& sin_x, VecF& cos_x) {
  VecD x0, x1, s0, s1, c0, c1;
  widen(x, x0, x1);
  sincos(x0, s0, c0);
  sincos(x1, s1, c1);
  sin_x = narrow(s0, s1);
  cos_x = narrow(c0, c1);
}

// |re + i im| per lane (Note [Vocoder transcendentals]).
inline VecD hypot(VecD re, VecD im) {
  // Squares that could overflow or underflow, or NaN/inf somewhere: libm's hypot for the whole register.
  const VecD ar = abs(re), ai = abs(im);
  const VecD m = ar > ai ? ar : ai;
  const MaskD odd = ~(m < splat(0x1p500)) | ((m < splat(0x1p-480)) & (m != VecD{}));
  if (any(odd)) [[unlikely]] {
    VecD r;
    for (int l = 0; l < 4; ++l) r[l] = std::hypot(re[l], im[l]);
    return r;
  }
  return sqrt(re * re + im * im);
}
inline VecF hypot(VecF re, VecF im) {
  // Squares that could overflow or lose bits to underflow, or NaN/inf
  // somewhere: float64 squares (exact, no overflow) for the whole register.
  const VecF ar = abs(re), ai = abs(im);
  const VecF m = ar > ai ? ar : ai;
  const MaskF odd = ~(m < splat(0x1p60f)) | ((m < splat(0x1p-60f)) & (m != VecF{}));
  if (any(odd)) [[unlikely]] {
    VecD r0, r1, i0, i1;
    widen(re, r0, r1);
    widen(im, i0, i1);
    const VecF h = narrow(sqrt(r0 * r0 + i0 * i0), sqrt(r1 * r1 + i1 * i1));
    const VecF inf = splat(float(INFINITY));
    return (abs(re) == inf) | (abs(im) == inf) ? inf : h;
  }
  return sqrt(re * re + im * im);
}

}  // namespace ember::audio::simd_math
