#pragma once
// Scalar math of ember::special's gamma, error function and normal
// distribution family (the CPU kernels in special_gamma_kernels.cpp call it).
// Numerics follow scipy.special; edge values follow torch.special (see
// docs/special.md). Every function takes and returns double: the float32
// kernels evaluate in double and round once, which keeps them within 1 ULP of
// the correctly rounded float result at a cost that is small next to the
// series and iterations below. gammainc/gammaincc, digamma for x < 0 and zeta
// for q < 0 evaluate in long double (x87 extended on x86-64) where double
// loses bits to cancellation or to the incomplete gamma's prefactor.
#include <cmath>
#include <cstdint>
#include <limits>

namespace ember::special_math {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kPi = 3.14159265358979323846264338327950288;
inline constexpr double kSqrtPi = 1.77245385090551602729816748334114518;
inline constexpr double kInvSqrtPi = 0.564189583547756286948079451560772586;
inline constexpr double kSqrt2 = 1.41421356237309504880168872420969808;
inline constexpr double kSqrt1_2 = 0.707106781186547524400844362104849039;

// ---- coefficient tables (scripts/special_gamma_coeffs.py prints them) ----
namespace coeff {
// digamma's positive root x0 = kDigammaRootHi + kDigammaRootLo, its first
// negative root r1 = kDigammaNegRootHi + kDigammaNegRootLo.
inline constexpr double kDigammaRootHi = 1.4616321449683622;
inline constexpr double kDigammaRootLo = 9.549995429965697e-17;
inline constexpr double kDigammaNegRootHi = -0.5040830082644554;
inline constexpr double kDigammaNegRootLo = -8.15428206243813e-18;
// Taylor coefficients psi^(k)(root) / k!, k = 1, 2, ...; the tables the
// long double paths use are long double.
inline constexpr long double kDigammaRootTaylor[] = {
    9.67672245447621170427e-1L,
    -4.42763168983592106093e-1L,
    2.58499760955651010624e-1L,
    -1.63942705442406527504e-1L,
    1.07824050691262365757e-1L,
    -7.21995612564547109261e-2L,
    4.88042881641431072251e-2L,
    -3.31611264748473592923e-2L,
    2.25976482322181046596e-2L,
    -1.54247659049489591388e-2L,
    1.05387916166121753881e-2L,
    -7.20453438635686824097e-3L,
    4.92678139572985344635e-3L,
    -3.36980165543932808279e-3L,
    2.30512632673492783694e-3L,
    -1.57693677143019725927e-3L,
    1.07882520191629658069e-3L,
    -7.38070938996005129566e-4L,
    5.04953265834602035177e-4L,
    -3.45468025106307699556e-4L,
    2.36356015640270527924e-4L,
    -1.61706220919748034494e-4L,
    1.10633727687474109041e-4L,
    -7.56917958219506591924e-5L,
    5.17857579522208086899e-5L,
    -3.54300709476596063157e-5L,
    2.42400661186013176527e-5L,
    -1.65842422718541333752e-5L,
    1.13463845846638498067e-5L,
    -7.76281766846209442527e-6L,
    5.31106092088986338732e-6L,
    -3.63365078980104566837e-6L,
    2.4860227331295379489e-6L,
    -1.70085388543326065825e-6L,
    1.16366753635488427029e-6L,
    -7.96142543124197040035e-7L,
    5.4469419306694452785e-7L,
    -3.7266161283438229589e-7L,
    2.54962655202155425666e-7L,
    -1.74436951177277452181e-7L};
inline constexpr double kDigammaNegRootTaylor[] = {
    8.93979855879213449731,
    -8.09345462530650702634e-1,
    3.22585720649155058773e+1,
    -2.76101164879082810496,
    1.28273423430909023175e+2,
    -1.47067217355303607616e+1,
    5.13270462956286169185e+2,
    -7.53770006634463109929e+1,
    2.05553571194633157362e+3,
    -3.68578350383219130936e+2,
    8.2346670992030685373e+3,
    -1.7433646088673628414e+3,
    3.29977856552550470552e+4,
    -8.05181815536349745161e+3,
    1.32262954808345892007e+5,
    -3.65299459694856460015e+4,
    5.30280391242017613766e+5,
    -1.63451793427002536642e+5,
    2.12660237259687511899e+6,
    -7.2331888618043054454e+5,
    8.53060487854398274785e+6,
    -3.1721313155744763218e+6,
    3.42283166958011177906e+7,
    -1.38074819972638877356e+7,
    1.3737343587411497321e+8,
    -5.97210854112943008985e+7,
    5.51481251858544940777e+8,
    -2.56915093798753625259e+8,
    2.21446456801391053542e+9,
    -1.10006714894163385627e+9,
    8.89438404969820512091e+9,
    -4.6911081654642075695e+9,
    3.57331496891997041261e+10,
    -1.9932951831315619328e+10};
inline constexpr long double kDigammaAsymptotic[] = {
    8.33333333333333333333e-2L,
    -8.33333333333333333333e-3L,
    3.96825396825396825397e-3L,
    -4.16666666666666666667e-3L,
    7.57575757575757575758e-3L,
    -2.10927960927960927961e-2L,
    8.33333333333333333333e-2L,
    -4.43259803921568627451e-1L,
    3.0539543302701197438L,
    -2.64562121212121212121e+1L};
inline constexpr long double kZetaEulerMaclaurin[] = {
    1.2e+1L,
    -7.2e+2L,
    3.024e+4L,
    -1.2096e+6L,
    4.790016e+7L,
    -1.89243758031837916064e+9L,
    7.47242496e+10L,
    -2.9501307279181642245e+12L,
    1.16467828143500672487e+14L,
    -4.59797872240747261055e+15L,
    1.81521054019435467734e+17L,
    -7.16616525617566701133e+18L};
inline constexpr long double kLgamma1pTaylor[] = {
    -5.77215664901532860607e-1L,
    8.22467033424113218236e-1L,
    -4.00685634386531428467e-1L,
    2.70580808427784547879e-1L,
    -2.07385551028673985266e-1L,
    1.69557176997408189952e-1L,
    -1.4404989676884611812e-1L,
    1.25509669524743042422e-1L,
    -1.11334265869564690491e-1L,
    1.00099457512781808534e-1L,
    -9.09540171458290422326e-2L,
    8.33538405461090040249e-2L,
    -7.69325164113521914728e-2L,
    7.14329462953613360592e-2L,
    -6.66687058824204680329e-2L,
    6.2500955141213040742e-2L,
    -5.8823978658684582339e-2L,
    5.55557676274036111022e-2L,
    -5.26316793796166607336e-2L,
    5.00000476981016936398e-2L,
    -4.76190703301422279908e-2L,
    4.54545562932046694424e-2L,
    -4.34782660530402593614e-2L,
    4.16666691503412104691e-2L,
    -4.00000011921401405861e-2L,
    3.84615390346751857063e-2L,
    -3.70370373129893255495e-2L,
    3.57142858473333580282e-2L,
    -3.44827586849193008108e-2L,
    3.33333333643775810807e-2L,
    -3.22580645311504163388e-2L,
    3.12500000072759744802e-2L,
    -3.03030303065580455069e-2L,
    2.94117647075943447317e-2L,
    -2.85714285722601100127e-2L,
    2.77777777781819978303e-2L,
    -2.70270270272236745901e-2L,
    2.63157894737799468302e-2L,
    -2.56410256410722817859e-2L,
    2.50000000000227373696e-2L};
inline constexpr long double kStirlingCorrection[] = {
    8.33333333333333333333e-2L,
    -2.77777777777777777778e-3L,
    7.93650793650793650794e-4L,
    -5.95238095238095238095e-4L,
    8.41750841750841750842e-4L,
    -1.91752691752691752692e-3L,
    6.41025641025641025641e-3L,
    -2.95506535947712418301e-2L,
    1.79644372368830573165e-1L,
    -1.39243221690590111643L,
    1.34028640441683919945e+1L,
    -1.56848284626002017306e+2L};
}  // namespace coeff

// sum_{k=1}^{n} c[k-1] h^k (Horner).
inline double taylor_no_constant(const double* c, int n, double h) {
  double s = c[n - 1];
  for (int i = n - 2; i >= 0; --i) s = s * h + c[i];
  return s * h;
}

// ---- gammaln: log|Gamma(x)| ----
inline double gammaln(double x) {
#if defined(__GLIBC__)
  int sign;
  return ::lgamma_r(x, &sign);  // thread safe (std::lgamma writes the global signgam)
#else
  return std::lgamma(x);
#endif
}

// ---- digamma ----
// x in [1, 2]: Taylor series around the root, so the result keeps its
// relative accuracy where it goes through zero.
template <class T>
T digamma_1_2(T x) {
  const T h = (x - T(coeff::kDigammaRootHi)) - T(coeff::kDigammaRootLo);
  T s = T(coeff::kDigammaRootTaylor[39]);
  for (int i = 38; i >= 0; --i) s = s * h + T(coeff::kDigammaRootTaylor[i]);
  return s * h;
}

// x >= 10: log x - 1/(2x) - sum B_2k / (2k x^2k).
template <class T>
T digamma_asymptotic(T x) {
  const T z = 1 / (x * x);
  T s = T(coeff::kDigammaAsymptotic[9]);
  for (int i = 8; i >= 0; --i) s = s * z + T(coeff::kDigammaAsymptotic[i]);
  return std::log(x) - T(0.5) / x - s * z;
}

template <class T>
T digamma_positive(T x) {
  if (x >= 10) return digamma_asymptotic(x);
  if (x < 1) return digamma_1_2(x + 1) - 1 / x;
  // Down to [1, 2]: psi(x) = psi(x - 1) + 1/(x - 1); the terms added are
  // positive, and so is psi beyond the root, so nothing cancels badly.
  T acc = 0;
  while (x > 2) {
    x -= 1;  // exact
    acc += 1 / x;
  }
  return digamma_1_2(x) + acc;
}

inline double digamma(double x) {
  using LD = long double;
  if (std::isnan(x)) return x;
  if (x == 0) return std::copysign(kInf, -x);  // torch: -inf at +0, +inf at -0
  if (x > 0) return x == kInf ? kInf : digamma_positive(x);
  if (x == std::floor(x)) return kNaN;  // the poles and -inf
  const double h = (x - coeff::kDigammaNegRootHi) - coeff::kDigammaNegRootLo;
  if (std::fabs(h) < 0.15) return taylor_no_constant(coeff::kDigammaNegRootTaylor, 34, h);
  // Reflection: psi(x) = psi(1 - x) - pi cot(pi x), with cot of the exact
  // fractional part f. Near psi's other negative roots the two terms cancel
  // (by ~100x within the fixture grid), so this runs in long double.
  constexpr LD kPiL = 3.14159265358979323846264338327950288L;
  const LD f = x - std::nearbyint(x), af = std::fabs(f);
  const LD sinpi = std::copysign(af <= 0.25L ? std::sin(kPiL * af) : std::cos(kPiL * (0.5L - af)), f);
  const LD cospi = af <= 0.25L ? std::cos(kPiL * af) : std::sin(kPiL * (0.5L - af));
  return static_cast<double>(digamma_positive(1 - static_cast<LD>(x)) - kPiL * cospi / sinpi);
}

// ---- Hurwitz zeta ----
// zeta(x, q) = sum_{k>=0} (q + k)^-x, as scipy.special.zeta (Cephes' domain):
// x == 1 -> inf; x < 1 -> nan; q a non-positive integer -> inf; q < 0 with a
// non-integer x -> nan (q^-x is not real). Otherwise Euler-Maclaurin: the
// first terms summed directly, then the integral, the half term and the
// Bernoulli corrections of the tail at a = q + N.
// The sum runs in T: long double for q < 0, where the direct sum alternates
// in sign for odd x and cancels; double otherwise (positive terms; summed in
// long double). In double, q + k is carried as hi + lo (its rounding, when q + k crosses a
// power of two, would cost x ULPs per term), and the tail's integral is its
// own pow (term * a underflows before the result does).
template <class T>
T zeta_sum(T x, T q, T eps) {
  using LD = long double;  // the accumulator: ten-odd rounded additions would cost ULPs
  T term = std::pow(q, -x), a = q;
  LD sum = term;
  // Far out (q > 1e8) the tail formula applies from q itself.
  for (int i = 1; q <= T(1e8) && (i <= 9 || a <= 9); ++i) {
    a = q + T(i);
    const T lo = (q - (a - (a - q))) + (T(i) - (a - q));  // q + i - a exactly (TwoSum)
    term = std::pow(a, -x) * (1 - x * lo / a);
    sum += term;
    if (std::fabs(term / sum) < eps) return static_cast<T>(sum);
  }
  // Tail from a: integral and half term (term = a^-x is already in the sum).
  sum += std::pow(a, 1 - x) / (x - 1) - term / 2;
  // Bernoulli terms: B_2j / (2j)! * x (x+1) ... (x+2j-2) * a^(-x-2j+1).
  T rising = 1, power = term, k = 0;
  for (int j = 0; j < 12; ++j) {
    rising *= x + k;
    power /= a;
    const T t = rising * power / T(coeff::kZetaEulerMaclaurin[j]);
    sum += t;
    if (std::fabs(t / sum) < eps) break;
    k += 1;
    rising *= x + k;
    power /= a;
    k += 1;
  }
  return static_cast<T>(sum);
}

inline double zeta(double x, double q) {
  if (std::isnan(x) || std::isnan(q)) return kNaN;
  if (x == 1) return kInf;
  if (x < 1) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (x != std::floor(x)) return kNaN;
    return static_cast<double>(zeta_sum<long double>(x, q, 5.42101086242752217e-20L));  // 2^-64
  }
  if (q == kInf) return 0;
  return zeta_sum<double>(x, q, 1.11022302462515654042e-16);  // 2^-53
}

