#pragma once
// CosineSimilarity and PairwiseDistance modules (nn/functional/distance.h).
// Both print as PyTorch does, without their options: "CosineSimilarity()".
#include "ember/nn/module.h"

namespace ember::nn {

struct CosineSimilarityOptions {
  int64_t dim = 1;
  double eps = 1e-8;
};
// sum(x1 * x2) / (max(|x1|, eps) * max(|x2|, eps)) along dim.
class CosineSimilarityImpl : public Module {
 public:
  using Options = CosineSimilarityOptions;
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options = {})
      : Module("CosineSimilarity"), options(options) {}
  explicit CosineSimilarityImpl(int64_t dim, double eps = 1e-8)
      : CosineSimilarityImpl(CosineSimilarityOptions{dim, eps}) {}
  Tensor forward(const Tensor& x1, const Tensor& x2);
  CosineSimilarityOptions options;
};
EMBER_MODULE(CosineSimilarity);

struct PairwiseDistanceOptions {
  double p = 2.0;
  double eps = 1e-6;
  bool keepdim = false;
};
// ||x1 - x2 + eps||_p along the last dim.
class PairwiseDistanceImpl : public Module {
 public:
  using Options = PairwiseDistanceOptions;
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options = {})
      : Module("PairwiseDistance"), options(options) {}
  explicit PairwiseDistanceImpl(double p, double eps = 1e-6, bool keepdim = false)
      : PairwiseDistanceImpl(PairwiseDistanceOptions{p, eps, keepdim}) {}
  Tensor forward(const Tensor& x1, const Tensor& x2);
  PairwiseDistanceOptions options;
};
EMBER_MODULE(PairwiseDistance);

}  // namespace ember::nn
