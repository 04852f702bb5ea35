// copy_, to, contiguous, clone, fill_, zero_.
#include "ops/copy.h"

#include "autograd/record.h"
#include "autograd/view_history.h"
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
  if (autograd::inplace_records(*this, {src})) {
    autograd::copy_with_grad(*this, src);
    return *this;
  }
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
  if (autograd::inplace_records(*this)) {
    // The old value gets a zero gradient: a copy of a constant.
    autograd::copy_with_grad(*this, full({}, value, options()));
    return *this;
  }
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

namespace {
Tensor clone_impl(const Tensor& self, MemoryFormat format) {
  Tensor out;
  if (format == MemoryFormat::Preserve && self.is_non_overlapping_and_dense()) {
    out = empty_strided(self.sizes(), self.strides(), self.options());
  } else if (format == MemoryFormat::Preserve && self.suggest_memory_format() == MemoryFormat::Contiguous) {
    return dense_copy_keeping_order(self, self.dtype());
  } else {
    MemoryFormat f = format == MemoryFormat::Preserve ? self.suggest_memory_format() : format;
    out = empty(self.sizes(), self.options().memory_format(f));
  }
  out.copy_(self);
  return out;
}

Tensor to_impl(const Tensor& self, const TensorOptions& options, bool copy) {
  DType target = options.has_dtype() ? options.dtype() : self.dtype();
  if (!copy && target == self.dtype() && options.device() == self.device()) return self;
  if (options.device() == self.device() && !self.is_non_overlapping_and_dense() &&
      self.suggest_memory_format() == MemoryFormat::Contiguous)
    return dense_copy_keeping_order(self, target);
  Tensor out = self.is_non_overlapping_and_dense()
                   ? empty_strided(self.sizes(), self.strides(), TensorOptions(target).device(options.device()))
                   : empty(self.sizes(), TensorOptions(target)
                                        .device(options.device())
                                        .memory_format(self.suggest_memory_format()));
  out.copy_(self);
  return out;
}
}  // namespace

namespace {
// Records an identity-like copy (clone, to): the gradient flows back unchanged
// (the engine casts it to self's dtype).
template <class F>
Tensor recorded_copy(const char* op, const Tensor& self, const F& compute) {
  autograd::OpRecorder rec(op, {self});
  rec.allow_batched_grads();  // identity
  Tensor out = compute();
  if (rec && !out.is_same(self))
    rec.record(out, [](autograd::BackwardContext& c) { return autograd::variable_list{c.grads[0]}; });
  return out;
}
}  // namespace

Tensor Tensor::clone(MemoryFormat format) const {
  return recorded_copy("clone", *this, [&] { return clone_impl(*this, format); });
}

Tensor Tensor::to(const TensorOptions& options, bool copy) const {
  return recorded_copy("_to_copy", *this, [&] { return to_impl(*this, options, copy); });
}

Tensor Tensor::to(DType t, bool copy) const { return to(TensorOptions(t).device(device()), copy); }
Tensor Tensor::to(Device d, bool copy) const { return to(TensorOptions(dtype()).device(d), copy); }
Tensor Tensor::to(Device d, DType t, bool copy) const { return to(TensorOptions(t).device(d), copy); }

}  // namespace ember
