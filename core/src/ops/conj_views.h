#pragma once
// Internal helpers for tensors with lazy bits (conjugate / negative views):
// Note [Conjugate bit] in conj_views.cpp.
#include "ember/core/tensor.h"

namespace ember {

// The same storage, geometry and dtype with the bits cleared: what the memory
// holds. No autograd history; shares the version counter.
Tensor physical_alias(const Tensor& t);

// Values of a lazy-bit tensor in new memory laid out exactly like t (same
// sizes and strides; the whole span of storage t reaches is copied), so that
// kernels that compute their own offsets from t's strides (index, gather,
// expanded "restrided" operands) read it as they would read t. No autograd.
Tensor materialize_keeping_geometry(const Tensor& t);

// The inverse, for outputs: writes `values` (made by
// materialize_keeping_geometry(dst), possibly modified) back into dst's
// storage, applying dst's bits, over the same span.
void write_back_keeping_geometry(const Tensor& dst, const Tensor& values);

// The value a write through `t` must store so that reading t gives `v`.
Scalar to_physical_scalar(const Tensor& t, const Scalar& v);
// The value t's reads give for a stored `v` (item()).
inline Scalar to_logical_scalar(const Tensor& t, const Scalar& v) { return to_physical_scalar(t, v); }

// Op entry points that hand raw pointers to kernels: self without bits
// (a resolved copy when a bit is set, self otherwise).
inline Tensor resolve_bits(const Tensor& t) {
  return t.defined() && t.impl()->has_lazy_bits() ? t.resolve_conj().resolve_neg() : t;
}

}  // namespace ember
