#include "kernels/cpu/fft/scratch.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>

namespace ember::fft::detail {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

struct Buffer {
  std::unique_ptr<void, FreeDeleter> data;
  std::size_t capacity = 0;
};

}  // namespace

void* scratch_bytes(Slot slot, std::size_t bytes) {
  thread_local Buffer buffers[static_cast<int>(Slot::kCount)];
  Buffer& b = buffers[static_cast<int>(slot)];
  if (b.capacity < bytes) {
    // Grow by 1.5x at least so a slowly increasing size does not reallocate each time.
    std::size_t cap = std::max(bytes, b.capacity + b.capacity / 2);
    cap = (cap + 63) / 64 * 64;
    b.data.reset();
    void* p = std::aligned_alloc(64, cap);
    if (!p) throw std::bad_alloc();
    b.data.reset(p);
    b.capacity = cap;
  }
  return b.data.get();
}

}  // namespace ember::fft::detail
