// Complex views: real(), imag(), conj() (the conjugate bit, Note [Conjugate
// bit] in ops/conj_views.cpp), view_as_real and view_as_complex.
#include "ember/core/checked_size.h"
#include "ember/ops/complex.h"
#include "ember/ops/elementwise.h"
#include "ops/view_helpers.h"

namespace ember {

Tensor Tensor::real() const {
  // real(conj(z)) = real(z): the view carries no bit.
  if (!is_complex()) return *this;
  DimVector strides(this->strides());
  for (auto& s : strides) s *= 2;
  // The gradient of a real part is complex(grad, 0).
  return recorded_view("real", *this,
                       make_view(*this, sizes(), strides, storage_offset() * 2, to_real_dtype(dtype()), true),
                       [dt = dtype()](const Tensor& g) { return g.to(dt); });
}

Tensor Tensor::imag() const {
  EMBER_CHECK(is_complex(), "imag is not implemented for tensors with non-complex dtypes.");
  DimVector strides(this->strides());
  for (auto& s : strides) s *= 2;
  // imag(conj(z)) = -imag(z): the imaginary part of a conjugate view is a
  // negative view of the stored imaginary parts (PyTorch's neg bit), so it
  // reads and writes correctly without a copy.
  Tensor view = make_view(*this, sizes(), strides, storage_offset() * 2 + 1, to_real_dtype(dtype()), true);
  view.impl()->set_neg(is_conj());
  // The gradient of an imaginary part is complex(0, grad).
  return recorded_view("imag", *this, std::move(view),
                       [dt = dtype()](const Tensor& g) { return g.to(dt) * Scalar(complex128(0, 1)); });
}

// ---- conjugate views (Note [Conjugate bit] in ops/conj_views.cpp) ----
Tensor conj(const Tensor& self) {
  if (!self.is_complex()) return self;
  Tensor view = make_view(self, self.sizes(), self.strides(), self.storage_offset());
  view.impl()->set_conj(!self.is_conj());
  return recorded_view("conj", self, std::move(view), [](const Tensor& g) { return g.conj(); });
}
Tensor Tensor::conj() const { return ember::conj(*this); }

Tensor view_as_real(const Tensor& self) {
  EMBER_CHECK(!self.is_conj(), "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the "
              "conjugate tensor so you can view it as real, use self.resolve_conj()");
  EMBER_CHECK(self.is_complex(), "view_as_real is only supported for complex tensors, got dtype ", self.dtype());
  DimVector sizes(self.sizes()), strides(self.strides());
  for (auto& st : strides) st *= 2;  // byte strides are unchanged: they fit
  sizes.push_back(2);
  strides.push_back(1);
  checked_numel(sizes, "view_as_real");  // twice the elements: an expanded view may overflow
  // Backward: the gradient [..., 2] viewed back as complex.
  return recorded_view("view_as_real", self,
                       make_view(self, sizes, strides, self.storage_offset() * 2, to_real_dtype(self.dtype()), true),
                       [](const Tensor& g) { return view_as_complex(g.contiguous()); });
}

Tensor view_as_complex(const Tensor& self) {
  const DType dt = self.dtype();
  EMBER_CHECK(dt == kFloat32 || dt == kFloat64, "view_as_complex is only supported for float and double "
              "tensors, but got a tensor of scalar type: ", dt);
  EMBER_CHECK(!self.is_neg(), "view_as_complex: the tensor is a negative view; call resolve_neg() first");
  EMBER_CHECK(self.dim() > 0, "view_as_complex: Input tensor must have one or more dimensions");
  EMBER_CHECK(self.size(-1) == 2, "view_as_complex: Tensor must have a last dimension of size 2, got sizes ",
              self.sizes());
  EMBER_CHECK(self.stride(-1) == 1, "view_as_complex: Tensor must have a last dimension with stride 1, got strides ",
              self.strides());
  DimVector sizes(self.sizes()), strides(self.strides());
  sizes.pop_back();
  strides.pop_back();
  for (size_t i = 0; i < strides.size(); ++i) {
    EMBER_CHECK(strides[i] % 2 == 0, "view_as_complex: Tensor must have a stride divisible by 2 for all but "
                "last dimension, got strides ", self.strides());
    strides[i] /= 2;
  }
  EMBER_CHECK(self.storage_offset() % 2 == 0, "view_as_complex: Tensor must have a storage_offset divisible by 2, "
              "got ", self.storage_offset());
  return recorded_view("view_as_complex", self,
                       make_view(self, sizes, strides, self.storage_offset() / 2, to_complex_dtype(dt), true),
                       [](const Tensor& g) { return view_as_real(g.resolve_conj()); });
}

}  // namespace ember
