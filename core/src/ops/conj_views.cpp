// Conjugate and negative views; view_as_real/view_as_complex live in
// complex_view_ops.cpp, the fused copy in copy.cpp.
//
// Note [Conjugate bit]
// conj() of a complex tensor is an O(1) view: same storage and geometry, with
// TensorImpl's conjugate bit flipped, so that its values are conj() of what
// the storage holds (PyTorch 1.10). imag() of a conjugate view is a real view
// with the negative bit set (its values are minus the stored imaginary parts).
// Views of a view with bits keep them; real() drops the conjugate bit (it
// does not change the real part). The bits are consumed as follows:
//  - fused, no temporary: copy_ (and clone/to/contiguous/resolve_conj, which
//    copy) applies conj/neg to the stored values while copying, on either side;
//    fill_ stores the transformed value; item() transforms the value it reads;
//    mm/bmm/mv/matmul/addmm pass a conjugate matrix to BLAS with a conjugating
//    flag ('C', or OpenBLAS's ConjNoTrans when BLAS reads it untransposed),
//    dot/vdot use cdotc/zdotc (linalg_ops.cpp, blas_kernels.cpp); only a
//    conjugate vector operand of a matrix-vector product is resolved.
//  - resolved, in the elementwise engine: TensorIterator replaces an input with
//    bits by a copy holding its values laid out exactly like it (so kernels that
//    compute offsets from its strides still work), and an output with bits by
//    such a copy that finish() (or the iterator's destructor) writes back,
//    applying the bits, so in-place ops through a conjugate view store conj().
//  - resolved at every kernel slot: calling a KernelSlot does the same for
//    each Tensor argument with a bit (detail::LazyBitsScope in kernel_slot.h):
//    reductions, scans, sort, shape and random kernels, ... see plain values,
//    and an argument the kernel writes (a `Tensor&` parameter of its
//    signature: out=, in-place) is written back.
//    KernelSlot::fused() skips this for kernels that consume the bits
//    (gemm/dot above).
//  - resolved at the op's entry (resolve_bits) where a kernel reads past an
//    operand's own extent through offsets (gather/scatter/index/index_put
//    restride their operands), and for the FFT primitives (not slots).
//  Tensor::data_ptr<T>() throws on a tensor with bits, so a kernel reached
//  without any of these fails loudly instead of reading wrong values (code
//  that consumes the bits reads the memory through the untyped data_ptr()).
// Printing and serialization read values, so they resolve.
#include "ops/conj_views.h"

#include <algorithm>

#include "autograd/record.h"
#include "ember/ops/complex.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "kernels/slots/copy_kernels.h"
#include "kernels/slots/kernel_slot.h"
#include "ops/op_utils.h"

