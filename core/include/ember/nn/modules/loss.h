#pragma once
// Loss modules (torch.nn.L1Loss ... MultiMarginLoss) over nn/functional/loss.h.
// Options are the functional ones (designated initializers, PyTorch's keyword
// arguments; Reduction::None / Mean / Sum, BatchMean for KLDivLoss only):
//
//   nn::CrossEntropyLoss ce({.weight = w, .ignore_index = 0, .label_smoothing = 0.1});
//   Tensor loss = ce(logits, targets);
//
// Class weights (and BCEWithLogitsLoss's pos_weight) are registered buffers
// named as PyTorch's (`weight`, `pos_weight`), so the module's state_dict
// matches PyTorch's and loading a PyTorch checkpoint restores them; forward
// reads the buffers (options.weight is cleared once it is registered).
// Losses print as PyTorch's, without their options: "CrossEntropyLoss()".
#include <memory>

#include "ember/nn/functional/loss.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/distance.h"

namespace ember::nn {

struct L1LossOptions {
  Reduction reduction = Reduction::Mean;
};
struct MSELossOptions {
  Reduction reduction = Reduction::Mean;
};
struct MultiLabelMarginLossOptions {
  Reduction reduction = Reduction::Mean;
};
struct SoftMarginLossOptions {
  Reduction reduction = Reduction::Mean;
};
using SmoothL1LossOptions = functional::SmoothL1LossOptions;
using HuberLossOptions = functional::HuberLossOptions;
using CrossEntropyLossOptions = functional::CrossEntropyOptions;
using NLLLossOptions = functional::NLLLossOptions;
using BCELossOptions = functional::BinaryCrossEntropyOptions;
using BCEWithLogitsLossOptions = functional::BinaryCrossEntropyWithLogitsOptions;
using KLDivLossOptions = functional::KLDivOptions;
using PoissonNLLLossOptions = functional::PoissonNLLLossOptions;
using GaussianNLLLossOptions = functional::GaussianNLLLossOptions;
using CTCLossOptions = functional::CTCLossOptions;
using MarginRankingLossOptions = functional::MarginRankingLossOptions;
using HingeEmbeddingLossOptions = functional::HingeEmbeddingLossOptions;
using MultiLabelSoftMarginLossOptions = functional::MultilabelSoftMarginLossOptions;
using CosineEmbeddingLossOptions = functional::CosineEmbeddingLossOptions;
using TripletMarginLossOptions = functional::TripletMarginLossOptions;
using TripletMarginWithDistanceLossOptions = functional::TripletMarginWithDistanceLossOptions;
using MultiMarginLossOptions = functional::MultiMarginLossOptions;

// Mean |input - target|.
class L1LossImpl : public Module {
 public:
  using Options = L1LossOptions;
  explicit L1LossImpl(const L1LossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  L1LossOptions options;
};
EMBER_MODULE(L1Loss);

// Mean (input - target)^2.
class MSELossImpl : public Module {
 public:
  using Options = MSELossOptions;
  explicit MSELossImpl(const MSELossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  MSELossOptions options;
};
EMBER_MODULE(MSELoss);

// Quadratic below beta, linear above.
class SmoothL1LossImpl : public Module {
 public:
  using Options = SmoothL1LossOptions;
  explicit SmoothL1LossImpl(const SmoothL1LossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  SmoothL1LossOptions options;
};
EMBER_MODULE(SmoothL1Loss);

// Quadratic below delta, linear above (delta * smooth_l1 with beta = delta).
class HuberLossImpl : public Module {
 public:
  using Options = HuberLossOptions;
  explicit HuberLossImpl(const HuberLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  HuberLossOptions options;
};
EMBER_MODULE(HuberLoss);

// Logits [N, C, ...] and class indices or class probabilities.
class CrossEntropyLossImpl : public Module {
 public:
  using Options = CrossEntropyLossOptions;
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  CrossEntropyLossOptions options;
  Tensor weight;  // the `weight` buffer (undefined when not given)
};
EMBER_MODULE(CrossEntropyLoss);

// Log-probabilities [N, C, ...] and class indices.
class NLLLossImpl : public Module {
 public:
  using Options = NLLLossOptions;
  explicit NLLLossImpl(const NLLLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  NLLLossOptions options;
  Tensor weight;  // the `weight` buffer (undefined when not given)
};
EMBER_MODULE(NLLLoss);

// Probabilities and targets in [0, 1].
class BCELossImpl : public Module {
 public:
  using Options = BCELossOptions;
  explicit BCELossImpl(const BCELossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  BCELossOptions options;
  Tensor weight;  // the `weight` buffer (undefined when not given)
};
EMBER_MODULE(BCELoss);

// Logits and targets in [0, 1]; pos_weight weighs the positives per class.
class BCEWithLogitsLossImpl : public Module {
 public:
  using Options = BCEWithLogitsLossOptions;
  explicit BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  BCEWithLogitsLossOptions options;
  Tensor weight, pos_weight;  // buffers (undefined when not given)
};
EMBER_MODULE(BCEWithLogitsLoss);

// Input: log-probabilities; Reduction::BatchMean is the mathematical KL divergence.
class KLDivLossImpl : public Module {
 public:
  using Options = KLDivLossOptions;
  explicit KLDivLossImpl(const KLDivLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  KLDivLossOptions options;
};
EMBER_MODULE(KLDivLoss);

// Poisson negative log likelihood (log_input: input is log(rate)).
class PoissonNLLLossImpl : public Module {
 public:
  using Options = PoissonNLLLossOptions;
  explicit PoissonNLLLossImpl(const PoissonNLLLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  PoissonNLLLossOptions options;
};
EMBER_MODULE(PoissonNLLLoss);

// Gaussian negative log likelihood with predicted variances var.
class GaussianNLLLossImpl : public Module {
 public:
  using Options = GaussianNLLLossOptions;
  explicit GaussianNLLLossImpl(const GaussianNLLLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target, const Tensor& var);
  GaussianNLLLossOptions options;
};
EMBER_MODULE(GaussianNLLLoss);

// max(0, -target * (input1 - input2) + margin).
class MarginRankingLossImpl : public Module {
 public:
  using Options = MarginRankingLossOptions;
  explicit MarginRankingLossImpl(const MarginRankingLossOptions& options = {});
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target);
  MarginRankingLossOptions options;
};
EMBER_MODULE(MarginRankingLoss);

// Target 1: input; target -1: max(0, margin - input).
class HingeEmbeddingLossImpl : public Module {
 public:
  using Options = HingeEmbeddingLossOptions;
  explicit HingeEmbeddingLossImpl(const HingeEmbeddingLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  HingeEmbeddingLossOptions options;
};
EMBER_MODULE(HingeEmbeddingLoss);

// Multi-class multi-label hinge loss; target: class indices ended by -1.
class MultiLabelMarginLossImpl : public Module {
 public:
  using Options = MultiLabelMarginLossOptions;
  explicit MultiLabelMarginLossImpl(const MultiLabelMarginLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  MultiLabelMarginLossOptions options;
};
EMBER_MODULE(MultiLabelMarginLoss);

// One-vs-all logistic loss over classes (target 0/1 per class).
class MultiLabelSoftMarginLossImpl : public Module {
 public:
  using Options = MultiLabelSoftMarginLossOptions;
  explicit MultiLabelSoftMarginLossImpl(const MultiLabelSoftMarginLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  MultiLabelSoftMarginLossOptions options;
  Tensor weight;  // the `weight` buffer (undefined when not given)
};
EMBER_MODULE(MultiLabelSoftMarginLoss);

// log(1 + exp(-target * input)).
class SoftMarginLossImpl : public Module {
 public:
  using Options = SoftMarginLossOptions;
  explicit SoftMarginLossImpl(const SoftMarginLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  SoftMarginLossOptions options;
};
EMBER_MODULE(SoftMarginLoss);

// Target 1: 1 - cos(x1, x2); target -1: max(0, cos(x1, x2) - margin).
class CosineEmbeddingLossImpl : public Module {
 public:
  using Options = CosineEmbeddingLossOptions;
  explicit CosineEmbeddingLossImpl(const CosineEmbeddingLossOptions& options = {});
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target);
  CosineEmbeddingLossOptions options;
};
EMBER_MODULE(CosineEmbeddingLoss);

// max(0, margin + d(a, p) - d(a, n)) with the p-norm distance.
class TripletMarginLossImpl : public Module {
 public:
  using Options = TripletMarginLossOptions;
  explicit TripletMarginLossImpl(const TripletMarginLossOptions& options = {});
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative);
  TripletMarginLossOptions options;
};
EMBER_MODULE(TripletMarginLoss);

// Multi-class hinge loss; target: class indices.
class MultiMarginLossImpl : public Module {
 public:
  using Options = MultiMarginLossOptions;
  explicit MultiMarginLossImpl(const MultiMarginLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  MultiMarginLossOptions options;
  Tensor weight;  // the `weight` buffer (undefined when not given)
};
EMBER_MODULE(MultiMarginLoss);

// Connectionist temporal classification. log_probs [T, N, C] (or [T, C]),
// targets padded [N, S] or concatenated 1-d; lengths as integral tensors or
// Lists.
class CTCLossImpl : public Module {
 public:
  using Options = CTCLossOptions;
  explicit CTCLossImpl(const CTCLossOptions& options = {});
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths);
  Tensor forward(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                 IntArrayRef target_lengths);
  CTCLossOptions options;
};
EMBER_MODULE(CTCLoss);

// triplet_margin_with_distance_loss. Without options.distance_function the
// distance is a PairwiseDistance() child named `distance_function`, as
// PyTorch's (which prints it: "TripletMarginWithDistanceLoss(\n
// (distance_function): PairwiseDistance()\n)").
class TripletMarginWithDistanceLossImpl : public Module {
 public:
  using Options = TripletMarginWithDistanceLossOptions;
  explicit TripletMarginWithDistanceLossImpl(const TripletMarginWithDistanceLossOptions& options = {});
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative);
  TripletMarginWithDistanceLossOptions options;
  PairwiseDistance distance_function{nullptr};  // the default distance, or empty
};
EMBER_MODULE(TripletMarginWithDistanceLoss);

}  // namespace ember::nn
