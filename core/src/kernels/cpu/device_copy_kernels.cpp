// The CPU's kernel of the copy-between-devices slot: both sides are host memory.
#include <cstring>

#include "kernels/slots/copy_kernels.h"

namespace ember {
namespace {
void host_device_copy(Tensor& dst, const Tensor& src, bool /*non_blocking*/) {
  std::memcpy(dst.data_ptr(), src.data_ptr(), static_cast<size_t>(src.nbytes()));
}
}  // namespace
// Bytes of any dtype.
EMBER_REGISTER_KERNEL_FOR_DTYPES(device_copy_slot, CPU, host_device_copy, kMaskAll);
}  // namespace ember
