#pragma once
// Note [Host access]
// A tensor on a device that is not host-accessible (CUDA; the test device)
// may only have its memory touched inside a kernel slot: the backend's
// kernels run there (KernelSlot calls open a KernelSlotScope), and the copy
// slot is how data crosses to the host. data_ptr<T>() and data_ptr() check
// it, so code that would read device memory on the host (a crash on a GPU)
// raises an ember::Error naming the device instead, on every device type
// including the test device. Worker threads of a parallel region count as
// inside the scope that started it. Pointer arithmetic and identity do not
// touch memory: use TensorImpl::data() for those.
#include "ember/core/device.h"

namespace ember {

class KernelSlotScope {
 public:
  KernelSlotScope();
  ~KernelSlotScope();
  KernelSlotScope(const KernelSlotScope&) = delete;
  KernelSlotScope& operator=(const KernelSlotScope&) = delete;
};

// Whether the calling thread may touch memory of devices that are not host-accessible.
bool host_access_allowed();

namespace detail {
// Raises unless host_access_allowed().
void check_host_access(Device device);
}  // namespace detail

}  // namespace ember
