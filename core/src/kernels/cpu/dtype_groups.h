#pragma once
// The dtype groups that the heavy kernel families are compiled in, one
// translation unit per (family, group). See Note [Kernels split by dtype group].
#include "ember/core/dtype.h"

// Note [Kernels split by dtype group]
// The elementwise (unary, binary, ternary), copy and reduction kernels are a
// switch over ops inside a dispatch over dtypes (and, for copy and sum/prod, a
// second dispatch over the output dtype): hundreds of loop instantiations. In
// one file each they took up to two minutes of a core to compile (over ten on
// a loaded 2-core machine), more than the rest of core together. So each
// family's body is a function template over the element type, kept in
// `<family>_kernels_impl.h` in an anonymous namespace, as it was before the
// split (so the compiler inlines and lays out the loops as before); the files
// `<family>_kernels_<group>.cpp` include it and define the family's entry
// points for the types of one group below, one overload per type
// (`unary_kernel_for(T tag, ...)`, declared in `<family>_kernels_typed.h`);
// `<family>_kernels.cpp` dispatches on the dtype to them and registers the
// slot. The loops and the math are unchanged, only compiled in several files
// (docs/architecture.md, "Build time", has the numbers). A type missing from
// the groups would be an undefined symbol: the static_asserts below check the
// groups cover each dtype exactly once.
#define EMBER_DTYPE_GROUP_BOOL_BYTE(X) X(bool) X(uint8_t) X(int8_t)
#define EMBER_DTYPE_GROUP_INT(X) X(int16_t) X(int32_t) X(int64_t)
#define EMBER_DTYPE_GROUP_REDUCED_FLOAT(X) X(::ember::Half) X(::ember::BFloat16)
#define EMBER_DTYPE_GROUP_FLOAT(X) X(float) X(double)
#define EMBER_DTYPE_GROUP_COMPLEX(X) X(::ember::complex64) X(::ember::complex128)

#define EMBER_DTYPE_GROUPS_ALL(X)    \
  EMBER_DTYPE_GROUP_BOOL_BYTE(X)     \
  EMBER_DTYPE_GROUP_INT(X)           \
  EMBER_DTYPE_GROUP_REDUCED_FLOAT(X) \
  EMBER_DTYPE_GROUP_FLOAT(X)         \
  EMBER_DTYPE_GROUP_COMPLEX(X)

// The per-type entry points live in ember::cpu_kernels, opened with these.
// The namespace is hidden: like the anonymous namespaces the kernels had before
// the split, it keeps them out of libember_core's dynamic symbol table, and
// the calls to them bind directly, never through the PLT.
#define EMBER_CPU_KERNELS_BEGIN \
  namespace ember {             \
  namespace [[gnu::visibility("hidden")]] cpu_kernels {
#define EMBER_CPU_KERNELS_END \
  }                           \
  }

namespace ember::dtype_groups {
#define EMBER_DTYPE_GROUP_BIT(T) | dtype_bit(dtype_of_v<T>)
#define EMBER_DTYPE_GROUP_ONE(T) +1
static_assert((0u EMBER_DTYPE_GROUPS_ALL(EMBER_DTYPE_GROUP_BIT)) == kMaskAll,
              "every dtype belongs to a kernel dtype group");
// (Quantized dtypes have kernels of their own, in core/src/quantized/.)
static_assert((0 EMBER_DTYPE_GROUPS_ALL(EMBER_DTYPE_GROUP_ONE)) == kNumDTypes - kNumQuantizedDTypes,
              "no dtype belongs to two kernel dtype groups");
#undef EMBER_DTYPE_GROUP_BIT
#undef EMBER_DTYPE_GROUP_ONE
}  // namespace ember::dtype_groups

namespace ember {
// Whether the element type T is in a dispatch mask (kMaskReal, ...): the
// compile-time form of dispatch<Mask>'s test, for bodies already typed on T.
template <uint32_t Mask, class T>
inline constexpr bool in_mask_v = (Mask & dtype_bit(dtype_of_v<T>)) != 0;
}  // namespace ember

namespace ember {
// dispatch<Mask>(t, op, f) inside a body already typed on T (the C++ type of
// t): calls f(T{}) when T is in Mask, else throws dispatch's error naming the
// op and dtype. f is a generic lambda, not instantiated for types outside Mask.
template <uint32_t Mask, class T, class F>
decltype(auto) dispatch_typed(DType t, const char* op, F&& f) {
  if constexpr (in_mask_v<Mask, T>) return f(T{});
  else detail::throw_unsupported_dtype(op, t);
}
}  // namespace ember
