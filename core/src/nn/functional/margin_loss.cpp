// nn::functional margin and embedding losses: margin_ranking, hinge_embedding,
// multilabel_margin, multilabel_soft_margin, soft_margin, cosine_embedding,
// triplet_margin, multi_margin. Compositions of recorded core ops with
// PyTorch's formulas (clamp_min where PyTorch clamps, relu where its kernels
// test z > 0, so the gradients agree at the kinks).
#include <algorithm>
#include <vector>

#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/distance.h"
#include "ember/nn/functional/loss.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "nn/functional/loss_utils.h"

namespace ember::nn::functional {

using detail::apply_reduction;
using detail::check_defined;

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossOptions& o) {
  const char* op = "margin_ranking_loss";
  check_defined(input1, "input1", op);
  check_defined(input2, "input2", op);
  check_defined(target, "target", op);
  EMBER_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(), op,
              ": All input tensors should have same dimension but got sizes: input1: ", input1.sizes(),
              ", input2: ", input2.sizes(), ", target: ", target.sizes());
  return apply_reduction((-target * (input1 - input2) + o.margin).clamp_min(0), o.reduction, op);
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, const HingeEmbeddingLossOptions& o) {
  const char* op = "hinge_embedding_loss";
  check_defined(input, "input", op);
  check_defined(target, "target", op);
  const Tensor margin_part = where(target != 1, (o.margin - input).clamp_min(0), Scalar(0));
  const Tensor self_part = where(target != -1, input, Scalar(0));
  return apply_reduction(margin_part + self_part, o.reduction, op);
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  const char* op = "soft_margin_loss";
  check_defined(input, "input", op);
  check_defined(target, "target", op);
  detail::check_same_size(input, target, op);
  return apply_reduction(-logsigmoid(target * input), reduction, op);  // log(1 + exp(-y x))
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossOptions& o) {
  const char* op = "multilabel_soft_margin_loss";
  check_defined(input, "input", op);
  check_defined(target, "target", op);
  detail::check_same_size(input, target, op);
  EMBER_CHECK(input.dim() >= 1, op, ": expected an input of shape [N, C] or [C], got a 0-d tensor");
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  Tensor loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input));
  if (o.weight.defined()) loss = loss * o.weight;
  loss = loss.sum({class_dim}) / static_cast<double>(input.size(class_dim));
  return apply_reduction(loss, o.reduction, op);
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossOptions& o) {
  const char* op = "cosine_embedding_loss";
  check_defined(input1, "input1", op);
  check_defined(input2, "input2", op);
  check_defined(target, "target", op);
  EMBER_CHECK(input1.sizes() == input2.sizes(), op, ": input1 ", input1.sizes(), " and input2 ", input2.sizes(),
              " must have the same shape");
  EMBER_CHECK(input1.dim() == 1 || input1.dim() == 2, op, ": expected 1-d or 2-d inputs, got ", input1.dim(), "-d");
  EMBER_CHECK(target.dim() == input1.dim() - 1, op, ": ", target.dim(), "D target tensor expects ",
              target.dim() + 1, "D input tensors, but found inputs with sizes ", input1.sizes(), " and ",
              input2.sizes(), ".");
  const int64_t d = input1.dim() - 1;
  constexpr double kEps = 1e-12;
  const Tensor prod = (input1 * input2).sum({d});
  const Tensor mag1 = (input1 * input1).sum({d}) + kEps;
  const Tensor mag2 = (input2 * input2).sum({d}) + kEps;
  const Tensor cos = prod / (mag1 * mag2).sqrt();
  const Tensor pos = where(target == 1, 1 - cos, Scalar(0));
  const Tensor neg = where(target == -1, (cos - o.margin).clamp_min(0), Scalar(0));
  return apply_reduction(pos + neg, o.reduction, op);
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossOptions& o) {
  const char* op = "triplet_margin_loss";
  check_defined(anchor, "anchor", op);
  check_defined(positive, "positive", op);
  check_defined(negative, "negative", op);
  EMBER_CHECK(anchor.dim() == positive.dim() && anchor.dim() == negative.dim(), op,
              ": The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
              "but got: anchor ", anchor.dim(), "D, positive ", positive.dim(), "D, and negative ", negative.dim(),
              "D inputs");
  EMBER_CHECK(o.margin > 0, op, ": margin must be greater than 0, got ", o.margin);
  const Tensor d_pos = pairwise_distance(anchor, positive, o.p, o.eps);
  Tensor d_neg = pairwise_distance(anchor, negative, o.p, o.eps);
  if (o.swap) d_neg = minimum(d_neg, pairwise_distance(positive, negative, o.p, o.eps));
  return apply_reduction((d_pos - d_neg + o.margin).clamp_min(0), o.reduction, op);
}

Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const TripletMarginWithDistanceLossOptions& o) {
  const char* op = "triplet_margin_with_distance_loss";
  check_defined(anchor, "anchor", op);
  check_defined(positive, "positive", op);
  check_defined(negative, "negative", op);
  EMBER_CHECK(o.margin > 0, op, ": expected margin to be greater than 0, got ", o.margin, " instead");
  EMBER_CHECK(anchor.dim() == positive.dim() && anchor.dim() == negative.dim(), op,
              ": The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
              "but got: anchor ", anchor.dim(), "D, positive ", positive.dim(), "D, and negative ", negative.dim(),
              "D inputs");
  const auto distance = o.distance_function ? o.distance_function
                                            : DistanceFunction([](const Tensor& x1, const Tensor& x2) {
                                                return pairwise_distance(x1, x2);
                                              });
  const Tensor d_pos = distance(anchor, positive);
  Tensor d_neg = distance(anchor, negative);
  if (o.swap) d_neg = minimum(d_neg, distance(positive, negative));
  return apply_reduction((d_pos - d_neg + o.margin).clamp_min(0), o.reduction, op);
}

