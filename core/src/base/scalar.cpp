#include "ember/core/scalar.h"

namespace ember {

DType Scalar::dtype() const {
  switch (kind_) {
    case Kind::Bool: return DType::Bool;
    case Kind::Int: return DType::Int64;
    case Kind::Double: return default_dtype();
    case Kind::Complex: return default_dtype() == DType::Float64 ? DType::Complex128 : DType::Complex64;
  }
  return DType::Float64;
}

Scalar Scalar::operator-() const {
  switch (kind_) {
    case Kind::Bool: EMBER_FAIL("Scalar: negation of a bool is not supported, use logical_not");
    case Kind::Int: return Scalar(-i_);
    case Kind::Double: return Scalar(-d_);
    case Kind::Complex: return Scalar(-z_);
  }
  return *this;
}

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  switch (s.kind_) {
    case Scalar::Kind::Bool: return os << (s.i_ ? "True" : "False");
    case Scalar::Kind::Int: return os << s.i_;
    case Scalar::Kind::Double: return os << s.d_;
    case Scalar::Kind::Complex: return os << '(' << s.z_.real() << (s.z_.imag() < 0 ? "" : "+") << s.z_.imag() << "j)";
  }
  return os;
}

}  // namespace ember
