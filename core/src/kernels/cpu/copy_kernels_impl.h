#pragma once
// The body of the CPU converting copy, typed on the source element type:
// copy_kernel_from_body<S>, in an anonymous namespace as before the split. Included only
// by copy_kernels_<group>.cpp, which define the per-type entry points of
// copy_kernels_typed.h on it (Note [Kernels split by dtype group] in dtype_groups.h).
#include "kernels/cpu/convert.h"
#include "kernels/cpu/copy_kernels_typed.h"
#include "kernels/cpu/dtype_groups.h"
#include "kernels/cpu/loops.h"

namespace ember {
namespace {

// A converting copy that also conjugates and/or negates (compile-time flags,
// so the plain copy loop stays branch-free). Negation happens in whichever of
// the two types is signed: only floating (real or complex) tensors carry bits.
// Conj is only asked for with a complex destination (copy_kernel drops it for
// a real one), so only those destinations are instantiated.
template <class S, bool Conj, bool Neg>
void transform_copy_from(TensorIterator& iter) {
  dispatch<Conj ? kMaskComplex : kMaskAll>(iter.dtype(0), "copy_", [&](auto d) {
    using D = decltype(d);
    cpu_kernel(iter, [](S v) {
      constexpr bool neg_in_src = is_complex_v<S> || std::is_floating_point_v<S> || std::is_signed_v<S>;
      if constexpr (Neg && neg_in_src) v = -v;
      D r = convert<D>(v);
      if constexpr (Neg && !neg_in_src && !std::is_same_v<D, bool>) r = static_cast<D>(-r);
      if constexpr (Conj && is_complex_v<D>) r = std::conj(r);
      return r;
    });
  });
}

template <class S>
void copy_kernel_from_body(TensorIterator& iter, bool conjugate, bool negate) {
  if (conjugate && negate) return transform_copy_from<S, true, true>(iter);
  if (conjugate) return transform_copy_from<S, true, false>(iter);
  if (negate) return transform_copy_from<S, false, true>(iter);
  dispatch<kMaskAll>(iter.dtype(0), "copy_", [&](auto d) {
    using D = decltype(d);
    cpu_kernel(iter, [](S v) { return convert<D>(v); });
  });
}

}  // namespace
}  // namespace ember
