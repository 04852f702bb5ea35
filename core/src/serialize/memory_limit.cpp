#include <mutex>

#include "ember/core/error.h"
#include "ember/serialize/memory_limit.h"
#include "serialize/memory_budget.h"

namespace ember::serialize {

namespace {
std::mutex g_limit_mutex;
CheckpointMemoryLimit g_limit = kDefaultCheckpointMemoryLimit;
}  // namespace

CheckpointMemoryLimit checkpoint_memory_limit() {
  std::lock_guard<std::mutex> lock(g_limit_mutex);
  return g_limit;
}

void set_checkpoint_memory_limit(uint64_t per_file_byte, uint64_t floor_bytes) {
  std::lock_guard<std::mutex> lock(g_limit_mutex);
  g_limit = (per_file_byte == 0 && floor_bytes == 0) ? kDefaultCheckpointMemoryLimit
                                                     : CheckpointMemoryLimit{per_file_byte, floor_bytes};
}

uint64_t checkpoint_memory_budget(uint64_t input_bytes) {
  const CheckpointMemoryLimit l = checkpoint_memory_limit();
  uint64_t scaled, total;
  if (__builtin_mul_overflow(l.per_file_byte, input_bytes, &scaled) ||
      __builtin_add_overflow(scaled, l.floor_bytes, &total))
    return ~uint64_t{0};
  return total;
}

MemoryBudget::MemoryBudget(std::string what, uint64_t input_bytes)
    : what_(std::move(what)), input_bytes_(input_bytes), limit_(checkpoint_memory_budget(input_bytes)) {}

void MemoryBudget::exceeded(uint64_t bytes, const char* item) const {
  const CheckpointMemoryLimit l = checkpoint_memory_limit();
  EMBER_FAIL(what_, ": loading needs more than its memory limit of ", limit_, " bytes (",
             l.per_file_byte, " x the input's ", input_bytes_, " bytes + ", l.floor_bytes,
             "): building ", item, " needs ", bytes, " more bytes with ", used_,
             " in use; ember::serialize::set_checkpoint_memory_limit raises the limit");
}

void MemoryBudget::out_of_memory(const char* cause) const {
  EMBER_FAIL(what_, ": out of memory (", cause, ") while allocating ", last_item_, " (", last_bytes_,
             " bytes, with ", last_used_, " bytes already held by this load)");
}

}  // namespace ember::serialize
