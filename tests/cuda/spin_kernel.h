#pragma once
// A kernel that keeps a stream busy for a while, so that tests can observe
// work still in flight (record_stream, events).
#include <cstdint>

namespace ember::cuda::testing {
// Queues a kernel on `stream` (a cudaStream_t) that spins for about `ms` milliseconds.
void spin_on_stream(void* stream, double ms);
}  // namespace ember::cuda::testing
