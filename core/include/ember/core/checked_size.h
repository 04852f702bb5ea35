#pragma once
// Checked size arithmetic: element counts, byte counts and storage extents,
// computed with overflow checks. Every op, decoder and loader that turns sizes
// into a count or an allocation uses these (Note [Checked sizes]).
//
// Note [Checked sizes]
// Sizes come from users, files and other ops, and a product of valid sizes can
// overflow int64: empty({1 << 31, 1 << 31}) of float32 needs 2^64 bytes. An
// unchecked product wraps, a tensor then claims more elements than its buffer
// holds, and the first kernel that walks it writes past the end. The rules:
//  - numel is the product of the sizes and must fit in int64; a tensor with a
//    zero-size dim has numel 0 whatever its other sizes (as PyTorch's numel).
//  - The bytes a non-empty tensor addresses, from the start of its storage to
//    its last element, (offset + sum((size - 1) * stride) + 1) * itemsize, fit
//    in int64 and lie inside its storage, and so does each byte stride
//    (stride * itemsize): kernels and TensorIterator compute byte offsets in
//    int64 without overflow.
//  - numel * itemsize may exceed int64 only for views that repeat elements
//    (stride 0, as expand gives; PyTorch allows them): whatever materializes
//    one (contiguous, clone, an op's output) computes its byte count here and
//    raises instead.
// TensorImpl enforces the first two on every geometry it takes (a backstop
// whose message names no op); ops check the sizes they compute first, so that
// the error names the op and the sizes, in PyTorch's words: "op: storage size
// calculation overflowed with sizes=[...]". An allocation that the system
// cannot meet raises "op: not enough memory: you tried to allocate N bytes"
// (allocator.h).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "ember/core/array_ref.h"

namespace ember {

// True when a * b (a + b) overflows int64; *out holds the product (sum) otherwise.
[[nodiscard]] inline bool mul_overflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}
[[nodiscard]] inline bool add_overflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_add_overflow(a, b, out);
}

// a * b and a + b; an overflow raises "op: integer overflow: a * b does not fit in int64".
int64_t checked_mul(int64_t a, int64_t b, std::string_view op);
int64_t checked_add(int64_t a, int64_t b, std::string_view op);

// The product of non-negative sizes (0 when one is 0), or nullopt when it
// overflows int64.
std::optional<int64_t> try_numel(IntArrayRef sizes);

// The number of elements of `sizes`; raises naming op for a negative size or
// an overflow.
int64_t checked_numel(IntArrayRef sizes, std::string_view op);

// Bytes of a dense tensor of these sizes: numel * itemsize, checked.
int64_t checked_nbytes(IntArrayRef sizes, size_t itemsize, std::string_view op);

// Bytes of storage a tensor with this geometry needs: (offset + 1 + sum((size
// - 1) * stride)) * itemsize, 0 when a size is 0 (PyTorch's
// computeStorageNbytes). Also checks that every byte stride fits in int64.
// Raises naming op for negative sizes, strides or offset, and for overflow.
int64_t storage_nbytes(IntArrayRef sizes, IntArrayRef strides, int64_t offset, size_t itemsize,
                       std::string_view op);

}  // namespace ember
