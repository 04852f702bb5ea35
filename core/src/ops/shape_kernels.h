#pragma once
// Kernel slot of the shape family. Ops whose output element is an input
// element picked independently along each dim (flip, roll, non-constant pad,
// repeat_interleave) describe the pick as one index map per dim; the kernel
// only moves bytes.
#include <vector>

#include "ember/core/tensor.h"
#include "ops/dispatch_stub.h"

namespace ember {

// out[j0, ..., jn] = src[maps[0][j0], ..., maps[n][jn]]. out and src have the
// same dim and dtype; maps[d] has out.size(d) entries, each in [0, src.size(d)).
using RemapCopyFn = void(const Tensor& src, Tensor& out, const std::vector<std::vector<int64_t>>& maps);
extern DispatchStub<RemapCopyFn> remap_copy_stub;

// tril (lower) / triu of the last two dims: src and out contiguous, same shape
// and dtype; out gets src where col - row <= diagonal (lower) or >= diagonal
// (upper), zero elsewhere.
using TriangleFn = void(const Tensor& src, Tensor& out, int64_t diagonal, bool lower);
extern DispatchStub<TriangleFn> triangle_stub;

}  // namespace ember
