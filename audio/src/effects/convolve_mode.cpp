// Operand checks and mode cuts of fftconvolve / convolve, as torchaudio 2.0's
// _check_shape_compatible, _check_convolve_mode and _apply_convolve_mode.
#include "effects/convolve_mode.h"

#include <algorithm>

#include <ember/core/error.h>

namespace ember::audio::effects {

ConvolveMode parse_convolve_mode(const std::string& mode, const char* op) {
  if (mode == "full") return ConvolveMode::Full;
  if (mode == "valid") return ConvolveMode::Valid;
  if (mode == "same") return ConvolveMode::Same;
  EMBER_FAIL(op, ": mode must be \"full\", \"valid\" or \"same\", got \"", mode, "\"");
}

std::vector<int64_t> check_convolve_operands(const Tensor& x, const Tensor& y, const char* op) {
  EMBER_CHECK(x.defined() && y.defined(), op, ": x and y must be defined tensors");
  for (const Tensor* t : {&x, &y})
    EMBER_CHECK(t->dtype() == kFloat32 || t->dtype() == kFloat64, op, ": expected float32 or float64 operands, got ",
                x.dtype(), " and ", y.dtype());
  EMBER_CHECK(x.dim() >= 1 && x.dim() == y.dim(), op, ": the operands must have the same number of dims (>= 1), got ",
              x.sizes(), " and ", y.sizes());
  EMBER_CHECK(x.size(-1) >= 1 && y.size(-1) >= 1, op, ": the operands must have at least one sample, got ", x.sizes(),
              " and ", y.sizes());
  std::vector<int64_t> lead;
  for (int64_t i = 0; i + 1 < x.dim(); ++i) {
    const int64_t a = x.size(i), b = y.size(i);
    EMBER_CHECK(a == b || a == 1 || b == 1, op, ": leading dims of x and y are not broadcastable, got ", x.sizes(),
                " and ", y.sizes());
    lead.push_back(a == 1 ? b : a);
  }
  return lead;
}

Tensor apply_convolve_mode(const Tensor& full, int64_t x_length, int64_t y_length, ConvolveMode mode) {
  if (mode == ConvolveMode::Full) return full;
  const int64_t target =
      mode == ConvolveMode::Valid ? std::max(x_length, y_length) - std::min(x_length, y_length) + 1 : x_length;
  const int64_t start = (full.size(-1) - target) / 2;  // non-negative: floor division as Python's
  return full.narrow(-1, start, target);
}

}  // namespace ember::audio::effects
