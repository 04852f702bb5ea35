#pragma once
// Vectorized sin and cos for float32 and float64 (Note [Vectorized sin and cos]).
// Included only by the unary kernels; vec.h stays free of it so that editing
// these functions rebuilds two files, not every CPU kernel.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/vec.h"

namespace ember::vec {

// Note [Vectorized sin and cos]
// x = j * pi/2 + r with |r| <= pi/4 (a hair more where x * 2/pi rounds across
// a half-integer), then sin or cos of r by a polynomial; the quadrant j mod 4
// picks which one and its sign. j comes from the 1.5 * 2^(mantissa bits)
// trick: after adding that constant, t's low mantissa bits hold j.
//
// Reduction: pi/2 = P1 + P2 + P3 (three floats, or three doubles: 72 or 159
// bits). With fused multiply-adds each product j * Pk is exact inside the FMA,
// and r1 = x - j*P1 is exact: for x >= 1 neither x nor j*P1 has bits below
// ulp(P1), and |r1| < 1 fits between ulp(P1) and 1 (x < 1 means |j| <= 1,
// where the same holds one bit lower). r1 - j*P2 then rounds once, relative
// to a value that already is r, and the P3 term is either one more rounded
// step (double) or added inside the polynomial (float). The truncated pi/2
// adds j * 2^-76 (float) or j * 2^-160 (double), far below an ulp of the
// smallest |r| in range. Lanes outside the range, inf and NaN are computed by
// the scalar libm sin/cos (the whole vector at once), so huge arguments and
// NaN/inf get exactly libm's results.
//
// float32, |x| <= 2^16 (kTrigFloatMax): all in float, 8 lanes per
// instruction; Taylor polynomials to r^9 (sin) and r^10 (cos), whose
// truncation error is below 2^-28. Max error 1.49 ulp (every float in range
// checked against (float)sin((double)x) while writing this; tests sample it).
// float32 up to 2^28: through the double path below (converted, computed,
// rounded once: within 0.5 ulp). So a lane's last bit can depend on whether
// its vector holds an argument beyond 2^16; both are within 1.5 ulp.
// float64, |x| <= 2^28 (kTrigVecMax): fdlibm's __kernel_sin/__kernel_cos
// coefficients (minimax on [-pi/4, pi/4], error below 2^-58), cos written as
// w + ((1 - w) - z/2 + ...) with w = 1 - z/2 so the large leading terms lose
// nothing; max error 1.46 ulp (r's two roundings). A double below 2^28 lies
// at least ~2^-70 from a multiple of pi/2 (the closest of all doubles is
// ~2^-61 away, far above 2^28).
// Tests: tests/core/test_trig_accuracy.cpp (libm references over wide
// ranges, near multiples of pi/2, -0.0, denormals, inf, NaN).

inline constexpr double kTrigVecMax = 268435456.0;  // 2^28
inline constexpr float kTrigFloatMax = 65536.f;       // 2^16: float32 in float arithmetic

namespace trig_detail {

using D = Vec<double>;
using DMask = Vec<double>::Mask;

inline D fmadd(D a, D b, D c) {
#if defined(__FMA__)
  return D(__builtin_ia32_vfmaddpd256(a.v, b.v, c.v));
#else
  D r;
  for (int i = 0; i < D::size; ++i) r.v[i] = std::fma(a.v[i], b.v[i], c.v[i]);
  return r;
#endif
}

// sin(r) for |r| <= ~pi/4.
inline D sin_poly(D r) {
  const D z = r * r;
  D p(1.58969099521155010221e-10);
  p = fmadd(p, z, D(-2.50507602534068634195e-08));
  p = fmadd(p, z, D(2.75573137070700676789e-06));
  p = fmadd(p, z, D(-1.98412698298579493134e-04));
  p = fmadd(p, z, D(8.33333333332248946124e-03));
  p = fmadd(p, z, D(-1.66666666666666324348e-01));
  // r + r z p, not r (1 + z p): the small term's rounding stays small. For
  // r = -0 the sum is +0, so zeros return r itself.
  const D s = fmadd(r * z, p, r);
  return select<double>(r == D(0.0), r, s);
}

// cos(r) for |r| <= ~pi/4.
inline D cos_poly(D r) {
  const D z = r * r;
  D q(-1.13596475577881948265e-11);
  q = fmadd(q, z, D(2.08757232129817482790e-09));
  q = fmadd(q, z, D(-2.75573143513906633035e-07));
  q = fmadd(q, z, D(2.48015872894767294178e-05));
  q = fmadd(q, z, D(-1.38888888888741095749e-03));
  q = fmadd(q, z, D(4.16666666666666019037e-02));
  const D hz = D(0.5) * z;
  const D w = D(1.0) - hz;
  return w + (((D(1.0) - w) - hz) + (z * z) * q);
}

// sin (kCos false) or cos (kCos true) of x, |x| <= kTrigVecMax, not NaN.
template <bool kCos>
inline D sincos_in_range(D x) {
  // Round-to-nearest of x * 2/pi by the 1.5 * 2^52 trick: t's low mantissa
  // bits then hold j as an integer (plus 2^51, a multiple of 4).
  const D magic(6755399441055744.0);
  const D t = fmadd(x, D(0.63661977236758134308), magic);
  const D j = t - magic;
  DMask bits;
  std::memcpy(&bits, &t.v, sizeof(bits));
  const D nj = -j;
  D r = fmadd(nj, D(1.5707963267948966), x);
  r = fmadd(nj, D(6.123233995736766e-17), r);
  r = fmadd(nj, D(-1.4973849048591698e-33), r);
  // x = -0 gave r = -0 + +0 = +0 above (P3 < 0); sin(-0) is -0.
  r = select<double>(x == D(0.0), x, r);
  DMask q = bits;
  if constexpr (kCos) q = q + 1;
  // Quadrant q: sin x = sin r, cos r, -sin r, -cos r (cos x is quadrant q + 1).
  const D s = sin_poly(r), c = cos_poly(r);
  const D v = select<double>((q & 1) != 0, c, s);
  return select<double>((q & 2) != 0, -v, v);
}

// |x| by clearing the sign bit (one instruction; vec::abs compares and blends).
template <class T>
inline Vec<T> abs_bits(Vec<T> x) {
  using M = typename Vec<T>::Mask;
  using S = std::remove_reference_t<decltype(M{}[0])>;
  M b;
  std::memcpy(&b, &x.v, sizeof(b));
  b = b & (M{} + static_cast<S>(~(S(1) << (8 * sizeof(S) - 1))));
  Vec<T> r;
  std::memcpy(&r.v, &b, sizeof(b));
  return r;
}

// Whether every lane has |x| <= limit (false for any NaN lane): one compare
// and a movemask on x86 (a loop over lanes elsewhere).
inline bool all_within(Vec<float> x, float limit) {
  const auto m = abs_bits(x) <= Vec<float>(limit);
#if defined(__AVX__)
  return __builtin_ia32_movmskps256((__attribute__((vector_size(32))) float)m) == 0xFF;
#else
  bool all = true;
  for (int i = 0; i < Vec<float>::size; ++i) all &= m[i] != 0;
  return all;
#endif
}
inline bool all_within(Vec<double> x, double limit) {
  const auto m = abs_bits(x) <= Vec<double>(limit);
#if defined(__AVX__)
  return __builtin_ia32_movmskpd256((__attribute__((vector_size(32))) double)m) == 0xF;
#else
  bool all = true;
  for (int i = 0; i < Vec<double>::size; ++i) all &= m[i] != 0;
  return all;
#endif
}

template <bool kCos, class T>
inline Vec<T> sincos_libm(Vec<T> x) {
  Vec<T> r;
  for (int i = 0; i < Vec<T>::size; ++i) r.v[i] = kCos ? std::cos(x.v[i]) : std::sin(x.v[i]);
  return r;
}

template <bool kCos>
inline Vec<double> sincos(Vec<double> x) {
  if (!all_within(x, kTrigVecMax)) [[unlikely]] return sincos_libm<kCos>(x);
  return sincos_in_range<kCos>(x);
}

using F = Vec<float>;
using FMask = Vec<float>::Mask;

inline F fmadd(F a, F b, F c) {
#if defined(__FMA__)
  return F(__builtin_ia32_vfmaddps256(a.v, b.v, c.v));
#else
  F r;
  for (int i = 0; i < F::size; ++i) r.v[i] = std::fma(a.v[i], b.v[i], c.v[i]);
  return r;
#endif
}

// float32 sin/cos in float arithmetic for |x| <= kTrigFloatMax (Note
// [Vectorized sin and cos], float32): 8 lanes per instruction.
template <bool kCos>
inline F sincos_float_in_range(F x) {
  const F magic(12582912.f);  // 1.5 * 2^23: t's low mantissa bits hold j (+ 2^22)
  const F t = fmadd(x, F(0.636619747f), magic);
  const F j = t - magic;
  FMask bits;
  std::memcpy(&bits, &t.v, sizeof(bits));
  const F nj = -j;
  F r = fmadd(nj, F(1.57079637f), x);    // exact
  r = fmadd(nj, F(-4.37113883e-08f), r);  // rounds once
  const F c = nj * F(-1.71512451e-15f);  // the last part of pi/2, added in the polynomial
  const F z = r * r;
  // sin: r + (c + r z P(z)), Taylor to r^9 (error < 2^-28 relative).
  F p(2.75573188e-06f);
  p = fmadd(p, z, F(-1.98412701e-04f));
  p = fmadd(p, z, F(8.33333377e-03f));
  p = fmadd(p, z, F(-1.66666672e-01f));
  const F s = r + fmadd(r * z, p, c);
  // cos: 1 - r^2/2 + z^2 Q(z), Taylor to r^10, the leading terms by one FMA
  // of the exact -r/2 * r (z's rounding would cost 0.3 ulp there); c changes
  // cos by c * r, below 2^-30.
  F q(-2.75573200e-07f);
  q = fmadd(q, z, F(2.48015876e-05f));
  q = fmadd(q, z, F(-1.38888892e-03f));
  q = fmadd(q, z, F(4.16666679e-02f));
  const F co = fmadd(z * z, q, fmadd(r * F(-0.5f), r, F(1.f)));
  FMask quadrant = bits;
  if constexpr (kCos) quadrant = quadrant + 1;
  F v = select<float>((quadrant & 1) != 0, co, s);
  // Quadrants 2 and 3 negate: bit 1 of the quadrant moved to the sign bit.
  FMask vb;
  std::memcpy(&vb, &v.v, sizeof(vb));
  vb = vb ^ ((quadrant & 2) << 30);
  std::memcpy(&v.v, &vb, sizeof(vb));
  // x = -0 reduces to r = +0 (the P2 step adds +0); sin(-0) is -0.
  if constexpr (!kCos) v = select<float>(x == F(0.f), x, v);
  return v;
}

// float32 through the double path (kTrigFloatMax < |x| <= kTrigVecMax).
template <bool kCos>
inline F sincos_float_via_double(F x) {
  typedef float F4 __attribute__((vector_size(16)));
  typedef double D4 __attribute__((vector_size(32)));
  F4 lo, hi;
  std::memcpy(&lo, &x.v, sizeof(lo));
  std::memcpy(&hi, reinterpret_cast<const char*>(&x.v) + sizeof(lo), sizeof(hi));
  const D rlo = sincos_in_range<kCos>(D(__builtin_convertvector(lo, D4)));
  const D rhi = sincos_in_range<kCos>(D(__builtin_convertvector(hi, D4)));
  const F4 flo = __builtin_convertvector(rlo.v, F4), fhi = __builtin_convertvector(rhi.v, F4);
  F out;
  std::memcpy(&out.v, &flo, sizeof(flo));
  std::memcpy(reinterpret_cast<char*>(&out.v) + sizeof(flo), &fhi, sizeof(fhi));
  return out;
}

template <bool kCos>
inline F sincos(F x) {
  if (all_within(x, kTrigFloatMax)) [[likely]] return sincos_float_in_range<kCos>(x);
  if (all_within(x, static_cast<float>(kTrigVecMax))) return sincos_float_via_double<kCos>(x);
  return sincos_libm<kCos>(x);
}

}  // namespace trig_detail

inline Vec<float> sin(Vec<float> x) { return trig_detail::sincos<false>(x); }
inline Vec<float> cos(Vec<float> x) { return trig_detail::sincos<true>(x); }
inline Vec<double> sin(Vec<double> x) { return trig_detail::sincos<false>(x); }
inline Vec<double> cos(Vec<double> x) { return trig_detail::sincos<true>(x); }

}  // namespace ember::vec