// ---- polygamma ----
// psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1 (as scipy; n >= 0 is
// checked by the op). Through n = 22, n! is exact in double; beyond, both
// factors are taken in long double, whose range also holds n! and
// zeta(n + 1, x) where their double values would overflow or underflow while
// the product is finite (say n = 200, x = 10).
inline double polygamma(int64_t n, double x) {
  if (n == 0) return digamma(x);
  const double sign = n % 2 == 1 ? 1 : -1;
  if (n <= 22) {
    double factorial = 1;
    for (int64_t i = 2; i <= n; ++i) factorial *= static_cast<double>(i);
    return sign * factorial * zeta(static_cast<double>(n) + 1, x);
  }
  if (std::isnan(x)) return x;
  if (x <= 0 && x == std::floor(x)) return sign * kInf;  // the poles (and -inf, as zeta)
  if (x == kInf) return sign * 0.0;
  using LD = long double;
  const LD s = static_cast<LD>(n) + 1;
  return static_cast<double>(sign * std::tgamma(s) * zeta_sum<LD>(s, x, 5.42101086242752217e-20L));
}

// ---- regularized incomplete gamma P(a, x), Q(a, x) ----
namespace igamma_detail {
using LD = long double;

// log|Gamma(a)| in long double, thread safe (lgammal writes the global signgam).
inline LD lgamma_ld(LD a) {
#if defined(__GLIBC__)
  int sign;
  return ::lgammal_r(a, &sign);
#else
  return std::lgamma(a);
#endif
}

// lgamma(1 + a), accurate for small |a| (a Taylor series there).
inline LD lgamma1p(LD a) {
  if (std::fabs(a) < 0.2L) {
    LD s = coeff::kLgamma1pTaylor[39];
    for (int i = 38; i >= 0; --i) s = s * a + coeff::kLgamma1pTaylor[i];
    return s * a;
  }
  return lgamma_ld(1 + a);
}

// Stirling's correction mu(a) = lgamma(a) - ((a - 1/2) log a - a + log(2 pi)/2), a >= 10.
inline LD stirling_correction(LD a) {
  const LD z = 1 / (a * a);
  LD s = coeff::kStirlingCorrection[11];
  for (int i = 10; i >= 0; --i) s = s * z + coeff::kStirlingCorrection[i];
  return s / a;
}

// a log(a/x) + x - a >= 0 without cancellation (Loader's bd0).
inline LD bd0(LD a, LD x) {
  if (std::fabs(a - x) < 0.1L * (a + x)) {
    const LD v = (a - x) / (a + x);
    LD s = (a - x) * v, ej = 2 * a * v;
    const LD v2 = v * v;
    for (int j = 1; j < 1000; ++j) {
      ej *= v2;
      const LD s1 = s + ej / (2 * j + 1);
      if (s1 == s) return s1;
      s = s1;
    }
    return s;
  }
  return a * std::log(a / x) + x - a;
}

// x^a e^-x / Gamma(a), with the exponent's rounding kept far below a double ULP.
inline LD prefactor(LD a, LD x) {
  constexpr LD kLog2Pi = 1.83787706640934548356065947281123527L;
  if (a < 10) return std::exp(a * std::log(x) - x - lgamma_ld(a));
  return std::exp(-bd0(a, x) - stirling_correction(a) + 0.5L * (std::log(a) - kLog2Pi));
}

constexpr int kMaxIterations = 10000000;

// P(a, x) = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a+1)...(a+n)).
inline LD p_series(LD a, LD x) {
  LD term = 1, sum = 1, d = a;
  for (int n = 0; n < kMaxIterations; ++n) {
    d += 1;
    term *= x / d;
    sum += term;
    if (term <= sum * 1e-21L) break;
  }
  return prefactor(a, x) / a * sum;
}

// Q(a, x) by its continued fraction (modified Lentz), for x > 1 and x > a.
inline LD q_continued_fraction(LD a, LD x) {
  constexpr LD kTiny = 1e-4000L;
  LD b = x + 1 - a, c = 1 / kTiny, d = 1 / b, h = d;
  for (int i = 1; i < kMaxIterations; ++i) {
    const LD an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const LD delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < 1e-21L) break;
  }
  return prefactor(a, x) * h;
}

