#pragma once
// Kernel slot of the shape family. Ops whose output element is an input
// element picked independently along each dim (flip, roll, non-constant pad,
// repeat_interleave) describe the pick as one index map per dim; the kernel
// only moves bytes.
#include <iterator>
#include <new>
#include <stdexcept>
#include <vector>

#include "ember/core/tensor.h"
#include "kernels/slots/kernel_slot.h"

namespace ember {

// out[j0, ..., jn] = src[maps[0][j0], ..., maps[n][jn]]. out and src have the
// same dim and dtype; maps[d] has out.size(d) entries, each in [0, src.size(d)).
using RemapCopyFn = void(const Tensor& src, Tensor& out, const std::vector<std::vector<int64_t>>& maps);
extern KernelSlot<RemapCopyFn> remap_copy_slot;

// Runs `build` (which returns the maps). Maps cost 8 bytes per index of each
// dim, more than a byte-sized output along a long dim, so their allocation can
// fail after the output's succeeded: that is an error naming the op (Note
// [Checked sizes]). Ops allocate their output first, so that a shape too large
// fails there, before any map is built.
template <class F>
std::vector<std::vector<int64_t>> build_index_maps(const char* op, F&& build) {
  try {
    return build();
  } catch (const std::bad_alloc&) {
    EMBER_FAIL(op, ": not enough memory for the index maps of the copy");
  } catch (const std::length_error&) {
    EMBER_FAIL(op, ": not enough memory for the index maps of the copy");
  }
}

// tril (lower) / triu of the last two dims: src and out contiguous, same shape
// and dtype; out gets src where col - row <= diagonal (lower) or >= diagonal
// (upper), zero elsewhere.
using TriangleFn = void(const Tensor& src, Tensor& out, int64_t diagonal, bool lower);
// Op names, indexed by `lower` (triangle_slot is a family slot of two ops).
inline constexpr const char* kTriangleOpNames[] = {"triu", "tril"};
extern KernelSlot<TriangleFn> triangle_slot;

}  // namespace ember
