// Note [Scalar overflow] in scalar_overflow.h.
#include "ops/scalar_overflow.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

namespace ember {

namespace {
// Lowest and highest finite values of a real dtype, as doubles.
struct Range {
  double lowest, max;
};
Range range_of(DType t) {
  switch (t) {
    case DType::UInt8: return {0, 255};
    case DType::Int8: return {-128, 127};
    case DType::Int16: return {-32768, 32767};
    case DType::Int32: return {-2147483648.0, 2147483647.0};
    // 2^63 itself does not fit: the bound is exclusive for int64 (see the header).
    case DType::Int64: return {-9223372036854775808.0, std::nextafter(9223372036854775808.0, 0.0)};
    case DType::Float16: return {-65504.0, 65504.0};
    case DType::BFloat16: return {-3.3895313892515355e38, 3.3895313892515355e38};
    case DType::Float32: case DType::Complex64:
      return {std::numeric_limits<float>::lowest(), std::numeric_limits<float>::max()};
    default: return {std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max()};
  }
}

bool double_overflows(double v, DType t) {
  const bool floating = is_floating_point(t) || is_complex(t);
  if (std::isinf(v) && floating) return false;
  if (std::isnan(v)) return !floating;
  const Range r = range_of(t);
  return v < r.lowest || v > r.max;
}

bool int_overflows(int64_t v, DType t) {
  if (t == DType::UInt8) return v > 255 || v < -255;
  if (t == DType::Int64 || is_complex(t) || t == DType::Float32 || t == DType::Float64 || t == DType::BFloat16)
    return false;  // every int64 is in range (rounded for floats)
  const Range r = range_of(t);
  return static_cast<double>(v) < r.lowest || static_cast<double>(v) > r.max;
}
// The shortest text that reads back as v (255.99 stays 255.99, not "256").
std::string shortest(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

std::string describe(const Scalar& value) {
  if (value.is_floating_point()) return shortest(value.to<double>());
  if (value.is_complex()) {
    const complex128 z = value.to<complex128>();
    return "(" + shortest(z.real()) + (std::signbit(z.imag()) ? "" : "+") + shortest(z.imag()) + "j)";
  }
  std::ostringstream os;
  os << value;
  return os.str();
}
}  // namespace

bool scalar_overflows(const Scalar& value, DType dtype) {
  if (dtype == DType::Bool || value.is_boolean()) return false;
  if (value.is_integral()) return int_overflows(value.to<int64_t>(), dtype);
  if (value.is_floating_point()) return double_overflows(value.to<double>(), dtype);
  const complex128 z = value.to<complex128>();
  if (!is_complex(dtype) && z.imag() != 0) return true;
  return double_overflows(z.real(), dtype) || double_overflows(z.imag(), dtype);
}

void check_scalar_fits(const Scalar& value, DType dtype, const char* op) {
  EMBER_CHECK(!scalar_overflows(value, dtype), op, ": value cannot be converted to type ", dtype,
              " without overflow (value ", describe(value), ")");
}

}  // namespace ember