// Q(a, x) for small x (x <= 1.1) where P is close to 1:
// Q = -expm1(a log x - lgamma(1 + a)) - x^a / Gamma(a) * sum_{n>=1} (-x)^n / (n! (a + n)).
inline LD q_small_x(LD a, LD x) {
  LD sum = 0, term = 1;
  for (int n = 1; n < 1000; ++n) {
    term *= -x / n;
    const LD t = term / (a + n);
    sum += t;
    if (std::fabs(t) <= std::fabs(sum) * 1e-21L) break;
  }
  const LD log_xa = a * std::log(x);
  return -std::expm1(log_xa - lgamma1p(a)) - std::exp(log_xa - lgamma_ld(a)) * sum;
}

// Large a with x within 0.1% of a (where the series and the continued
// fraction need ~10 sqrt(a) steps and their rounding grows with them): the
// uniform asymptotic expansion (Temme; DLMF 8.12)
//   Q(a, x) = erfc(eta sqrt(a/2)) / 2 + exp(-a eta^2/2) / sqrt(2 pi a) (C0(eta) + C1(eta) / a + ...),
// a eta^2 / 2 = bd0(a, x), sign(eta) = sign(x - a), with C0 and C1 by their
// Taylor series in eta (|eta| < 1.5e-3 here; the terms dropped are below 1e-20).
inline bool use_uniform_asymptotic(LD a, LD x) { return a >= 1e8L && std::fabs(x - a) < 1e-3L * a; }
// Returns Q when `upper`, else P.
inline LD uniform_asymptotic(LD a, LD x, bool upper) {
  constexpr LD kInvSqrt2Pi = 0.398942280401432677939946059934381868L;
  const LD b = bd0(a, x);
  const LD eta = std::copysign(std::sqrt(2 * b / a), x - a);
  const LD c0 = -1.0L / 3 + eta * (1.0L / 12 + eta * (-2.0L / 135 + eta / 864));
  const LD c1 = -1.0L / 540 - eta / 288;
  const LD r = std::exp(-b) * kInvSqrt2Pi / std::sqrt(a) * (c0 + c1 / a);
  const LD z = std::copysign(std::sqrt(b), x - a);  // eta sqrt(a/2)
  return upper ? std::erfc(z) / 2 + r : std::erfc(-z) / 2 - r;
}

