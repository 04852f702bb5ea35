// AugMix's mix of uint8 images, fused: the CPU kernel of augmix_mix_slot.
//
// torchvision computes the mix with float32 tensor ops, one rounding each:
// m0 * x, then per chain (w_i * m1) * aug_i and the sum, then a truncating cast
// to uint8. The loop below does exactly those roundings per value (this file
// is compiled with -ffp-contract=off: no fused multiply-add), in chunks that
// stay in the L1 cache, so the uint8 result is torchvision's bit for bit given
// the same weights and chains.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include <ember/core/error.h>

#include "kernels/slots/augment_kernels.h"

namespace ember::vision {
namespace {

constexpr int64_t kChunk = 2048;

// One pass each, with restrict pointers only, so that GCC vectorizes them (not
// inlined: GCC would fuse two chains' passes into one loop that it leaves scalar).
void scale(float* __restrict a, const uint8_t* __restrict x, float c, int64_t n) {
  for (int64_t k = 0; k < n; ++k) a[k] = c * static_cast<float>(x[k]);
}

__attribute__((noinline)) void accumulate(float* __restrict a, const uint8_t* __restrict x, float c, int64_t n) {
  for (int64_t k = 0; k < n; ++k) a[k] = a[k] + c * static_cast<float>(x[k]);
}

// The values lie in [0, 255] up to float rounding; the cast truncates as torch's.
void truncate(uint8_t* __restrict o, const float* __restrict a, int64_t n) {
  for (int64_t k = 0; k < n; ++k) o[k] = static_cast<uint8_t>(static_cast<int32_t>(a[k]));
}

void mix_entry(const uint8_t* x, const std::vector<const uint8_t*>& augs, float m0,
               const std::vector<float>& weights, uint8_t* out, int64_t n) {
  alignas(32) std::array<float, kChunk> acc;
  for (int64_t begin = 0; begin < n; begin += kChunk) {
    const int64_t len = std::min(kChunk, n - begin);
    scale(acc.data(), x + begin, m0, len);
    for (size_t i = 0; i < augs.size(); ++i) accumulate(acc.data(), augs[i] + begin, weights[i], len);
    truncate(out + begin, acc.data(), len);
  }
}

void augmix_mix_kernel(Tensor& out, const Tensor& x, const std::vector<Tensor>& augs, const Tensor& mc,
                       const Tensor& wc) {
  const int64_t b = x.size(0);
  std::vector<const uint8_t*> chain_ptrs;
  for (const Tensor& a : augs) chain_ptrs.push_back(a.data_ptr<uint8_t>());
  const float* mv = mc.data_ptr<float>();
  const float* wv = wc.data_ptr<float>();
  const int64_t per = b > 0 ? x.numel() / b : 0;
  const size_t width = augs.size();
  std::vector<float> weights(width);
  std::vector<const uint8_t*> entry(width);
  for (int64_t n = 0; n < b; ++n) {
    // torchvision's combined_weights = dirichlet * m[:, 1]: one float32 product.
    for (size_t i = 0; i < width; ++i) {
      weights[i] = wv[n * static_cast<int64_t>(width) + static_cast<int64_t>(i)] * mv[n * 2 + 1];
      entry[i] = chain_ptrs[i] + n * per;
    }
    mix_entry(x.data_ptr<uint8_t>() + n * per, entry, mv[n * 2], weights, out.data_ptr<uint8_t>() + n * per, per);
  }
}

}  // namespace

EMBER_REGISTER_KERNEL_FOR_DTYPES(augmix_mix_slot, CPU, augmix_mix_kernel, dtype_bit(kUInt8));

}  // namespace ember::vision
