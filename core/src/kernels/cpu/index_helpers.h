#pragma once
// Shared by the indexing kernels: index bound checks and dispatch on element
// size (moving elements needs their width, not their dtype).
#include <cstdint>

#include "ember/core/error.h"
#include "kernels/slots/indexing_kernels.h"

namespace ember {

[[noreturn]] inline void throw_index_error(const IndexBound& b, int64_t index) {
  EMBER_FAIL(b.op, ": index ", index, " is out of bounds for dimension ", b.dim, " with size ", b.size);
}

// Wraps a negative index when allowed; throws when the result is outside [0, size).
inline int64_t checked_index(int64_t index, const IndexBound& b) {
  const int64_t i = (b.wrap_negative && index < 0) ? index + b.size : index;
  if (static_cast<uint64_t>(i) >= static_cast<uint64_t>(b.size)) [[unlikely]]
    throw_index_error(b, index);
  return i;
}

// Checks idx[0..n) without branching per element (so the loop vectorizes);
// on failure reports the first bad index.
inline void check_indices(const int64_t* idx, int64_t n, const IndexBound& b) {
  const uint64_t size = static_cast<uint64_t>(b.size);
  bool bad = false;
  if (b.wrap_negative) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = idx[i] + (idx[i] < 0 ? b.size : 0);
      bad |= static_cast<uint64_t>(v) >= size;
    }
  } else {
    for (int64_t i = 0; i < n; ++i) bad |= static_cast<uint64_t>(idx[i]) >= size;
  }
  if (bad) [[unlikely]]
    for (int64_t i = 0; i < n; ++i) checked_index(idx[i], b);
}

struct Bytes16 {
  uint64_t lo, hi;
};

// Calls f(T{}) with an unsigned type of `size` bytes (16: Bytes16).
template <class F>
void dispatch_element_size(size_t size, const char* op, F&& f) {
  switch (size) {
    case 1: f(uint8_t{}); return;
    case 2: f(uint16_t{}); return;
    case 4: f(uint32_t{}); return;
    case 8: f(uint64_t{}); return;
    case 16: f(Bytes16{}); return;
  }
  EMBER_FAIL(op, ": unsupported element size ", size);
}

}  // namespace ember
