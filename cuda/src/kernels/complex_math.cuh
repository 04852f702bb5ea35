#pragma once
// Complex arithmetic and elementary functions on the GPU, with the CPU's
// results (Note [Complex math as the CPU's]). Included only by .cu files.
//
// Note [Complex math as the CPU's]
// The CPU kernels compute on std::complex with GCC 12 and glibc 2.36:
//  - a * b is the schoolbook product, and when both parts come out NaN libgcc's
//    __muldc3 recovers the infinities (C99 Annex G); c_mul below does the same;
//  - a / b (complex divisor) is libgcc 12's __divdc3 (Smith's algorithm with
//    rescaling near the ends of the range and the Annex G recovery of
//    infinities and zeros; complex64 in double, as __divsc3): c_div; a complex divided by a
//    real number divides each part (c_div_real: log10, log2, sgn);
//  - exp, log, sqrt, sinh, cosh, tanh, sin, cos, tan, asin, acos, atan, asinh,
//    acosh, atanh, pow (cpow = exp(y * log(x))), abs (hypot) and arg (atan2)
//    are glibc's c* functions: their special values (the tables of C99 G.6:
//    branch cuts on the signed zero, infinities and NaNs) are ported case by
//    case below, and their finite-value algorithms either ported (exp, log,
//    sqrt, the hyperbolic functions with glibc's overflow handling) or
//    replaced by Kahan's formulas ("Branch cuts for complex elementary
//    functions", 1987) for the inverse functions, accurate to a few ulps like
//    glibc's, so results agree within float tolerance;
//  - sin(z) = -i sinh(iz), cos(z) = cosh(iz), tan(z) = -i tanh(iz) and
//    asin, atan likewise from the hyperbolic ones, as glibc's own definitions.
// complex64 computes in float (glibc's c*f functions do too).
#include <cmath>
#include <limits>
#include <type_traits>

#include "complex_type.h"

// nvcc compiles these as device functions; a host compiler as inline host
// functions, which tests/cuda/test_complex_math.cpp compares with the CPU's
// std::complex (glibc) on every machine, GPU or not.
#if defined(__CUDACC__)
#define EMBER_CMATH_FN __device__ __forceinline__
#define EMBER_CMATH_OUTLINED __device__ __noinline__
#else
#define EMBER_CMATH_FN inline
#define EMBER_CMATH_OUTLINED inline
#endif

