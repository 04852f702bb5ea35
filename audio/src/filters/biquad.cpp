// biquad and FilterParam, as torchaudio 0.13's filtering.py: the six
// coefficients become tensors of the waveform's dtype, then lfilter.
#include <ember/audio/functional/filtering.h>

#include "filters/design_params.h"
#include "filters/lfilter_ops.h"

namespace ember::audio::functional {

Tensor FilterParam::as_tensor(DType dtype, Device device, const char* fn, const char* name) const {
  if (!tensor_.defined()) return scalar_tensor(value_, TensorOptions(dtype).device(device));
  EMBER_CHECK(tensor_.numel() == 1, fn, ": ", name, " must be a number or a one-element tensor, got shape ",
              tensor_.sizes());
  EMBER_CHECK(!tensor_.is_complex(), fn, ": ", name, " must be real, got ", tensor_.dtype());
  return tensor_.reshape({}).to(device, dtype);
}

double FilterParam::value(const char* fn, const char* name) const {
  return tensor_.defined() ? as_tensor(kFloat64, kCPU, fn, name).detach().item<double>() : value_;
}

Tensor biquad(const Tensor& waveform, const FilterParam& b0, const FilterParam& b1, const FilterParam& b2,
              const FilterParam& a0, const FilterParam& a1, const FilterParam& a2) {
  const DType dtype = detail::design_dtype("biquad", waveform);
  const Device device = waveform.device();
  auto coeff = [&](const FilterParam& p, const char* name) {
    return p.as_tensor(dtype, device, "biquad", name).view({1});
  };
  const Tensor a = cat({coeff(a0, "a0"), coeff(a1, "a1"), coeff(a2, "a2")});
  const Tensor b = cat({coeff(b0, "b0"), coeff(b1, "b1"), coeff(b2, "b2")});
  return detail::lfilter_impl("biquad", waveform, a, b, true, true);
}

}  // namespace ember::audio::functional
