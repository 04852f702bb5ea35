// CPU kernels of masked_select, nonzero and masked_scatter_.
//
// Note [Two-pass mask kernels]
// The output size depends on the data, so each kernel splits the input into
// fixed chunks, counts the selected elements of every chunk in parallel, turns
// the counts into offsets (a prefix sum over a handful of chunks), then fills
// in parallel, each chunk writing from its own offset. The fill loops are
// branch-free (write, then advance the output position by the mask bit) and
// skip or copy whole 8-byte runs of the mask that are all false or all true.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/ops/factories.h"
#include "kernels/cpu/index_helpers.h"
#include "kernels/slots/indexing_kernels.h"

namespace ember {
namespace {

struct Chunks {
  int64_t numel, size, count;
  int64_t begin(int64_t c) const { return c * size; }
  int64_t length(int64_t c) const { return std::min(numel, (c + 1) * size) - c * size; }
};

Chunks make_chunks(int64_t numel) {
  constexpr int64_t kMinChunk = int64_t{1} << 16;
  const int64_t wanted = std::clamp<int64_t>(numel / kMinChunk, 1, 4 * get_num_threads());
  const int64_t size = ((numel + wanted - 1) / wanted + 63) / 64 * 64;
  return {numel, size, (numel + size - 1) / size};
}

// offsets[c] = selected elements before chunk c; offsets.back() = total.
template <class Count>
std::vector<int64_t> chunk_offsets(const Chunks& ch, const Count& count) {
  std::vector<int64_t> offsets(ch.count + 1, 0);
  parallel_for(0, ch.count, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) offsets[c + 1] = count(ch.begin(c), ch.length(c));
  });
  for (int64_t c = 0; c < ch.count; ++c) offsets[c + 1] += offsets[c];
  return offsets;
}

template <class F>
void for_each_chunk(const Chunks& ch, const F& f) {
  parallel_for(0, ch.count, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) f(c, ch.begin(c), ch.length(c));
  });
}

// True bytes of a bool mask (bytes are 0 or 1), summed 8 lanes at a time.
int64_t count_true(const uint8_t* m, int64_t n) {
  int64_t total = 0, i = 0;
  while (i + 8 <= n) {
    // At most 255 words per round, so no byte lane overflows.
    const int64_t words = std::min<int64_t>((n - i) / 8, 255);
    uint64_t lanes = 0;
    for (int64_t w = 0; w < words; ++w) {
      uint64_t v;
      std::memcpy(&v, m + i + 8 * w, 8);
      lanes += v;
    }
    i += 8 * words;
    const uint64_t pairs = (lanes & 0x00FF00FF00FF00FFull) + ((lanes >> 8) & 0x00FF00FF00FF00FFull);
    total += static_cast<int64_t>((pairs * 0x0001000100010001ull) >> 48);
  }
  for (; i < n; ++i) total += m[i];
  return total;
}

template <class T>
inline bool is_nonzero(T v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) return static_cast<float>(v) != 0.f;
  else return v != T(0);
}

// out[k++] = value(i) for every i < n with m[i] set. Writes happen only up to
// the last set bit, so they never reach the next chunk's part of `out`.
template <class O, class Value>
void compact(const uint8_t* m, int64_t n, O* __restrict out, const Value& value) {
  int64_t stop = n;
  while (stop > 0 && !m[stop - 1]) --stop;
  constexpr uint64_t kAllTrue = 0x0101010101010101ull;
  int64_t i = 0, k = 0;
  for (; i + 8 <= stop; i += 8) {
    uint64_t w;
    std::memcpy(&w, m + i, 8);
    if (w == 0) continue;
    if (w == kAllTrue) {
      for (int t = 0; t < 8; ++t) out[k + t] = value(i + t);
      k += 8;
      continue;
    }
    for (int t = 0; t < 8; ++t) {
      out[k] = value(i + t);
      k += m[i + t];
    }
  }
  for (; i < stop; ++i) {
    out[k] = value(i);
    k += m[i];
  }
}

