// Autograd of the indexing ops (index / index_put, gather / scatter family,
// index_select / add / copy / fill, masks, take) and of the view ops
// (as_strided, unfold, diagonal, split family, movedim, flatten, real / imag):
// gradcheck for each op, gradgradcheck for the common ones, then hand-checked
// values (duplicate indices accumulate, broadcast values), in-place writes
// through views and the errors PyTorch raises.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <functional>
#include <string>

#include "tensor_expect.h"
#include "gradcheck_tight.h"

namespace ember {
namespace autograd_indexing_test {

using testing::kTightGradcheck;
using autograd::variable_list;
using indexing::Ellipsis;
using indexing::None;
using indexing::Slice;
using testing::expect_error;
using testing::expect_tensor_near;

Tensor ids(std::initializer_list<int64_t> v) { return tensor(std::vector<int64_t>(v), kInt64); }
Tensor ids2(std::initializer_list<int64_t> v, int64_t rows, int64_t cols) { return ids(v).view({rows, cols}); }
Tensor mask_of(std::initializer_list<int64_t> v) { return ne(ids(v), 0); }

// Deterministic float64 inputs that require grad.
Tensor rnd(IntArrayRef sizes, uint64_t seed) {
  Generator gen(seed);
  return randn(sizes, kFloat64, &gen).requires_grad_();
}
Tensor crnd(IntArrayRef sizes, uint64_t seed) {
  Generator gen(seed);
  Tensor re = randn(sizes, kFloat64, &gen), im = randn(sizes, kFloat64, &gen);
  return (re.to(kComplex128) + im.to(kComplex128) * Scalar(complex128(0, 1))).requires_grad_();
}
// A leaf laid out transposed (non-contiguous), values from rnd.
Tensor rnd_t(IntArrayRef sizes, uint64_t seed) {
  DimVector swapped(sizes);
  std::swap(swapped[0], swapped[1]);
  return rnd(swapped, seed).detach().t().requires_grad_();
}

struct OpCase {
  std::string name;
  std::function<variable_list()> inputs;
  autograd::GradcheckFn fn;
  bool gradgrad = false;
};

using F = autograd::GradcheckFn;
variable_list one(const Tensor& t) { return {t}; }

std::vector<OpCase> indexing_cases() {
  std::vector<OpCase> c;
  auto x34 = [] { return variable_list{rnd({3, 4}, 1)}; };
  // ---- Tensor::index ----
  c.push_back({"index_basic", [] { return variable_list{rnd({3, 4, 2}, 2)}; },
               [](const variable_list& x) { return one(x[0].index({Slice(1, None), None, Ellipsis, 0}) * 2); }, true});
  c.push_back({"index_ellipsis_only_aliases", x34,
               [](const variable_list& x) { return one(x[0].index({Ellipsis}) * 3); }});
  c.push_back({"index_int_tensor_duplicates", x34,
               [](const variable_list& x) { return one(x[0].index({ids({2, 0, 2, -1})})); }, true});
  c.push_back({"index_two_tensors_nonadjacent", [] { return variable_list{rnd({3, 2, 4}, 3)}; },
               [](const variable_list& x) {
                 return one(x[0].index({ids2({0, 2, 2, 1}, 2, 2), Slice(), ids({3, 0})}));
               }, true});
  c.push_back({"index_mask_2d", x34,
               [](const variable_list& x) {
                 return one(x[0].index({mask_of({1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0}).view({3, 4})}));
               }, true});
  c.push_back({"index_mask_after_slice", x34,
               [](const variable_list& x) { return one(x[0].index({Slice(None, None, 2), mask_of({0, 1, 1, 0})})); }});
  c.push_back({"index_bool_and_0d_mask", x34,
               [](const variable_list& x) {
                 return variable_list{x[0].index({true, Slice(), ids({2, 1})}),
                                      x[0].index({ne(scalar_tensor(1, kInt64), 0), ids({0, 0})})};
               }});
  c.push_back({"index_noncontiguous", [] { return variable_list{rnd_t({4, 3}, 4)}; },
               [](const variable_list& x) { return one(x[0].index({Slice(), ids({1, 1, 0})})); }});
  c.push_back({"index_free_function", x34,
               [](const variable_list& x) {
                 std::vector<std::optional<Tensor>> idx{ids({0, 2}), ids({3, 3})};
                 return one(index(x[0], idx));
               }});
  c.push_back({"index_complex", [] { return variable_list{crnd({3, 2}, 5)}; },
               [](const variable_list& x) { return one(x[0].index({ids({2, 2, 0})})); }});
  // ---- index_put ----
  c.push_back({"index_put_broadcast_values", [] { return variable_list{rnd({4, 3}, 6), rnd({3}, 7)}; },
               [](const variable_list& x) {
                 std::vector<std::optional<Tensor>> idx{ids({0, 2})};
                 return one(index_put(x[0], idx, x[1]));
               }, true});
  c.push_back({"index_put_accumulate_duplicates", [] { return variable_list{rnd({4, 3}, 8), rnd({3, 3}, 9)}; },
               [](const variable_list& x) {
                 std::vector<std::optional<Tensor>> idx{ids({1, 1, 3})};
                 return one(index_put(x[0], idx, x[1], /*accumulate=*/true));
               }, true});
  // x[idx] = v drops v's leading size-1 dims (Python's assignment rule; the
  // index_put op itself rejects them, as PyTorch's does).
  c.push_back({"index_put_leading_one_values", [] { return variable_list{rnd({4, 3}, 10), rnd({1, 1, 3}, 11)}; },
               [](const variable_list& x) {
                 Tensor y = x[0] * 1;
                 y.index_put_({TensorIndex(ids({3, 0}))}, x[1]);
                 return one(y);
               }});
  c.push_back({"index_put_mask", [] { return variable_list{rnd({2, 3}, 12), rnd({}, 13)}; },
               [](const variable_list& x) {
                 std::vector<std::optional<Tensor>> idx{mask_of({1, 0, 1, 0, 0, 1}).view({2, 3})};
                 return one(index_put(x[0], idx, x[1]));
               }});
  c.push_back({"index_put_inplace_nonleaf", [] { return variable_list{rnd({4, 3}, 14), rnd({2, 3}, 15)}; },
               [](const variable_list& x) {
                 Tensor y = x[0] * 2;
                 std::vector<std::optional<Tensor>> idx{ids({3, 1})};
                 index_put_(y, idx, x[1]);
                 return one(y);
               }, true});
  c.push_back({"index_put_tensorindex_through_slice", [] { return variable_list{rnd({3, 4}, 16), rnd({2}, 17)}; },
               [](const variable_list& x) {
                 Tensor y = x[0] * 1;
                 y.index_put_({Slice(1, None), ids({0, 3})}, x[1]);
                 return one(y);
               }});
  c.push_back({"index_put_tensorindex_scalar", x34,
               [](const variable_list& x) {
                 Tensor y = x[0] * 1;
                 y.index_put_({ids({2}), Slice()}, 5.0);
                 return one(y);
               }});
  c.push_back({"take", x34, [](const variable_list& x) { return one(x[0].take(ids2({0, 11, -1, 5}, 2, 2))); }});
  c.push_back({"take_noncontiguous", [] { return variable_list{rnd_t({3, 4}, 18)}; },
               [](const variable_list& x) { return one(x[0].take(ids({1, 1, 7}))); }});
  // ---- gather / scatter ----
  c.push_back({"gather_duplicates", x34,
               [](const variable_list& x) { return one(x[0].gather(1, ids2({0, 0, 3, 2, 2, 2}, 3, 2))); }, true});
  c.push_back({"gather_dim0_noncontiguous", [] { return variable_list{rnd_t({3, 4}, 19)}; },
               [](const variable_list& x) { return one(x[0].gather(0, ids2({2, 0, 1, 1}, 1, 4))); }});
  c.push_back({"gather_0d", [] { return variable_list{rnd({}, 20)}; },
               [](const variable_list& x) { return one(x[0].gather(0, ids({0, 0}).view({2}).select(0, 0))); }});
  c.push_back({"scatter_src_partly_read", [] { return variable_list{rnd({3, 4}, 21), rnd({3, 3}, 22)}; },
               [](const variable_list& x) { return one(x[0].scatter(1, ids2({3, 0, 1, 2}, 2, 2), x[1])); }, true});
  c.push_back({"scatter_value", x34,
               [](const variable_list& x) { return one(x[0].scatter(0, ids2({2, 0, 1, 2}, 1, 4), Scalar(1.5))); }});
  c.push_back({"scatter_reduce_add_string", [] { return variable_list{rnd({3, 4}, 23), rnd({2, 4}, 24)}; },
               [](const variable_list& x) {
                 return one(x[0].scatter(0, ids2({1, 1, 0, 2, 1, 0, 0, 2}, 2, 4), x[1], "add"));
               }});
  c.push_back({"scatter_reduce_multiply_string", [] { return variable_list{rnd({3, 4}, 25), rnd({2, 4}, 26)}; },
               [](const variable_list& x) {
                 return one(x[0].scatter(0, ids2({1, 1, 0, 2, 1, 0, 0, 2}, 2, 4), x[1], "multiply"));
               }});
  c.push_back({"scatter_value_multiply_string", x34,
               [](const variable_list& x) {
                 return one(x[0].scatter(0, ids2({1, 1, 0, 2, 1, 0, 0, 2}, 2, 4), Scalar(-2.0), "multiply"));
               }});
  c.push_back({"scatter_add_duplicates", [] { return variable_list{rnd({3, 4}, 27), rnd({3, 5}, 28)}; },
               [](const variable_list& x) {
                 return one(x[0].scatter_add(1, ids2({0, 0, 3, 1, 1, 1, 2, 0, 2}, 3, 3), x[1]));
               }, true});
  c.push_back({"scatter_add_complex", [] { return variable_list{crnd({2, 3}, 29), crnd({2, 3}, 30)}; },
               [](const variable_list& x) { return one(x[0].scatter_add(0, ids2({1, 1, 0, 1, 0, 0}, 2, 3), x[1])); }});
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"})
    for (bool include_self : {true, false})
      c.push_back({std::string("scatter_reduce_") + reduce + (include_self ? "_include_self" : "_exclude_self"),
                   [] { return variable_list{rnd({3, 4}, 31), rnd({3, 4}, 32)}; },
                   [reduce, include_self](const variable_list& x) {
                     Tensor idx = ids2({0, 0, 2, 0, 2, 0, 0, 1}, 2, 4);
                     return one(x[0].scatter_reduce(0, idx, x[1], reduce, include_self));
                   }});
  c.push_back({"scatter_reduce_prod_zeros", [] {
                 Tensor self = tensor({0.0, 2.0, 3.0, -1.0}, kFloat64).requires_grad_();
                 Tensor src = tensor({0.0, 1.5, 0.0, 0.0, 2.0, 4.0}, kFloat64).requires_grad_();
                 return variable_list{self, src};
               },
               [](const variable_list& x) {
                 // Position 0: self 0 and src 0; position 1: one zero; position 2: two zeros.
                 return one(x[0].scatter_reduce(0, ids({0, 1, 1, 2, 2, 3}), x[1], "prod"));
               }});
  // ---- index_select / index_add / index_copy / index_fill ----
  c.push_back({"index_select_dim0_duplicates", x34,
               [](const variable_list& x) { return one(x[0].index_select(0, ids({2, 2, 0}))); }, true});
  c.push_back({"index_select_dim1_noncontiguous", [] { return variable_list{rnd_t({3, 4}, 33)}; },
               [](const variable_list& x) { return one(x[0].index_select(1, ids({3, 1, 3}))); }, true});
  c.push_back({"index_select_int32_index", x34,
               [](const variable_list& x) { return one(x[0].index_select(-1, ids({1, 2}).to(kInt32))); }});
  c.push_back({"index_select_0d", [] { return variable_list{rnd({}, 34)}; },
               [](const variable_list& x) { return one(x[0].index_select(0, ids({0}))); }});
  c.push_back({"index_add_alpha_duplicates", [] { return variable_list{rnd({3, 4}, 35), rnd({3, 3}, 36)}; },
               [](const variable_list& x) { return one(x[0].index_add(1, ids({3, 0, 3}), x[1], 2.5)); }, true});
  c.push_back({"index_add_complex_alpha", [] { return variable_list{crnd({2, 3}, 37), crnd({2, 2}, 38)}; },
               [](const variable_list& x) {
                 return one(x[0].index_add(1, ids({2, 2}), x[1], Scalar(complex128(1, -2))));
               }});
  c.push_back({"index_copy", [] { return variable_list{rnd({4, 3}, 39), rnd({2, 3}, 40)}; },
               [](const variable_list& x) { return one(x[0].index_copy(0, ids({3, 1}), x[1])); }});
  c.push_back({"index_fill_scalar", x34,
               [](const variable_list& x) { return one(x[0].index_fill(1, ids({0, -1, 0}), Scalar(7.0))); }});
  c.push_back({"index_fill_tensor_value", [] { return variable_list{rnd({3, 4}, 41), rnd({}, 42)}; },
               [](const variable_list& x) { return one(x[0].index_fill(1, ids({0, -1, 0}), x[1])); }});
  // ---- masks ----
  c.push_back({"masked_fill_scalar", x34,
               [](const variable_list& x) { return one(x[0].masked_fill(mask_of({1, 0, 0, 1}), 2.0)); }, true});
  c.push_back({"masked_fill_0d_tensor_value", [] { return variable_list{rnd({3, 4}, 43), rnd({}, 44)}; },
               [](const variable_list& x) { return one(x[0].masked_fill(mask_of({0, 1, 1, 0}), x[1])); }, true});
  c.push_back({"masked_select_broadcast_mask", x34,
               [](const variable_list& x) { return one(x[0].masked_select(mask_of({1, 0, 1, 1}))); }, true});
  c.push_back({"masked_select_broadcast_self", [] { return variable_list{rnd({4}, 45)}; },
               [](const variable_list& x) {
                 return one(x[0].masked_select(mask_of({1, 0, 1, 1, 0, 0, 1, 0}).view({2, 4})));
               }});
  c.push_back({"masked_scatter", [] { return variable_list{rnd({2, 4}, 46), rnd({3, 3}, 47)}; },
               [](const variable_list& x) { return one(x[0].masked_scatter(mask_of({0, 1, 1, 0}), x[1])); },
               true});
  c.push_back({"take_along_dim", x34,
               [](const variable_list& x) { return one(x[0].take_along_dim(ids2({1, 1, 0}, 1, 3), 1)); }});
  c.push_back({"take_along_dim_flat", x34,
               [](const variable_list& x) { return one(x[0].take_along_dim(ids({11, 0, 0}))); }});
  // ---- in-place variants on a non-leaf ----
  c.push_back({"scatter_inplace", [] { return variable_list{rnd({3, 4}, 48), rnd({1, 4}, 49)}; },
               [](const variable_list& x) {
                 Tensor y = x[0] * 1;
                 y.scatter_(0, ids2({2, 0, 1, 2}, 1, 4), x[1]);
                 return one(y);
               }});
  c.push_back({"scatter_add_inplace", [] { return variable_list{rnd({3, 4}, 50), rnd({2, 4}, 51)}; },
               [](const variable_list& x) {
                 Tensor y = x[0] * 1;
                 y.scatter_add_(0, ids2({2, 0, 1, 2, 2, 2, 2, 2}, 2, 4), x[1]);
                 return one(y);
               }});
  c.push_back({"scatter_reduce_inplace", [] { return variable_list{rnd({3, 4}, 52), rnd({2, 4}, 53)}; },
               [](const variable_list& x) {
                 Tensor y = x[0] * 1;
                 y.scatter_reduce_(0, ids2({2, 0, 1, 2, 2, 2, 2, 2}, 2, 4), x[1], "mean", false);
                 return one(y);
               }});
  c.push_back({"index_add_inplace", [] { return variable_list{rnd({3, 4}, 54), rnd({2, 4}, 55)}; },
               [](const variable_list& x) {
                 Tensor y = x[0] * 1;
                 y.index_add_(0, ids({1, 1}), x[1], -1.0);
                 return one(y);
               }});
  c.push_back({"index_copy_inplace", [] { return variable_list{rnd({3, 4}, 56), rnd({3, 1}, 57)}; },
               [](const variable_list& x) {
                 Tensor y = x[0] * 1;
                 y.index_copy_(1, ids({2}), x[1]);
                 return one(y);
               }});
  c.push_back({"index_fill_inplace_tensor_value", [] { return variable_list{rnd({3, 4}, 58), rnd({}, 59)}; },
               [](const variable_list& x) {
                 Tensor y = x[0] * 1;
                 y.index_fill_(0, ids({1}), x[1]);
                 return one(y);
               }});
  c.push_back({"masked_scatter_inplace", [] { return variable_list{rnd({2, 3}, 60), rnd({4}, 61)}; },
               [](const variable_list& x) {
                 Tensor y = x[0] * 1;
                 y.masked_scatter_(mask_of({1, 0, 1}), x[1]);
                 return one(y);
               }});
  return c;
}

std::vector<OpCase> view_cases() {
  std::vector<OpCase> c;
  auto x34 = [] { return variable_list{rnd({3, 4}, 101)}; };
  auto x6 = [] { return variable_list{rnd({6}, 102)}; };
  c.push_back({"as_strided_permuted", x34,
               [](const variable_list& x) { return one(x[0].as_strided({4, 3}, {1, 4})); }, true});
  c.push_back({"as_strided_overlapping_output", x6,
               [](const variable_list& x) { return one(x[0].as_strided({3, 3}, {1, 1}, 1)); }, true});
  c.push_back({"as_strided_stride0_output", x6,
               [](const variable_list& x) { return one(x[0].as_strided({2, 3}, {0, 2})); }});
  c.push_back({"as_strided_of_view_with_offset", x6,
               [](const variable_list& x) {
                 // Offsets are absolute in the storage: the view starts at 2, the result at 3.
                 Tensor v = x[0].slice(0, 2);
                 return variable_list{v.as_strided({3}, {1}, 3), v.as_strided({2, 2}, {1, 1}, 3)};
               }});
  c.push_back({"as_strided_overlapping_input", [] { return variable_list{rnd({4}, 103)}; },
               [](const variable_list& x) { return one(x[0].expand({3, 4}).as_strided({2, 2}, {2, 1})); }, true});
  c.push_back({"as_strided_empty", x6, [](const variable_list& x) { return one(x[0].as_strided({0, 2}, {1, 1})); }});
  c.push_back({"unfold_overlapping", [] { return variable_list{rnd({2, 5}, 104)}; },
               [](const variable_list& x) { return one(x[0].unfold(1, 3, 1)); }, true});
  c.push_back({"unfold_with_gaps", [] { return variable_list{rnd({7, 2}, 105)}; },
               [](const variable_list& x) { return one(x[0].unfold(0, 2, 3)); }, true});
  c.push_back({"unfold_0d", [] { return variable_list{rnd({}, 106)}; },
               [](const variable_list& x) { return one(x[0].unfold(0, 1, 1)); }});
  c.push_back({"diagonal", x34, [](const variable_list& x) { return one(x[0].diagonal()); }, true});
  c.push_back({"diagonal_offset_dims", [] { return variable_list{rnd({3, 2, 4}, 107)}; },
               [](const variable_list& x) { return one(x[0].diagonal(1, 2, 0)); }, true});
  c.push_back({"diagonal_negative_offset", x34, [](const variable_list& x) { return one(x[0].diagonal(-1)); }});
  c.push_back({"narrow", x34, [](const variable_list& x) { return one(x[0].narrow(1, -3, 2)); }});
  c.push_back({"split_all_outputs", [] { return variable_list{rnd({3, 5}, 108)}; },
               [](const variable_list& x) { return x[0].split(2, 1); }, true});
  c.push_back({"split_one_output_used", [] { return variable_list{rnd({5, 2}, 109)}; },
               [](const variable_list& x) { return one(x[0].split(2)[1] * 3); }, true});
  c.push_back({"split_with_sizes", x34, [](const variable_list& x) { return x[0].split_with_sizes({1, 0, 3}, 1); }});
  c.push_back({"chunk", x34, [](const variable_list& x) { return x[0].chunk(2, 0); }});
  c.push_back({"tensor_split", x34, [](const variable_list& x) { return x[0].tensor_split(3, 1); }});
  c.push_back({"unbind", x34,
               [](const variable_list& x) {
                 auto parts = x[0].unbind(1);
                 return variable_list{parts[0] * parts[3], parts[2]};
               }, true});
  c.push_back({"movedim", [] { return variable_list{rnd({2, 3, 4}, 110)}; },
               [](const variable_list& x) { return one(x[0].movedim({0, 2}, {2, 1})); }});
  c.push_back({"flatten_unflatten", [] { return variable_list{rnd({2, 3, 2}, 111)}; },
               [](const variable_list& x) { return one(x[0].flatten(1).unflatten(1, {2, 3}) * 2); }});
  c.push_back({"view_as_reshape_as_noncontiguous", [] { return variable_list{rnd_t({3, 4}, 112)}; },
               [](const variable_list& x) {
                 Tensor shape = zeros({2, 6});
                 return variable_list{x[0].reshape_as(shape), x[0].reshape({12}).view_as(shape)};
               }});
  c.push_back({"real", [] { return variable_list{crnd({3}, 113)}; },
               [](const variable_list& x) { return one(x[0].real() * 2); }, true});
  c.push_back({"imag", [] { return variable_list{crnd({3}, 114)}; },
               [](const variable_list& x) { return one(x[0].imag() * x[0].real()); }, true});
  c.push_back({"real_imag_inplace", [] { return variable_list{crnd({2, 2}, 115)}; },
               [](const variable_list& x) {
                 Tensor w = x[0] * 1;
                 w.real().mul_(3);
                 w.imag().slice(0, 1).add_(w.real().slice(0, 0, 1));
                 return one(w);
               }});
  c.push_back({"diagonal_inplace", x34,
               [](const variable_list& x) {
                 Tensor y = x[0] * 1;
                 y.diagonal().mul_(2);
                 return one(y);
               }, true});
  c.push_back({"as_strided_inplace", x6,
               [](const variable_list& x) {
                 Tensor y = x[0] * 1;
                 Tensor v = y.as_strided({2}, {3}, 1);
                 v.mul_(3);
                 v.add_(x[0].slice(0, 4));
                 return one(y);
               }});
  return c;
}

void PrintTo(const OpCase& op, std::ostream* os) { *os << op.name; }

class AutogradIndexingOps : public ::testing::TestWithParam<OpCase> {};
class AutogradViewOps : public ::testing::TestWithParam<OpCase> {};

void run_case(const OpCase& op) {
  const variable_list inputs = op.inputs();
  EXPECT_TRUE(autograd::gradcheck(op.fn, inputs, kTightGradcheck)) << op.name;
  if (op.gradgrad) {
    EXPECT_TRUE(autograd::gradgradcheck(op.fn, inputs, {}, kTightGradcheck)) << op.name;
  }
}

TEST_P(AutogradIndexingOps, Gradcheck) { run_case(GetParam()); }
TEST_P(AutogradViewOps, Gradcheck) { run_case(GetParam()); }

std::string case_name(const ::testing::TestParamInfo<OpCase>& info) { return info.param.name; }
INSTANTIATE_TEST_SUITE_P(Ops, AutogradIndexingOps, ::testing::ValuesIn(indexing_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Ops, AutogradViewOps, ::testing::ValuesIn(view_cases()), case_name);

Tensor leaf(std::initializer_list<double> values) {
  return tensor(std::vector<double>(values), kFloat64).requires_grad_();
}

TEST(AutogradIndexing, DuplicateIndicesAccumulate) {
  Tensor x = leaf({1, 2, 3, 4});
  x.index({ids({0, 0, 2, 0})}).sum().backward();
  expect_tensor_near(x.grad(), tensor({3.0, 0.0, 1.0, 0.0}, kFloat64));
  x.mutable_grad() = Tensor();
  x.index_select(0, ids({3, 3})).sum().backward();
  expect_tensor_near(x.grad(), tensor({0.0, 0.0, 0.0, 2.0}, kFloat64));
  x.mutable_grad() = Tensor();
  x.gather(0, ids({1, 1, 1})).sum().backward();
  expect_tensor_near(x.grad(), tensor({0.0, 3.0, 0.0, 0.0}, kFloat64));
  x.mutable_grad() = Tensor();
  x.take(ids({-1, 3})).sum().backward();
  expect_tensor_near(x.grad(), tensor({0.0, 0.0, 0.0, 2.0}, kFloat64));
  // index_fill's value counts each filled position once.
  Tensor v = leaf({5});
  zeros({4}, kFloat64).index_fill(0, ids({1, 1, -1}), v.view({})).sum().backward();
  expect_tensor_near(v.grad(), tensor({2.0}, kFloat64));
}

TEST(AutogradIndexing, IndexPutBroadcastValuesAndAccumulate) {
  Tensor x = zeros({3, 2}, kFloat64).requires_grad_();
  // Values of shape (1, 2) broadcast to the (3, 2) indexing result ((1, 1, 2)
  // would not: more dims than the result, as in PyTorch).
  Tensor v = tensor({1.0, 2.0}, kFloat64).view({1, 2}).requires_grad_();
  std::vector<std::optional<Tensor>> idx{ids({2, 0, 2})};
  Tensor y = index_put(x, idx, v, /*accumulate=*/true);
  EXPECT_EQ(y.grad_fn()->name(), "IndexPutBackward0");
  expect_tensor_near(y.detach(), tensor({{1.0, 2.0}, {0.0, 0.0}, {2.0, 4.0}}, kFloat64));
  (y * tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}, kFloat64)).sum().backward();
  expect_tensor_near(x.grad(), tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}, kFloat64));
  // Rows 2, 0 and 2 of the weights, summed, in values' shape.
  expect_tensor_near(v.grad(), tensor({11.0, 14.0}, kFloat64).view({1, 2}));
  // Without accumulate, self's gradient is zero at the written rows.
  Tensor x2 = zeros({3, 2}, kFloat64).requires_grad_();
  Tensor w = leaf({1, 2});
  std::vector<std::optional<Tensor>> idx2{ids({1})};
  (index_put(x2, idx2, w) * tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}, kFloat64)).sum().backward();
  expect_tensor_near(x2.grad(), tensor({{1.0, 2.0}, {0.0, 0.0}, {5.0, 6.0}}, kFloat64));
  expect_tensor_near(w.grad(), tensor({3.0, 4.0}, kFloat64));
}

