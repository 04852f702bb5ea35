#include "ember/core/out_of_memory.h"

namespace ember::detail {

namespace {
thread_local uint64_t t_failed_allocation = 0;
}  // namespace

void note_allocation_failure(uint64_t nbytes) noexcept { t_failed_allocation = nbytes == 0 ? 1 : nbytes; }

uint64_t take_allocation_failure() noexcept {
  const uint64_t n = t_failed_allocation;
  t_failed_allocation = 0;
  return n;
}

void throw_out_of_memory(std::string_view context, std::string_view activity, const char* cause, uint64_t nbytes) {
  if (cause != nullptr)
    throw_error(concat(context, ": out of memory (", cause, ") while ", activity));
  throw_error(concat(context, ": out of memory while ", activity, ": could not allocate ", nbytes,
                     " bytes of tensor data"));
}

}  // namespace ember::detail
