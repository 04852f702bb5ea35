#include "ember/nn/modules/loss.h"

namespace ember::nn {

namespace F = functional;

namespace {
// Reduction::BatchMean is KLDivLoss's only (PyTorch: "batchmean is not a valid
// value for reduction").
void check_reduction(Reduction reduction, const char* name) {
  EMBER_CHECK(reduction != Reduction::BatchMean, name,
              ": batchmean is not a valid value for reduction (only KLDivLoss has it); use None, Mean or Sum");
}
// The options with the registered buffer(s) in place of the weight(s) given
// at construction (the buffers are what load_state_dict / to() update).
template <class O>
O with_weight(O o, const Tensor& weight) {
  o.weight = weight;
  return o;
}
template <class O>
O with_weights(O o, const Tensor& weight, const Tensor& pos_weight) {
  o.weight = weight;
  o.pos_weight = pos_weight;
  return o;
}
}  // namespace

L1LossImpl::L1LossImpl(const L1LossOptions& o) : Module("L1Loss"), options(o) {
  check_reduction(o.reduction, "L1Loss");
}
Tensor L1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::l1_loss(input, target, options.reduction);
}

MSELossImpl::MSELossImpl(const MSELossOptions& o) : Module("MSELoss"), options(o) {
  check_reduction(o.reduction, "MSELoss");
}
Tensor MSELossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::mse_loss(input, target, options.reduction);
}

SmoothL1LossImpl::SmoothL1LossImpl(const SmoothL1LossOptions& o) : Module("SmoothL1Loss"), options(o) {
  check_reduction(o.reduction, "SmoothL1Loss");
}
Tensor SmoothL1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::smooth_l1_loss(input, target, options);
}

HuberLossImpl::HuberLossImpl(const HuberLossOptions& o) : Module("HuberLoss"), options(o) {
  check_reduction(o.reduction, "HuberLoss");
}
Tensor HuberLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::huber_loss(input, target, options);
}

CrossEntropyLossImpl::CrossEntropyLossImpl(const CrossEntropyLossOptions& o) : Module("CrossEntropyLoss"), options(o) {
  check_reduction(o.reduction, "CrossEntropyLoss");
  register_buffer("weight", o.weight, &weight);
  options.weight = Tensor();
}
Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::cross_entropy(input, target, with_weight(options, weight));
}

NLLLossImpl::NLLLossImpl(const NLLLossOptions& o) : Module("NLLLoss"), options(o) {
  check_reduction(o.reduction, "NLLLoss");
  register_buffer("weight", o.weight, &weight);
  options.weight = Tensor();
}
Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::nll_loss(input, target, with_weight(options, weight));
}

BCELossImpl::BCELossImpl(const BCELossOptions& o) : Module("BCELoss"), options(o) {
  check_reduction(o.reduction, "BCELoss");
  register_buffer("weight", o.weight, &weight);
  options.weight = Tensor();
}
Tensor BCELossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy(input, target, with_weight(options, weight));
}

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& o) : Module("BCEWithLogitsLoss"), options(o) {
  check_reduction(o.reduction, "BCEWithLogitsLoss");
  register_buffer("weight", o.weight, &weight);
  options.weight = Tensor();
  register_buffer("pos_weight", o.pos_weight, &pos_weight);
  options.pos_weight = Tensor();
}
Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy_with_logits(input, target, with_weights(options, weight, pos_weight));
}

KLDivLossImpl::KLDivLossImpl(const KLDivLossOptions& o) : Module("KLDivLoss"), options(o) {
}
Tensor KLDivLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::kl_div(input, target, options);
}

PoissonNLLLossImpl::PoissonNLLLossImpl(const PoissonNLLLossOptions& o) : Module("PoissonNLLLoss"), options(o) {
  check_reduction(o.reduction, "PoissonNLLLoss");
}
Tensor PoissonNLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::poisson_nll_loss(input, target, options);
}

GaussianNLLLossImpl::GaussianNLLLossImpl(const GaussianNLLLossOptions& o) : Module("GaussianNLLLoss"), options(o) {
  check_reduction(o.reduction, "GaussianNLLLoss");
}
Tensor GaussianNLLLossImpl::forward(const Tensor& input, const Tensor& target, const Tensor& var) {
  return F::gaussian_nll_loss(input, target, var, options);
}

