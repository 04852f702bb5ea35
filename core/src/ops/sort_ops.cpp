// Sorting and selection: argument checks and output shapes. Kernels in
// kernels/cpu/sort_kernels.cpp.
#include <cmath>

#include "autograd/formulas.h"
#include "autograd/record.h"
#include "ember/ops/factories.h"
#include "ember/ops/sort.h"
#include "ops/op_utils.h"
#include "kernels/slots/sort_kernels.h"

namespace ember {

EMBER_DEFINE_SLOT(sort_slot, SortFn, "sort");
EMBER_DEFINE_SLOT(topk_slot, TopkFn, "topk");
EMBER_DEFINE_FAMILY_SLOT(select_slot, SelectFn, "select", kSelectOpNames,
                         static_cast<int>(std::size(kSelectOpNames)));
EMBER_DEFINE_SLOT(mode_slot, ModeFn, "mode");
EMBER_DEFINE_SLOT(unique_slot, UniqueFn, "unique");

namespace {

void check_sortable(const Tensor& self, const char* op) {
  EMBER_CHECK(self.defined(), op, ": input tensor is undefined");
  EMBER_CHECK(!self.is_complex(), op, ": complex inputs are not supported (got ", self.dtype(), ")");
}

int64_t dim_size(const Tensor& self, int64_t d) { return self.dim() == 0 ? 1 : self.size(d); }

// Shape of self with dim d resized to n (0-d tensors stay 0-d).
DimVector with_dim_size(const Tensor& self, int64_t d, int64_t n) {
  DimVector shape(self.sizes());
  if (self.dim() > 0) shape[d] = n;
  return shape;
}

std::pair<Tensor, Tensor> make_outputs(const Tensor& self, IntArrayRef shape) {
  return {empty(shape, self.options()), empty(shape, TensorOptions(kInt64).device(self.device()))};
}

Tensor drop_dim(const Tensor& t, int64_t d, bool keepdim) {
  return keepdim || t.dim() == 0 ? t : t.squeeze(d);
}

// Kth / median / nanmedian along a dim: one (value, index) per slice.
std::pair<Tensor, Tensor> select_along(const Tensor& self, int64_t dim, bool keepdim, SelectOp op, int64_t k,
                                       const char* name) {
  check_sortable(self, name);
  const int64_t d = wrap_dim(dim, self.dim(), name);
  EMBER_CHECK(dim_size(self, d) > 0, name, "(): Expected reduction dim ", d,
              " to have non-zero size (input sizes ", self.sizes(), ")");
  auto [values, indices] = make_outputs(self, with_dim_size(self, d, 1));
  if (values.numel() > 0) select_slot(self.device())(self, values, indices, d, op, k);
  return {drop_dim(values, d, keepdim), drop_dim(indices, d, keepdim)};
}

// median/nanmedian of all elements; NaN for an empty floating tensor.
Tensor select_all(const Tensor& self, SelectOp op, const char* name) {
  check_sortable(self, name);
  if (self.numel() == 0) {
    EMBER_CHECK(self.is_floating_point(), name, "(): cannot compute the median of an empty ", self.dtype(),
                " tensor");
    return full({}, NAN, self.options());
  }
  return select_along(self.reshape({-1}), 0, false, op, 0, name).first;
}

// Records the values of a (values, indices) op: the gradient of each value
// goes to its index along d (value_selecting_reduction_backward).
void record_selection(autograd::OpRecorder& rec, const Tensor& self, const Tensor& values, const Tensor& indices,
                      int64_t d, bool keepdim) {
  rec.record({values}, [i = rec.save(indices), sizes = DimVector(self.sizes()), d, keepdim](autograd::BackwardContext& c) {
    return autograd::variable_list{autograd::value_selecting_reduction_backward(c.grads[0], d, c.unpack(i), sizes, keepdim)};
  });
}

std::pair<Tensor, Tensor> recorded_select_along(const Tensor& self, int64_t dim, bool keepdim, SelectOp op, int64_t k,
                                                const char* name) {
  autograd::OpRecorder rec(name, {self});
  auto [values, indices] = select_along(self, dim, keepdim, op, k, name);
  if (rec) record_selection(rec, self, values, indices, wrap_dim(dim, self.dim(), name), keepdim);
  return {values, indices};
}

// median()/nanmedian() of all elements: ties share the gradient evenly (as PyTorch).
Tensor recorded_select_all(const Tensor& self, SelectOp op, const char* name) {
  autograd::OpRecorder rec(name, {self});
  Tensor r = select_all(self, op, name);
  if (rec)
    rec.record(r, [s = rec.save(self), o = rec.save_output(r)](autograd::BackwardContext& c) {
      return autograd::variable_list{autograd::evenly_distribute_backward(c.grads[0], c.unpack(s), c.unpack(o))};
    });
  return r;
}

}  // namespace

std::pair<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending, bool /*stable*/) {
  check_sortable(self, "sort");
  const int64_t d = wrap_dim(dim, self.dim(), "sort");
  autograd::OpRecorder rec("sort", {self});
  auto [values, indices] = make_outputs(self, self.sizes());
  if (self.numel() > 0) sort_slot(self.device())(self, values, indices, d, descending);
  if (rec) record_selection(rec, self, values, indices, d, true);
  return {values, indices};
}

