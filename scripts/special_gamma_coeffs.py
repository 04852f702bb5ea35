#!/usr/bin/python3
"""Prints the coefficient tables of core/src/kernels/cpu/special_math_gamma.h.

Every table is a mathematical constant computed here with mpmath at 50 digits
(or exactly with fractions), so the header can be regenerated and checked:
    /usr/bin/python3 scripts/special_gamma_coeffs.py
"""
import mpmath as mp

mp.mp.dps = 50


def bernoulli(n):
    num, den = mp.bernfrac(n)
    return mp.mpf(num) / den


def dd(v):
    """A value as a double plus the double of the remainder (hi + lo)."""
    hi = float(v)
    lo = float(v - mp.mpf(hi))
    return hi, lo


def table(name, values, ctype="double"):
    suffix = "L" if ctype == "long double" else ""
    body = ",\n    ".join(mp.nstr(v, 21, min_fixed=-1, max_fixed=-1) + suffix for v in values)
    print(f"inline constexpr {ctype} {name}[] = {{\n    {body}}};")


# digamma's positive root and the Taylor coefficients of digamma around it:
# psi(x0 + h) = sum_{k>=1} psi^(k)(x0) / k! h^k.
x0 = mp.findroot(mp.digamma, 1.46)
print("// x0 =", mp.nstr(x0, 25))
table("kDigammaRootTaylor", [mp.polygamma(k, x0) / mp.factorial(k) for k in range(1, 41)], "long double")
# The first negative root and the Taylor coefficients there.
r1 = mp.findroot(mp.digamma, -0.504)
print("// r1 = hi + lo:", dd(r1))
table("kDigammaNegRootTaylor", [mp.polygamma(k, r1) / mp.factorial(k) for k in range(1, 35)])
# Asymptotic digamma: log x - 1/(2x) - sum B_2k / (2k x^2k).
table("kDigammaAsymptotic", [bernoulli(2 * k) / (2 * k) for k in range(1, 11)], "long double")
# Euler-Maclaurin tail of the Hurwitz zeta: (2k)! / B_2k.
table("kZetaEulerMaclaurin", [mp.factorial(2 * k) / bernoulli(2 * k) for k in range(1, 13)], "long double")
# lgamma(1 + a) = -euler a + sum_{k>=2} (-1)^k zeta(k) / k a^k.
table("kLgamma1pTaylor", [-mp.euler] + [(-1) ** k * mp.zeta(k) / k for k in range(2, 41)], "long double")
# Stirling's correction mu(a) = lgamma(a) - ((a - 1/2) log a - a + log(2 pi)/2)
#   = sum B_2k / (2k (2k-1) a^(2k-1)).
table("kStirlingCorrection", [bernoulli(2 * k) / (2 * k * (2 * k - 1)) for k in range(1, 13)],
      "long double")
