// lfilter_slot's definition and the op-side call: device and dtype routing,
// contiguous operands, the output allocated on the input's device.
#include <ember/ember.h>

#include "filters/lfilter_kernels.h"
#include "filters/lfilter_ops.h"

namespace ember::audio {

EMBER_DEFINE_SLOT(lfilter_slot, LfilterFn, "audio.lfilter");

namespace detail {

Tensor run_lfilter_kernel(const char* fn, const Tensor& x, const Tensor& a, const Tensor& b, bool clamp) {
  Tensor out = empty(x.sizes(), x.options());
  if (x.numel() == 0) return out;
  EMBER_CHECK(lfilter_slot.supports(x.device(), x.dtype()), fn, ": no ", lfilter_slot.name(), " kernel for ",
              x.dtype(), " on ", x.device());
  const int64_t length = x.size(-1);
  const Tensor rows = x.contiguous().view({x.numel() / length, length});
  Tensor out_rows = out.view({x.numel() / length, length});
  const Tensor a_c = a.defined() ? a.contiguous() : Tensor();
  const Tensor b_c = b.defined() ? b.contiguous() : Tensor();
  lfilter_slot(x.device())(out_rows, rows, a_c, b_c, clamp);
  return out;
}

}  // namespace detail
}  // namespace ember::audio
