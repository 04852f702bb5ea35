#include "ember/nn/modules/distance.h"

#include "ember/nn/functional/distance.h"

namespace ember::nn {

Tensor CosineSimilarityImpl::forward(const Tensor& x1, const Tensor& x2) {
  return functional::cosine_similarity(x1, x2, options.dim, options.eps);
}

Tensor PairwiseDistanceImpl::forward(const Tensor& x1, const Tensor& x2) {
  return functional::pairwise_distance(x1, x2, options.p, options.eps, options.keepdim);
}

}  // namespace ember::nn