TEST(AutogradIndexing, IndexPutInplaceOnNonLeafAndErrors) {
  Tensor x = leaf({1, 2, 3});
  Tensor v = leaf({10});
  Tensor y = x * 2;
  std::vector<std::optional<Tensor>> idx{ids({1})};
  index_put_(y, idx, v);
  EXPECT_EQ(y.grad_fn()->name(), "CopyBackwards");
  (y * tensor({1.0, 2.0, 3.0}, kFloat64)).sum().backward();
  expect_tensor_near(x.grad(), tensor({2.0, 0.0, 6.0}, kFloat64));
  expect_tensor_near(v.grad(), tensor({2.0}, kFloat64));
  // Values that require grad written into a plain buffer.
  Tensor buf = zeros({3}, kFloat64);
  index_put_(buf, idx, v * 2);
  (buf * 5).sum().backward();
  expect_tensor_near(v.grad(), tensor({12.0}, kFloat64));
  expect_error([&] { index_put_(x, idx, v); }, "leaf Variable that requires grad");
  expect_error([&] { x.index_put_({ids({0})}, 1.0); }, "leaf Variable that requires grad");
  Tensor out = empty({2}, kFloat64);
  expect_error([&] { index_select_out(out, x, 0, ids({0, 1})); }, "don't support automatic differentiation");
  expect_error([&] { masked_select_out(out, x, mask_of({1, 0, 1})); }, "don't support automatic differentiation");
  expect_error([&] { gather_out(out, x, 0, ids({0, 1})); }, "don't support automatic differentiation");
}

