#pragma once
// Kernel slots of nn::functional's poolings (CPU: kernels/cpu/pool_kernels.cpp).
// Every pooling (max, avg, adaptive, 1-3d) is described as windows over a 5-d
// tensor [N, C, D, H, W] (1-d and 2-d poolings view their input so); the op
// file (pooling.cpp) computes the windows, output sizes and layout.
#include <cstddef>
#include <iterator>
#include <optional>
#include <vector>

#include "ember/core/tensor.h"
#include "kernels/slots/kernel_slot.h"

namespace ember::nn::functional {

// Per spatial dim (0: D, 1: H, 2: W) and output index o: the window reads
// input positions begin[o] + j * step for j in [0, count[o]) (all in range),
// and contributes factor div[o] to an average's divisor (the product over dims,
// unless divisor_override).
struct PoolWindows {
  std::vector<int64_t> begin[3], count[3];
  std::vector<double> div[3];
  int64_t step[3] = {1, 1, 1};
  std::optional<int64_t> divisor_override;
};

enum class PoolMode { Max, Avg };
// Mode names (the pool slots are family slots: missing_kernels reports single modes).
inline constexpr const char* kPoolModeNames[] = {"max_pool", "avg_pool"};
static_assert(std::size(kPoolModeNames) == static_cast<size_t>(PoolMode::Avg) + 1);

// x [N, C, D, H, W] and y [N, C, OD, OH, OW] (float32 or float64), both dense
// row-major or both dense channels-last (ndhwc). Max also writes indices
// (int64, y's layout): the argmax's flat position d * H * W + h * W + w in its
// input plane, first one on ties, NaN wins.
using PoolForwardFn = void(const Tensor& x, Tensor& y, Tensor& indices, const PoolWindows& w,
                           PoolMode mode, bool channels_last);
extern KernelSlot<PoolForwardFn> pool_forward_slot;

// gx = zeros, then: Max: gx[plane][indices] += gy; Avg: gy / divisor spread
// over each window. gy, indices, gx in one layout as above.
using PoolBackwardFn = void(const Tensor& gy, const Tensor& indices, Tensor& gx, const PoolWindows& w,
                            PoolMode mode, bool channels_last);
extern KernelSlot<PoolBackwardFn> pool_backward_slot;

}  // namespace ember::nn::functional
