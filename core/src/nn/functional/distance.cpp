// nn::functional distances, as PyTorch 1.13's compositions.
#include "ember/nn/functional/distance.h"

#include <algorithm>

#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ops/op_utils.h"

namespace ember::nn::functional {

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  EMBER_CHECK(x1.defined() && x2.defined(), "cosine_similarity: input tensor is undefined");
  const DimVector shape = infer_broadcast_size(x1.sizes(), x2.sizes(), "cosine_similarity");
  const int64_t d = wrap_dim(dim, static_cast<int64_t>(shape.size()), "cosine_similarity");
  const Tensor a = x1.expand(shape), b = x2.expand(shape);
  // Norms clamped at eps in value only (PyTorch clamps them in place under no_grad).
  auto clamped_norm = [&](const Tensor& t) {
    const Tensor n = norm(t, 2, {d}, true);
    const Tensor nd = n.detach();
    return n + (nd.clamp_min(eps) - nd);
  };
  return ((a / clamped_norm(a)) * (b / clamped_norm(b))).sum({d});
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  EMBER_CHECK(x1.defined() && x2.defined(), "pairwise_distance: input tensor is undefined");
  const int64_t out_dim = std::max(x1.dim(), x2.dim());
  EMBER_CHECK(out_dim >= 1, "pairwise_distance: expected inputs of at least 1 dim, got 0-d tensors");
  return norm(x1 - x2 + eps, p, {out_dim - 1}, keepdim);
}

}  // namespace ember::nn::functional
