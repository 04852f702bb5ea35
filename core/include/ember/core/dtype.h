#pragma once
// Element types, their C++ counterparts, and PyTorch's type-promotion lattice.
#include <complex>
#include <cstdint>
#include <ostream>
#include <string_view>

#include "ember/core/half.h"

namespace ember {

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

enum class DType : uint8_t {
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Complex64,
  Complex128,
  // Quantized integers (Note [Quantized tensors] in core/src/quantized/quantizer.cpp):
  // the stored integers of a tensor whose quantizer maps them to real values.
  QInt8,
  QUInt8,
  QInt32,
  QUInt4x2,  // two 4-bit unsigned values per byte (embedding rows)
};
inline constexpr int kNumDTypes = 16;
inline constexpr int kNumQuantizedDTypes = 4;
static_assert(static_cast<int>(DType::QUInt4x2) + 1 == kNumDTypes,
              "tables indexed by DType must be updated with the enum");

// PyTorch-style spellings: ember::kFloat32, ember::kFloat, ember::kLong, ...
inline constexpr DType kBool = DType::Bool;
inline constexpr DType kUInt8 = DType::UInt8;
inline constexpr DType kByte = DType::UInt8;
inline constexpr DType kInt8 = DType::Int8;
inline constexpr DType kChar = DType::Int8;
inline constexpr DType kInt16 = DType::Int16;
inline constexpr DType kShort = DType::Int16;
inline constexpr DType kInt32 = DType::Int32;
inline constexpr DType kInt = DType::Int32;
inline constexpr DType kInt64 = DType::Int64;
inline constexpr DType kLong = DType::Int64;
inline constexpr DType kFloat16 = DType::Float16;
inline constexpr DType kHalf = DType::Float16;
inline constexpr DType kBFloat16 = DType::BFloat16;
inline constexpr DType kFloat32 = DType::Float32;
inline constexpr DType kFloat = DType::Float32;
inline constexpr DType kFloat64 = DType::Float64;
inline constexpr DType kDouble = DType::Float64;
inline constexpr DType kComplex64 = DType::Complex64;
inline constexpr DType kComplexFloat = DType::Complex64;
inline constexpr DType kComplex128 = DType::Complex128;
inline constexpr DType kComplexDouble = DType::Complex128;
inline constexpr DType kQInt8 = DType::QInt8;
inline constexpr DType kQUInt8 = DType::QUInt8;
inline constexpr DType kQInt32 = DType::QInt32;
inline constexpr DType kQUInt4x2 = DType::QUInt4x2;

// torch.qscheme: how a quantized tensor's integers map to real values.
// (Same enumerators and order as the workflow's ember::ao::quantization::QScheme.)
enum class QScheme : uint8_t {
  kPerTensorAffine,
  kPerTensorSymmetric,
  kPerChannelAffine,
  kPerChannelSymmetric,
  kPerChannelAffineFloatQParams,
};
inline constexpr QScheme kPerTensorAffine = QScheme::kPerTensorAffine;
inline constexpr QScheme kPerChannelAffine = QScheme::kPerChannelAffine;
// "per_tensor_affine", ... (torch.per_tensor_affine without the prefix, as dtype_name).
std::string_view qscheme_name(QScheme q);
std::ostream& operator<<(std::ostream& os, QScheme q);

constexpr size_t element_size(DType t) {
  constexpr size_t sizes[kNumDTypes] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16, 1, 1, 4, 1};
  return sizes[static_cast<int>(t)];
}

// "float32", "int64", ... as torch prints them without the "torch." prefix.
std::string_view dtype_name(DType t);
std::ostream& operator<<(std::ostream& os, DType t);

