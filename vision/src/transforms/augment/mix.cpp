// AugMix's mix of uint8 images, fused (augmix_mix_slot,
// kernels/slots/augment_kernels.h; the loops: kernels/cpu/mix_kernels.cpp),
// on any device whose backend fills the slot.
#include "transforms/augment/mix.h"

#include <ember/core/error.h>
#include <ember/ops/factories.h>

#include "kernels/slots/augment_kernels.h"

namespace ember::vision {

EMBER_DEFINE_SLOT(augmix_mix_slot, AugmixMixFn, "vision.augmix_mix");

}  // namespace ember::vision

namespace ember::vision::transforms::detail {

Tensor augmix_mix_uint8(const Tensor& batch, const std::vector<Tensor>& augs, const Tensor& m, const Tensor& w) {
  EMBER_CHECK(batch.dtype() == DType::UInt8 && batch.dim() >= 1, "AugMix: the mix expects a uint8 batch");
  const Device device = batch.device();
  EMBER_CHECK(augmix_mix_slot.supports(device, DType::UInt8), "AugMix: no mix kernel for uint8 images on ", device);
  std::vector<Tensor> chains;
  for (const Tensor& a : augs) {
    EMBER_CHECK(a.sizes() == batch.sizes() && a.dtype() == DType::UInt8, "AugMix: a chain changed the image's shape ",
                batch.sizes(), " or dtype: ", a.sizes(), " ", a.dtype());
    EMBER_CHECK(a.device() == device, "AugMix: a chain moved the image from ", device, " to ", a.device());
    chains.push_back(a.contiguous());
  }
  // The weights (sampled on the host) go where the images are.
  const Tensor mc = m.to(device).contiguous(), wc = w.to(device).contiguous();
  Tensor out = empty(batch.sizes(), batch.options());
  augmix_mix_slot(device)(out, batch.contiguous(), chains, mc, wc);
  return out;
}

}  // namespace ember::vision::transforms::detail
