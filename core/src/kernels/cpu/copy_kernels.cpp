// CPU kernels for copy_ (with dtype conversion) and fill_. The converting
// copies (a loop per source x destination dtype) are typed on the source dtype
// and compiled per dtype group (copy_kernels_impl.h, copy_kernels_<group>.cpp;
// Note [Kernels split by dtype group] in dtype_groups.h).
#include <cstring>

#include "kernels/cpu/copy_kernels_typed.h"
#include "kernels/cpu/loops.h"
#include "kernels/slots/copy_kernels.h"

namespace ember {
namespace {

void copy_kernel(TensorIterator& iter, bool conjugate, bool negate) {
  const DType dst = iter.dtype(0), src = iter.dtype(1);
  if (conjugate && !is_complex(dst)) conjugate = false;  // real part only: nothing to conjugate
  if (conjugate || negate) {
    dispatch<kMaskAll>(src, "copy_", [&](auto s) { cpu_kernels::copy_kernel_from(s, iter, conjugate, negate); });
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
  dispatch<kMaskAll>(src, "copy_", [&](auto s) { cpu_kernels::copy_kernel_from(s, iter, false, false); });
}

void fill_kernel(TensorIterator& iter, const Scalar& value) {
  dispatch<kMaskAll>(iter.dtype(0), "fill_", [&](auto tag) {
    using T = decltype(tag);
    const T v = value.to<T>();
    cpu_kernel(iter, [v]() { return v; });
  });
}

}  // namespace

// Every source (copy_) and destination (fill_) dtype.
EMBER_REGISTER_KERNEL_FOR_DTYPES(copy_slot, CPU, copy_kernel, kMaskAll);
EMBER_REGISTER_KERNEL_FOR_DTYPES(fill_slot, CPU, fill_kernel, kMaskAll);

}  // namespace ember