TEST(AutogradIndexing, ScatterReduceAmaxTiesAndExcludedSelf) {
  // Ties split the gradient evenly (self and src alike), as PyTorch.
  Tensor s = leaf({1, 3});
  Tensor src = leaf({3, 3, 0});
  s.scatter_reduce(0, ids({1, 1, 0}), src, "amax").sum().backward();
  expect_tensor_near(s.grad(), tensor({1.0, 1.0 / 3}, kFloat64));
  expect_tensor_near(src.grad(), tensor({1.0 / 3, 1.0 / 3, 0.0}, kFloat64));
  // An excluded self equal to the result takes no share (PyTorch gives src 0.5 here).
  Tensor s2 = leaf({3, 5});
  Tensor src2 = leaf({3, 1});
  s2.scatter_reduce(0, ids({0, 0}), src2, "amax", /*include_self=*/false).sum().backward();
  expect_tensor_near(src2.grad(), tensor({1.0, 0.0}, kFloat64));
  expect_tensor_near(s2.grad(), tensor({0.0, 1.0}, kFloat64));
}

TEST(AutogradIndexing, NodeNamesAndNonDifferentiableOutputs) {
  Tensor x = rnd({3, 4}, 7);
  EXPECT_EQ(x.index({ids({0})}).grad_fn()->name(), "IndexBackward0");
  EXPECT_EQ(x.index({Ellipsis}).grad_fn()->name(), "AliasBackward0");
  EXPECT_EQ(x.gather(0, ids2({0, 1}, 1, 2)).grad_fn()->name(), "GatherBackward0");
  EXPECT_EQ(x.scatter_add(0, ids2({0, 1}, 1, 2), x).grad_fn()->name(), "ScatterAddBackward0");
  EXPECT_EQ(x.scatter_reduce(0, ids2({0, 1}, 1, 2), x, "amax").grad_fn()->name(), "ScatterReduceBackward0");
  EXPECT_EQ(x.index_select(1, ids({0})).grad_fn()->name(), "IndexSelectBackward0");
  EXPECT_EQ(x.masked_select(mask_of({1, 0, 0, 1})).grad_fn()->name(), "MaskedSelectBackward0");
  EXPECT_EQ(x.take(ids({0})).grad_fn()->name(), "TakeBackward0");
  EXPECT_EQ(x.diagonal().grad_fn()->name(), "DiagonalBackward0");
  EXPECT_EQ(x.unfold(0, 2, 1).grad_fn()->name(), "UnfoldBackward0");
  EXPECT_EQ(x.as_strided({2}, {1}).grad_fn()->name(), "AsStridedBackward0");
  EXPECT_EQ(x.split(2)[0].grad_fn()->name(), "SplitBackward0");
  EXPECT_EQ(x.chunk(2)[1].grad_fn()->name(), "SplitBackward0");
  EXPECT_EQ(x.split_with_sizes({1, 2})[1].grad_fn()->name(), "SplitWithSizesBackward0");
  EXPECT_EQ(x.unbind(1)[3].grad_fn()->name(), "UnbindBackward0");
  EXPECT_EQ(x.tensor_split(2)[0].grad_fn()->name(), "SliceBackward0");
  EXPECT_EQ(x.narrow(0, 1, 1).grad_fn()->name(), "SliceBackward0");
  Tensor z = crnd({2}, 8);
  EXPECT_EQ(z.real().grad_fn()->name(), "RealBackward0");
  EXPECT_EQ(z.imag().grad_fn()->name(), "ImagBackward0");
  // Integer outputs and view(dtype) are not differentiable.
  EXPECT_FALSE(x.nonzero().requires_grad());
  EXPECT_FALSE(x.view_dtype(kInt64).requires_grad());
  EXPECT_FALSE(x.view_dtype(kComplex64).requires_grad());
  EXPECT_TRUE(x.split(2)[0].is_view());
}

