// CPU kernels of advanced indexing: element offsets, index (gather through
// offsets), index_put_ and the contiguous index_select.
#include <algorithm>
#include <cstring>

#include "kernels/cpu/index_helpers.h"
#include "kernels/cpu/loops.h"
#include "kernels/slots/indexing_kernels.h"

namespace ember {
namespace {

void index_offsets_kernel(TensorIterator& iter, const IndexBound& bound, int64_t stride) {
  const IndexBound b = bound;
  if (iter.ninputs() == 1)
    cpu_kernel(iter, [b, stride](int64_t i) -> int64_t { return checked_index(i, b) * stride; });
  else
    cpu_kernel(iter, [b, stride](int64_t acc, int64_t i) -> int64_t {
      return acc + checked_index(i, b) * stride;
    });
}

// Operands (out, src, offsets): out = src[offsets].
void index_gather_kernel(TensorIterator& iter) {
  dispatch_element_size(element_size(iter.dtype(0)), iter.op_name(), [&](auto tag) {
    using T = decltype(tag);
    iter.for_each([](char** data, const int64_t* strides, int64_t n) {
      char* out = data[0];
      const char* src = data[1];
      const char* off = data[2];
      if (strides[0] == sizeof(T) && strides[1] == 0 && strides[2] == sizeof(int64_t)) {
        T* __restrict o = reinterpret_cast<T*>(out);
        const T* s = reinterpret_cast<const T*>(src);
        const int64_t* __restrict f = reinterpret_cast<const int64_t*>(off);
        for (int64_t i = 0; i < n; ++i) o[i] = s[f[i]];
        return;
      }
      for (int64_t i = 0; i < n; ++i) {
        const int64_t f = *reinterpret_cast<const int64_t*>(off + i * strides[2]);
        *reinterpret_cast<T*>(out + i * strides[0]) =
            reinterpret_cast<const T*>(src + i * strides[1])[f];
      }
    });
  });
}

template <class T>
T add_values(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a || b;
  else {
    using C = compute_type_t<T>;
    return static_cast<T>(static_cast<C>(a) + static_cast<C>(b));
  }
}

// Operands (dst, values, offsets): dst[offsets] = values (or +=).
void index_put_kernel(TensorIterator& iter, bool accumulate) {
  if (!accumulate) {
    // Repeated offsets: one of the values wins, as in PyTorch.
    dispatch_element_size(element_size(iter.dtype(0)), iter.op_name(), [&](auto tag) {
      using T = decltype(tag);
      iter.for_each([](char** data, const int64_t* strides, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          const int64_t f = *reinterpret_cast<const int64_t*>(data[2] + i * strides[2]);
          reinterpret_cast<T*>(data[0] + i * strides[0])[f] =
              *reinterpret_cast<const T*>(data[1] + i * strides[1]);
        }
      });
    });
    return;
  }
  // Serial: repeated offsets accumulate in a fixed order, without races.
  dispatch<kMaskAll>(iter.dtype(0), iter.op_name(), [&](auto tag) {
    using T = decltype(tag);
    iter.serial_for_each(
        [](char** data, const int64_t* strides, int64_t n) {
          for (int64_t i = 0; i < n; ++i) {
            const int64_t f = *reinterpret_cast<const int64_t*>(data[2] + i * strides[2]);
            T& dst = reinterpret_cast<T*>(data[0] + i * strides[0])[f];
            dst = add_values(dst, *reinterpret_cast<const T*>(data[1] + i * strides[1]));
          }
        },
        0, iter.numel());
  });
}

// Contiguous self and out: out[o, j, :] = self[o, index[j], :].
void index_select_kernel(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out,
                         const IndexBound& b) {
  const int64_t n = index.numel();
  const int64_t* idx = index.data_ptr<int64_t>();
  if (out.numel() == 0) {
    check_indices(idx, n, b);
    return;
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= self.size(d);
  for (int64_t d = dim + 1; d < self.dim(); ++d) inner *= self.size(d);
  const int64_t size = self.size(dim);
  const char* src = static_cast<const char*>(self.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  if (inner == 1) {
    // Element gather, checked a block at a time so both loops stay branch-free.
    dispatch_element_size(self.element_size(), b.op, [&](auto tag) {
      using T = decltype(tag);
      const T* s = reinterpret_cast<const T*>(src);
      T* o = reinterpret_cast<T*>(dst);
      parallel_for(0, outer * n, kGrainSize, [&](int64_t begin, int64_t end) {
        constexpr int64_t kBlock = 2048;
        for (int64_t i = begin; i < end;) {
          const int64_t row = i / n, j0 = i % n;
          const int64_t len = std::min({end - i, n - j0, kBlock});
          const int64_t* __restrict ix = idx + j0;
          const T* __restrict srow = s + row * size;
          T* __restrict orow = o + i;
          check_indices(ix, len, b);
          if (b.wrap_negative) {
            for (int64_t t = 0; t < len; ++t) orow[t] = srow[ix[t] + (ix[t] < 0 ? size : 0)];
          } else {
            for (int64_t t = 0; t < len; ++t) orow[t] = srow[ix[t]];
          }
          i += len;
        }
      });
    });
    return;
  }
  // Whole rows of `inner` elements: one memcpy each. Rows are picked at random
  // places, so the loop is bound by memory latency: prefetch a few rows ahead.
  const size_t row_bytes = static_cast<size_t>(inner) * self.element_size();
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 17) / static_cast<int64_t>(row_bytes));
  constexpr int64_t kAhead = 16;
  parallel_for(0, outer * n, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      if (r + kAhead < end) {
        const int64_t ra = r + kAhead;
        const int64_t ka = idx[ra % n];
        if (ka >= -size && ka < size)
          __builtin_prefetch(src + ((ra / n) * size + (ka < 0 ? ka + size : ka)) * row_bytes);
      }
      const int64_t o = r / n, k = checked_index(idx[r % n], b);
      std::memcpy(dst + r * row_bytes, src + (o * size + k) * row_bytes, row_bytes);
    }
  });
}

}  // namespace

// Offsets are int64; the others move elements of every size (accumulation
// adds in every dtype, bool as or).
EMBER_REGISTER_KERNEL_FOR_DTYPES(index_offsets_slot, CPU, index_offsets_kernel, dtype_bit(kInt64));
EMBER_REGISTER_KERNEL_FOR_DTYPES(index_gather_slot, CPU, index_gather_kernel, kMaskAll);
EMBER_REGISTER_KERNEL_FOR_DTYPES(index_put_slot, CPU, index_put_kernel, kMaskAll);
EMBER_REGISTER_KERNEL_FOR_DTYPES(index_select_slot, CPU, index_select_kernel, kMaskAll);
constexpr uint32_t kIndexPutOpDTypes[] = {kMaskAll, kMaskAll};  // index_put, index_put_accumulate
static_assert(std::size(kIndexPutOpDTypes) == std::size(kIndexPutOpNames));
static const bool index_put_op_dtypes_registered = index_put_slot.set_op_dtypes(DeviceType::CPU, kIndexPutOpDTypes);

}  // namespace ember
