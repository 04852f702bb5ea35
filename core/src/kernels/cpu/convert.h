#pragma once
// convert<To>(from): the element conversion every dtype cast uses. Matches
// PyTorch's static_cast semantics: complex -> real keeps the real part (torch
// also warns there; Ember has no warning channel and discards silently),
// anything -> bool tests for non-zero, 16-bit floats go through float.
#include <complex>
#include <type_traits>

#include "ember/core/dtype.h"

namespace ember {

// The real type underlying T: float for complex<float>, T for real types.
template <class T>
struct real_of {
  using type = T;
};
template <class R>
struct real_of<std::complex<R>> {
  using type = R;
};
template <class T>
using real_of_t = typename real_of<T>::type;

template <class To, class From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_complex_v<From>) {
    if constexpr (is_complex_v<To>) {
      using R = typename To::value_type;
      return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    } else if constexpr (std::is_same_v<To, bool>) {
      return v.real() != 0 || v.imag() != 0;
    } else {
      return convert<To>(v.real());
    }
  } else if constexpr (is_complex_v<To>) {
    using R = typename To::value_type;
    return To(convert<R>(v), R(0));
  } else if constexpr (std::is_same_v<To, bool>) {
    return static_cast<compute_type_t<From>>(v) != 0;
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(static_cast<compute_type_t<From>>(v)));
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return static_cast<To>(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace ember
