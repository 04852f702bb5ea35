// randperm_slot on CUDA: the CPU's Fisher-Yates shuffle, run on the host, and
// the permutation copied to the device.
//
// Note [randperm on CUDA]
// The CPU's randperm (random_kernels.cpp) swaps position i with a position
// drawn from Philox block offset + i, from the last position down: each swap
// depends on the ones before, so the permutation cannot be computed in
// parallel without changing it. PyTorch's CUDA randperm sorts random keys
// instead, and its CPU and CUDA permutations differ; Ember keeps them equal (a
// seed gives one permutation on every device) by running the CPU's loop on the
// host and copying the n int64 values to the device, as PyTorch itself did for
// n < 30000 until 1.9. It costs O(n) host work and one host-to-device copy
// (which waits, the host buffer being pageable): about n * 8 bytes at the copy
// bandwidth plus a few ns per element.
#include "ember/ops/factories.h"
#include "kernels/slots/random_kernels.h"
#include "register.h"

namespace ember::cuda::kernels {
namespace {

void randperm_kernel(Tensor& out, uint64_t seed, uint64_t offset) {
  EMBER_CHECK(out.dtype() == kInt64 && out.dim() == 1 && out.is_contiguous(), "randperm",
              ": the CUDA kernel fills a contiguous int64 vector, got ", out.dtype(), " of shape ", out.sizes());
  if (out.numel() == 0) return;
  Tensor host = empty({out.numel()}, TensorOptions(kInt64));
  randperm_slot(Device(DeviceType::CPU))(host, seed, offset);
  out.copy_(host);
}

}  // namespace

EMBER_REGISTER_CUDA_KERNEL(randperm_slot, randperm_kernel, dtype_bit(kInt64));

}  // namespace ember::cuda::kernels
