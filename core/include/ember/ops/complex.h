#pragma once
// Complex-number views and constructors (PyTorch 1.10 semantics).
//  - conj(t) (elementwise.h) is an O(1) view with the conjugate bit set;
//    is_conj/resolve_conj/conj_physical handle the bit explicitly.
//  - view_as_real: complex [...] -> real [..., 2] sharing storage;
//    view_as_complex: real [..., 2] (last stride 1, other strides and the
//    storage offset even) -> complex [...] sharing storage.
//  - polar(abs, angle) = abs * (cos(angle) + i sin(angle));
//    complex(real, imag) = real + i imag (both float32 or both float64, broadcast).
#include "ember/core/tensor.h"

namespace ember {

bool is_conj(const Tensor& self);
bool is_neg(const Tensor& self);
Tensor resolve_conj(const Tensor& self);
Tensor resolve_neg(const Tensor& self);
Tensor conj_physical(const Tensor& self);
Tensor& conj_physical_(Tensor& self);

Tensor view_as_real(const Tensor& self);
Tensor view_as_complex(const Tensor& self);
Tensor polar(const Tensor& abs, const Tensor& angle);
Tensor complex(const Tensor& real, const Tensor& imag);

}  // namespace ember
