#include <ember/distributed/ddp/powersgd_hook.h>

#include <algorithm>
#include <vector>

#include <ember/autograd/grad_mode.h>
#include <ember/core/error.h>
#include <ember/ops/factories.h>
#include <ember/ops/random.h>
#include <ember/ops/shape.h>

namespace ember::distributed::ddp_comm_hooks {

PowerSGDState::PowerSGDState(PowerSGDOptions opts) : options(std::move(opts)), rng(options.random_seed) {
  EMBER_CHECK(options.matrix_approximation_rank >= 1, "PowerSGDState: matrix_approximation_rank must be at least 1, got ",
              options.matrix_approximation_rank);
  EMBER_CHECK(options.min_compression_rate >= 0, "PowerSGDState: min_compression_rate must be >= 0, got ",
              options.min_compression_rate);
  EMBER_CHECK(options.orthogonalization_epsilon >= 0, "PowerSGDState: orthogonalization_epsilon must be >= 0, got ",
              options.orthogonalization_epsilon);
  EMBER_CHECK(!(options.use_error_feedback || options.warm_start) || options.start_powerSGD_iter > 1,
              "PowerSGDState: expect start_powerSGD_iter > 1 if use_error_feedback or warm_start is enabled, because "
              "PowerSGD can only be applied after the first two iterations in DDP (got start_powerSGD_iter = ",
              options.start_powerSGD_iter, ")");
}

void orthogonalize(Tensor matrix, double epsilon) {
  EMBER_CHECK(matrix.dim() == 2, "orthogonalize: expected a matrix, got shape ", matrix.sizes());
  const int64_t cols = matrix.size(1);
  for (int64_t i = 0; i < cols; ++i) {
    Tensor col = matrix.narrow(1, i, 1);
    const double norm = col.norm().to(kFloat64).item<double>();
    if (epsilon == 0 && norm == 0) col.zero_();
    else col.div_(norm + epsilon);
    if (i + 1 < cols) {
      Tensor rest = matrix.narrow(1, i + 1, cols - i - 1);
      rest.sub_((col * rest).sum({0}) * col);
    }
  }
}

namespace {

void maybe_increase_iter(PowerSGDState& state, const GradBucket& bucket) {
  if (bucket.is_last()) ++state.iter;
}

}  // namespace

// torch's powerSGD_hook step by step; the continuations run when DDP waits
// for the bucket (Note [Lazy continuations] in comm_future.h).
std::shared_ptr<CommFuture> powerSGD_hook(const std::shared_ptr<PowerSGDState>& state, GradBucket& bucket) {
  EMBER_CHECK(state != nullptr, "powerSGD_hook: the state is null");
  NoGradGuard no_grad;
  std::shared_ptr<ProcessGroup> group = state->options.process_group ? state->options.process_group
                                                                      : bucket.process_group();
  EMBER_CHECK(group != nullptr, "powerSGD_hook: bucket ", bucket.index(), " has no process group");
  const int64_t world_size = group->size();
  Tensor input = bucket.buffer();

  if (state->iter < state->options.start_powerSGD_iter) {
    maybe_increase_iter(*state, bucket);
    input.div_(world_size);
    return CommFuture::from_work(group->all_reduce(input));
  }

  const int64_t index = bucket.index();
  const TensorOptions options(input.dtype());
  Tensor input_copy;
  if (state->options.use_error_feedback) {
    auto it = state->error_dict.find(index);
    if (it != state->error_dict.end()) input.add_(it->second);
    else state->error_dict[index] = zeros({input.numel()}, options);
    input_copy = input.clone();
  }

  // Which gradients are compressed.
  std::vector<Tensor> to_compress, uncompressed;
  std::vector<int64_t> ranks;
  int64_t total_p = 0, total_q = 0;
  for (const Tensor& grad : bucket.gradients()) {
    if (grad.dim() == 0) {
      uncompressed.push_back(grad);
      state->total_numel_before_compression += 1;
      state->total_numel_after_compression += 1;
      continue;
    }
    Tensor matrix = grad.view({grad.size(0), -1});
    const int64_t n = matrix.size(0), m = matrix.size(1);
    const int64_t r = std::min({n, m, state->options.matrix_approximation_rank});
    const int64_t before = n * m, after = (n + m) * r;
    state->total_numel_before_compression += before;
    if (static_cast<double>(after) * state->options.min_compression_rate < static_cast<double>(before)) {
      to_compress.push_back(matrix);
      ranks.push_back(r);
      total_p += n * r;
      total_q += m * r;
      state->total_numel_after_compression += after;
    } else {
      uncompressed.push_back(grad);
      state->total_numel_after_compression += before;
    }
  }
  std::vector<Tensor> flat_uncompressed;
  for (const Tensor& t : uncompressed) flat_uncompressed.push_back(t.reshape({-1}));
  Tensor uncompressed_memory = flat_uncompressed.empty() ? zeros({0}, options) : cat(flat_uncompressed);

  bool randomize_qs = false;
  if (!state->options.warm_start || !state->p_memory_dict.count(index)) {
    randomize_qs = true;
    state->p_memory_dict[index] = zeros({total_p}, options);
    state->q_memory_dict[index] = zeros({total_q}, options);
  }
  std::vector<Tensor> ps, qs;
  int64_t p_at = 0, q_at = 0;
  for (size_t k = 0; k < to_compress.size(); ++k) {
    const int64_t n = to_compress[k].size(0), m = to_compress[k].size(1), r = ranks[k];
    ps.push_back(state->p_memory_dict[index].narrow(0, p_at, n * r).view({n, r}));
    qs.push_back(state->q_memory_dict[index].narrow(0, q_at, m * r).view({m, r}));
    p_at += n * r;
    q_at += m * r;
  }
  for (Tensor& q : qs) {
    if (randomize_qs) q.copy_(randn(q.sizes(), TensorOptions(kFloat32), &state->rng));
    orthogonalize(q, state->options.orthogonalization_epsilon);
  }
  for (size_t k = 0; k < to_compress.size(); ++k) ps[k].copy_(to_compress[k].matmul(qs[k]));

  // 1. the uncompressed tensors; 2. the Ps; 3. the Qs; then decompress.
  std::shared_ptr<CommFuture> future = CommFuture::from_work(group->all_reduce(uncompressed_memory));
  return future
      ->then([state, group, index, uncompressed, world_size](const Tensor& reduced) {
        NoGradGuard no_grad;
        Tensor averaged = reduced;
        averaged.div_(world_size);
        int64_t at = 0;
        for (const Tensor& t : uncompressed) {
          Tensor dst = t;
          dst.copy_(averaged.narrow(0, at, t.numel()).view(t.sizes()));
          at += t.numel();
        }
        Tensor p_memory = state->p_memory_dict.at(index);
        group->all_reduce(p_memory)->wait();
        return p_memory;
      })
      ->then([state, group, index, ps, qs, to_compress](const Tensor&) {
        NoGradGuard no_grad;
        for (const Tensor& p : ps) orthogonalize(p, state->options.orthogonalization_epsilon);
        for (size_t k = 0; k < to_compress.size(); ++k) {
          Tensor q = qs[k];
          q.copy_(to_compress[k].t().matmul(ps[k]));
        }
        Tensor q_memory = state->q_memory_dict.at(index);
        group->all_reduce(q_memory)->wait();
        return q_memory;
      })
      ->then([state, bucket_is_last = bucket.is_last(), index, ps, qs, to_compress, input, input_copy,
              world_size](const Tensor& q_memory) {
        NoGradGuard no_grad;
        Tensor q_all = q_memory;
        q_all.div_(world_size);
        for (size_t k = 0; k < to_compress.size(); ++k) {
          Tensor m = to_compress[k];
          m.copy_(ps[k].matmul(qs[k].t()));
        }
        if (state->options.use_error_feedback) state->error_dict[index] = input_copy - input;
        if (!state->options.warm_start) {
          state->p_memory_dict.clear();
          state->q_memory_dict.clear();
        }
        if (bucket_is_last) ++state->iter;
        return input;
      });
}

}  // namespace ember::distributed::ddp_comm_hooks
