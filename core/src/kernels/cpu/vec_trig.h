#pragma once
// Vectorized sin and cos for float32 and float64 (Note [Vectorized sin and cos]).
// Included only by the unary kernels; vec.h stays free of it so that editing
// these functions rebuilds two files, not every CPU kernel.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/vec.h"

namespace ember::vec {

// Note [Vectorized sin and cos]
// Both dtypes reduce and evaluate in double: x = j * pi/2 + r with |r| <= pi/4
// (a hair more where x * 2/pi rounds across a half-integer), then sin or cos
// of r by a polynomial and the quadrant j mod 4 picks which one and its sign.
//
// Reduction. pi/2 = P1 + P2 + P3 (three doubles, 159 bits). With a fused
// multiply-add each product j * Pk is exact inside the FMA, and
//   r1 = x - j*P1 is exact: x >= 1 has no bits below 2^-52 and neither has
//        j*P1 (P1's last bit is 2^-52), and |r1| < 1 fits in 53 bits from
//        2^-52 up (x < 1 means j <= 1, where the same holds with 2^-53);
//   r2 = r1 - j*P2 and r = r2 - j*P3 each round once, relative to a value
//        that already is r (to within j * 2^-107), so r has a relative error
//        of about 2^-52 plus j * 2^-160 / |r| from the truncated pi/2.
// A double x below 2^28 lies at least ~2^-70 from a multiple of pi/2 (the
// closest double of all is ~2^-61 away, far above 2^28), so both terms stay
// far below an ulp of r. Beyond kTrigVecMax, and for inf and NaN, the lanes
// are computed by the scalar libm sin/cos instead (whole vector at once), so
// huge arguments and NaN/inf get exactly libm's results.
//
// float32 goes through the same double path: converting 8 floats to two
// vectors of 4 doubles costs two instructions and gives results within
// ~0.5 ulp of float (the double result is then rounded once), and the
// vectorized path covers every float below 2^28. Results are checked against
// libm per element over wide ranges, near multiples of pi/2, at -0.0,
// denormals, inf and NaN in tests/core/test_vec_trig.cpp.
//
// Polynomials: fdlibm's __kernel_sin/__kernel_cos coefficients (minimax on
// [-pi/4, pi/4], error below 2^-58), with cos written as w + ((1 - w) - z/2 + ...)
// (w = 1 - z/2) so the large leading terms lose nothing to rounding.

inline constexpr double kTrigVecMax = 268435456.0;  // 2^28

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

// Whether every lane has |x| <= kTrigVecMax (false for any NaN lane).
template <class T>
inline bool all_in_trig_range(Vec<T> x) {
  const auto m = abs(x) <= Vec<T>(static_cast<T>(kTrigVecMax));
  bool all = true;
  for (int i = 0; i < Vec<T>::size; ++i) all &= m[i] != 0;
  return all;
}

template <bool kCos, class T>
inline Vec<T> sincos_libm(Vec<T> x) {
  Vec<T> r;
  for (int i = 0; i < Vec<T>::size; ++i) r.v[i] = kCos ? std::cos(x.v[i]) : std::sin(x.v[i]);
  return r;
}

template <bool kCos>
inline Vec<double> sincos(Vec<double> x) {
  if (!all_in_trig_range(x)) [[unlikely]] return sincos_libm<kCos>(x);
  return sincos_in_range<kCos>(x);
}

template <bool kCos>
inline Vec<float> sincos(Vec<float> x) {
  if (!all_in_trig_range(x)) [[unlikely]] return sincos_libm<kCos>(x);
  typedef float F4 __attribute__((vector_size(16)));
  typedef double D4 __attribute__((vector_size(32)));
  F4 lo, hi;
  std::memcpy(&lo, &x.v, sizeof(lo));
  std::memcpy(&hi, reinterpret_cast<const char*>(&x.v) + sizeof(lo), sizeof(hi));
  const D rlo = sincos_in_range<kCos>(D(__builtin_convertvector(lo, D4)));
  const D rhi = sincos_in_range<kCos>(D(__builtin_convertvector(hi, D4)));
  const F4 flo = __builtin_convertvector(rlo.v, F4), fhi = __builtin_convertvector(rhi.v, F4);
  Vec<float> out;
  std::memcpy(&out.v, &flo, sizeof(flo));
  std::memcpy(reinterpret_cast<char*>(&out.v) + sizeof(flo), &fhi, sizeof(fhi));
  return out;
}

}  // namespace trig_detail

inline Vec<float> sin(Vec<float> x) { return trig_detail::sincos<false>(x); }
inline Vec<float> cos(Vec<float> x) { return trig_detail::sincos<true>(x); }
inline Vec<double> sin(Vec<double> x) { return trig_detail::sincos<false>(x); }
inline Vec<double> cos(Vec<double> x) { return trig_detail::sincos<true>(x); }

}  // namespace ember::vec
