#pragma once
// Sorting and selection along one dim: sort, argsort, msort, topk, kthvalue,
// median, nanmedian, mode; unique and unique_consecutive of the flattened
// tensor. NaN orders as larger than every number, as in PyTorch. Ties keep
// their input order (sorts are stable), so results are deterministic.
#include <optional>
#include <tuple>
#include <utility>

#include "ember/core/tensor.h"

namespace ember {

// (values, indices). `stable` is accepted for PyTorch parity: sorting is always stable.
std::pair<Tensor, Tensor> sort(const Tensor& self, int64_t dim = -1, bool descending = false, bool stable = false);
Tensor argsort(const Tensor& self, int64_t dim = -1, bool descending = false, bool stable = false);
// Sorts along dim 0 (values only).
Tensor msort(const Tensor& self);
// The k largest (or smallest) entries along dim; sorted=false leaves them in an unspecified order.
std::pair<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim = -1, bool largest = true,
                               bool sorted = true);
// The k-th smallest entry along dim (k counts from 1).
std::pair<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim = -1, bool keepdim = false);
// Lower median (the smaller middle value for even counts); NaN if any entry is NaN.
Tensor median(const Tensor& self);
std::pair<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim = false);
// Median of the non-NaN entries; NaN only where all entries are NaN.
Tensor nanmedian(const Tensor& self);
std::pair<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim = false);
// Most frequent value along dim (the smallest among equally frequent ones) and
// the index of its last occurrence.
std::pair<Tensor, Tensor> mode(const Tensor& self, int64_t dim = -1, bool keepdim = false);

// Distinct values of the flattened tensor in ascending order, (if asked) the
// index of each input element's value in them (input-shaped) and how often each
// occurs. Tensors not asked for are returned empty. Output is always sorted.
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& self, bool sorted = true, bool return_inverse = false,
                                          bool return_counts = false);
// Collapses runs of equal consecutive values (of the flattened tensor).
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse = false,
                                                      bool return_counts = false);

}  // namespace ember
