#pragma once
// Kernel slots of the CTC loss (kernels/cpu/ctc_kernels.cpp): PyTorch's CPU
// algorithm, log-space alpha (forward) and beta (backward) recursions
// (Graves et al., 2006, eqs. 6-16), one sample per task.
#include <cstdint>
#include <vector>

#include "ember/core/tensor.h"
#include "kernels/slots/kernel_slot.h"

namespace ember::nn::functional {

struct CTCProblem {
  Tensor log_probs;  // [T, N, C] contiguous, float32 or float64
  Tensor targets;    // int64 contiguous; sample b's labels at targets[offsets[b] + i]
  std::vector<int64_t> input_lengths, target_lengths, offsets;
  int64_t max_target_length = 0;
  int64_t blank = 0;
};

// neg_log_likelihood: [N]; log_alpha: [N, T, 2 * max_target_length + 1]
// (both allocated by the caller, written here).
using CTCForwardFn = void(const CTCProblem& p, Tensor& neg_log_likelihood, Tensor& log_alpha);
extern KernelSlot<CTCForwardFn> ctc_forward_slot;
// grad: [T, N, C] gradient of sum_b grad_out[b] * nll[b] with respect to
// log_probs; samples with an infinite loss get zeros when zero_infinity.
using CTCBackwardFn = void(const CTCProblem& p, const Tensor& grad_out, const Tensor& neg_log_likelihood,
                           const Tensor& log_alpha, bool zero_infinity, Tensor& grad);
extern KernelSlot<CTCBackwardFn> ctc_backward_slot;

}  // namespace ember::nn::functional