Tensor argsort(const Tensor& self, int64_t dim, bool descending, bool stable) {
  return sort(self, dim, descending, stable).second;
}

Tensor msort(const Tensor& self) { return sort(self, 0).first; }

std::pair<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  check_sortable(self, "topk");
  const int64_t d = wrap_dim(dim, self.dim(), "topk");
  EMBER_CHECK(k >= 0 && k <= dim_size(self, d), "topk: selected index k out of range (k = ", k, ", dim ", d,
              " of input ", self.sizes(), " has size ", dim_size(self, d), ")");
  autograd::OpRecorder rec("topk", {self});
  Tensor values, indices;
  if (self.dim() == 0) {
    // A 0-d input is its own top-k, even for k = 0 (as PyTorch).
    values = self.clone();
    indices = zeros({}, TensorOptions(kInt64).device(self.device()));
  } else {
    std::tie(values, indices) = make_outputs(self, with_dim_size(self, d, k));
    if (values.numel() > 0) topk_slot(self.device())(self, values, indices, d, k, largest, sorted);
  }
  if (rec) record_selection(rec, self, values, indices, d, true);
  return {values, indices};
}

std::pair<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  check_sortable(self, "kthvalue");
  const int64_t d = wrap_dim(dim, self.dim(), "kthvalue");
  const int64_t n = dim_size(self, d);
  EMBER_CHECK(n == 0 || (k >= 1 && k <= n), "kthvalue(): selected number k out of range for dimension ", d,
              " (k = ", k, ", size = ", n, ")");
  return recorded_select_along(self, dim, keepdim, SelectOp::Kth, k - 1, "kthvalue");
}

Tensor median(const Tensor& self) { return recorded_select_all(self, SelectOp::Median, "median"); }
std::pair<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim) {
  return recorded_select_along(self, dim, keepdim, SelectOp::Median, 0, "median");
}
Tensor nanmedian(const Tensor& self) { return recorded_select_all(self, SelectOp::NanMedian, "nanmedian"); }
std::pair<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim) {
  return recorded_select_along(self, dim, keepdim, SelectOp::NanMedian, 0, "nanmedian");
}

std::pair<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) {
  check_sortable(self, "mode");
  const int64_t d = wrap_dim(dim, self.dim(), "mode");
  EMBER_CHECK(dim_size(self, d) > 0, "mode(): Expected reduction dim ", d, " to have non-zero size (input sizes ",
              self.sizes(), ")");
  autograd::OpRecorder rec("mode", {self});
  auto [values, indices] = make_outputs(self, with_dim_size(self, d, 1));
  if (values.numel() > 0) mode_slot(self.device())(self, values, indices, d);
  values = drop_dim(values, d, keepdim);
  indices = drop_dim(indices, d, keepdim);
  if (rec) record_selection(rec, self, values, indices, d, keepdim);
  return {values, indices};
}

namespace {
std::tuple<Tensor, Tensor, Tensor> unique_impl(const Tensor& self, bool consecutive, bool return_inverse,
                                               bool return_counts, const char* name) {
  check_sortable(self, name);
  auto [values, inverse, counts] =
      unique_slot(self.device())(self.reshape({-1}).contiguous(), consecutive, return_inverse, return_counts);
  if (return_inverse) inverse = inverse.view(self.sizes());
  return {values, inverse, counts};
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& self, bool /*sorted*/, bool return_inverse,
                                          bool return_counts) {
  return unique_impl(self, false, return_inverse, return_counts, "unique");
}
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse, bool return_counts) {
  return unique_impl(self, true, return_inverse, return_counts, "unique_consecutive");
}

// ---- Tensor methods ----
std::pair<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending, bool stable) const {
  return ember::sort(*this, dim, descending, stable);
}
Tensor Tensor::argsort(int64_t dim, bool descending, bool stable) const {
  return ember::argsort(*this, dim, descending, stable);
}
Tensor Tensor::msort() const { return ember::msort(*this); }
std::pair<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return ember::topk(*this, k, dim, largest, sorted);
}
std::pair<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  return ember::kthvalue(*this, k, dim, keepdim);
}
Tensor Tensor::median() const { return ember::median(*this); }
std::pair<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const { return ember::median(*this, dim, keepdim); }
Tensor Tensor::nanmedian() const { return ember::nanmedian(*this); }
std::pair<Tensor, Tensor> Tensor::nanmedian(int64_t dim, bool keepdim) const {
  return ember::nanmedian(*this, dim, keepdim);
}
std::pair<Tensor, Tensor> Tensor::mode(int64_t dim, bool keepdim) const { return ember::mode(*this, dim, keepdim); }

}  // namespace ember
