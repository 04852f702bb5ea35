#pragma once
// Ember's intra-op thread pool (Note [Ember's thread pool] in thread_pool.cpp).
#include <cstdint>

namespace ember::runtime {

// One chunk of a parallel loop: fn(ctx, chunk_begin, chunk_end).
using ChunkFn = void (*)(const void* ctx, int64_t begin, int64_t end);

struct ParallelLoop {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t chunk = 1;    // elements per chunk (the last may be shorter)
  int max_threads = 1;  // the calling thread plus at most max_threads - 1 helpers
  ChunkFn fn = nullptr;
  const void* ctx = nullptr;
};

// Runs every chunk of `loop` on the calling thread and whichever pool helpers
// join in time, and returns when all have run. The first exception a chunk
// throws is rethrown here (the chunks not started by then are skipped).
void run_parallel_loop(const ParallelLoop& loop);

// Starts helpers until the pool has threads - 1 (cheap when it has). Called by
// every parallel loop, whichever way it runs, so that the process's thread
// population does not change when the cores become shared.
void reserve_pool_helpers(int threads);

// True on a pool helper, and on a caller while it runs chunks.
bool inside_parallel_loop();

// Pool statistics, for tests and diagnostics.
struct PoolStats {
  int64_t loops = 0;          // parallel loops run on the pool
  int64_t helper_joins = 0;   // times a helper joined a loop
  int64_t caller_alone = 0;   // loops whose caller ran every chunk (no helper in time)
  int helpers = 0;            // helper threads started
};
PoolStats pool_stats();

}  // namespace ember::runtime
