#pragma once
// ember::nn::functional losses (torch.nn.functional), each with a reduction
// (none / mean / sum) and, where PyTorch has keyword arguments, an options
// struct for designated initializers:
//   F::cross_entropy(x, t, {.weight = w, .ignore_index = -100,
//                           .reduction = Reduction::Mean, .label_smoothing = 0.1});
// Every loss is differentiable in its floating point inputs.
#include <functional>
#include <optional>

#include "ember/core/tensor.h"

namespace ember::nn {

enum class Reduction {
  None,       // one loss per element (per sample for losses over classes)
  Mean,       // the mean (weighted mean for weighted nll/cross_entropy)
  Sum,
  BatchMean,  // kl_div only: the sum divided by the batch size (input.size(0))
};

}  // namespace ember::nn

namespace ember::nn::functional {

using ember::nn::Reduction;

// ---- regression ----
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
struct SmoothL1LossOptions {
  Reduction reduction = Reduction::Mean;
  double beta = 1.0;  // >= 0; 0 gives l1_loss
};
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossOptions& options = {});
struct HuberLossOptions {
  Reduction reduction = Reduction::Mean;
  double delta = 1.0;  // > 0
};
Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossOptions& options = {});

// ---- classification ----
// input: [N, C], [C] or [N, C, d1, ...] (logits); target: class indices
// (integral, [N], [] or [N, d1, ...]) or class probabilities (floating, the
// input's shape).
struct CrossEntropyOptions {
  Tensor weight = {};  // [C] class weights, or undefined
  int64_t ignore_index = -100;  // class-index targets only
  Reduction reduction = Reduction::Mean;
  double label_smoothing = 0.0;  // in [0, 1]
};
Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyOptions& options = {});
// input: log-probabilities [N, C], [C] or [N, C, d1, ...]; target: class indices.
// Mean: sum of weighted losses / sum of the weights of non-ignored targets.
struct NLLLossOptions {
  Tensor weight = {};
  int64_t ignore_index = -100;
  Reduction reduction = Reduction::Mean;
};
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossOptions& options = {});
// input: probabilities in [0, 1]; the logs are clamped at -100 (as PyTorch).
struct BinaryCrossEntropyOptions {
  Tensor weight = {};  // broadcast to the input
  Reduction reduction = Reduction::Mean;
};
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyOptions& options = {});
// input: logits; computed in the stable log-sigmoid form.
struct BinaryCrossEntropyWithLogitsOptions {
  Tensor weight = {};      // broadcast to the input
  Tensor pos_weight = {};  // weight of positive examples, broadcast along the last dim (classes)
  Reduction reduction = Reduction::Mean;
};
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsOptions& options = {});
// input: log-probabilities; target: probabilities (log-probabilities with log_target).
struct KLDivOptions {
  Reduction reduction = Reduction::Mean;  // BatchMean gives the mathematical KL divergence
  bool log_target = false;
};
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivOptions& options = {});
struct PoissonNLLLossOptions {
  bool log_input = true;  // input is log(rate): loss = exp(input) - target * input
  bool full = false;      // add the Stirling approximation term
  double eps = 1e-8;      // log(input + eps) when !log_input
  Reduction reduction = Reduction::Mean;
};
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, const PoissonNLLLossOptions& options = {});
// var: the input's shape, or that shape with the last dim 1 or dropped.
struct GaussianNLLLossOptions {
  bool full = false;  // add 0.5 log(2 pi)
  double eps = 1e-6;  // var is clamped at eps (the gradient passes through the clamp)
  Reduction reduction = Reduction::Mean;
};
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                         const GaussianNLLLossOptions& options = {});

// ---- CTC ----
// log_probs: [T, N, C] (or [T, C] unbatched) log-softmax outputs; targets:
// padded [N, S] or concatenated 1-d (sum(target_lengths) labels); lengths per
// sample. Mean: the losses divided by the target lengths, then averaged.
struct CTCLossOptions {
  int64_t blank = 0;
  Reduction reduction = Reduction::Mean;
  bool zero_infinity = false;  // infinite losses (impossible alignments) and their gradients become 0
};
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                IntArrayRef target_lengths, const CTCLossOptions& options = {});
// Lengths as integral tensors ([N], or 0-d unbatched).
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossOptions& options = {});

// ---- margin and embedding losses ----
struct MarginRankingLossOptions {
  double margin = 0.0;
  Reduction reduction = Reduction::Mean;
};
// max(0, -target * (input1 - input2) + margin); target in {1, -1}.
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossOptions& options = {});
struct HingeEmbeddingLossOptions {
  double margin = 1.0;
  Reduction reduction = Reduction::Mean;
};
// target 1: input; target -1: max(0, margin - input).
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, const HingeEmbeddingLossOptions& options = {});
// input [N, C] or [C]; target: class indices of the same shape, ended by the first -1.
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
struct MultilabelSoftMarginLossOptions {
  Tensor weight = {};  // [C]
  Reduction reduction = Reduction::Mean;
};
// target: 0/1 per class; the per-class losses are averaged over classes.
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossOptions& options = {});
// log(1 + exp(-target * input)); target in {1, -1}.
Tensor soft_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
struct CosineEmbeddingLossOptions {
  double margin = 0.0;
  Reduction reduction = Reduction::Mean;
};
// target 1: 1 - cos(x1, x2); target -1: max(0, cos(x1, x2) - margin).
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossOptions& options = {});
struct TripletMarginLossOptions {
  double margin = 1.0;
  double p = 2.0;
  double eps = 1e-6;
  bool swap = false;  // use min(d(a, n), d(p, n)) as the negative distance
  Reduction reduction = Reduction::Mean;
};
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossOptions& options = {});
// triplet_margin_loss with any distance (pairwise_distance when none is
// given): max(0, margin + d(a, p) - d(a, n)); swap: d(a, n) becomes
// min(d(a, n), d(p, n)). The distance returns one value per sample.
using DistanceFunction = std::function<Tensor(const Tensor&, const Tensor&)>;
struct TripletMarginWithDistanceLossOptions {
  DistanceFunction distance_function = nullptr;
  double margin = 1.0;  // > 0
  bool swap = false;
  Reduction reduction = Reduction::Mean;
};
Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const TripletMarginWithDistanceLossOptions& options = {});
struct MultiMarginLossOptions {
  int64_t p = 1;  // 1 or 2
  double margin = 1.0;
  Tensor weight = {};  // [C]
  Reduction reduction = Reduction::Mean;
};
// input [N, C] or [C]; target: class indices [N] (or 0-d).
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, const MultiMarginLossOptions& options = {});

}  // namespace ember::nn::functional
