#pragma once
// Kernel slot of the augmentations (transforms/augment/): AugMix's mix of
// uint8 images, fused (transforms/augment/mix.h says what it computes).
#include <vector>

#include <ember/core/tensor.h>

#include "kernels/slots/kernel_slot.h"

namespace ember::vision {

// out = (m[:, 0] * batch + sum_i (w[:, i] * m[:, 1]) * augs[i]).to(uint8),
// float32 roundings in torchvision's order. batch and each of augs: uint8
// [B, ...], contiguous; m [B, 2] and w [B, augs.size()] float32, contiguous;
// all on out's device.
using AugmixMixFn = void(Tensor& out, const Tensor& batch, const std::vector<Tensor>& augs, const Tensor& m,
                         const Tensor& w);
extern KernelSlot<AugmixMixFn> augmix_mix_slot;

}  // namespace ember::vision