namespace ember {

Tensor physical_alias(const Tensor& t) {
  auto impl = make_intrusive<TensorImpl>(t.storage(), t.dtype(), t.sizes(), t.strides(), t.storage_offset());
  impl->set_inference(t.is_inference());
  return Tensor(std::move(impl));
}

namespace {
// Elements of storage from t's first element to its last (strides are >= 0).
int64_t span_of(const Tensor& t) {
  int64_t span = 1;
  for (int64_t d = 0; d < t.dim(); ++d) span += (t.size(d) - 1) * t.stride(d);
  return span;
}

Tensor flat_span(const Storage& storage, DType dtype, int64_t offset, int64_t span) {
  const int64_t size = span, stride = 1;
  return Tensor(make_intrusive<TensorImpl>(storage, dtype, IntArrayRef(size), IntArrayRef(stride), offset));
}

// dst <- src with the bits applied (both without bits of their own).
void transform_copy(const Tensor& dst, const Tensor& src, bool conjugate, bool negate) {
  TensorIterator iter("resolve_conj");
  iter.add_output(dst).add_input(src).promote_inputs_to_common_dtype(false).output_dtype(dst.dtype()).is_inplace();
  iter.build();
  copy_slot(dst.device())(iter, conjugate, negate);
}
}  // namespace

Tensor materialize_keeping_geometry(const Tensor& t) {
  if (t.numel() == 0) return empty_strided(t.sizes(), t.strides(), t.options());
  const int64_t span = span_of(t);
  Tensor values = empty({span}, t.options());
  transform_copy(values, flat_span(t.storage(), t.dtype(), t.storage_offset(), span), t.is_conj(), t.is_neg());
  return Tensor(make_intrusive<TensorImpl>(values.storage(), t.dtype(), t.sizes(), t.strides(), 0));
}

void write_back_keeping_geometry(const Tensor& dst, const Tensor& values) {
  if (dst.numel() == 0) return;
  const int64_t span = span_of(dst);
  transform_copy(flat_span(dst.storage(), dst.dtype(), dst.storage_offset(), span),
                 flat_span(values.storage(), values.dtype(), values.storage_offset(), span), dst.is_conj(),
                 dst.is_neg());
  dst.bump_version();
}

Scalar to_physical_scalar(const Tensor& t, const Scalar& v) {
  Scalar r = v;
  if (t.is_conj() && r.is_complex()) r = Scalar(std::conj(r.to<complex128>()));
  if (t.is_neg()) r = -r;
  return r;
}

namespace detail {
Tensor& LazyBitsScope::hold(const Tensor& t, bool is_output) {
  EMBER_CHECK(n_ < kMax, "internal: too many conjugate/negative view arguments to one kernel");
  Held& h = held_[n_++];
  h.original = t;
  h.values = materialize_keeping_geometry(t);
  h.is_output = is_output;
  return h.values;
}

void LazyBitsScope::write_back() {
  for (int i = 0; i < n_; ++i) {
    Held& h = held_[i];
    if (h.is_output && h.values.numel() > 0) write_back_keeping_geometry(h.original, h.values);
  }
}
}  // namespace detail

bool is_conj(const Tensor& self) { return self.is_conj(); }
bool is_neg(const Tensor& self) { return self.is_neg(); }
// A resolved copy is a clone: copy_ applies the bit (and autograd sees an identity).
Tensor resolve_conj(const Tensor& self) { return self.is_conj() ? self.clone() : self; }
Tensor resolve_neg(const Tensor& self) { return self.is_neg() ? self.clone() : self; }
Tensor Tensor::resolve_conj() const { return ember::resolve_conj(*this); }
Tensor Tensor::resolve_neg() const { return ember::resolve_neg(*this); }

namespace {
void check_complex_parts(const char* op, const Tensor& a, const Tensor& b, const char* first, const char* second) {
  EMBER_CHECK(a.defined() && b.defined(), op, ": got an undefined tensor");
  EMBER_CHECK(a.dtype() == b.dtype(), op, ": expected ", first, " and ", second,
              " to have the same dtype, but got ", a.dtype(), " and ", b.dtype());
  EMBER_CHECK(a.dtype() == kFloat32 || a.dtype() == kFloat64, op,
              ": expected both inputs to be float32 or float64 tensors, but got ", a.dtype(), " and ", b.dtype());
  EMBER_CHECK(a.device() == b.device(), op, ": expected both inputs on one device, got ", a.device(), " and ",
              b.device());
}

// real + i imag at the broadcast shape (no autograd: callers record).
Tensor assemble_complex(const char* op, const Tensor& re, const Tensor& im) {
  const DimVector shape = infer_broadcast_size(re.sizes(), im.sizes(), op);
  Tensor out = empty(shape, TensorOptions(to_complex_dtype(re.dtype())).device(re.device()));
  const Tensor parts = view_as_real(out);
  parts.select(-1, 0).copy_(re);
  parts.select(-1, 1).copy_(im);
  return out;
}
}  // namespace

Tensor complex(const Tensor& real, const Tensor& imag) {
  check_complex_parts("complex", real, imag, "real", "imag");
  autograd::OpRecorder rec("complex", {real, imag});
  Tensor out = assemble_complex("complex", real, imag);
  // derivatives.yaml: real: at::real(grad), imag: at::imag(grad).
  if (rec)
    rec.record(out, [](autograd::BackwardContext& c) {
      const Tensor& g = c.grads[0];
      return autograd::variable_list{c.needs(0) ? g.real() : Tensor(), c.needs(1) ? g.imag() : Tensor()};
    });
  return out;
}

Tensor polar(const Tensor& abs, const Tensor& angle) {
  check_complex_parts("polar", abs, angle, "abs", "angle");
  autograd::OpRecorder rec("polar", {abs, angle});
  const Tensor cos_a = angle.cos(), sin_a = angle.sin();
  Tensor out = assemble_complex("polar", abs * cos_a, abs * sin_a);
  // z = r e^{i t}: dL/dr = Re(conj(g) e^{i t}), dL/dt = Re(conj(g) i z).
  // (PyTorch's polar_backward writes e^{i t} as sgn(z), which is the same for
  // r > 0; e^{i t} is also right for r <= 0.)
  if (rec)
    rec.record(out, [sr = rec.save(abs), st = rec.save(angle)](autograd::BackwardContext& c) {
      const Tensor gc = c.grads[0].conj();
      const Tensor t = c.unpack(st);
      Tensor grad_abs, grad_angle;
      if (c.needs(0)) grad_abs = (gc * complex(t.cos(), t.sin())).real();
      if (c.needs(1)) grad_angle = (gc * polar(c.unpack(sr), t) * Scalar(complex128(0, 1))).real();
      return autograd::variable_list{grad_abs, grad_angle};
    });
  return out;
}

}  // namespace ember
