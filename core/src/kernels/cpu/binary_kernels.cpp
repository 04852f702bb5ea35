// CPU kernels of the binary elementwise ops. The op switch is typed on the
// input dtype and compiled per dtype group (binary_kernels_impl.h,
// binary_kernels_<group>.cpp; Note [Kernels split by dtype group] in
// dtype_groups.h); this file dispatches to it and registers the slot.
#include "kernels/cpu/binary_kernels_typed.h"
#include "kernels/slots/elementwise_info.h"

namespace ember {
namespace {

void binary_kernel(TensorIterator& iter, BinaryOp op, const Scalar& alpha) {
  // Every dtype has an instantiation; each op's dtype check is inside.
  dispatch<kMaskAll>(iter.input_dtype(0), iter.op_name(), [&](auto tag) {
    cpu_kernels::binary_kernel_for(tag, iter, op, alpha);
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(binary_slot, CPU, binary_kernel);
static const bool binary_op_dtypes_registered = binary_slot.set_op_dtypes(DeviceType::CPU, kBinaryOpDTypes.data());

}  // namespace ember