// Whether Q(a, x) for x <= 1.1 is better taken from q_small_x than as 1 - P
// (scipy's rule: P is far from 1 when a is large next to x).
inline bool q_from_small_x(LD a, LD x) {
  return x <= 0.5L ? -0.4L / std::log(x) >= a : x * 1.1L >= a;
}
}  // namespace igamma_detail

inline double gammainc(double a, double x) {
  using namespace igamma_detail;
  if (std::isnan(a) || std::isnan(x)) return kNaN;
  if (x < 0 || a < 0) return kNaN;
  if (a == 0) return x > 0 ? 1 : kNaN;
  if (x == 0) return 0;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : 0;
  if (std::isinf(x)) return 1;
  if (use_uniform_asymptotic(a, x)) return static_cast<double>(uniform_asymptotic(a, x, false));
  if (x > 1 && x > a) return static_cast<double>(1 - q_continued_fraction(a, x));
  return static_cast<double>(p_series(a, x));
}

inline double gammaincc(double a, double x) {
  using namespace igamma_detail;
  if (std::isnan(a) || std::isnan(x)) return kNaN;
  if (x < 0 || a < 0) return kNaN;
  if (a == 0) return x > 0 ? 0 : kNaN;
  if (x == 0) return 1;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : 1;
  if (std::isinf(x)) return 0;
  if (use_uniform_asymptotic(a, x)) return static_cast<double>(uniform_asymptotic(a, x, true));
  if (x > 1.1) return static_cast<double>(x < a ? 1 - p_series(a, x) : q_continued_fraction(a, x));
  if (q_from_small_x(a, x)) return static_cast<double>(q_small_x(a, x));
  return static_cast<double>(1 - p_series(a, x));
}

