// copy_, to, contiguous, clone, fill_, zero_.
#include "kernels/slots/copy_kernels.h"

#include "autograd/record.h"
#include "autograd/view_history.h"
#include "ember/ops/factories.h"
#include "ops/quantized_tensor.h"
#include "ops/conj_views.h"
#include "ops/op_utils.h"
#include "ops/scalar_overflow.h"

namespace ember {

EMBER_DEFINE_SLOT(copy_slot, CopyFn, "copy_");
EMBER_DEFINE_SLOT(fill_slot, FillFn, "fill_");
EMBER_DEFINE_SLOT(device_copy_slot, DeviceCopyFn, "copy_ (between devices)");

namespace {
// The values of t, contiguous and without lazy bits, on t's device (t itself
// when it already is).
Tensor plain_contiguous(const Tensor& t) {
  if (t.is_contiguous() && !t.impl()->has_lazy_bits()) return t;
  Tensor out = empty(t.sizes(), t.options());
  out.copy_(t);
  return out;
}

// copy_ between two devices: the bytes cross in the slot of the device that is
// not the CPU, dtype conversion and strides are handled on one side by that
// device's copy_slot. Two devices of different non-CPU types go through the host.
// non_blocking reaches the device's slot, which only queues a copy whose host
// side is pinned (a staging tensor here is pageable host memory or device
// memory on the same stream, so it stays correct).
void copy_between_devices(Tensor& dst, const Tensor& src, bool non_blocking) {
  const Device from = src.device(), to = dst.device();
  if (!from.is_cpu() && !to.is_cpu() && from.type != to.type) {
    Tensor host = src.to(kCPU);
    dst.copy_(host);
    return;
  }
  const Device backend = to.is_cpu() ? from : to;
  // The bytes cross in src's dtype; dst's own copy_ converts and restrides.
  Tensor src_plain = plain_contiguous(src);
  const bool dst_ready = dst.is_contiguous() && !dst.impl()->has_lazy_bits() && dst.dtype() == src.dtype();
  if (dst_ready) {
    device_copy_slot(backend)(dst, src_plain, non_blocking);
    return;
  }
  Tensor staging = empty(src.sizes(), TensorOptions(src.dtype()).device(to));
  device_copy_slot(backend)(staging, src_plain, non_blocking);
  dst.copy_(staging);
}
}  // namespace

Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) {
  EMBER_CHECK(src.defined(), "copy_: source tensor is undefined");
  EMBER_CHECK(!has_internal_overlap(*this), "copy_: the destination (sizes ", sizes(),
              ", strides ", strides(), ") has elements sharing memory; clone() it first");
  if (is_same(src)) return *this;
  if (is_quantized() || src.is_quantized()) {
    EMBER_CHECK(device() == src.device(), "copy_: quantized tensors copy within one device");
    quantized_copy_(*this, src);
    bump_version();
    return *this;
  }
  if (autograd::inplace_records(*this, {src})) {
    autograd::copy_with_grad(*this, src);
    return *this;
  }
  if (device() != src.device()) {
    if (numel() == 0) return *this;
    // expand raises (naming both sizes) when src does not broadcast.
    copy_between_devices(*this, src.sizes() == sizes() ? src : src.expand(sizes()), non_blocking);
    bump_version();
    return *this;
  }
  if (numel() == 0) return *this;
  // Note [Conjugate bit]: copy_ consumes the bits of both sides without a
  // temporary. Reading src gives conj^a(neg^b(src_mem)); dst's memory must hold
  // conj^c(neg^d(value)); both are involutions, so the kernel applies their
  // exclusive or to the stored values.
  const bool conjugate = is_conj() != src.is_conj();
  const bool negate = is_neg() != src.is_neg();
  const Tensor dst_mem = impl()->has_lazy_bits() ? physical_alias(*this) : *this;
  const Tensor src_mem = src.impl()->has_lazy_bits() ? physical_alias(src) : src;
  TensorIterator iter("copy_");
  // The output keeps its own dtype: the kernel converts (without output_dtype the
  // iterator would compute into a temporary of the source dtype and drop it).
  iter.add_output(dst_mem).add_input(src_mem).promote_inputs_to_common_dtype(false).output_dtype(dtype()).is_inplace();
  iter.build();
  copy_slot(device())(iter, conjugate, negate);
  bump_version();
  return *this;
}

