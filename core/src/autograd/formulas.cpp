#include "autograd/formulas.h"

#include <algorithm>

#include "ember/ops/factories.h"
#include "ops/op_utils.h"

namespace ember::autograd {

DimVector reduced_dims(IntArrayRef dims, int64_t ndim) {
  DimVector out;
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : dims) out.push_back(wrap_dim(d, std::max<int64_t>(ndim, 1), "backward"));
  std::sort(out.begin(), out.end());
  return out;
}

Tensor unsqueeze_reduced(const Tensor& t, int64_t ndim, IntArrayRef dims, bool keepdim) {
  if (keepdim || ndim == 0) return t;
  Tensor r = t;
  for (int64_t d : reduced_dims(dims, ndim)) r = r.unsqueeze(d);
  return r;
}

Tensor expand_reduced(const Tensor& grad, IntArrayRef self_sizes, IntArrayRef dims, bool keepdim) {
  const int64_t ndim = static_cast<int64_t>(self_sizes.size());
  return unsqueeze_reduced(grad, ndim, dims, keepdim).expand(self_sizes);
}

Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index) {
  Tensor result = zeros(sizes, grad.options());
  result.select(dim, index).copy_(grad);
  return result;
}

Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t start, int64_t end,
                      int64_t step) {
  Tensor result = zeros(sizes, grad.options());
  result.slice(dim, start, end, step).copy_(grad);
  return result;
}

}  // namespace ember::autograd
