#pragma once
// Deterministic algorithms (torch.use_deterministic_algorithms).
//
// With the flag on, an op that has only a nondeterministic implementation
// (results varying from run to run, typically from atomic accumulation on a
// GPU) throws an ember::Error naming itself instead of running: it calls
// detail::alert_not_deterministic("op") first thing.
//
// All of Ember's CPU ops are deterministic for a given thread count: there are
// no atomics-based accumulations (index_add_/scatter_add-style ops accumulate
// without atomics on CPU), and reductions split their work the same way each
// run. Matrix products and random numbers go further and are independent of
// the thread count: OpenBLAS splits a GEMM's output (never its inner
// dimension) across threads, batched products run each GEMM whole on one
// thread, and random ops use a counter-based generator (Note
// [Counter-based random numbers] in random_ops.cpp). So no CPU op calls
// alert_not_deterministic today; CUDA kernels with atomics will.
namespace ember {

void set_deterministic(bool enabled);
// PyTorch's spelling.
void use_deterministic_algorithms(bool enabled);
bool are_deterministic_algorithms_enabled();

namespace detail {
// Throws ember::Error naming `op` when deterministic algorithms are enabled.
void alert_not_deterministic(const char* op);
}  // namespace detail

}  // namespace ember
