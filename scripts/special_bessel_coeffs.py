#!/usr/bin/python3
"""Prints the coefficient tables of core/src/kernels/cpu/special_math_bessel.h.

bessel_j0 and bessel_j1 below x ~ 26 are evaluated as Taylor series around
their zeros (relative accuracy right up to the zeros, which the Cephes
rational approximations do not have). This prints, for J0 and J1, the first
zeros as double hi + lo pairs and the Taylor coefficients J_nu^(k)(z) / k!,
k = 1..kTerms, computed with mpmath at 40 digits:
    /usr/bin/python3 scripts/special_bessel_coeffs.py
"""
import mpmath as mp

mp.mp.dps = 40
ZEROS = 8     # zeros per function (the last interval ends past x = 25)
TERMS = 30    # |J^(k)| <= 1 and |h| <= 1.92, so the tail is below 1.92^31 / 31! ~ 1e-25


def dd(v):
    hi = float(v)
    return hi, float(v - mp.mpf(hi))


for nu in (0, 1):
    zeros = [mp.besseljzero(nu, i) for i in range(1, ZEROS + 2)]
    print(f"// J{nu}: zeros (hi, lo), then the end of each zero's interval (midway to the next zero)")
    print(f"inline constexpr double kJ{nu}ZeroHi[] = {{" + ", ".join(repr(dd(z)[0]) for z in zeros[:ZEROS]) + "};")
    print(f"inline constexpr double kJ{nu}ZeroLo[] = {{" + ", ".join(repr(dd(z)[1]) for z in zeros[:ZEROS]) + "};")
    ends = [float((zeros[i] + zeros[i + 1]) / 2) for i in range(ZEROS)]
    print(f"inline constexpr double kJ{nu}IntervalEnd[] = {{" + ", ".join(repr(e) for e in ends) + "};")
    print(f"inline constexpr long double kJ{nu}Taylor[][{TERMS}] = {{")
    for z in zeros[:ZEROS]:
        coeffs = [mp.besselj(nu, z, derivative=k) / mp.factorial(k) for k in range(1, TERMS + 1)]
        print("    {" + ", ".join(mp.nstr(c, 21, min_fixed=-1, max_fixed=-1) + "L" for c in coeffs) + "},")
    print("};")
