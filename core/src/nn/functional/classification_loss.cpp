// nn::functional classification losses: nll_loss, cross_entropy,
// binary_cross_entropy, binary_cross_entropy_with_logits. nll_loss picks the
// target log-probabilities with gather (whose backward scatters), so
// cross_entropy = log_softmax (fused kernel) + nll_loss needs no kernel of its own.
#include "autograd/record.h"
#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/loss.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "nn/functional/loss_utils.h"

namespace ember::nn::functional {

using detail::apply_reduction;
using detail::check_defined;

namespace {

// Checks input [N, C, d...] / [C] against class-index target [N, d...] / [].
int64_t check_nll_shapes(const Tensor& input, const Tensor& target, const char* op) {
  EMBER_CHECK(input.dim() >= 1, op, ": input must have at least 1 dim ([C], [N, C] or [N, C, d1, ...]), got a 0-d tensor");
  if (input.dim() == 1) {
    EMBER_CHECK(target.dim() == 0 || (target.dim() == 1 && target.size(0) == 1), op,
                ": a 1-d input (one sample of ", input.size(0), " classes) expects a 0-d target, got target of shape ",
                target.sizes());
    return input.size(0);
  }
  EMBER_CHECK(target.dim() == input.dim() - 1, op, ": expected a target of ", input.dim() - 1,
              " dims for input of shape ", input.sizes(), ", got target of shape ", target.sizes());
  EMBER_CHECK(input.size(0) == target.size(0), op, ": Expected input batch_size (", input.size(0),
              ") to match target batch_size (", target.size(0), ").");
  for (int64_t d = 2; d < input.dim(); ++d) {
    if (target.size(d - 1) == input.size(d)) continue;
    DimVector expected{input.size(0)};
    for (int64_t k = 2; k < input.dim(); ++k) expected.push_back(input.size(k));
    EMBER_FAIL(op, ": expected target size ", IntArrayRef(expected), ", got ", target.sizes());
  }
  return input.size(1);
}

// -input[n, target[n], d...] * weight[target] as [N, d...] (input at least 2-d),
// and the weights (0 where ignored).
//
// Ignored positions are cut from the graph by a where(), not only weighted by
// 0: with every target ignored the mean divides by a total weight of 0, and
// the gradient 0 * (1 / 0) would be NaN; PyTorch's nll_loss_backward never
// writes ignored positions, so their gradient is 0 (and one all-ignored batch
// does not poison the weights). The loss itself is NaN (0 / 0), as PyTorch.
std::pair<Tensor, Tensor> nll_terms(const Tensor& x, const Tensor& target, const Tensor& weight,
                                    int64_t ignore_index) {
  const Tensor t = target.to(kInt64);
  const Tensor ignored = t == Scalar(ignore_index);
  const Tensor safe = t.masked_fill(ignored, Scalar(0));
  const Tensor picked = where(ignored, Scalar(0), x.gather(1, safe.unsqueeze(1)).squeeze(1));
  Tensor w = weight.defined() ? weight.detach().to(x.dtype()).index_select(0, safe.flatten()).view(safe.sizes())
                              : ones(safe.sizes(), x.options());
  w = w.masked_fill(ignored, Scalar(0));
  return {-picked * w, w};
}

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossOptions& o) {
  const char* op = "nll_loss";
  check_defined(input, "input", op);
  check_defined(target, "target", op);
  detail::check_class_target(target, op);
  const int64_t classes = check_nll_shapes(input, target, op);
  detail::check_class_weight(o.weight, classes, op);
  detail::check_target_range(target, 0, classes, op, o.ignore_index);
  const bool single = input.dim() == 1;
  const Tensor x = single ? input.unsqueeze(0) : input;
  const Tensor t = single ? target.reshape({1}) : target;
  auto [loss, w] = nll_terms(x, t, o.weight, o.ignore_index);
  switch (o.reduction) {
    case Reduction::None: return single ? loss.squeeze(0) : loss;
    case Reduction::Sum: return loss.sum();
    case Reduction::Mean: return loss.sum() / w.sum();
    case Reduction::BatchMean: break;
  }
  return apply_reduction(loss, o.reduction, op);  // throws
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyOptions& o) {
  const char* op = "cross_entropy";
  check_defined(input, "input", op);
  check_defined(target, "target", op);
  EMBER_CHECK(o.label_smoothing >= 0 && o.label_smoothing <= 1, op,
              ": label_smoothing must be between 0.0 and 1.0. Got: ", o.label_smoothing);
  EMBER_CHECK(o.reduction != Reduction::BatchMean, op, ": reduction 'batchmean' is only supported by kl_div");
  EMBER_CHECK(input.dim() >= 1, op, ": input must have at least 1 dim ([C], [N, C] or [N, C, d1, ...]), got a 0-d tensor");
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const int64_t classes = input.size(class_dim);
  const double eps = o.label_smoothing;
  if (is_floating_point(target.dtype())) {
    // Class probabilities.
    EMBER_CHECK(target.sizes() == input.sizes(), op, ": expected a target of class probabilities of the input's shape ",
                input.sizes(), ", got ", target.sizes());
    EMBER_CHECK(o.ignore_index < 0, op, ": ignore_index is not supported for floating point target (got ignore_index ",
                o.ignore_index, ")");
    detail::check_class_weight(o.weight, classes, op);
    const Tensor logp = log_softmax(input, class_dim);
    const Tensor p = eps > 0 ? target * (1 - eps) + eps / static_cast<double>(classes) : target;
    Tensor prod = logp * p;
    if (o.weight.defined())
      prod = prod * detail::class_weight_view(o.weight.to(input.dtype()), input.dim(), class_dim);  // differentiable, as PyTorch
    switch (o.reduction) {
      case Reduction::None: return -prod.sum({class_dim});
      case Reduction::Sum: return -prod.sum();
      default: {
        // Mean over the samples; an empty batch gives 0 / 0 = NaN that still
        // requires grad (PyTorch's graph), not a constant.
        int64_t samples = 1;
        for (int64_t d = 0; d < input.dim(); ++d)
          if (d != class_dim) samples *= input.size(d);
        return -prod.sum() / static_cast<double>(samples);
      }
    }
  }
  detail::check_class_target(target, op);
  const Tensor logp = log_softmax(input, class_dim);
  const Tensor nll = nll_loss(logp, target, {.weight = o.weight, .ignore_index = o.ignore_index, .reduction = o.reduction});
  if (eps == 0) return nll;
  // Label smoothing: (1 - eps) nll + eps / C * (the loss against the uniform distribution).
  const Tensor ignored = target.to(kInt64) == Scalar(o.ignore_index);
  Tensor smooth = o.weight.defined()
                      ? logp * detail::class_weight_view(o.weight.detach().to(input.dtype()), input.dim(), class_dim)
                      : logp;
  smooth = (-smooth.sum({class_dim})).masked_fill(ignored, Scalar(0));
  Tensor ret;
  switch (o.reduction) {
    case Reduction::None: ret = smooth; break;
    case Reduction::Sum: ret = smooth.sum(); break;
    default:
      if (o.weight.defined()) {
        const Tensor kept = target.to(kInt64).masked_select(logical_not(ignored));
        ret = smooth.sum() / o.weight.detach().to(input.dtype()).index_select(0, kept).sum();
      } else {
        ret = smooth.sum() / logical_not(ignored).sum();
      }
  }
  return nll * (1 - eps) + ret * (eps / static_cast<double>(classes));
}

namespace {

// The elementwise binary cross entropy (times weight), recorded with
// PyTorch's gradient formulas: the input's stays finite at input 0 and 1, the
// target's is -logit(input) (infinite there, as PyTorch's).
Tensor bce_elementwise(const Tensor& input, const Tensor& target, const Tensor& weight) {
  autograd::OpRecorder rec("binary_cross_entropy", {input, target});
  Tensor loss = -(target * input.log().clamp_min(-100) + (1 - target) * (1 - input).log().clamp_min(-100));
  if (weight.defined()) loss = loss * weight;
  if (rec)
    rec.record(loss, [sx = rec.save(input), st = rec.save(target), w = weight.defined() ? weight.detach() : Tensor()](
                         autograd::BackwardContext& c) {
      const Tensor x = c.unpack(sx), t = c.unpack(st);
      Tensor g = w.defined() ? c.grads[0] * w : c.grads[0];
      Tensor gx, gt;
      if (c.needs(0)) gx = g * (x - t) / ((1 - x) * x).clamp_min(1e-12);
      if (c.needs(1)) gt = g * ((1 - x).log() - x.log());
      return autograd::variable_list{gx, gt};
    });
  return loss;
}

}  // namespace

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const BinaryCrossEntropyOptions& o) {
  const char* op = "binary_cross_entropy";
  check_defined(input, "input", op);
  check_defined(target, "target", op);
  detail::check_same_size(input, target, op);
  EMBER_CHECK(is_floating_point(input.dtype()), op, ": expected a floating point input, got ", input.dtype());
  {
    const Tensor x = input.detach();
    EMBER_CHECK(!logical_or(x < 0, x > 1).any().item<bool>(), op,
                ": all elements of input should be between 0 and 1");
  }
  return apply_reduction(bce_elementwise(input, target.to(input.dtype()), o.weight), o.reduction, op);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsOptions& o) {
  const char* op = "binary_cross_entropy_with_logits";
  check_defined(input, "input", op);
  check_defined(target, "target", op);
  detail::check_same_size(input, target, op);
  // (1 - t) x + lw softplus(-x), lw = 1 + (pos_weight - 1) t; softplus(-x) = -logsigmoid(x).
  const Tensor ls = logsigmoid(input);
  Tensor loss = (1 - target) * input - (o.pos_weight.defined() ? ((o.pos_weight - 1) * target + 1) * ls : ls);
  if (o.weight.defined()) loss = loss * o.weight;
  return apply_reduction(loss, o.reduction, op);
}

}  // namespace ember::nn::functional
