#include "ops/op_utils.h"

#include "ember/ops/factories.h"

namespace ember {

DimVector infer_broadcast_size(IntArrayRef a, IntArrayRef b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK(da == db || da == 1 || db == 1, op, ": shapes ", a, " and ", b,
                " are not broadcastable (size ", da, " vs ", db, " at dim ", i, ")");
    out[i] = da == 1 ? db : da;
  }
  // Two valid (expanded) shapes can broadcast to more elements than int64
  // counts (Note [Checked sizes]).
  checked_numel(out, op);
  return out;
}

uint64_t dims_to_mask(IntArrayRef dims, int64_t ndim, const char* op) {
  EMBER_CHECK(ndim <= 64, op, ": tensors with more than 64 dims are not supported");
  if (dims.empty()) return ndim == 0 ? 0 : (ndim == 64 ? ~uint64_t{0} : (uint64_t{1} << ndim) - 1);
  uint64_t mask = 0;
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim, op);
    EMBER_CHECK(!(mask >> w & 1), op, ": dim ", w, " appears multiple times in the list of dims");
    mask |= uint64_t{1} << w;
  }
  return mask;
}

Tensor scalar_to_tensor(const Scalar& s, Device device) {
  // Full precision, as PyTorch wraps Python numbers: result_type then treats
  // the wrapped float64 as "a floating scalar", not as float64.
  DType dtype = s.is_boolean() ? kBool : s.is_integral() ? kInt64 : s.is_complex() ? kComplex128 : kFloat64;
  Tensor t = full({}, s, TensorOptions(dtype).device(device));
  t.impl()->set_wrapped_number(true);
  return t;
}

bool has_internal_overlap(const Tensor& t) {
  if (t.is_contiguous() || t.is_non_overlapping_and_dense()) return false;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.stride(d) == 0 && t.size(d) > 1) return true;
  return false;
}

void check_sizes_nonnegative(IntArrayRef sizes, const char* op) {
  for (int64_t s : sizes)
    EMBER_CHECK(s >= 0, op, ": negative dimension ", s, " in sizes ", sizes);
}

}  // namespace ember
