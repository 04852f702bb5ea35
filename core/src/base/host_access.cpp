#include "ember/core/host_access.h"

#include "ember/core/error.h"
#include "ember/core/parallel.h"

namespace ember {

namespace {
thread_local int t_kernel_slot_depth = 0;
}

KernelSlotScope::KernelSlotScope() { ++t_kernel_slot_depth; }
KernelSlotScope::~KernelSlotScope() { --t_kernel_slot_depth; }

bool host_access_allowed() { return t_kernel_slot_depth > 0 || in_parallel_region(); }

namespace detail {
void check_host_access(Device device) {
  EMBER_CHECK(host_access_allowed(), "data_ptr: the memory of a ", device,
              " tensor was read on the host outside a kernel slot; copy it with .cpu() first "
              "(Note [Host access])");
}
}  // namespace detail

}  // namespace ember
