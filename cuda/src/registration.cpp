// Registers the CUDA backend with core, when the machine has a GPU (Note [CUDA
// registration]).
//
// Note [CUDA registration]
// Linking Ember::cuda on a machine without a GPU (or without a driver) must
// leave Ember exactly as it is without it: device_count(DeviceType::CUDA) is
// 0, DeviceGuard(kCUDA) and allocations on "cuda" raise core's "no backend
// registered" errors. So every registration (guard, allocators, kernels:
// EMBER_REGISTER_CUDA_KERNEL in kernels/register.h) first asks whether a
// device exists.
#include "caching_allocator.h"
#include "check.h"
#include "ember/core/allocator.h"
#include "stream_internal.h"

namespace ember::cuda::detail {
namespace {

bool register_backend() {
  const int count = cached_device_count();
  if (count == 0) return false;
  register_device_guard_impl(DeviceType::CUDA, &guard_impl());
  for (int i = 0; i < count && i < kMaxDevices; ++i)
    register_allocator(Device(DeviceType::CUDA, static_cast<int16_t>(i)),
                       &device_allocator(static_cast<int16_t>(i)));
  register_allocator(Device(DeviceType::CUDA), &pinned_host_allocator(), AllocatorKind::PinnedHost);
  return true;
}

const bool registered = register_backend();

}  // namespace
}  // namespace ember::cuda::detail
