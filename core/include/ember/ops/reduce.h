#pragma once
// Reductions over any set of dims (empty dims = all), with keepdim.
#include <optional>
#include <utility>

#include "ember/core/tensor.h"

namespace ember {

// Integral and bool inputs sum/prod to int64 unless dtype is given.
Tensor sum(const Tensor& self, std::optional<DType> dtype = std::nullopt);
Tensor sum(const Tensor& self, IntArrayRef dims, bool keepdim = false, std::optional<DType> dtype = std::nullopt);
Tensor mean(const Tensor& self, std::optional<DType> dtype = std::nullopt);
Tensor mean(const Tensor& self, IntArrayRef dims, bool keepdim = false, std::optional<DType> dtype = std::nullopt);
Tensor prod(const Tensor& self, std::optional<DType> dtype = std::nullopt);
Tensor prod(const Tensor& self, int64_t dim, bool keepdim = false, std::optional<DType> dtype = std::nullopt);
// NaN propagates through max/min/amax/amin; indices point at the first max/min (or NaN).
Tensor max(const Tensor& self);
Tensor min(const Tensor& self);
std::pair<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor amax(const Tensor& self, IntArrayRef dims = {}, bool keepdim = false);
Tensor amin(const Tensor& self, IntArrayRef dims = {}, bool keepdim = false);
Tensor argmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
// correction = 1: Bessel's correction (unbiased), 0: population variance.
Tensor var(const Tensor& self, IntArrayRef dims = {}, int64_t correction = 1, bool keepdim = false);
Tensor std(const Tensor& self, IntArrayRef dims = {}, int64_t correction = 1, bool keepdim = false);
// p: any real, 0 (count of non-zeros), inf or -inf.
Tensor norm(const Tensor& self, const Scalar& p = 2);
Tensor norm(const Tensor& self, const Scalar& p, IntArrayRef dims, bool keepdim = false);
Tensor logsumexp(const Tensor& self, IntArrayRef dims, bool keepdim = false);
// uint8 inputs give uint8 results (as PyTorch), everything else bool.
Tensor all(const Tensor& self);
Tensor all(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor any(const Tensor& self);
Tensor any(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor count_nonzero(const Tensor& self, IntArrayRef dims = {});

}  // namespace ember
