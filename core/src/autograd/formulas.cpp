#include "autograd/formulas.h"

#include <algorithm>

#include "autograd/record.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduce.h"
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

Tensor plain_number(const Tensor& t) {
  if (!t.defined() || !t.impl()->is_wrapped_number()) return t;
  // An alias of the same 0-d storage without the flag: no copy (this runs
  // whenever an op with a number operand is recorded).
  auto impl = make_intrusive<TensorImpl>(t.storage(), t.dtype(), t.sizes(), t.strides(), t.storage_offset());
  impl->set_conj(t.is_conj());
  impl->set_neg(t.is_neg());
  return Tensor(std::move(impl));
}

Tensor maybe_conj(const Tensor& t) { return t.is_complex() ? t.conj() : t; }

Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim) {
  if (sizes.empty()) return grad;  // a 0-d input is its own selection
  Tensor result = zeros(sizes, grad.options());
  if (!keepdim) return result.scatter(dim, indices.unsqueeze(dim), grad.unsqueeze(dim));
  return result.scatter(dim, indices, grad);
}

Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& input, const Tensor& value) {
  const bool nan = value.isnan().item<bool>();
  const Tensor mask = nan ? input.isnan() : eq(input, value);
  // Multiplying by the (constant) mask instead of masked_fill keeps the
  // formula differentiable in grad with mul/div only.
  return mask * (grad / mask.sum());
}

Tensor index_map_backward(const Tensor& grad, IntArrayRef input_sizes, const std::vector<Tensor>& host_maps) {
  // The maps are built on the host (shape ops compute them from sizes): they
  // move to the gradient's device once.
  std::vector<Tensor> maps(host_maps.size());
  for (size_t d = 0; d < maps.size(); ++d)
    if (host_maps[d].defined()) maps[d] = host_maps[d].to(grad.device());
  OpRecorder rec("index_map_backward", {grad});
  Tensor g = grad;
  for (size_t d = 0; d < maps.size(); ++d) {
    if (!maps[d].defined()) continue;
    DimVector shape(g.sizes());
    shape[d] = input_sizes[d];
    g = zeros(shape, g.options()).index_add(static_cast<int64_t>(d), maps[d], g);
  }
  if (rec && g.impl() != grad.impl())
    rec.record(g, [maps](BackwardContext& c) {
      Tensor t = c.grads[0];
      for (size_t d = 0; d < maps.size(); ++d)
        if (maps[d].defined()) t = t.index_select(static_cast<int64_t>(d), maps[d]);
      return variable_list{t};
    });
  return g;
}

}  // namespace ember::autograd