Tensor masked_select_kernel(const Tensor& self, const Tensor& mask) {
  const int64_t numel = self.numel();
  if (numel == 0) return empty({0}, self.options());
  const uint8_t* m = reinterpret_cast<const uint8_t*>(mask.data_ptr<bool>());
  const Chunks ch = make_chunks(numel);
  const auto offsets = chunk_offsets(ch, [&](int64_t b, int64_t n) { return count_true(m + b, n); });
  Tensor out = empty({offsets.back()}, self.options());
  if (offsets.back() == 0) return out;
  dispatch_element_size(self.element_size(), "masked_select", [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(self.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    for_each_chunk(ch, [&](int64_t c, int64_t b, int64_t n) {
      const T* xc = x + b;
      compact(m + b, n, o + offsets[c], [xc](int64_t i) { return xc[i]; });
    });
  });
  return out;
}

// Indices of the non-zeros in [b, b + n) of a contiguous tensor of `sizes`,
// written from `out` (row-major, one row of sizes.size() per non-zero).
template <class T>
void nonzero_range(const T* x, int64_t b, int64_t n, IntArrayRef sizes, int64_t* __restrict out) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  if constexpr (std::is_same_v<T, bool>) {
    if (nd == 1) {
      compact(reinterpret_cast<const uint8_t*>(x) + b, n, out, [b](int64_t i) { return b + i; });
      return;
    }
  }
  int64_t stop = b + n;
  while (stop > b && !is_nonzero(x[stop - 1])) --stop;
  int64_t k = 0;
  if (nd == 1) {
    for (int64_t i = b; i < stop; ++i) {
      out[k] = i;
      k += is_nonzero(x[i]);
    }
    return;
  }
  DimVector coord(nd);
  for (int64_t q = nd - 1, rest = b; q >= 0; --q) {
    coord[q] = rest % sizes[q];
    rest /= sizes[q];
  }
  for (int64_t i = b; i < stop;) {
    const int64_t run = std::min(stop - i, sizes[nd - 1] - coord[nd - 1]);
    for (int64_t t = 0; t < run; ++t) {
      int64_t* row = out + k * nd;
      for (int64_t q = 0; q + 1 < nd; ++q) row[q] = coord[q];
      row[nd - 1] = coord[nd - 1] + t;
      k += is_nonzero(x[i + t]);
    }
    i += run;
    coord[nd - 1] += run;
    for (int64_t q = nd - 1; q > 0 && coord[q] >= sizes[q]; --q) {
      coord[q] = 0;
      ++coord[q - 1];
    }
  }
}

Tensor nonzero_kernel(const Tensor& self) {
  const int64_t numel = self.numel(), nd = self.dim();
  const TensorOptions long_opts = TensorOptions(kInt64).device(self.device());
  if (numel == 0) return empty({0, nd}, long_opts);
  return dispatch<kMaskAll>(self.dtype(), "nonzero", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    const T* x = self.data_ptr<T>();
    const Chunks ch = make_chunks(numel);
    const auto offsets = chunk_offsets(ch, [&](int64_t b, int64_t n) -> int64_t {
      if constexpr (std::is_same_v<T, bool>) {
        return count_true(reinterpret_cast<const uint8_t*>(x) + b, n);
      } else {
        int64_t c = 0;
        for (int64_t i = b; i < b + n; ++i) c += is_nonzero(x[i]);
        return c;
      }
    });
    Tensor out = empty({offsets.back(), nd}, long_opts);
    if (offsets.back() == 0 || nd == 0) return out;
    int64_t* o = out.data_ptr<int64_t>();
    const IntArrayRef sizes = self.sizes();
    for_each_chunk(ch, [&](int64_t c, int64_t b, int64_t n) { nonzero_range(x, b, n, sizes, o + offsets[c] * nd); });
    return out;
  });
}

void masked_scatter_kernel(Tensor& self, const Tensor& mask, const Tensor& source) {
  const int64_t numel = self.numel();
  if (numel == 0) return;
  const uint8_t* m = reinterpret_cast<const uint8_t*>(mask.data_ptr<bool>());
  const Chunks ch = make_chunks(numel);
  const auto offsets = chunk_offsets(ch, [&](int64_t b, int64_t n) { return count_true(m + b, n); });
  EMBER_CHECK(offsets.back() <= source.numel(), "masked_scatter_: number of elements of source (",
              source.numel(), ") < number of ones in mask (", offsets.back(), ")");
  dispatch_element_size(self.element_size(), "masked_scatter_", [&](auto tag) {
    using T = decltype(tag);
    T* x = static_cast<T*>(self.data_ptr());
    const T* src = static_cast<const T*>(source.data_ptr());
    for_each_chunk(ch, [&](int64_t c, int64_t b, int64_t n) {
      int64_t k = offsets[c];
      for (int64_t i = b; i < b + n; ++i)
        if (m[i]) x[i] = src[k++];
    });
  });
}

}  // namespace

// Every dtype of self (element sizes; nonzero's dispatch).
EMBER_REGISTER_KERNEL_FOR_DTYPES(masked_select_slot, CPU, masked_select_kernel, kMaskAll);
EMBER_REGISTER_KERNEL_FOR_DTYPES(nonzero_slot, CPU, nonzero_kernel, kMaskAll);
EMBER_REGISTER_KERNEL_FOR_DTYPES(masked_scatter_slot, CPU, masked_scatter_kernel, kMaskAll);

}  // namespace ember
