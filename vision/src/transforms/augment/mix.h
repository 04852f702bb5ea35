#pragma once
// AugMix's mix of uint8 images in one pass (mix.cpp; the loops:
// kernels/cpu/mix_kernels.cpp).
#include <vector>

#include <ember/core/tensor.h>

namespace ember::vision::transforms::detail {

// torchvision's
//   combined = w * m[:, 1:2]; mix = m[:, 0] * batch; mix += combined[:, i] * augs[i]; mix.to(uint8)
// for a uint8 batch [B, ...] and uint8 augs of its shape, m [B, 2] and w
// [B, augs.size()] float32: the same float32 operations in the same order per
// value, without the intermediate tensors. Returns a contiguous uint8 [B, ...].
Tensor augmix_mix_uint8(const Tensor& batch, const std::vector<Tensor>& augs, const Tensor& m, const Tensor& w);

}  // namespace ember::vision::transforms::detail
