// CPU kernels for copy_ (with dtype conversion) and fill_.
#include <cstring>

#include "kernels/cpu/convert.h"
#include "kernels/cpu/loops.h"
#include "ops/copy.h"

namespace ember {
namespace {

void copy_kernel(TensorIterator& iter) {
  const DType dst = iter.dtype(0), src = iter.dtype(1);
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
