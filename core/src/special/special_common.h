#pragma once
// Shared by the ember::special op files: argument checks and the forward of
// an elementwise function over a TensorIterator.
#include "ember/core/error.h"
#include "ember/core/tensor.h"
#include "iter/tensor_iterator.h"

namespace ember::special::detail {

inline void check_real(const Tensor& t, const char* name) {
  EMBER_CHECK(t.defined(), name, ": got an undefined tensor");
  EMBER_CHECK(!t.is_complex(), name, ": complex inputs are not supported (got ", t.dtype(), ")");
}

// The forward of a unary op: integral/bool inputs compute in the default float dtype.
// out: undefined for a new tensor, else the out= argument (resized, cast to
// its dtype; out= calls take no part in autograd, as in PyTorch).
template <class Launch>
Tensor compute_unary(const Tensor& self, const Tensor& out, const char* name, Launch launch) {
  check_real(self, name);
  TensorIterator iter(name);
  iter.add_output(out).add_input(self).promote_integer_inputs_to_float();
  iter.build();
  launch(iter);
  iter.finish();
  if (out.defined()) out.bump_version();
  return iter.output();
}

}  // namespace ember::special::detail
