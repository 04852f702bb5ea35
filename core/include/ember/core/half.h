#pragma once
// 16-bit floating point storage types. Arithmetic converts to float, computes,
// and rounds back (round-to-nearest-even), which is what PyTorch's CPU kernels do.
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>

namespace ember {

namespace detail {
inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// IEEE binary16 <-> binary32, exact for every half value; rounding to nearest even.
inline uint16_t float_to_half_bits(float f) {
  uint32_t x = float_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u)  // inf or nan
    return static_cast<uint16_t>(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (abs >= 0x477ff000u)  // rounds to >= 65520: overflow to inf
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (abs < 0x38800000u) {  // result is subnormal or zero
    // Adding 0.5 lets the FPU do the round-to-nearest-even shift for us.
    float v = bits_float(abs) + 0.5f;
    return static_cast<uint16_t>(sign | (float_bits(v) - 0x3f000000u));
  }
  uint32_t mant_odd = (abs >> 13) & 1u;
  abs += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round
  return static_cast<uint16_t>(sign | (abs >> 13));
}

inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    float v = static_cast<float>(mant) * 5.9604644775390625e-08f;  // 2^-24
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

inline uint16_t float_to_bfloat16_bits(float f) {
  uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet nan
  uint32_t rounding_bias = 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>((u + rounding_bias) >> 16);
}
inline float bfloat16_bits_to_float(uint16_t b) { return bits_float(static_cast<uint32_t>(b) << 16); }
}  // namespace detail

struct from_bits_t {};
inline constexpr from_bits_t from_bits{};

// Shared arithmetic for the two 16-bit types: every operator promotes to float.
template <class Derived>
struct Float16Ops {
  friend Derived operator+(Derived a, Derived b) { return Derived(float(a) + float(b)); }
  friend Derived operator-(Derived a, Derived b) { return Derived(float(a) - float(b)); }
  friend Derived operator*(Derived a, Derived b) { return Derived(float(a) * float(b)); }
  friend Derived operator/(Derived a, Derived b) { return Derived(float(a) / float(b)); }
  friend Derived operator-(Derived a) { return Derived(-float(a)); }
  friend bool operator<(Derived a, Derived b) { return float(a) < float(b); }
  friend bool operator>(Derived a, Derived b) { return float(a) > float(b); }
  friend bool operator<=(Derived a, Derived b) { return float(a) <= float(b); }
  friend bool operator>=(Derived a, Derived b) { return float(a) >= float(b); }
  friend bool operator==(Derived a, Derived b) { return float(a) == float(b); }
  friend bool operator!=(Derived a, Derived b) { return float(a) != float(b); }
  Derived& operator+=(Derived o) { return self() = self() + o; }
  Derived& operator-=(Derived o) { return self() = self() - o; }
  Derived& operator*=(Derived o) { return self() = self() * o; }
  Derived& operator/=(Derived o) { return self() = self() / o; }
  friend std::ostream& operator<<(std::ostream& os, Derived v) { return os << float(v); }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

struct Half : Float16Ops<Half> {
  uint16_t x = 0;
  Half() = default;
  constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  Half(float f) : x(detail::float_to_half_bits(f)) {}
  Half(double d) : Half(static_cast<float>(d)) {}
  template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  Half(I i) : Half(static_cast<float>(i)) {}
  operator float() const { return detail::half_bits_to_float(x); }
};

struct BFloat16 : Float16Ops<BFloat16> {
  uint16_t x = 0;
  BFloat16() = default;
  constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  BFloat16(float f) : x(detail::float_to_bfloat16_bits(f)) {}
  BFloat16(double d) : BFloat16(static_cast<float>(d)) {}
  template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  BFloat16(I i) : BFloat16(static_cast<float>(i)) {}
  operator float() const { return detail::bfloat16_bits_to_float(x); }
};

}  // namespace ember

namespace std {
template <>
class numeric_limits<ember::Half> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = 11;
  static constexpr ember::Half min() { return {0x0400, ember::from_bits}; }
  static constexpr ember::Half lowest() { return {0xfbff, ember::from_bits}; }
  static constexpr ember::Half max() { return {0x7bff, ember::from_bits}; }
  static constexpr ember::Half epsilon() { return {0x1400, ember::from_bits}; }
  static constexpr ember::Half infinity() { return {0x7c00, ember::from_bits}; }
  static constexpr ember::Half quiet_NaN() { return {0x7e00, ember::from_bits}; }
  static constexpr ember::Half denorm_min() { return {0x0001, ember::from_bits}; }
};
template <>
class numeric_limits<ember::BFloat16> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = 8;
  static constexpr ember::BFloat16 min() { return {0x0080, ember::from_bits}; }
  static constexpr ember::BFloat16 lowest() { return {0xff7f, ember::from_bits}; }
  static constexpr ember::BFloat16 max() { return {0x7f7f, ember::from_bits}; }
  static constexpr ember::BFloat16 epsilon() { return {0x3c00, ember::from_bits}; }
  static constexpr ember::BFloat16 infinity() { return {0x7f80, ember::from_bits}; }
  static constexpr ember::BFloat16 quiet_NaN() { return {0x7fc0, ember::from_bits}; }
  static constexpr ember::BFloat16 denorm_min() { return {0x0001, ember::from_bits}; }
};
}  // namespace std
