#pragma once
// The facts about each elementwise op, one constexpr table per family (unary,
// binary, ternary): name, how the computation dtype and the output dtype
// follow from the inputs, which dtypes the kernels accept, whether the op is
// differentiable and what its backward saves. The op files
// (ops/unary_ops.cpp, binary_ops.cpp, ternary_ops.cpp) and every backend's
// kernels (the dtype masks: kernels/cpu/*_kernels_impl.h) read them, so a
// fact lives in one row instead of parallel switches; a row per enum value is
// checked at compile time, and tests/core/test_elementwise_info.cpp checks the
// rows against what the ops do.
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

#include "ember/core/dtype.h"
#include "kernels/slots/elementwise_kernels.h"

namespace ember {

// How the computation dtype follows from the inputs' common dtype.
enum class Promotion : uint8_t {
  None,        // the common dtype
  IntToFloat,  // integral and bool inputs compute in the default float dtype
  BoolToLong,  // bool computes in int64 (square is pow(x, 2) in PyTorch)
};

// The output dtype, given the computation dtype.
enum class OutDType : uint8_t {
  Same,  // the computation dtype
  Bool,  // predicates, comparisons, logical ops
  Real,  // complex gives the matching real dtype (abs, angle); real unchanged
};

// Whether backward reads the value of the (first) input. An in-place op under
// autograd then runs on a copy of it, since the write-back would change what
// the formula reads (PyTorch's original_self).
enum class SavesInput : uint8_t {
  Never,
  Always,
  IfComplex,            // only for complex inputs (sgn, angle)
  IfOtherRequiresGrad,  // binary: only when the other input needs a gradient (mul, div)
};

struct UnaryInfo {
  UnaryOp op;
  const char* name;
  Promotion promotion;
  OutDType out;
  uint32_t dtypes;      // computation dtypes the kernels accept (a dispatch mask)
  bool differentiable;  // has a derivative (angle records its own, in angle())
  SavesInput saves_input;
  constexpr bool supports_complex() const { return (dtypes & kMaskComplex) != 0; }
};

struct BinaryInfo {
  BinaryOp op;
  const char* name;
  Promotion promotion;
  OutDType out;
  uint32_t dtypes;  // computation dtypes the kernels accept (a dispatch mask)
  bool differentiable;
  SavesInput saves_self;  // whether backward reads the first input
  constexpr bool supports_complex() const { return (dtypes & kMaskComplex) != 0; }
};

struct TernaryInfo {
  TernaryOp op;
  const char* name;
  uint32_t dtypes;  // dtypes the kernels accept (the output's: the inputs' common dtype)
  bool differentiable;
  bool recorded_by_caller;  // where() and clamp() record their own backward
  constexpr bool supports_complex() const { return (dtypes & kMaskComplex) != 0; }
};

namespace elementwise_info_detail {
// Short names for the masks the tables use.
inline constexpr uint32_t kF = kMaskFloating;
inline constexpr uint32_t kFC = kMaskFloating | kMaskComplex;
inline constexpr uint32_t kRB = kMaskReal | kMaskBool;
inline constexpr uint32_t kIB = kMaskIntegral | kMaskBool;

// clang-format off
inline constexpr UnaryInfo kUnaryInfo[] = {
#define EMBER_ROW(E, name, promotion, out, dtypes, differentiable, saves) \
  {UnaryOp::E, name, Promotion::promotion, OutDType::out, dtypes, differentiable, SavesInput::saves},
  //        op          name                   promotion   out   dtypes         diff   saves input
  EMBER_ROW(Abs,         "abs",                 None,       Real, kMaskNumber,   true,  Always)
  EMBER_ROW(Neg,         "neg",                 None,       Same, kMaskNumber,   true,  Never)
  EMBER_ROW(Sign,        "sign",                None,       Same, kRB,           true,  Never)
  EMBER_ROW(Sgn,         "sgn",                 None,       Same, kMaskAll,      true,  IfComplex)
  EMBER_ROW(Exp,         "exp",                 IntToFloat, Same, kFC,           true,  Never)
  EMBER_ROW(Exp2,        "exp2",                IntToFloat, Same, kFC,           true,  Never)
  EMBER_ROW(Expm1,       "expm1",               IntToFloat, Same, kFC,           true,  Never)
  EMBER_ROW(Log,         "log",                 IntToFloat, Same, kFC,           true,  Always)
  EMBER_ROW(Log2,        "log2",                IntToFloat, Same, kFC,           true,  Always)
  EMBER_ROW(Log10,       "log10",               IntToFloat, Same, kFC,           true,  Always)
  EMBER_ROW(Log1p,       "log1p",               IntToFloat, Same, kFC,           true,  Always)
  EMBER_ROW(Sqrt,        "sqrt",                IntToFloat, Same, kFC,           true,  Never)
  EMBER_ROW(Rsqrt,       "rsqrt",               IntToFloat, Same, kFC,           true,  Never)
  EMBER_ROW(Square,      "square",              BoolToLong, Same, kMaskNumber,   true,  Always)
  EMBER_ROW(Reciprocal,  "reciprocal",          IntToFloat, Same, kFC,           true,  Never)
  EMBER_ROW(Sin,         "sin",                 IntToFloat, Same, kFC,           true,  Always)
  EMBER_ROW(Cos,         "cos",                 IntToFloat, Same, kFC,           true,  Always)
  EMBER_ROW(Tan,         "tan",                 IntToFloat, Same, kFC,           true,  Never)
  EMBER_ROW(Asin,        "asin",                IntToFloat, Same, kFC,           true,  Always)
  EMBER_ROW(Acos,        "acos",                IntToFloat, Same, kFC,           true,  Always)
  EMBER_ROW(Atan,        "atan",                IntToFloat, Same, kFC,           true,  Always)
  EMBER_ROW(Sinh,        "sinh",                IntToFloat, Same, kFC,           true,  Always)
  EMBER_ROW(Cosh,        "cosh",                IntToFloat, Same, kFC,           true,  Always)
  EMBER_ROW(Tanh,        "tanh",                IntToFloat, Same, kFC,           true,  Never)
  EMBER_ROW(Asinh,       "asinh",               IntToFloat, Same, kFC,           true,  Always)
  EMBER_ROW(Acosh,       "acosh",               IntToFloat, Same, kFC,           true,  Always)
  EMBER_ROW(Atanh,       "atanh",               IntToFloat, Same, kFC,           true,  Always)
  EMBER_ROW(Sigmoid,     "sigmoid",             IntToFloat, Same, kFC,           true,  Never)
  EMBER_ROW(Relu,        "relu",                None,       Same, kMaskReal,     true,  Never)
  EMBER_ROW(Silu,        "silu",                IntToFloat, Same, kFC,           true,  Always)
  EMBER_ROW(Erf,         "erf",                 IntToFloat, Same, kF,            true,  Always)
  EMBER_ROW(Erfc,        "erfc",                IntToFloat, Same, kF,            true,  Always)
  EMBER_ROW(Floor,       "floor",               None,       Same, kMaskReal,     true,  Never)
  EMBER_ROW(Ceil,        "ceil",                None,       Same, kMaskReal,     true,  Never)
  EMBER_ROW(Round,       "round",               None,       Same, kMaskReal,     true,  Never)
  EMBER_ROW(Trunc,       "trunc",               None,       Same, kMaskReal,     true,  Never)
  EMBER_ROW(Frac,        "frac",                None,       Same, kF,            true,  Never)
  EMBER_ROW(LogicalNot,  "logical_not",         None,       Bool, kMaskAll,      false, Never)
  EMBER_ROW(BitwiseNot,  "bitwise_not",         None,       Same, kIB,           false, Never)
  EMBER_ROW(GeluErf,     "gelu",                IntToFloat, Same, kF,            true,  Always)
  EMBER_ROW(GeluTanh,    "gelu",                IntToFloat, Same, kF,            true,  Always)
  EMBER_ROW(Isnan,       "isnan",               None,       Bool, kMaskAll,      false, Never)
  EMBER_ROW(Isinf,       "isinf",               None,       Bool, kMaskAll,      false, Never)
  EMBER_ROW(Isfinite,    "isfinite",            None,       Bool, kMaskAll,      false, Never)
  EMBER_ROW(Isposinf,    "isposinf",            None,       Bool, kRB,           false, Never)
  EMBER_ROW(Isneginf,    "isneginf",            None,       Bool, kRB,           false, Never)
  EMBER_ROW(Signbit,     "signbit",             None,       Bool, kRB,           false, Never)
  EMBER_ROW(Conj,        "conj",                None,       Same, kMaskAll,      true,  Never)
  EMBER_ROW(Angle,       "angle",               IntToFloat, Real, kFC,           true,  IfComplex)
#undef EMBER_ROW
};

inline constexpr BinaryInfo kBinaryInfo[] = {
#define EMBER_ROW(E, name, promotion, out, dtypes, differentiable, saves) \
  {BinaryOp::E, name, Promotion::promotion, OutDType::out, dtypes, differentiable, SavesInput::saves},
  //        op          name                   promotion   out   dtypes         diff   saves self
  EMBER_ROW(Add,         "add",                 None,       Same, kMaskAll,      true,  Never)
  EMBER_ROW(Mul,         "mul",                 None,       Same, kMaskAll,      true,  IfOtherRequiresGrad)
  EMBER_ROW(Div,         "div",                 IntToFloat, Same, kFC,           true,  IfOtherRequiresGrad)
  EMBER_ROW(DivTrunc,    "div",                 None,       Same, kMaskReal,     true,  Never)
  EMBER_ROW(DivFloor,    "div",                 None,       Same, kMaskReal,     true,  Never)
  EMBER_ROW(Fmod,        "fmod",                None,       Same, kMaskReal,     true,  Always)
  EMBER_ROW(Remainder,   "remainder",           None,       Same, kMaskReal,     true,  Always)
  EMBER_ROW(Pow,         "pow",                 None,       Same, kMaskAll,      true,  Always)
  EMBER_ROW(Atan2,       "atan2",               IntToFloat, Same, kF,            true,  Always)
  EMBER_ROW(Maximum,     "maximum",             None,       Same, kRB,           true,  Always)
  EMBER_ROW(Minimum,     "minimum",             None,       Same, kRB,           true,  Always)
  EMBER_ROW(Fmax,        "fmax",                None,       Same, kRB,           true,  Always)
  EMBER_ROW(Fmin,        "fmin",                None,       Same, kRB,           true,  Always)
  EMBER_ROW(Hypot,       "hypot",               IntToFloat, Same, kF,            true,  Always)
  EMBER_ROW(Copysign,    "copysign",            IntToFloat, Same, kF,            true,  Always)
  EMBER_ROW(Xlogy,       "xlogy",               IntToFloat, Same, kF,            true,  Always)
  EMBER_ROW(Eq,          "eq",                  None,       Bool, kMaskAll,      false, Never)
  EMBER_ROW(Ne,          "ne",                  None,       Bool, kMaskAll,      false, Never)
  EMBER_ROW(Lt,          "lt",                  None,       Bool, kRB,           false, Never)
  EMBER_ROW(Le,          "le",                  None,       Bool, kRB,           false, Never)
  EMBER_ROW(Gt,          "gt",                  None,       Bool, kRB,           false, Never)
  EMBER_ROW(Ge,          "ge",                  None,       Bool, kRB,           false, Never)
  EMBER_ROW(LogicalAnd,  "logical_and",         None,       Bool, kMaskAll,      false, Never)
  EMBER_ROW(LogicalOr,   "logical_or",          None,       Bool, kMaskAll,      false, Never)
  EMBER_ROW(LogicalXor,  "logical_xor",         None,       Bool, kMaskAll,      false, Never)
  EMBER_ROW(BitwiseAnd,  "bitwise_and",         None,       Same, kIB,           false, Never)
  EMBER_ROW(BitwiseOr,   "bitwise_or",          None,       Same, kIB,           false, Never)
  EMBER_ROW(BitwiseXor,  "bitwise_xor",         None,       Same, kIB,           false, Never)
  EMBER_ROW(LeftShift,   "bitwise_left_shift",  None,       Same, kMaskIntegral, false, Never)
  EMBER_ROW(RightShift,  "bitwise_right_shift", None,       Same, kMaskIntegral, false, Never)
#undef EMBER_ROW
};

inline constexpr TernaryInfo kTernaryInfo[] = {
  // op               name       dtypes                                  diff  recorded by caller
  {TernaryOp::Lerp,    "lerp",    kFC,         true, false},
  {TernaryOp::Addcmul, "addcmul", kMaskNumber, true, false},
  {TernaryOp::Addcdiv, "addcdiv", kMaskNumber, true, false},
  {TernaryOp::Where,   "where",   kMaskAll,    true, true},
  {TernaryOp::Clamp,   "clamp",   kRB,         true, true},
};
// clang-format on
}  // namespace elementwise_info_detail
using elementwise_info_detail::kBinaryInfo;
using elementwise_info_detail::kTernaryInfo;
using elementwise_info_detail::kUnaryInfo;

// The row of an op.
constexpr const UnaryInfo& op_info(UnaryOp op) { return kUnaryInfo[static_cast<size_t>(op)]; }
constexpr const BinaryInfo& op_info(BinaryOp op) { return kBinaryInfo[static_cast<size_t>(op)]; }
constexpr const TernaryInfo& op_info(TernaryOp op) { return kTernaryInfo[static_cast<size_t>(op)]; }

// The number of enumerators, counted from the X-macro lists.
#define EMBER_COUNT(E, n) +1
inline constexpr size_t kNumUnaryOps = 0 EMBER_UNARY_OPS(EMBER_COUNT);
inline constexpr size_t kNumBinaryOps = 0 EMBER_BINARY_OPS(EMBER_COUNT);
#undef EMBER_COUNT
inline constexpr size_t kNumTernaryOps = static_cast<size_t>(TernaryOp::Clamp) + 1;

namespace elementwise_info_detail {
// Row i describes enum value i (so info(op) is a plain index).
template <class Row, size_t N>
constexpr bool rows_in_enum_order(const Row (&rows)[N]) {
  for (size_t i = 0; i < N; ++i)
    if (static_cast<size_t>(rows[i].op) != i) return false;
  return true;
}
// Each row's name is the one the X-macro list gives its enumerator.
#define EMBER_NAME(E, n) #n,
inline constexpr std::string_view kUnaryNames[] = {EMBER_UNARY_OPS(EMBER_NAME)};
inline constexpr std::string_view kBinaryNames[] = {EMBER_BINARY_OPS(EMBER_NAME)};
#undef EMBER_NAME
template <class Row, size_t N>
constexpr bool names_match(const Row (&rows)[N], const std::string_view (&names)[N]) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] != rows[i].name) return false;
  return true;
}
}  // namespace elementwise_info_detail

