#pragma once
// ember::nn::functional distances: cosine_similarity and pairwise_distance.
#include "ember/core/tensor.h"

namespace ember::nn::functional {

// sum(x1 * x2) / (max(|x1|, eps) * max(|x2|, eps)) along dim (inputs broadcast).
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);
// ||x1 - x2 + eps||_p along the last dim.
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2.0, double eps = 1e-6,
                         bool keepdim = false);

}  // namespace ember::nn::functional