MarginRankingLossImpl::MarginRankingLossImpl(const MarginRankingLossOptions& o) : Module("MarginRankingLoss"), options(o) {
  check_reduction(o.reduction, "MarginRankingLoss");
}
Tensor MarginRankingLossImpl::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  return F::margin_ranking_loss(input1, input2, target, options);
}

HingeEmbeddingLossImpl::HingeEmbeddingLossImpl(const HingeEmbeddingLossOptions& o) : Module("HingeEmbeddingLoss"), options(o) {
  check_reduction(o.reduction, "HingeEmbeddingLoss");
}
Tensor HingeEmbeddingLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::hinge_embedding_loss(input, target, options);
}

MultiLabelMarginLossImpl::MultiLabelMarginLossImpl(const MultiLabelMarginLossOptions& o) : Module("MultiLabelMarginLoss"), options(o) {
  check_reduction(o.reduction, "MultiLabelMarginLoss");
}
Tensor MultiLabelMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::multilabel_margin_loss(input, target, options.reduction);
}

MultiLabelSoftMarginLossImpl::MultiLabelSoftMarginLossImpl(const MultiLabelSoftMarginLossOptions& o) : Module("MultiLabelSoftMarginLoss"), options(o) {
  check_reduction(o.reduction, "MultiLabelSoftMarginLoss");
  register_buffer("weight", o.weight, &weight);
  options.weight = Tensor();
}
Tensor MultiLabelSoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::multilabel_soft_margin_loss(input, target, with_weight(options, weight));
}

SoftMarginLossImpl::SoftMarginLossImpl(const SoftMarginLossOptions& o) : Module("SoftMarginLoss"), options(o) {
  check_reduction(o.reduction, "SoftMarginLoss");
}
Tensor SoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::soft_margin_loss(input, target, options.reduction);
}

CosineEmbeddingLossImpl::CosineEmbeddingLossImpl(const CosineEmbeddingLossOptions& o) : Module("CosineEmbeddingLoss"), options(o) {
  check_reduction(o.reduction, "CosineEmbeddingLoss");
}
Tensor CosineEmbeddingLossImpl::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  return F::cosine_embedding_loss(input1, input2, target, options);
}

TripletMarginLossImpl::TripletMarginLossImpl(const TripletMarginLossOptions& o) : Module("TripletMarginLoss"), options(o) {
  check_reduction(o.reduction, "TripletMarginLoss");
}
Tensor TripletMarginLossImpl::forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
  return F::triplet_margin_loss(anchor, positive, negative, options);
}

MultiMarginLossImpl::MultiMarginLossImpl(const MultiMarginLossOptions& o) : Module("MultiMarginLoss"), options(o) {
  check_reduction(o.reduction, "MultiMarginLoss");
  register_buffer("weight", o.weight, &weight);
  options.weight = Tensor();
}
Tensor MultiMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::multi_margin_loss(input, target, with_weight(options, weight));
}

CTCLossImpl::CTCLossImpl(const CTCLossOptions& o) : Module("CTCLoss"), options(o) {
  check_reduction(o.reduction, "CTCLoss");
  EMBER_CHECK(o.blank >= 0, "CTCLoss: blank must be a non-negative class index, got ", o.blank);
}
Tensor CTCLossImpl::forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                            const Tensor& target_lengths) {
  return F::ctc_loss(log_probs, targets, input_lengths, target_lengths, options);
}
Tensor CTCLossImpl::forward(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                            IntArrayRef target_lengths) {
  return F::ctc_loss(log_probs, targets, input_lengths, target_lengths, options);
}

TripletMarginWithDistanceLossImpl::TripletMarginWithDistanceLossImpl(const TripletMarginWithDistanceLossOptions& o)
    : Module("TripletMarginWithDistanceLoss"), options(o) {
  check_reduction(o.reduction, "TripletMarginWithDistanceLoss");
  EMBER_CHECK(o.margin > 0, "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got ", o.margin,
              " instead");
  if (!o.distance_function) distance_function = register_module("distance_function", PairwiseDistance());
}
Tensor TripletMarginWithDistanceLossImpl::forward(const Tensor& anchor, const Tensor& positive,
                                                  const Tensor& negative) {
  auto o = options;
  if (!distance_function.is_empty()) {
    auto d = distance_function;
    o.distance_function = [d](const Tensor& x1, const Tensor& x2) { return d(x1, x2); };
  }
  return F::triplet_margin_with_distance_loss(anchor, positive, negative, o);
}

}  // namespace ember::nn