constexpr bool is_floating_point(DType t) {
  return t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32 || t == DType::Float64;
}
constexpr bool is_complex(DType t) { return t == DType::Complex64 || t == DType::Complex128; }
// Integral types; bool counts only when include_bool.
constexpr bool is_integral(DType t, bool include_bool = false) {
  return (t >= DType::UInt8 && t <= DType::Int64) || (include_bool && t == DType::Bool);
}
constexpr bool is_signed(DType t) {
  return t != DType::Bool && t != DType::UInt8 && t != DType::QUInt8 && t != DType::QUInt4x2;
}
// qint8, quint8, qint32, quint4x2.
constexpr bool is_quantized(DType t) { return t >= DType::QInt8 && t <= DType::QUInt4x2; }
// The plain integer dtype holding a quantized dtype's values (int_repr's
// dtype): qint8 -> int8, quint8 and quint4x2 -> uint8, qint32 -> int32; other
// dtypes unchanged.
constexpr DType to_underlying_dtype(DType t) {
  return t == DType::QInt8 ? DType::Int8
         : t == DType::QUInt8 || t == DType::QUInt4x2 ? DType::UInt8
         : t == DType::QInt32 ? DType::Int32
                              : t;
}

// complex64 -> float32, complex128 -> float64, other types unchanged.
constexpr DType to_real_dtype(DType t) {
  return t == DType::Complex64 ? DType::Float32 : t == DType::Complex128 ? DType::Float64 : t;
}
// float32/16/bf16 -> complex64, float64 -> complex128.
constexpr DType to_complex_dtype(DType t) {
  return t == DType::Float64 || t == DType::Complex128 ? DType::Complex128 : DType::Complex64;
}

// torch.promote_types: the smallest type both a and b convert to safely.
DType promote_types(DType a, DType b);

// The default floating dtype for integral inputs to floating ops (torch.get_default_dtype).
DType default_dtype();
void set_default_dtype(DType t);

// ---- quantized element types (torch's c10::qint8, ...) ----
// One stored integer of a quantized tensor; `underlying` is its plain type.
struct qint8 {
  using underlying = int8_t;
  int8_t val_;
};
struct quint8 {
  using underlying = uint8_t;
  uint8_t val_;
};
struct qint32 {
  using underlying = int32_t;
  int32_t val_;
};
struct quint4x2 {  // two values: low nibble first
  using underlying = uint8_t;
  uint8_t val_;
};

// ---- C++ type <-> DType ----
template <class T>
struct dtype_of;
#define EMBER_DTYPE_OF(T, E) \
  template <>                \
  struct dtype_of<T> {       \
    static constexpr DType value = DType::E; \
  };
EMBER_DTYPE_OF(bool, Bool)
EMBER_DTYPE_OF(uint8_t, UInt8)
EMBER_DTYPE_OF(int8_t, Int8)
EMBER_DTYPE_OF(int16_t, Int16)
EMBER_DTYPE_OF(int32_t, Int32)
EMBER_DTYPE_OF(int64_t, Int64)
EMBER_DTYPE_OF(Half, Float16)
EMBER_DTYPE_OF(BFloat16, BFloat16)
EMBER_DTYPE_OF(float, Float32)
EMBER_DTYPE_OF(double, Float64)
EMBER_DTYPE_OF(complex64, Complex64)
EMBER_DTYPE_OF(complex128, Complex128)
EMBER_DTYPE_OF(qint8, QInt8)
EMBER_DTYPE_OF(quint8, QUInt8)
EMBER_DTYPE_OF(qint32, QInt32)
EMBER_DTYPE_OF(quint4x2, QUInt4x2)
#undef EMBER_DTYPE_OF
template <class T>
inline constexpr DType dtype_of_v = dtype_of<T>::value;

template <class T>
struct is_complex_type : std::false_type {};
template <class T>
struct is_complex_type<std::complex<T>> : std::true_type {};
template <class T>
inline constexpr bool is_complex_v = is_complex_type<T>::value;

// Accumulation type used by reductions and by 16-bit arithmetic.
template <class T> struct acc_type { using type = T; };
template <> struct acc_type<Half> { using type = float; };
template <> struct acc_type<BFloat16> { using type = float; };
template <> struct acc_type<float> { using type = double; };
template <> struct acc_type<bool> { using type = int64_t; };
template <> struct acc_type<uint8_t> { using type = int64_t; };
template <> struct acc_type<int8_t> { using type = int64_t; };
template <> struct acc_type<int16_t> { using type = int64_t; };
template <> struct acc_type<int32_t> { using type = int64_t; };
template <class T>
using acc_type_t = typename acc_type<T>::type;