// ---- erfcx(x) = exp(x^2) erfc(x) ----
inline double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < -26.7) return kInf;  // exp(x^2) overflows
  if (x < 50) {
    // In long double: neither exp(x^2) (x^2 rounded to 64 bits) nor erfc
    // underflows or loses more than a fraction of a double ULP here.
    const long double y = x;
    return static_cast<double>(std::exp(y * y) * std::erfc(y));
  }
  // Asymptotic series 1/(x sqrt(pi)) sum (-1)^n (2n-1)!! / (2x^2)^n: at x >= 50
  // its terms fall below 1e-17 within 5 terms.
  if (x > 1e9) return kInvSqrtPi / x;
  const double z = 1 / (2 * x * x);
  double term = 1, sum = 1;
  for (int n = 1; n < 20; ++n) {
    term *= -(2 * n - 1) * z;
    sum += term;
    if (std::fabs(term) < 1e-17) break;
  }
  return kInvSqrtPi / x * sum;
}

// ---- erfinv and the inverse of erfc on (0, 1/2] ----
namespace erfinv_detail {
// Winitzki's closed-form approximation of erfinv (relative error < 2e-3), from
// log(1 - y^2) = log(q (2 - q)) with q = 1 - |y| (exact, so no cancellation).
inline double winitzki(double log_one_minus_y2) {
  constexpr double a = 0.147;
  const double b = 2 / (kPi * a) + 0.5 * log_one_minus_y2;
  return std::sqrt(std::fmax(0.0, std::sqrt(b * b - log_one_minus_y2 / a) - b));
}

// t > 0 with erfc(t) = q, q in (0, 1/2].
inline double erfc_inverse_tail(double q) {
  double t = winitzki(std::log(q) + std::log(2 - q));
  if (q < 0.01) {
    // Newton on log(erfc t) - log q = log(erfcx t) - t^2 - log q, nearly
    // linear in t, so it converges from Winitzki's start where erfc itself is
    // too steep for a few Halley steps.
    const double log_q = std::log(q);
    for (int i = 0; i < 20; ++i) {
      const double ex = erfcx(t);
      const double step = (std::log(ex) - t * t - log_q) * kSqrtPi * ex / 2;  // -g / g'
      t += step;
      if (std::fabs(step) <= 1e-15 * t) break;
    }
    if (q < 1e-280) return t;  // exp(-t^2) would underflow below; t is within ~1 ULP
  }
  // Halley on erfc(t) - q: its residual has an error of about ulp(q), so t
  // ends within ~eps / (2 t^2) relative.
  for (int i = 0; i < 8; ++i) {
    const double f = std::erfc(t) - q;
    const double u = f / (-2 * kInvSqrtPi * std::exp(-t * t));  // f / f'
    const double step = u / (1 + t * u);
    t -= step;
    if (std::fabs(step) <= 1e-17 * t) break;
  }
  return t;
}

// |y| <= 1/2: Halley on erf(x) - y.
inline double erfinv_central(double y) {
  if (std::fabs(y) < 1e-9) return y * (kSqrtPi / 2) * (1 + kPi / 12 * y * y);
  // Small |y|: the series start (Winitzki's form cancels there).
  double x = std::fabs(y) < 0.01 ? y * (kSqrtPi / 2) * (1 + kPi / 12 * y * y)
                                 : std::copysign(winitzki(std::log1p(-y * y)), y);
  for (int i = 0; i < 6; ++i) {
    const double f = std::erf(x) - y;
    const double u = f / (2 * kInvSqrtPi * std::exp(-x * x));
    const double step = u / (1 + x * u);
    x -= step;
    if (std::fabs(step) <= 1e-17 * std::fabs(x)) break;
  }
  return x;
}
}  // namespace erfinv_detail