TEST(AutogradIndexing, ZeroSizeInputs) {
  Tensor x = rnd({3, 2}, 9);
  Tensor e = x.index({empty({0}, kInt64)});
  EXPECT_EQ(e.sizes().vec(), (std::vector<int64_t>{0, 2}));
  (e.sum() + x.gather(0, empty({0, 2}, kInt64)).sum() + x.split(2, 1)[0].sum()).backward();
  expect_tensor_near(x.grad(), ones({3, 2}, kFloat64));
  Tensor z = zeros({0, 3}, kFloat64).requires_grad_();
  auto parts = z.split(2, 0);
  ASSERT_EQ(parts.size(), 1u);
  (parts[0].sum() + z.unfold(1, 2, 1).sum() + z.diagonal().sum()).backward();
  EXPECT_EQ(z.grad().sizes().vec(), (std::vector<int64_t>{0, 3}));
}

TEST(AutogradIndexing, InplaceThroughViews) {
  Tensor x = leaf({1, 2, 3, 4});
  Tensor y = x.view({2, 2}) * 1;
  y.diagonal().mul_(2);
  EXPECT_EQ(y.grad_fn()->name(), "CopySlices");
  y.sum().backward();
  expect_tensor_near(x.grad(), tensor({2.0, 1.0, 1.0, 2.0}, kFloat64));

  // In-place on a real view updates the complex base.
  Tensor z = tensor(std::vector<complex128>{{1, 2}, {3, 4}}, kComplex128).requires_grad_();
  Tensor w = z * 1;
  w.real().mul_(5);
  EXPECT_EQ(w.grad_fn()->name(), "CopySlices");
  expect_tensor_near(w.detach().real(), tensor({5.0, 15.0}, kFloat64));
  w.imag().sum().backward();  // d imag(w) = d imag(z): gradient i
  expect_tensor_near(z.grad(), tensor(std::vector<complex128>{{0, 1}, {0, 1}}, kComplex128));
  z.mutable_grad() = Tensor();
  Tensor w2 = z * 1;
  w2.real().mul_(5);
  w2.real().sum().backward();  // 5 re(z): gradient 5
  expect_tensor_near(z.grad(), tensor(std::vector<complex128>{{5, 0}, {5, 0}}, kComplex128));

}

