#!/usr/bin/python3
"""Prints the polynomial coefficients of audio/src/spectral/cpu/simd_math.h.

The phase vocoder's vectorized atan2 and sincos (float64 arithmetic; the float32
versions evaluate in float64) use near-minimax polynomials: Chebyshev fits
computed with mpmath at 60 digits, highest power first (Horner order):
    atan(u) = u + u z P(z),             z = u^2, |u| <= tan(pi/8)
    sin(r)  = r + r z S(z),             z = r^2, |r| <= pi/4 (1.001 pi/4 fitted)
    cos(r)  = 1 - z/2 + z^2 C(z)
Each fit's error, relative to the function, is below 2^-56 (printed).
    /usr/bin/python3 scripts/audio_simd_math_coeffs.py
"""
import mpmath as mp

mp.mp.dps = 60


def atan_rest(z):
    if z == 0:
        return mp.mpf(-1) / 3
    u = mp.sqrt(z)
    return (mp.atan(u) - u) / (u * z)


def sin_rest(z):
    if z == 0:
        return mp.mpf(-1) / 6
    r = mp.sqrt(z)
    return (mp.sin(r) - r) / (r * z)


def cos_rest(z):
    if z == 0:
        return mp.mpf(1) / 24
    r = mp.sqrt(z)
    return (mp.cos(r) - 1 + z / 2) / (z * z)


ATAN_END = mp.tan(mp.pi / 8) ** 2
TRIG_END = (mp.pi / 4 * mp.mpf("1.001")) ** 2
for name, f, end, terms in (("kAtan", atan_rest, ATAN_END, 11), ("kSin", sin_rest, TRIG_END, 6),
                            ("kCos", cos_rest, TRIG_END, 6)):
    poly, err = mp.chebyfit(f, [0, end], terms, error=True)
    # The polynomial's share of the result: z P(z) (atan, sin) or z^2 C(z) / cos (cos) at most.
    share = end if name != "kCos" else end * end / mp.cos(mp.sqrt(end))
    print(f"// fit error {mp.nstr(err, 3)}, relative to the result {mp.nstr(err * share, 3)}")
    print(f"inline constexpr double {name}[] = {{" + ", ".join(repr(float(c)) for c in poly) + "};")