inline double erfinv(double y) {
  if (std::isnan(y)) return y;
  const double a = std::fabs(y);
  if (a > 1) return kNaN;
  if (a == 1) return std::copysign(kInf, y);
  if (a <= 0.5) return erfinv_detail::erfinv_central(y);
  return std::copysign(erfinv_detail::erfc_inverse_tail(1 - a), y);  // 1 - a exact
}

// ---- normal distribution ----
// x / sqrt(2) = t.hi + t.lo exactly enough: the rounding of x / sqrt(2) alone
// would cost erfc(t) a relative error of 2 t^2 eps (thousands of ULP in the tail).
struct SplitArg {
  double hi, lo;
};
inline SplitArg div_sqrt2(double x) {
  constexpr double kSqrt1_2Lo = -4.8336466567264530277e-17;  // sqrt(1/2) - kSqrt1_2
  const double hi = x * kSqrt1_2;
  return {hi, std::fma(x, kSqrt1_2, -hi) + x * kSqrt1_2Lo};
}
// erfc(hi + lo) to first order in lo (lo is ~1e-16 |hi|, the second order is negligible).
inline double erfc_split(SplitArg t) {
  return std::erfc(t.hi) - t.lo * (2 * kInvSqrtPi) * std::exp(-t.hi * t.hi);
}