namespace {
// input [N, C] (a 1-d input as one sample); returns it 2-d.
Tensor as_batch(const Tensor& input, const char* op) {
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, op, ": expected an input of shape [N, C] or [C], got ",
              input.sizes());
  return input.dim() == 1 ? input.unsqueeze(0) : input;
}
}  // namespace

Tensor multi_margin_loss(const Tensor& input, const Tensor& target, const MultiMarginLossOptions& o) {
  const char* op = "multi_margin_loss";
  check_defined(input, "input", op);
  check_defined(target, "target", op);
  detail::check_class_target(target, op);
  EMBER_CHECK(o.p == 1 || o.p == 2, op, ": only p == 1 and p == 2 supported, got p = ", o.p);
  const Tensor x = as_batch(input, op);
  const int64_t n = x.size(0), classes = x.size(1);
  EMBER_CHECK(target.numel() == n && target.dim() <= 1, op, ": inconsistent target size: expected ", n,
              " class indices (one per sample), got target of shape ", target.sizes(), " for input of shape ",
              input.sizes());
  detail::check_class_weight(o.weight, classes, op);
  detail::check_target_range(target, 0, classes, op);
  const Tensor t = target.to(kInt64).reshape({n, 1});
  const Tensor x_target = x.gather(1, t);
  Tensor z = (x - x_target + o.margin).relu();  // the kernel counts z > 0 only
  if (o.p == 2) z = z.square();
  if (o.weight.defined()) z = z * o.weight.detach().to(x.dtype()).index_select(0, t.flatten()).unsqueeze(1);
  z = z.masked_fill(arange(classes, TensorOptions(kInt64).device(x.device())).unsqueeze(0) == t,
                    Scalar(0));  // skip the target class
  Tensor loss = z.sum({1}) / static_cast<double>(classes);
  if (input.dim() == 1 && o.reduction == Reduction::None) loss = loss.squeeze(0);
  return apply_reduction(loss, o.reduction, op);
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  const char* op = "multilabel_margin_loss";
  check_defined(input, "input", op);
  check_defined(target, "target", op);
  detail::check_class_target(target, op);
  const Tensor x = as_batch(input, op);
  EMBER_CHECK(target.sizes() == input.sizes(), op, ": inconsistent target size: ", target.sizes(),
              " for input of size: ", input.sizes());
  const int64_t n = x.size(0), classes = x.size(1);
  detail::check_target_range(target, -1, classes, op);
  // Which positions hold targets (before the first -1), and which classes are targets.
  // As tensor ops, so that they run on the target's device.
  const Tensor t = target.to(kInt64).reshape({n, classes});
  const Tensor valid = (t < 0).to(kInt64).cumsum(1) == 0;
  const Tensor safe = t.masked_fill(logical_not(valid), Scalar(0));
  const Tensor is_target = zeros({n, classes}, t.options()).scatter_add_(1, safe, valid.to(kInt64)) > 0;
  const Tensor x_target = x.gather(1, safe);  // [N, C]: x at each listed target
  // margins[n, j, i] = 1 - (x[target_j] - x[i]) over listed targets j and non-target classes i.
  const Tensor margins = (1 - x_target.unsqueeze(2) + x.unsqueeze(1)).relu();
  const Tensor mask = logical_and(valid.unsqueeze(2), logical_not(is_target).unsqueeze(1));
  Tensor loss = (margins * mask).sum({1, 2}) / static_cast<double>(classes);
  if (input.dim() == 1 && reduction == Reduction::None) loss = loss.squeeze(0);
  return apply_reduction(loss, reduction, op);
}

}  // namespace ember::nn::functional
