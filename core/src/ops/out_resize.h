#pragma once
// out= handling shared by the shape, scan and sort families, with the rule
// TensorIterator applies: an out tensor of the wrong shape must be empty, and
// is then re-pointed at fresh storage of the result's shape.
#include "ember/ops/factories.h"
#include "iter/tensor_iterator.h"

namespace ember {

inline void resize_out(Tensor& out, IntArrayRef shape, const char* op,
                       MemoryFormat format = MemoryFormat::Contiguous) {
  EMBER_CHECK(out.defined(), op, ": out= tensor is undefined");
  if (out.sizes() == shape) return;
  EMBER_CHECK(out.numel() == 0, op, ": out= tensor has shape ", out.sizes(), " but the result has shape ",
              shape, " (only an empty out= tensor is resized)");
  Tensor fresh = empty(shape, out.options().memory_format(format));
  out.impl()->set_storage(fresh.storage());
  out.impl()->set_geometry(fresh.sizes(), fresh.strides(), 0);
}

// Throws unless values of dtype `from` may be written into `out`.
inline void check_out_dtype(const Tensor& out, DType from, const char* op) {
  EMBER_CHECK(can_cast(from, out.dtype()), op, ": result type ", from,
              " can't be cast to the desired output type ", out.dtype());
}

}  // namespace ember
