#pragma once
// Scalar: a number of unknown C++ type (bool, integer, floating or complex), as
// c10::Scalar. Python-number semantics for type promotion: a Scalar takes part
// in promotion only by its category (bool < integral < floating < complex).
#include <complex>
#include <cstdint>
#include <ostream>
#include <type_traits>

#include "ember/core/dtype.h"
#include "ember/core/error.h"

namespace ember {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Double, Complex };

  Scalar() : Scalar(int64_t{0}) {}
  Scalar(bool v) : kind_(Kind::Bool) { i_ = v; }
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  Scalar(I v) : kind_(Kind::Int) {
    i_ = static_cast<int64_t>(v);
  }
  Scalar(double v) : kind_(Kind::Double) { d_ = v; }
  Scalar(float v) : Scalar(static_cast<double>(v)) {}
  Scalar(Half v) : Scalar(static_cast<double>(float(v))) {}
  Scalar(BFloat16 v) : Scalar(static_cast<double>(float(v))) {}
  template <class R>
  Scalar(std::complex<R> v) : kind_(Kind::Complex) {
    z_ = complex128(v.real(), v.imag());
  }

  Kind kind() const { return kind_; }
  bool is_boolean() const { return kind_ == Kind::Bool; }
  bool is_integral(bool include_bool = false) const {
    return kind_ == Kind::Int || (include_bool && kind_ == Kind::Bool);
  }
  bool is_floating_point() const { return kind_ == Kind::Double; }
  bool is_complex() const { return kind_ == Kind::Complex; }

  // The dtype a zero-dim tensor made from this scalar gets: bool, int64,
  // the default float dtype, or the matching complex dtype.
  DType dtype() const;

  // Converts to T with C++ conversion semantics (complex to real drops imag).
  template <class T>
  T to() const {
    if constexpr (is_complex_v<T>) {
      using R = typename T::value_type;
      switch (kind_) {
        case Kind::Complex: return T(static_cast<R>(z_.real()), static_cast<R>(z_.imag()));
        case Kind::Double: return T(static_cast<R>(d_), R(0));
        default: return T(static_cast<R>(i_), R(0));
      }
    } else if constexpr (std::is_same_v<T, bool>) {
      switch (kind_) {
        case Kind::Complex: return z_ != complex128(0, 0);
        case Kind::Double: return d_ != 0;
        default: return i_ != 0;
      }
    } else {
      switch (kind_) {
        case Kind::Complex: return static_cast<T>(z_.real());
        case Kind::Double:
          if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<int64_t>(d_));
          else return static_cast<T>(d_);
        default: return static_cast<T>(i_);
      }
    }
  }
  double toDouble() const { return to<double>(); }
  int64_t toLong() const { return to<int64_t>(); }
  bool toBool() const { return to<bool>(); }
  complex128 toComplexDouble() const { return to<complex128>(); }

  Scalar operator-() const;
  friend std::ostream& operator<<(std::ostream& os, const Scalar& s);

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
  complex128 z_{};
};

}  // namespace ember
