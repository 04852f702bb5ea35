// CPU kernels for copy_ (with dtype conversion) and fill_.
#include <cstring>

#include "kernels/cpu/convert.h"
#include "kernels/cpu/loops.h"
#include "kernels/slots/copy_kernels.h"

namespace ember {
namespace {

// A converting copy that also conjugates and/or negates (compile-time flags,
// so the plain copy loop stays branch-free). Negation happens in whichever of
// the two types is signed: only floating (real or complex) tensors carry bits.
template <bool Conj, bool Neg>
void transform_copy(TensorIterator& iter) {
  dispatch<kMaskAll>(iter.dtype(0), "copy_", [&](auto d) {
    using D = decltype(d);
    dispatch<kMaskAll>(iter.dtype(1), "copy_", [&](auto s) {
      using S = decltype(s);
      cpu_kernel(iter, [](S v) {
        constexpr bool neg_in_src = is_complex_v<S> || std::is_floating_point_v<S> || std::is_signed_v<S>;
        if constexpr (Neg && neg_in_src) v = -v;
        D r = convert<D>(v);
        if constexpr (Neg && !neg_in_src && !std::is_same_v<D, bool>) r = static_cast<D>(-r);
        if constexpr (Conj && is_complex_v<D>) r = std::conj(r);
        return r;
      });
    });
  });
}

void copy_kernel(TensorIterator& iter, bool conjugate, bool negate) {
  const DType dst = iter.dtype(0), src = iter.dtype(1);
  if (conjugate && !is_complex(dst)) conjugate = false;  // real part only: nothing to conjugate
  if (conjugate || negate) {
    if (conjugate && negate) transform_copy<true, true>(iter);
    else if (conjugate) transform_copy<true, false>(iter);
    else transform_copy<false, true>(iter);
    return;
  }
  if (dst == src) {
    const int64_t es = static_cast<int64_t>(element_size(dst));
    if (iter.is_contiguous()) {
      char* out = iter.data(0);
      const char* in = iter.data(1);
      parallel_for(0, iter.numel(), kGrainSize * 4, [&](int64_t b, int64_t e) {
        std::memcpy(out + b * es, in + b * es, (e - b) * es);
      });
      return;
    }
    // Same dtype, strided: move bytes of the right width (no conversion).
    switch (es) {
      case 1: cpu_kernel(iter, [](uint8_t v) { return v; }); return;
      case 2: cpu_kernel(iter, [](uint16_t v) { return v; }); return;
      case 4: cpu_kernel(iter, [](uint32_t v) { return v; }); return;
      case 8: cpu_kernel(iter, [](uint64_t v) { return v; }); return;
      case 16: cpu_kernel(iter, [](complex128 v) { return v; }); return;
    }
  }
  dispatch<kMaskAll>(dst, "copy_", [&](auto d) {
    using D = decltype(d);
    dispatch<kMaskAll>(src, "copy_", [&](auto s) {
      using S = decltype(s);
      cpu_kernel(iter, [](S v) { return convert<D>(v); });
    });
  });
}

void fill_kernel(TensorIterator& iter, const Scalar& value) {
  dispatch<kMaskAll>(iter.dtype(0), "fill_", [&](auto tag) {
    using T = decltype(tag);
    const T v = value.to<T>();
    cpu_kernel(iter, [v]() { return v; });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(copy_stub, CPU, copy_kernel);
EMBER_REGISTER_KERNEL(fill_stub, CPU, fill_kernel);

}  // namespace ember