Tensor Tensor::fill_(const Scalar& value) {
  check_scalar_fits(value, dtype(), "fill_");  // Note [Scalar overflow]
  EMBER_CHECK(!has_internal_overlap(*this), "fill_: the tensor (sizes ", sizes(), ", strides ",
              strides(), ") has elements sharing memory");
  if (autograd::inplace_records(*this)) {
    // The old value gets a zero gradient: a copy of a constant.
    autograd::copy_with_grad(*this, full({}, value, options()));
    return *this;
  }
  if (numel() == 0) return *this;
  TensorIterator iter("fill_");
  // A conjugate/negative view stores the value its reads turn back into `value`.
  if (impl()->has_lazy_bits()) iter.add_output(physical_alias(*this)).is_inplace();
  else iter.add_output(*this).is_inplace();
  iter.build();
  fill_slot(device())(iter, impl()->has_lazy_bits() ? to_physical_scalar(*this, value) : value);
  bump_version();
  return *this;
}

Tensor Tensor::fill_(const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "fill_: only supports a 0-dimension value tensor, but got one with ",
              value.dim(), " dimensions");
  return fill_(value.item());
}

Tensor Tensor::zero_() { return fill_(0); }

namespace {
Tensor clone_impl(const Tensor& self, MemoryFormat format, const char* op);
template <class F>
Tensor recorded_copy(const char* op, const Tensor& self, const F& compute);
}  // namespace

Tensor Tensor::contiguous(MemoryFormat format) const {
  if (is_contiguous(format)) return *this;
  // clone, whose errors (a huge expanded view: Note [Checked sizes]) name contiguous.
  return recorded_copy("clone", *this, [&] { return clone_impl(*this, format, "contiguous"); });
}

namespace {
// A dense copy of a non-dense tensor in `dtype`, allocated by the elementwise
// engine: it keeps the order of t's strides (a transposed slice stays
// transposed), as PyTorch's empty_like does for non-dense inputs.
Tensor dense_copy_keeping_order(const Tensor& t, DType dtype, const char* op) {
  TensorIterator iter(op);
  // A conjugate/negative view is read as its values (the kernel applies the bits).
  iter.add_output(Tensor()).add_input(t.impl()->has_lazy_bits() ? physical_alias(t) : t)
      .promote_inputs_to_common_dtype(false).output_dtype(dtype);
  iter.build();
  copy_slot(t.device())(iter, t.is_conj(), t.is_neg());
  return iter.output();
}
}  // namespace

namespace {
Tensor clone_impl(const Tensor& self, MemoryFormat format, const char* op) {
  if (self.is_quantized()) return quantized_clone(self, format, op);
  Tensor out;
  if (format == MemoryFormat::Preserve && self.is_non_overlapping_and_dense()) {
    out = empty_strided_for(op, self.sizes(), self.strides(), self.options());
  } else if (format == MemoryFormat::Preserve && self.suggest_memory_format() == MemoryFormat::Contiguous) {
    return dense_copy_keeping_order(self, self.dtype(), op);
  } else {
    MemoryFormat f = format == MemoryFormat::Preserve ? self.suggest_memory_format() : format;
    out = empty_for(op, self.sizes(), self.options().memory_format(f));
  }
  out.copy_(self);
  return out;
}

Tensor to_impl(const Tensor& self, const TensorOptions& options, bool copy, bool non_blocking) {
  DType target = options.has_dtype() ? options.dtype() : self.dtype();
  if (!copy && target == self.dtype() && options.device() == self.device()) return self;
  if (options.device() == self.device() && !self.is_non_overlapping_and_dense() &&
      self.suggest_memory_format() == MemoryFormat::Contiguous)
    return dense_copy_keeping_order(self, target, "to");
  Tensor out = self.is_non_overlapping_and_dense()
                   ? empty_strided_for("to", self.sizes(), self.strides(), TensorOptions(target).device(options.device()))
                   : empty_for("to", self.sizes(), TensorOptions(target)
                                                  .device(options.device())
                                                  .memory_format(self.suggest_memory_format()));
  out.copy_(self, non_blocking);
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
  return recorded_copy("clone", *this, [&] { return clone_impl(*this, format, "clone"); });
}

Tensor Tensor::to(const TensorOptions& options, bool copy) const {
  return to(options, false, copy);
}

Tensor Tensor::to(const TensorOptions& options, bool non_blocking, bool copy) const {
  return recorded_copy("_to_copy", *this, [&] { return to_impl(*this, options, copy, non_blocking); });
}
Tensor Tensor::to(Device d, bool non_blocking, bool copy) const {
  return to(TensorOptions(dtype()).device(d), non_blocking, copy);
}
Tensor Tensor::to(Device d, DType t, bool non_blocking, bool copy) const {
  return to(TensorOptions(t).device(d), non_blocking, copy);
}

Tensor Tensor::to(DType t, bool copy) const { return to(TensorOptions(t).device(device()), copy); }
Tensor Tensor::to(Device d, bool copy) const { return to(TensorOptions(dtype()).device(d), copy); }
Tensor Tensor::to(Device d, DType t, bool copy) const { return to(TensorOptions(t).device(d), copy); }

}  // namespace ember