// Type used for arithmetic on T in kernels: float for the 16-bit types.
template <class T> struct compute_type { using type = T; };
template <> struct compute_type<Half> { using type = float; };
template <> struct compute_type<BFloat16> { using type = float; };
template <class T>
using compute_type_t = typename compute_type<T>::type;

// ---- dtype dispatch ----
// Masks of the dtypes an op accepts; dispatch<Mask>(dtype, "op", f) calls f(T{})
// with the C++ type for dtype, or throws an ember::Error naming the op and dtype.
constexpr uint32_t dtype_bit(DType t) { return 1u << static_cast<int>(t); }
inline constexpr uint32_t kMaskBool = dtype_bit(DType::Bool);
inline constexpr uint32_t kMaskIntegral = dtype_bit(DType::UInt8) | dtype_bit(DType::Int8) |
                                          dtype_bit(DType::Int16) | dtype_bit(DType::Int32) |
                                          dtype_bit(DType::Int64);
inline constexpr uint32_t kMaskReduced = dtype_bit(DType::Float16) | dtype_bit(DType::BFloat16);
inline constexpr uint32_t kMaskFloat = dtype_bit(DType::Float32) | dtype_bit(DType::Float64);
inline constexpr uint32_t kMaskFloating = kMaskFloat | kMaskReduced;
inline constexpr uint32_t kMaskComplex = dtype_bit(DType::Complex64) | dtype_bit(DType::Complex128);
inline constexpr uint32_t kMaskReal = kMaskIntegral | kMaskFloating;
inline constexpr uint32_t kMaskNumber = kMaskReal | kMaskComplex;
inline constexpr uint32_t kMaskAll = kMaskNumber | kMaskBool;
// Not in kMaskAll: an op computes on quantized tensors only where it says so.
inline constexpr uint32_t kMaskQuantized = dtype_bit(DType::QInt8) | dtype_bit(DType::QUInt8) |
                                           dtype_bit(DType::QInt32) | dtype_bit(DType::QUInt4x2);

namespace detail {
[[noreturn]] void throw_unsupported_dtype(const char* op, DType t);
}

template <uint32_t Mask, class F>
decltype(auto) dispatch(DType t, const char* op, F&& f) {
#define EMBER_DISPATCH_CASE(E, T)                           \
  case DType::E:                                            \
    if constexpr ((Mask & dtype_bit(DType::E)) != 0) return f(T{}); \
    break;
  switch (t) {
    EMBER_DISPATCH_CASE(Bool, bool)
    EMBER_DISPATCH_CASE(UInt8, uint8_t)
    EMBER_DISPATCH_CASE(Int8, int8_t)
    EMBER_DISPATCH_CASE(Int16, int16_t)
    EMBER_DISPATCH_CASE(Int32, int32_t)
    EMBER_DISPATCH_CASE(Int64, int64_t)
    EMBER_DISPATCH_CASE(Float16, Half)
    EMBER_DISPATCH_CASE(BFloat16, BFloat16)
    EMBER_DISPATCH_CASE(Float32, float)
    EMBER_DISPATCH_CASE(Float64, double)
    EMBER_DISPATCH_CASE(Complex64, complex64)
    EMBER_DISPATCH_CASE(Complex128, complex128)
    EMBER_DISPATCH_CASE(QInt8, qint8)
    EMBER_DISPATCH_CASE(QUInt8, quint8)
    EMBER_DISPATCH_CASE(QInt32, qint32)
    EMBER_DISPATCH_CASE(QUInt4x2, quint4x2)
  }
#undef EMBER_DISPATCH_CASE
  detail::throw_unsupported_dtype(op, t);
}

}  // namespace ember
