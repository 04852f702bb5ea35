#pragma once
// Cumulative ops along one dim: cumsum, cumprod, cummax, cummin, logcumsumexp.
#include <optional>
#include <utility>

#include "ember/core/tensor.h"

namespace ember {

// Integral and bool inputs accumulate in int64 unless dtype is given (the
// input is converted to dtype first, as PyTorch does).
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor& cumsum_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor& cumprod_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
// Running max/min and the index where it was last attained; a NaN stays once seen.
std::pair<Tensor, Tensor> cummax(const Tensor& self, int64_t dim);
std::pair<Tensor, Tensor> cummin(const Tensor& self, int64_t dim);
// log(cumsum(exp(x))), computed stably; floating inputs only.
Tensor logcumsumexp(const Tensor& self, int64_t dim);

}  // namespace ember
