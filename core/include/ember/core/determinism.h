#pragma once
// Deterministic algorithms (torch.use_deterministic_algorithms).
//
// With the flag on, an op that has only a nondeterministic implementation
// (results varying from run to run, typically from atomic accumulation on a
// GPU) throws an ember::Error naming itself instead of running: it calls
// detail::alert_not_deterministic("op") first thing.
//
// All of Ember's CPU ops are deterministic: run to run, for a given thread
// count, they give bitwise-identical results. One exception needs the flag:
// while other busy threads share the cores, Ember gives OpenBLAS and oneDNN
// one thread (Note [OpenMP libraries] in core/src/runtime/openmp_calls.cpp),
// and their last bits depend on their thread count; with the flag on, they
// keep get_num_threads() under any load (slower then), and results do not
// depend on the machine's load. There are no atomics-based
// accumulations on CPU (index_add_/scatter_add-style ops do not need them),
// and parallel loops split their work statically. Random ops go further and
// are independent of the thread count (Note [Counter-based random numbers] in
// random_ops.cpp), as are small batched products (each GEMM runs whole on one
// thread). OpenBLAS's threaded GEMMs and matrix-vector products may split
// their work differently per thread count (seen with its Zen kernels), so
// their last bits can change with the thread count (never from run to run,
// and never with a fixed thread count). So no CPU op
// calls alert_not_deterministic; CUDA kernels with atomics will.
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
