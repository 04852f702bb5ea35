#pragma once
// Shared by the checkpoint fuzz targets (torch_load, torch_pickle,
// safetensors): fuzzing for memory amplification, not only crashes.
// libFuzzer's -malloc_limit_mb sees one allocation and -rss_limit_mb the
// whole process once a second; neither notices an input of 4 KB that makes a
// loader take 100 MB in small pieces. So each load runs under a low checkpoint
// memory limit (kFuzzPerFileByte x the input + kFuzzFloor) and a heap watch
// (the sanitizer allocator's malloc/free hooks): the peak of the live heap
// bytes the load added must stay within that limit, plus kUnchargedSlack for
// what the loaders do not charge (error texts, names in messages). A load
// that takes more memory than it charged aborts, and libFuzzer keeps the
// input (Note [Checkpoint memory budget], docs/serialization.md).
#include <sanitizer/allocator_interface.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <streambuf>

#include <ember/ember.h>

namespace ember::fuzz {

inline constexpr uint64_t kFuzzPerFileByte = 8;
inline constexpr uint64_t kFuzzFloor = uint64_t{1} << 20;
inline constexpr int64_t kUnchargedSlack = int64_t{64} << 10;

struct HeapWatch {
  bool on = false;
  int64_t live = 0;  // bytes allocated minus bytes freed since the watch began
  int64_t peak = 0;
};
inline HeapWatch g_heap;

inline void watch_malloc(const volatile void*, size_t size) {
  if (!g_heap.on) return;
  g_heap.live += static_cast<int64_t>(size);
  g_heap.peak = std::max(g_heap.peak, g_heap.live);
}
inline void watch_free(const volatile void* p) {
  if (g_heap.on && p != nullptr)
    g_heap.live -= static_cast<int64_t>(__sanitizer_get_allocated_size(const_cast<const void*>(p)));
}

inline void set_checkpoint_fuzz_limits() {
  static const bool done = [] {
    serialize::set_checkpoint_memory_limit(kFuzzPerFileByte, kFuzzFloor);
    __sanitizer_install_malloc_and_free_hooks(watch_malloc, watch_free);
    return true;
  }();
  (void)done;
}

// Runs load() (which loads input_bytes of input and returns what it loaded,
// kept alive until the measurement ends) and aborts when the heap grew past
// the load's memory limit.
template <class F>
void check_load_memory(size_t input_bytes, F&& load) {
  set_checkpoint_fuzz_limits();
  const int64_t limit = static_cast<int64_t>(serialize::checkpoint_memory_budget(input_bytes));
  g_heap = HeapWatch{true, 0, 0};
  {
    try {
      [[maybe_unused]] auto result = load();
      g_heap.on = false;
    } catch (const Error&) {
      g_heap.on = false;
    }
  }
  g_heap.on = false;
  if (g_heap.peak > limit + kUnchargedSlack) {
    std::fprintf(stderr,
                 "==ember== memory amplification: loading %zu bytes took a heap peak of %lld bytes, more than its "
                 "limit of %lld (+%lld slack)\n",
                 input_bytes, static_cast<long long>(g_heap.peak), static_cast<long long>(limit),
                 static_cast<long long>(kUnchargedSlack));
    std::abort();
  }
}

// Prints v (exercising IValue's operator<<) into at most 64 KiB: shared
// values print once per reference (as Python's repr), so a small file whose
// memo shares a list at every level of a 30-deep nest prints 2^30 items.
inline void print_bounded(const serialize::IValue& v) {
  struct Full {};
  struct Bounded : std::streambuf {
    size_t left = size_t{64} << 10;
    int overflow(int c) override {
      if (left == 0) throw Full{};
      --left;
      return c;
    }
  } buf;
  std::ostream os(&buf);
  os.exceptions(std::ios::badbit);
  try {
    os << v;
  } catch (const Full&) {
  } catch (const std::ios_base::failure&) {
  }
}

}  // namespace ember::fuzz
