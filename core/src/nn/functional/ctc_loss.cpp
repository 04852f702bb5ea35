// nn::functional ctc_loss: argument checks, the recorded per-sample negative
// log likelihood (kernels in kernels/cpu/ctc_kernels.cpp, its gradient from
// the beta recursion) and PyTorch's reductions.
#include <algorithm>
#include <limits>

#include "autograd/record.h"
#include "ember/nn/functional/loss.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/reduce.h"
#include "kernels/slots/ctc_kernels.h"
#include "nn/functional/loss_utils.h"

namespace ember::nn::functional {

EMBER_DEFINE_SLOT(ctc_forward_slot, CTCForwardFn, "ctc_loss");
EMBER_DEFINE_SLOT(ctc_backward_slot, CTCBackwardFn, "ctc_loss_backward");

namespace {

using autograd::BackwardContext;
using autograd::variable_list;

std::vector<int64_t> lengths_of(const Tensor& t, const char* what) {
  EMBER_CHECK(t.defined(), "ctc_loss: ", what, " tensor is undefined");
  EMBER_CHECK(is_integral(t.dtype(), false), "ctc_loss: ", what, " must be integral, got ", t.dtype());
  EMBER_CHECK(t.dim() <= 1, "ctc_loss: ", what, " must be 0-d or 1-d, got shape ", t.sizes());
  const Tensor c = t.to(kInt64).cpu().contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// The gradient of the loss (not differentiable again, as in PyTorch).
Tensor ctc_backward(const Tensor& grad_out, const CTCProblem& p, const Tensor& nll, const Tensor& log_alpha,
                    bool zero_infinity) {
  autograd::OpRecorder rec("_ctc_loss_backward", {grad_out});
  const Tensor g = grad_out.to(p.log_probs.dtype()).contiguous();
  Tensor grad = empty(p.log_probs.sizes(), p.log_probs.options());
  ctc_backward_slot(p.log_probs.device())(p, g, nll, log_alpha, zero_infinity, grad);
  if (rec)
    rec.record(grad, [](BackwardContext&) -> variable_list {
      EMBER_FAIL("ctc_loss: double backward is not supported (PyTorch defines no derivative of _ctc_loss_backward either)");
    });
  return grad;
}

// Per-sample negative log likelihoods [N], recorded.
Tensor ctc_nll(const Tensor& log_probs, CTCProblem p, bool zero_infinity) {
  autograd::OpRecorder rec("ctc_loss", {log_probs});
  p.log_probs = log_probs.contiguous();
  const int64_t N = p.log_probs.size(1), T = p.log_probs.size(0);
  Tensor nll = empty({N}, log_probs.options());
  Tensor log_alpha = empty({N, T, 2 * p.max_target_length + 1}, log_probs.options());
  ctc_forward_slot(log_probs.device())(p, nll, log_alpha);
  if (rec) {
    // The problem's tensors are kept alive by the closure; log_probs is saved for version checks.
    rec.record(nll, [sl = rec.save(log_probs), p, alpha = log_alpha, out = nll.detach(), zero_infinity](
                        BackwardContext& c) mutable {
      CTCProblem q = p;
      q.log_probs = c.unpack(sl).detach().contiguous();
      return variable_list{ctc_backward(c.grads[0], q, out, alpha, zero_infinity)};
    });
  }
  return nll;
}

}  // namespace

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                IntArrayRef target_lengths, const CTCLossOptions& o) {
  const char* op = "ctc_loss";
  detail::check_defined(log_probs, "log_probs", op);
  detail::check_defined(targets, "targets", op);
  EMBER_CHECK(log_probs.dim() == 2 || log_probs.dim() == 3, op,
              ": expected log_probs of shape [T, N, C] (or [T, C] unbatched), got ", log_probs.sizes());
  EMBER_CHECK(log_probs.dtype() == kFloat32 || log_probs.dtype() == kFloat64, op,
              ": expected float32 or float64 log_probs, got ", log_probs.dtype());
  detail::check_class_target(targets, op);
  EMBER_CHECK(o.reduction != Reduction::BatchMean, op, ": reduction 'batchmean' is only supported by kl_div");
  const bool unbatched = log_probs.dim() == 2;
  const Tensor lp = unbatched ? log_probs.unsqueeze(1) : log_probs;
  const int64_t T = lp.size(0), N = lp.size(1), C = lp.size(2);
  EMBER_CHECK(o.blank >= 0 && o.blank < C, op, ": blank must be in label range [0, ", C - 1, "], got ", o.blank);
  EMBER_CHECK(static_cast<int64_t>(input_lengths.size()) == N, op, ": input_lengths must be of size batch_size (",
              N, "), got ", input_lengths.size());
  EMBER_CHECK(static_cast<int64_t>(target_lengths.size()) == N, op,
              ": target_lengths must be of size batch_size (", N, "), got ", target_lengths.size());
  CTCProblem p;
  p.blank = o.blank;
  p.input_lengths.assign(input_lengths.begin(), input_lengths.end());
  p.target_lengths.assign(target_lengths.begin(), target_lengths.end());
  for (int64_t b = 0; b < N; ++b) {
    EMBER_CHECK(input_lengths[b] >= 0 && input_lengths[b] <= T, op, ": Expected input_lengths to have value at most ",
                T, " (and at least 0), but got value ", input_lengths[b], " for sample ", b);
    EMBER_CHECK(target_lengths[b] >= 0, op, ": target_lengths must be non-negative, got ", target_lengths[b],
                " for sample ", b);
  }
  const Tensor tg = (unbatched ? targets.reshape({1, -1}) : targets).to(kInt64).contiguous();
  if (!unbatched && targets.dim() == 1) {  // concatenated targets
    int64_t pos = 0;
    for (int64_t b = 0; b < N; ++b) {
      p.offsets.push_back(pos);
      pos += target_lengths[b];
      p.max_target_length = std::max(p.max_target_length, target_lengths[b]);
    }
    EMBER_CHECK(tg.numel() >= pos, op, ": concatenated targets hold ", tg.numel(),
                " labels but target_lengths sum to ", pos);
  } else {
    EMBER_CHECK(tg.dim() == 2 && tg.size(0) == N, op, ": expected padded targets of shape [", N,
                ", S] (or concatenated 1-d targets), got ", targets.sizes());
    const int64_t S = tg.size(1);
    for (int64_t b = 0; b < N; ++b) {
      EMBER_CHECK(target_lengths[b] <= S, op, ": Expected tensor to have size at least ", target_lengths[b],
                  " at dimension 1, but got size ", S, " for argument #2 'targets' (sample ", b, ")");
      p.offsets.push_back(b * S);
    }
    p.max_target_length = S;
  }
  {
    // Checked on the host: the labels are few next to the log-probabilities.
    const Tensor host_targets = tg.cpu();
    const int64_t* t = host_targets.data_ptr<int64_t>();
    for (int64_t b = 0; b < N; ++b)
      for (int64_t i = 0; i < target_lengths[b]; ++i) {
        const int64_t v = t[p.offsets[b] + i];
        EMBER_CHECK(v >= 0 && v < C, op, ": target ", v, " (sample ", b, ", position ", i,
                    ") is out of bounds for ", C, " classes");
      }
  }
  p.targets = tg;
  Tensor nll = ctc_nll(lp, std::move(p), o.zero_infinity);
  if (o.zero_infinity) nll = where(nll == std::numeric_limits<double>::infinity(), Scalar(0), nll);
  switch (o.reduction) {
    case Reduction::None: return unbatched ? nll.squeeze(0) : nll;
    case Reduction::Sum: return nll.sum();
    default: {
      std::vector<int64_t> tl(target_lengths.begin(), target_lengths.end());
      const Tensor lengths = tensor(tl).clamp_min(1).to(nll.device(), nll.dtype());
      return (nll / lengths).mean();
    }
  }
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossOptions& options) {
  const std::vector<int64_t> il = lengths_of(input_lengths, "input_lengths");
  const std::vector<int64_t> tl = lengths_of(target_lengths, "target_lengths");
  return ctc_loss(log_probs, targets, IntArrayRef(il), IntArrayRef(tl), options);
}

}  // namespace ember::nn::functional