// Standard normal CDF: 1/2 + erf(x/sqrt 2)/2 in the middle, erfc in the tails (as scipy).
inline double ndtr(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return x > 0 ? 1 : 0;
  const SplitArg t = div_sqrt2(x);
  if (std::fabs(t.hi) < kSqrt1_2) return 0.5 + 0.5 * std::erf(t.hi);
  const double y = 0.5 * erfc_split({std::fabs(t.hi), std::fabs(t.hi) == t.hi ? t.lo : -t.lo});
  return t.hi > 0 ? 1 - y : y;
}

// log(ndtr(x)): log(erfcx(-t) / 2) - t^2 below x = -1 (no underflow), else
// log1p(-erfc(t) / 2) (as scipy), with t^2 and erfc(t) taken on the split t.
inline double log_ndtr(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return x > 0 ? 0 : -kInf;
  const SplitArg t = div_sqrt2(x);
  if (x < -1) {
    const double sq_hi = t.hi * t.hi;
    const double sq_lo = std::fma(t.hi, t.hi, -sq_hi) + 2 * t.hi * t.lo;
    return (std::log(erfcx(-t.hi) / 2) - sq_hi) - sq_lo;
  }
  return std::log1p(-erfc_split(t) / 2);
}

// ndtri(p) = sqrt(2) erfinv(2p - 1) in the middle (2p - 1 exact for p >= 1/4),
// -sqrt(2) erfcinv(2p) below and sqrt(2) erfcinv(2(1 - p)) above (1 - p exact).
inline double ndtri(double p) {
  if (std::isnan(p)) return p;
  if (p < 0 || p > 1) return kNaN;
  if (p == 0) return -kInf;
  if (p == 1) return kInf;
  if (p < 0.25) return -kSqrt2 * erfinv_detail::erfc_inverse_tail(2 * p);
  if (p > 0.75) return kSqrt2 * erfinv_detail::erfc_inverse_tail(2 * (1 - p));
  return kSqrt2 * erfinv_detail::erfinv_central(2 * p - 1);
}

}  // namespace ember::special_math
