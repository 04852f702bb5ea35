// CPU kernels of lerp, addcmul, addcdiv, where and clamp with tensor bounds.
// The op switch is typed on the dtype and compiled per dtype group
// (ternary_kernels_impl.h, ternary_kernels_<group>.cpp; Note [Kernels split by
// dtype group] in dtype_groups.h); this file dispatches and registers.
#include "kernels/cpu/ternary_kernels_typed.h"
#include "kernels/slots/elementwise_info.h"

namespace ember {
namespace {

void ternary_kernel(TensorIterator& iter, TernaryOp op, const Scalar& value) {
  // Every dtype has an instantiation; each op's dtype check is inside.
  dispatch<kMaskAll>(iter.dtype(0), iter.op_name(), [&](auto tag) {
    cpu_kernels::ternary_kernel_for(tag, iter, op, value);
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(ternary_slot, CPU, ternary_kernel);
static const bool ternary_op_dtypes_registered = ternary_slot.set_op_dtypes(DeviceType::CPU, kTernaryOpDTypes.data());

}  // namespace ember
