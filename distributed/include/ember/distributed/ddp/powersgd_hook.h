#pragma once
// PowerSGD gradient compression as a DDP communication hook (Vogels et al.,
// NeurIPS 2019; torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook,
// PyTorch 1.10). Each gradient matrix M (n x m: a parameter's gradient viewed
// as [size(0), -1]) is sent as two thin factors: P = M Q (n x r), all-reduced
// and orthogonalized, then Q = M^T P (m x r), all-reduced and divided by the
// group size, and M is replaced by P Q^T. Tensors that would not shrink by
// min_compression_rate (biases, small matrices) are all-reduced as they are.
// Error feedback adds last iteration's compression error to the gradient
// before compressing; warm start reuses last iteration's Q instead of a fresh
// random one. The first start_powerSGD_iter iterations run plain all_reduce.
//
//   auto state = std::make_shared<ddp_comm_hooks::PowerSGDState>(
//       ddp_comm_hooks::PowerSGDOptions{.matrix_approximation_rank = 2, .start_powerSGD_iter = 10});
//   ddp.register_comm_hook(state, ddp_comm_hooks::powerSGD_hook);
#include <cstdint>
#include <map>
#include <memory>

#include <ember/core/generator.h>
#include <ember/distributed/ddp/comm_future.h>
#include <ember/distributed/ddp/grad_bucket.h>
#include <ember/distributed/process_group.h>

namespace ember::distributed::ddp_comm_hooks {

// torch's PowerSGDState arguments and defaults.
struct PowerSGDOptions {
  // null: the DDP's group.
  std::shared_ptr<ProcessGroup> process_group = nullptr;
  int64_t matrix_approximation_rank = 1;
  // Plain all_reduce before this iteration; at least 2 with error feedback or
  // warm start, because DDP rebuilds its buckets after the first iteration.
  int64_t start_powerSGD_iter = 1000;
  // Compress a matrix only when (n + m) r * min_compression_rate < n m.
  double min_compression_rate = 2;
  bool use_error_feedback = true;
  bool warm_start = true;
  // Added to the column norms when orthogonalizing; 0: a zero column stays 0.
  double orthogonalization_epsilon = 0;
  // Seeds the random initial Qs (the same on every rank).
  uint64_t random_seed = 0;
};

struct PowerSGDState {
  explicit PowerSGDState(PowerSGDOptions options = {});

  PowerSGDOptions options;
  // Iterations run (counted at each iteration's last bucket).
  int64_t iter = 0;
  // Per bucket index: the compression error (error feedback), and the P and
  // Q factors of every compressed matrix, one after another.
  std::map<int64_t, Tensor> error_dict, p_memory_dict, q_memory_dict;
  // Draws the initial Qs: randn(m, r) per compressed matrix, in bucket order.
  Generator rng;
  // Elements before and after compression, over all iterations.
  int64_t total_numel_before_compression = 0;
  int64_t total_numel_after_compression = 0;
};

std::shared_ptr<CommFuture> powerSGD_hook(const std::shared_ptr<PowerSGDState>& state, GradBucket& bucket);

// Gram-Schmidt on matrix's columns, in place (torch's _orthogonalize): each
// column is divided by its norm (+ epsilon; a zero column stays zero when
// epsilon is 0) and removed from the columns after it.
void orthogonalize(Tensor matrix, double epsilon = 0);

}  // namespace ember::distributed::ddp_comm_hooks
