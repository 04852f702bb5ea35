// copy_, to, contiguous, clone, fill_, zero_.
#include "ops/copy.h"

#include "ember/ops/factories.h"
#include "ops/op_utils.h"

namespace ember {

EMBER_DEFINE_STUB(copy_stub, CopyFn, "copy_");
EMBER_DEFINE_STUB(fill_stub, FillFn, "fill_");

Tensor& Tensor::copy_(const Tensor& src) {
  EMBER_CHECK(src.defined(), "copy_: source tensor is undefined");
  EMBER_CHECK(!has_internal_overlap(*this), "copy_: the destination (sizes ", sizes(),
              ", strides ", strides(), ") has elements sharing memory; clone() it first");
  EMBER_CHECK(device() == src.device(), "copy_: copying from ", src.device(), " to ", device(),
              " needs the CUDA backend, which this build does not include");
  if (is_same(src)) return *this;
  if (numel() == 0) return *this;
  TensorIterator iter("copy_");
  // The output keeps its own dtype: the kernel converts (without output_dtype the
  // iterator would compute into a temporary of the source dtype and drop it).
  iter.add_output(*this).add_input(src).promote_inputs_to_common_dtype(false).output_dtype(dtype()).is_inplace();
  iter.build();
  copy_stub(device())(iter);
  bump_version();
  return *this;
}

Tensor Tensor::fill_(const Scalar& value) {
  EMBER_CHECK(!has_internal_overlap(*this), "fill_: the tensor (sizes ", sizes(), ", strides ",
              strides(), ") has elements sharing memory");
  if (numel() == 0) return *this;
  TensorIterator iter("fill_");
  iter.add_output(*this).is_inplace();
  iter.build();
  fill_stub(device())(iter, value);
  bump_version();
  return *this;
}

Tensor Tensor::fill_(const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "fill_: only supports a 0-dimension value tensor, but got one with ",
              value.dim(), " dimensions");
  return fill_(value.item());
}

Tensor Tensor::zero_() { return fill_(0); }

Tensor Tensor::contiguous(MemoryFormat format) const {
  if (is_contiguous(format)) return *this;
  return clone(format);
}

namespace {
// A dense copy of a non-dense tensor in `dtype`, allocated by the elementwise
// engine: it keeps the order of t's strides (a transposed slice stays
// transposed), as PyTorch's empty_like does for non-dense inputs.
Tensor dense_copy_keeping_order(const Tensor& t, DType dtype) {
  TensorIterator iter("clone");
  iter.add_output(Tensor()).add_input(t).promote_inputs_to_common_dtype(false).output_dtype(dtype);
  iter.build();
  copy_stub(t.device())(iter);
  return iter.output();
}
}  // namespace

Tensor Tensor::clone(MemoryFormat format) const {
  Tensor out;
  if (format == MemoryFormat::Preserve && is_non_overlapping_and_dense()) {
    out = empty_strided(sizes(), strides(), options());
  } else if (format == MemoryFormat::Preserve && suggest_memory_format() == MemoryFormat::Contiguous) {
    return dense_copy_keeping_order(*this, dtype());
  } else {
    MemoryFormat f = format == MemoryFormat::Preserve ? suggest_memory_format() : format;
    out = empty(sizes(), options().memory_format(f));
  }
  out.copy_(*this);
  return out;
}

Tensor Tensor::to(const TensorOptions& options, bool copy) const {
  DType target = options.has_dtype() ? options.dtype() : dtype();
  if (!copy && target == dtype() && options.device() == device()) return *this;
  if (options.device() == device() && !is_non_overlapping_and_dense() &&
      suggest_memory_format() == MemoryFormat::Contiguous)
    return dense_copy_keeping_order(*this, target);
  Tensor out = is_non_overlapping_and_dense()
                   ? empty_strided(sizes(), strides(), TensorOptions(target).device(options.device()))
                   : empty(sizes(), TensorOptions(target)
                                        .device(options.device())
                                        .memory_format(suggest_memory_format()));
  out.copy_(*this);
  return out;
}
Tensor Tensor::to(DType t, bool copy) const { return to(TensorOptions(t).device(device()), copy); }
Tensor Tensor::to(Device d, bool copy) const { return to(TensorOptions(dtype()).device(d), copy); }
Tensor Tensor::to(Device d, DType t, bool copy) const { return to(TensorOptions(t).device(d), copy); }

}  // namespace ember
