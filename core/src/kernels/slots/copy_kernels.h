#pragma once
// Kernel slots of the copy family (copy_, fill_, copies between devices),
// used by factories and ops.
#include "iter/tensor_iterator.h"
#include "kernels/slots/kernel_slot.h"

namespace ember {
// Output 0 gets input 0, converted to the output's dtype, then conjugated
// (complex outputs) and/or negated when asked: the fused copy that consumes
// conjugate/negative views (Note [Conjugate bit]).
using CopyFn = void(TensorIterator&, bool conjugate, bool negate);
extern KernelSlot<CopyFn> copy_slot;
using FillFn = void(TensorIterator&, const Scalar&);
extern KernelSlot<FillFn> fill_slot;

// Copies bytes between the memory of a device of the slot's type and the host,
// or between two devices of that type: dst and src have one dtype and the same
// sizes, are both contiguous and have no conjugate/negative bit (copy_ arranges
// that on each side with the devices' own copy_slot). Tensor::copy_ calls the
// slot of the device that is not the CPU. non_blocking: the copy may still be
// in flight when the call returns (the host side must then be pinned memory).
// The CPU's kernel is a memcpy (host memory on both sides).
using DeviceCopyFn = void(Tensor& dst, const Tensor& src, bool non_blocking);
extern KernelSlot<DeviceCopyFn> device_copy_slot;
}  // namespace ember