TEST(AutogradIndexing, InplaceOnMultiOutputViewsIsAnError) {
  Tensor x = rnd({4, 2}, 10);
  Tensor y = x * 1;
  const std::string msg = "This view is the output of a function that returns multiple views";
  expect_error([&] { y.unbind()[0].add_(1); }, "Output 0 of UnbindBackward0 is a view and is being modified inplace");
  expect_error([&] { y.split(2)[1].mul_(2); }, "Output 1 of SplitBackward0");
  expect_error([&] { y.chunk(2)[0].select(0, 1).zero_(); }, msg);
  expect_error([&] { y.split_with_sizes({1, 3})[0].copy_(x.slice(0, 0, 1)); }, msg);
  // Fine without grad mode; tensor_split gives plain slices.
  {
    NoGradGuard no_grad;
    y.unbind()[0].add_(1);
  }
  // Unlike PyTorch, outputs of a base that does not require grad are not
  // marked: writing a value that requires grad into them rebases the base.
  Tensor plain = zeros({4}, kFloat64);
  Tensor x2 = rnd({2}, 11);
  plain.split(2)[1].copy_(x2 * 3);
  (plain * tensor({1.0, 2.0, 3.0, 4.0}, kFloat64)).sum().backward();
  expect_tensor_near(x2.grad(), tensor({9.0, 12.0}, kFloat64));
  Tensor ts = y.tensor_split(2)[0];
  ts.mul_(3);
  y.sum().backward();
  expect_tensor_near(x.grad(), tensor({{3.0, 3.0}, {3.0, 3.0}, {1.0, 1.0}, {1.0, 1.0}}, kFloat64));
}

TEST(AutogradIndexing, IndexResultIsNotAViewOfATemporary) {
  // index() copies through a view of an internal buffer; in-place writes to the
  // result must still reach x's gradient.
  Tensor x = leaf({1, 2, 3});
  Tensor y = x.index({ids({2, 0})});
  EXPECT_FALSE(y.is_view());
  y.mul_(4);
  y.sum().backward();
  expect_tensor_near(x.grad(), tensor({4.0, 0.0, 4.0}, kFloat64));
}

}  // namespace autograd_indexing_test
}  // namespace ember