namespace ember::cuda::kernels {

template <class T> struct is_device_complex : std::false_type {};
template <class R> struct is_device_complex<Complex<R>> : std::true_type {};
template <class T> inline constexpr bool is_device_complex_v = is_device_complex<T>::value;

namespace cmath {

// The transcendental functions (EMBER_CMATH_OUTLINED) are called, not inlined:
// inlined into every kernel of unary_complex.cu they took nvcc past the 60 s
// compile bound, and a call costs little beside their own work. Arithmetic
// (c_mul, c_div) stays inline.
#if !defined(__CUDACC__)
using std::atan2; using std::copysign; using std::cos; using std::cosh; using std::exp; using std::fabs;
using std::fma; using std::hypot; using std::isfinite; using std::isinf; using std::log; using std::log1p;
using std::scalbn; using std::signbit; using std::sin; using std::sinh; using std::sqrt; using std::asinh;
#endif

template <class R> using C = Complex<R>;

template <class R> EMBER_CMATH_FN R inf() { return std::numeric_limits<R>::infinity(); }
template <class R> EMBER_CMATH_FN R qnan() { return std::numeric_limits<R>::quiet_NaN(); }
template <class R> EMBER_CMATH_FN R pi() { return R(3.14159265358979323846); }
template <class R> EMBER_CMATH_FN R pi_2() { return R(1.57079632679489661923); }
template <class R> EMBER_CMATH_FN R pi_4() { return R(0.78539816339744830962); }
template <class R> EMBER_CMATH_FN R ln2() { return R(0.69314718055994530942); }
template <class R> EMBER_CMATH_FN R eps() { return std::numeric_limits<R>::epsilon(); }
template <class R> EMBER_CMATH_FN R rmin() { return std::numeric_limits<R>::min(); }
template <class R> EMBER_CMATH_FN R rmax() { return std::numeric_limits<R>::max(); }

template <class R> EMBER_CMATH_FN bool finite(R x) { return isfinite(x); }
template <class R> EMBER_CMATH_FN bool nan(R x) { return x != x; }

// ---- arithmetic ----
template <class R>
EMBER_CMATH_FN C<R> c_add(C<R> a, C<R> b) { return {a.re + b.re, a.im + b.im}; }
template <class R>
EMBER_CMATH_FN C<R> c_sub(C<R> a, C<R> b) { return {a.re - b.re, a.im - b.im}; }
template <class R>
EMBER_CMATH_FN C<R> c_neg(C<R> a) { return {-a.re, -a.im}; }
template <class R>
EMBER_CMATH_FN C<R> c_conj(C<R> a) { return {a.re, -a.im}; }

// libgcc's __muldc3.
template <class R>
EMBER_CMATH_FN C<R> c_mul(C<R> z, C<R> w) {
  R a = z.re, b = z.im, c = w.re, d = w.im;
  const R ac = a * c, bd = b * d, ad = a * d, bc = b * c;
  R x = ac - bd, y = ad + bc;
  if (nan(x) && nan(y)) {
    bool recalc = false;
    if (isinf(a) || isinf(b)) {  // z infinite: "box" the infinity, change NaNs of the other to 0
      a = copysign(isinf(a) ? R(1) : R(0), a);
      b = copysign(isinf(b) ? R(1) : R(0), b);
      if (nan(c)) c = copysign(R(0), c);
      if (nan(d)) d = copysign(R(0), d);
      recalc = true;
    }
    if (isinf(c) || isinf(d)) {
      c = copysign(isinf(c) ? R(1) : R(0), c);
      d = copysign(isinf(d) ? R(1) : R(0), d);
      if (nan(a)) a = copysign(R(0), a);
      if (nan(b)) b = copysign(R(0), b);
      recalc = true;
    }
    if (!recalc && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {  // overflow in a product: recover
      if (nan(a)) a = copysign(R(0), a);
      if (nan(b)) b = copysign(R(0), b);
      if (nan(c)) c = copysign(R(0), c);
      if (nan(d)) d = copysign(R(0), d);
      recalc = true;
    }
    if (recalc) {
      x = inf<R>() * (a * c - b * d);
      y = inf<R>() * (a * d + b * c);
    }
  }
  return {x, y};
}

// libgcc's quotient (GCC 12): Annex G's recovery of the infinities and
// zeros that came out NaN + NaN i, on the (possibly rescaled) operands.
template <class R>
EMBER_CMATH_FN void div_recover(R a, R b, R c, R d, R& x, R& y) {
  if (!(nan(x) && nan(y))) return;
  if (c == R(0) && d == R(0) && (!nan(a) || !nan(b))) {
    x = copysign(inf<R>(), c) * a;
    y = copysign(inf<R>(), c) * b;
  } else if ((isinf(a) || isinf(b)) && finite(c) && finite(d)) {
    a = copysign(isinf(a) ? R(1) : R(0), a);
    b = copysign(isinf(b) ? R(1) : R(0), b);
    x = inf<R>() * (a * c + b * d);
    y = inf<R>() * (b * c - a * d);
  } else if ((isinf(c) || isinf(d)) && finite(a) && finite(b)) {
    c = copysign(isinf(c) ? R(1) : R(0), c);
    d = copysign(isinf(d) ? R(1) : R(0), d);
    x = R(0) * (a * c + b * d);
    y = R(0) * (b * c - a * d);
  }
}

// libgcc 12's __divsc3 / __divdc3. complex64: the schoolbook quotient in
// double (libgcc's choice where double exists), then rounded. complex128:
// Smith's algorithm with GCC 12's rescaling of operands near the ends of the
// range (McGehearty's "practical improvement"), kept exactly, including its
// NaN + NaN i for a finite number over a denominator below 2^-1022 * eps
// whose ratio overflows (as the CPU gives).
template <class R>
EMBER_CMATH_FN C<R> c_div(C<R> z, C<R> w) {
  if constexpr (std::is_same_v<R, float>) {
    const double a = z.re, b = z.im, c = w.re, d = w.im;
    const double denom = c * c + d * d;
    R x = static_cast<R>((a * c + b * d) / denom), y = static_cast<R>((b * c - a * d) / denom);
    div_recover<R>(z.re, z.im, w.re, w.im, x, y);
    return {x, y};
  } else {
    constexpr R kRmin = std::numeric_limits<R>::min(), kEps = std::numeric_limits<R>::epsilon();
    constexpr R kRbig = std::numeric_limits<R>::max() / 2, kRmin2 = kEps, kRminscal = R(1) / kEps;
    constexpr R kRmax2 = kRbig * kRmin2;
    R a = z.re, b = z.im, c = w.re, d = w.im;
    R x, y;
    if (fabs(c) < fabs(d)) {
      if (fabs(d) >= kRbig) {
        a /= 2;
        b /= 2;
        c /= 2;
        d /= 2;
      }
      if (fabs(d) < kRmin2 || (fabs(a) < kRmin && fabs(b) < kRmax2 && fabs(d) < kRmax2) ||
          (fabs(b) < kRmin && fabs(a) < kRmax2 && fabs(d) < kRmax2)) {
        a *= kRminscal;
        b *= kRminscal;
        c *= kRminscal;
        d *= kRminscal;
      }
      const R ratio = c / d, denom = c * ratio + d;
      if (fabs(ratio) > kRmin) {
        x = (a * ratio + b) / denom;
        y = (b * ratio - a) / denom;
      } else {
        x = (c * (a / d) + b) / denom;
        y = (c * (b / d) - a) / denom;
      }
    } else {
      if (fabs(c) >= kRbig) {
        a /= 2;
        b /= 2;
        c /= 2;
        d /= 2;
      }
      if (fabs(c) < kRmin2 || (fabs(a) < kRmin && fabs(b) < kRmax2 && fabs(c) < kRmax2) ||
          (fabs(b) < kRmin && fabs(a) < kRmax2 && fabs(c) < kRmax2)) {
        a *= kRminscal;
        b *= kRminscal;
        c *= kRminscal;
        d *= kRminscal;
      }
      const R ratio = d / c, denom = d * ratio + c;
      if (fabs(ratio) > kRmin) {
        x = (b * ratio + a) / denom;
        y = (b - a * ratio) / denom;
      } else {
        x = (a + d * (b / c)) / denom;
        y = (b - d * (a / c)) / denom;
      }
    }
    div_recover<R>(a, b, c, d, x, y);
    return {x, y};
  }
}
template <class R>
EMBER_CMATH_FN C<R> c_div_real(C<R> z, R r) { return {z.re / r, z.im / r}; }

template <class R>
EMBER_CMATH_FN R c_abs(C<R> z) { return hypot(z.re, z.im); }
template <class R>
EMBER_CMATH_FN R c_arg(C<R> z) { return atan2(z.im, z.re); }
template <class R>
EMBER_CMATH_FN bool c_isnan(C<R> z) { return nan(z.re) || nan(z.im); }

// sin and cos of y, glibc's way: a tiny y gives (y, 1) exactly.
template <class R>
EMBER_CMATH_FN void sincos_small(R y, R& s, R& c) {
  if (fabs(y) > rmin<R>()) {
    s = sin(y);
    c = cos(y);
  } else {
    s = y;
    c = R(1);
  }
}
// The largest t with exp(t) finite, as glibc's (int)((MAX_EXP - 1) * ln 2).
template <class R>
EMBER_CMATH_FN R exp_limit() { return std::is_same_v<R, float> ? R(88) : R(709); }

// ---- exp, log, sqrt (glibc's s_cexp, s_clog, s_csqrt) ----
template <class R>
EMBER_CMATH_OUTLINED C<R> c_exp(C<R> z) {
  const R x = z.re, y = z.im;
  if (finite(x)) {
    if (finite(y)) {
      const R t = exp_limit<R>();
      R s, c;
      sincos_small(y, s, c);
      R rx = x;
      if (rx > t) {  // exp(x) overflows alone: scale in steps so that exp(x) * cos(y) may not
        const R et = exp(t);
        rx -= t;
        s *= et;
        c *= et;
        if (rx > t) {
          rx -= t;
          s *= et;
          c *= et;
        }
      }
      if (rx > t) return {rmax<R>() * c, rmax<R>() * s};
      const R e = exp(rx);
      return {e * c, e * s};
    }
    return {qnan<R>(), qnan<R>()};
  }
  if (isinf(x)) {
    if (finite(y)) {
      const R value = signbit(x) ? R(0) : inf<R>();
      if (y == R(0)) return {value, y};
      R s, c;
      sincos_small(y, s, c);
      return {copysign(value, c), copysign(value, s)};
    }
    if (!signbit(x)) return {inf<R>(), y - y};
    return {R(0), copysign(R(0), y)};
  }
  return {qnan<R>(), y == R(0) ? y : qnan<R>()};
}

// x^2 + y^2 - 1 for 0 <= y <= x near the unit circle, with the products split
// exactly by fma (glibc's __x2y2m1 in double-double).
template <class R>
EMBER_CMATH_FN R x2y2m1(R x, R y) {
  const R xx = x * x, yy = y * y;
  const R exx = fma(x, x, -xx), eyy = fma(y, y, -yy);
  // (xx - 1) is exact for 0.5 <= x <= 2 (Sterbenz); add the small terms last.
  return ((xx - R(1)) + yy) + (exx + eyy);
}

template <class R>
EMBER_CMATH_OUTLINED C<R> c_log(C<R> z) {
  const R x = z.re, y = z.im;
  if (x == R(0) && y == R(0)) {
    const R im = signbit(x) ? copysign(pi<R>(), y) : copysign(R(0), y);
    return {R(-1) / fabs(x), im};
  }
  if (nan(x) || nan(y)) {
    return {(isinf(x) || isinf(y)) ? inf<R>() : qnan<R>(), qnan<R>()};
  }
  if (isinf(x) || isinf(y)) return {inf<R>(), atan2(y, x)};
  R ax = fabs(x), ay = fabs(y);
  if (ax < ay) {
    const R t = ax;
    ax = ay;
    ay = t;
  }
  R re;
  if (ax == R(1)) {
    re = log1p(ay * ay) / R(2);
  } else if (ax >= R(0.5) && ax < R(2) && ay < R(1) && ax * ax + ay * ay >= R(0.5)) {
    // Near the unit circle log(hypot) loses the digits of hypot - 1.
    re = log1p(x2y2m1(ax, ay)) / R(2);
  } else if (ax > rmax<R>() / R(4) || ax < rmin<R>()) {
    // hypot may overflow, or lose digits to subnormals: scale by a power of two.
    const int scale = ax > rmax<R>() / R(4) ? -2 : std::numeric_limits<R>::digits;
    const R h = hypot(scalbn(ax, scale), scalbn(ay, scale));
    re = log(h) - static_cast<R>(scale) * ln2<R>();
  } else {
    re = log(hypot(ax, ay));
  }
  return {re, atan2(y, x)};
}

template <class R>
EMBER_CMATH_OUTLINED C<R> c_sqrt(C<R> z) {
  R x = z.re, y = z.im;
  if (!finite(x) || !finite(y)) {
    if (isinf(y)) return {inf<R>(), y};
    if (isinf(x)) {
      if (x < R(0)) return {nan(y) ? qnan<R>() : R(0), copysign(inf<R>(), y)};
      return {x, nan(y) ? qnan<R>() : copysign(R(0), y)};
    }
    return {qnan<R>(), qnan<R>()};
  }
  if (y == R(0)) {
    if (x < R(0)) return {R(0), copysign(sqrt(-x), y)};
    return {fabs(sqrt(x)), copysign(R(0), y)};
  }
  if (x == R(0)) {
    const R r = fabs(y) >= R(2) * rmin<R>() ? sqrt(R(0.5) * fabs(y)) : R(0.5) * sqrt(R(2) * fabs(y));
    return {r, copysign(r, y)};
  }
  int scale = 0;
  if (fabs(x) > rmax<R>() / R(4) || fabs(y) > rmax<R>() / R(4)) {
    scale = 1;
    x = scalbn(x, -2);
    y = scalbn(y, -2);
  } else if (fabs(x) < R(2) * rmin<R>() && fabs(y) < R(2) * rmin<R>()) {
    scale = -((std::numeric_limits<R>::digits + 1) / 2);
    x = scalbn(x, -2 * scale);
    y = scalbn(y, -2 * scale);
  }
  const R d = hypot(x, y);
  R r, s;
  if (x > R(0)) {
    r = sqrt(R(0.5) * (d + x));
    if (scale == 1 && fabs(y) < R(1)) {
      s = y / r;
      r = scalbn(r, scale);
      scale = 0;
    } else {
      s = R(0.5) * (y / r);
    }
  } else {
    s = sqrt(R(0.5) * (d - x));
    if (scale == 1 && fabs(y) < R(1)) {
      r = fabs(y / s);
      s = scalbn(s, scale);
      scale = 0;
    } else {
      r = fabs(R(0.5) * (y / s));
    }
  }
  if (scale) {
    r = scalbn(r, scale);
    s = scalbn(s, scale);
  }
  return {r, copysign(s, y)};
}

// ---- hyperbolic functions (glibc's s_csinh, s_ccosh, s_ctanh) ----
template <class R>
EMBER_CMATH_OUTLINED C<R> c_sinh(C<R> z) {
  R x = z.re;
  const R y = z.im;
  const bool negate = signbit(x);
  x = fabs(x);
  if (finite(x)) {
    if (finite(y)) {
      const R t = exp_limit<R>();
      R s, c;
      sincos_small(y, s, c);
      C<R> res;
      if (x > t) {
        const R et = exp(t);
        R rx = x - t;
        s *= et / R(2);
        c *= et / R(2);
        if (rx > t) {
          rx -= t;
          s *= et;
          c *= et;
        }
        if (rx > t) {
          res = {rmax<R>() * c, rmax<R>() * s};
        } else {
          const R e = exp(rx);
          res = {e * c, e * s};
        }
      } else {
        res = {sinh(x) * c, cosh(x) * s};
      }
      if (negate) res.re = -res.re;
      return res;
    }
    if (x == R(0)) return {negate ? R(-0.0) : R(0), y - y};
    return {qnan<R>(), qnan<R>()};
  }
  if (isinf(x)) {
    if (finite(y) && y != R(0)) {
      R s, c;
      sincos_small(y, s, c);
      C<R> res{copysign(inf<R>(), c), copysign(inf<R>(), s)};
      if (negate) res.re = -res.re;
      return res;
    }
    if (y == R(0)) return {negate ? -inf<R>() : inf<R>(), y};
    return {inf<R>(), y - y};
  }
  return {qnan<R>(), y == R(0) ? y : qnan<R>()};
}

template <class R>
EMBER_CMATH_OUTLINED C<R> c_cosh(C<R> z) {
  const R x = z.re, y = z.im;
  if (finite(x)) {
    if (finite(y)) {
      const R t = exp_limit<R>();
      R s, c;
      sincos_small(y, s, c);
      if (fabs(x) > t) {
        const R et = exp(t);
        R rx = fabs(x);
        if (signbit(x)) s = -s;
        rx -= t;
        s *= et / R(2);
        c *= et / R(2);
        if (rx > t) {
          rx -= t;
          s *= et;
          c *= et;
        }
        if (rx > t) return {rmax<R>() * c, rmax<R>() * s};
        const R e = exp(rx);
        return {e * c, e * s};
      }
      return {cosh(x) * c, sinh(x) * s};
    }
    return {y - y, x == R(0) ? R(0) : qnan<R>()};
  }
  if (isinf(x)) {
    if (finite(y) && y != R(0)) {
      R s, c;
      sincos_small(y, s, c);
      return {copysign(inf<R>(), c), copysign(inf<R>(), s) * copysign(R(1), x)};
    }
    if (y == R(0)) return {inf<R>(), y * copysign(R(1), x)};
    return {inf<R>(), y - y};
  }
  return {qnan<R>(), y == R(0) ? y : qnan<R>()};
}

template <class R>
EMBER_CMATH_OUTLINED C<R> c_tanh(C<R> z) {
  const R x = z.re, y = z.im;
  if (!finite(x) || !finite(y)) {
    if (isinf(x)) {
      R im;
      if (finite(y) && fabs(y) > R(1)) {
        R s, c;
        sincos_small(y, s, c);
        im = copysign(R(0), s * c);
      } else {
        im = copysign(R(0), y);
      }
      return {copysign(R(1), x), im};
    }
    if (y == R(0)) return z;
    if (x == R(0)) return {x, qnan<R>()};
    return {qnan<R>(), qnan<R>()};
  }
  // (MAX_EXP - 1) * ln 2 / 2, as glibc's t.
  const R t = std::is_same_v<R, float> ? R(44) : R(354);
  R s, c;
  sincos_small(y, s, c);
  if (fabs(x) > t) {
    // tanh(x) rounds to +-1; the imaginary part 4 sin cos / e^(2|x|) without overflow.
    const R e2t = exp(R(2) * t);
    R im = R(4) * s * c;
    const R rx = fabs(x) - t;
    im /= e2t;
    if (rx > t) im /= e2t;
    else im /= exp(R(2) * rx);
    return {copysign(R(1), x), im};
  }
  R sh, ch;
  if (fabs(x) > rmin<R>()) {
    sh = sinh(x);
    ch = cosh(x);
  } else {
    sh = x;
    ch = R(1);
  }
  const R den = fabs(sh) > fabs(c) * eps<R>() ? sh * sh + c * c : c * c;
  return {sh * ch / den, s * c / den};
}

// sin(z) = -i sinh(iz), cos(z) = cosh(iz), tan(z) = -i tanh(iz).
template <class R>
EMBER_CMATH_FN C<R> c_sin(C<R> z) {
  // glibc's csin picks +inf for the imaginary part of (inf or nan) + inf i,
  // where -i sinh(iz) would give -inf.
  if (!finite(z.re) && isinf(z.im)) return {z.re - z.re, inf<R>()};
  const C<R> w = c_sinh(C<R>{-z.im, z.re});
  return {w.im, -w.re};
}
template <class R>
EMBER_CMATH_FN C<R> c_cos(C<R> z) { return c_cosh(C<R>{-z.im, z.re}); }
template <class R>
EMBER_CMATH_FN C<R> c_tan(C<R> z) {
  const C<R> w = c_tanh(C<R>{-z.im, z.re});
  return {w.im, -w.re};
}

// ---- inverse functions: glibc's special values, Kahan's formulas ----
// Kahan's asinh for finite z (not both parts 0), -i asin(iz) with his asin:
//   t1 = sqrt(1 - i z), t2 = sqrt(1 + i z) (the parts written out so that
//   signed zeros survive: 1 - i z is (1 + y, -x), not (1 + y, 0 - x)),
//   re = asinh(Im(conj(t1) t2)), im = atan2(y, Re(t1 t2)).
template <class R>
EMBER_CMATH_OUTLINED C<R> kahan_asinh(C<R> z) {
  const R x = z.re, y = z.im;
  // Past 1/eps, sqrt(1 +- iz) loses nothing by dropping the 1, and the
  // product would overflow near the largest values: asinh(z) = log(2z).
  if (fabs(x) > R(1) / eps<R>() || fabs(y) > R(1) / eps<R>()) {
    C<R> w{fabs(x), y};
    if (fabs(x) > rmax<R>() / R(4) || fabs(y) > rmax<R>() / R(4)) {
      C<R> l = c_log(w);
      l.re += ln2<R>();
      return {copysign(l.re, x), l.im};
    }
    C<R> l = c_log(C<R>{R(2) * w.re, R(2) * w.im});
    return {copysign(l.re, x), l.im};
  }
  const C<R> t1 = c_sqrt(C<R>{R(1) + y, -x});  // 1 - i z
  const C<R> t2 = c_sqrt(C<R>{R(1) - y, x});   // 1 + i z
  const R re = asinh(t1.re * t2.im - t1.im * t2.re);
  const R im = atan2(y, t1.re * t2.re - t1.im * t2.im);
  return {re, im};
}

template <class R>
EMBER_CMATH_OUTLINED C<R> c_asinh(C<R> z) {
  const R x = z.re, y = z.im;
  if (!finite(x) || !finite(y)) {
    if (isinf(y)) {
      return {copysign(inf<R>(), x), nan(x) ? qnan<R>() : copysign(finite(x) ? pi_2<R>() : pi_4<R>(), y)};
    }
    if (!finite(x)) {  // x inf or nan, y finite or nan
      if ((isinf(x) && finite(y)) || (nan(x) && y == R(0))) return {x, copysign(R(0), y)};
      return {x, qnan<R>()};
    }
    return {qnan<R>(), qnan<R>()};
  }
  if (x == R(0) && y == R(0)) return z;
  return kahan_asinh(z);
}

// asin(z) = -i asinh(iz) (glibc's casin, NaN cases first).
template <class R>
EMBER_CMATH_OUTLINED C<R> c_asin(C<R> z) {
  if (nan(z.re) || nan(z.im)) {
    if (z.re == R(0)) return z;
    if (isinf(z.re) || isinf(z.im)) return {qnan<R>(), copysign(inf<R>(), z.im)};
    return {qnan<R>(), qnan<R>()};
  }
  const C<R> w = c_asinh(C<R>{-z.im, z.re});
  return {w.im, -w.re};
}

template <class R>
EMBER_CMATH_OUTLINED C<R> c_acos(C<R> z) {
  const R x = z.re, y = z.im;
  if (!finite(x) || !finite(y) || (x == R(0) && y == R(0))) {
    // glibc: pi/2 - asin(z) for the special values.
    const C<R> a = c_asin(z);
    R re = pi_2<R>() - a.re;
    if (re == R(0)) re = R(0);
    return {re, -a.im};
  }
  // Kahan: re = 2 atan2(Re sqrt(1 - z), Re sqrt(1 + z)),
  //        im = asinh(Im(conj(sqrt(1 + z)) sqrt(1 - z))).
  if (fabs(x) > R(1) / eps<R>() || fabs(y) > R(1) / eps<R>()) {
    // acos(z) = -i log(z + i sqrt(1 - z^2)) ~ (arg(z) folded, -+log(2|z|)).
    const C<R> l = c_log(C<R>{x, y});
    const R big = l.re + ln2<R>();
    const R re = atan2(fabs(y), x);
    return {re, signbit(y) ? big : -big};
  }
  const C<R> s1 = c_sqrt(C<R>{R(1) - x, -y});  // 1 - z
  const C<R> s2 = c_sqrt(C<R>{R(1) + x, y});   // 1 + z
  const R re = R(2) * atan2(s1.re, s2.re);
  const R im = asinh(s2.re * s1.im - s2.im * s1.re);
  return {re, im};
}

template <class R>
EMBER_CMATH_OUTLINED C<R> c_acosh(C<R> z) {
  const R x = z.re, y = z.im;
  if (!finite(x) || !finite(y)) {
    if (isinf(y)) {
      if (nan(x)) return {inf<R>(), qnan<R>()};
      const R a = isinf(x) ? (x < R(0) ? pi<R>() - pi_4<R>() : pi_4<R>()) : pi_2<R>();
      return {inf<R>(), copysign(a, y)};
    }
    if (isinf(x)) {
      if (finite(y)) return {inf<R>(), copysign(signbit(x) ? pi<R>() : R(0), y)};
      return {inf<R>(), qnan<R>()};
    }
    return {qnan<R>(), x == R(0) ? pi_2<R>() : qnan<R>()};
  }
  if (x == R(0) && y == R(0)) return {R(0), copysign(pi_2<R>(), y)};
  if (fabs(x) > R(1) / eps<R>() || fabs(y) > R(1) / eps<R>()) {
    const C<R> l = c_log(C<R>{x, y});
    return {l.re + ln2<R>(), atan2(y, x)};
  }
  // Kahan: re = asinh(Re(conj(sqrt(z - 1)) sqrt(z + 1))), im = 2 atan2(Im sqrt(z - 1), Re sqrt(z + 1)).
  const C<R> s1 = c_sqrt(C<R>{x - R(1), y});  // z - 1
  const C<R> s2 = c_sqrt(C<R>{x + R(1), y});  // z + 1
  const R re = asinh(s1.re * s2.re + s1.im * s2.im);
  const R im = R(2) * atan2(s1.im, s2.re);
  return {re, im};
}

// glibc's s_catanh.
template <class R>
EMBER_CMATH_OUTLINED C<R> c_atanh(C<R> z) {
  const R x = z.re, y = z.im;
  if (!finite(x) || !finite(y)) {
    if (isinf(y)) return {copysign(R(0), x), copysign(pi_2<R>(), y)};
    if (isinf(x) || x == R(0)) return {copysign(R(0), x), finite(y) ? copysign(pi_2<R>(), y) : qnan<R>()};
    return {qnan<R>(), qnan<R>()};
  }
  if (x == R(0) && y == R(0)) return z;
  C<R> res;
  const R big = R(16) / eps<R>();
  if (fabs(x) >= big || fabs(y) >= big) {
    res.im = copysign(pi_2<R>(), y);
    if (fabs(y) <= R(1)) {
      res.re = R(1) / x;
    } else if (fabs(x) <= R(1)) {
      res.re = x / y / y;
    } else {
      const R h = hypot(x / R(2), y / R(2));
      res.re = x / h / h / R(4);
    }
    return res;
  }
  if (fabs(x) == R(1) && fabs(y) < eps<R>() * eps<R>()) {
    res.re = copysign(R(0.5), x) * (ln2<R>() - log(fabs(y)));
  } else {
    const R i2 = fabs(y) >= eps<R>() * eps<R>() ? y * y : R(0);
    R num = R(1) + x;
    num = i2 + num * num;
    R den = R(1) - x;
    den = i2 + den * den;
    const R f = num / den;
    res.re = f < R(0.5) ? R(0.25) * log(f) : R(0.25) * log1p(R(4) * x / den);
  }
  R ax = fabs(x), ay = fabs(y), den;
  if (ax < ay) {
    const R t = ax;
    ax = ay;
    ay = t;
  }
  if (ay < eps<R>() / R(2)) {
    den = (R(1) - ax) * (R(1) + ax);
    if (den == R(0)) den = R(0);
  } else if (ax >= R(1)) {
    den = (R(1) - ax) * (R(1) + ax) - ay * ay;
  } else if (ax >= R(0.75) || ay >= R(0.5)) {
    den = -x2y2m1(ax, ay);
  } else {
    den = (R(1) - ax) * (R(1) + ax) - ay * ay;
  }
  res.im = R(0.5) * atan2(R(2) * y, den);
  return res;
}

// atan(z) = -i atanh(iz).
template <class R>
EMBER_CMATH_FN C<R> c_atan(C<R> z) {
  const C<R> w = c_atanh(C<R>{-z.im, z.re});
  return {w.im, -w.re};
}

// glibc's cpow: exp(y * log(x)).
template <class R>
EMBER_CMATH_FN C<R> c_pow(C<R> x, C<R> y) { return c_exp(c_mul(y, c_log(x))); }

}  // namespace cmath
}  // namespace ember::cuda::kernels