static_assert(std::size(kUnaryInfo) == kNumUnaryOps, "kUnaryInfo needs one row per UnaryOp");
static_assert(std::size(kBinaryInfo) == kNumBinaryOps, "kBinaryInfo needs one row per BinaryOp");
static_assert(std::size(kTernaryInfo) == kNumTernaryOps, "kTernaryInfo needs one row per TernaryOp");
static_assert(elementwise_info_detail::rows_in_enum_order(kUnaryInfo), "kUnaryInfo rows must follow UnaryOp's order");
static_assert(elementwise_info_detail::rows_in_enum_order(kBinaryInfo), "kBinaryInfo rows must follow BinaryOp's order");
static_assert(elementwise_info_detail::rows_in_enum_order(kTernaryInfo), "kTernaryInfo rows must follow TernaryOp's order");
static_assert(elementwise_info_detail::names_match(kUnaryInfo, elementwise_info_detail::kUnaryNames),
              "kUnaryInfo names must be EMBER_UNARY_OPS's");
static_assert(elementwise_info_detail::names_match(kBinaryInfo, elementwise_info_detail::kBinaryNames),
              "kBinaryInfo names must be EMBER_BINARY_OPS's");

// Per-op columns of a table, for the family slots' coverage
// (KernelSlot::set_op_dtypes, missing_kernels): the ops' names and the
// dtypes the CPU's kernels compute for each.
namespace elementwise_info_detail {
template <class Row, size_t N>
constexpr std::array<const char*, N> names_of(const Row (&rows)[N]) {
  std::array<const char*, N> names{};
  for (size_t i = 0; i < N; ++i) names[i] = rows[i].name;
  return names;
}
template <class Row, size_t N>
constexpr std::array<uint32_t, N> dtypes_of(const Row (&rows)[N]) {
  std::array<uint32_t, N> masks{};
  for (size_t i = 0; i < N; ++i) masks[i] = rows[i].dtypes;
  return masks;
}
}  // namespace elementwise_info_detail
inline constexpr auto kUnaryOpNames = elementwise_info_detail::names_of(kUnaryInfo);
inline constexpr auto kBinaryOpNames = elementwise_info_detail::names_of(kBinaryInfo);
inline constexpr auto kTernaryOpNames = elementwise_info_detail::names_of(kTernaryInfo);
inline constexpr auto kUnaryOpDTypes = elementwise_info_detail::dtypes_of(kUnaryInfo);
inline constexpr auto kBinaryOpDTypes = elementwise_info_detail::dtypes_of(kBinaryInfo);
inline constexpr auto kTernaryOpDTypes = elementwise_info_detail::dtypes_of(kTernaryInfo);

}  // namespace ember
