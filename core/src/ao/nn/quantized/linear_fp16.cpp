// float16 dynamic linear: what torch's fbgemm engine does for
// quantize_dynamic(..., dtype=torch.float16). The weight is stored as float16
// (saturated to its finite range first, as at::_saturate_weight_to_fp16, which
// also warns in torch); the product widens it back to float32 and keeps the
// activations in float32, so the only rounding is the weight's. (Debian's
// torch has no fbgemm and refuses linear_prepack_fp16 on onednn and qnnpack;
// the fixtures compute the same product with torch's float linear over the
// saturated, fp16-rounded weight: scripts/fixtures/quant_dynamic_fp16.py.)
#include "ember/ao/nn/quantized/functional.h"

#include "ember/core/error.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/linalg.h"

namespace ember::ao::nn::quantized::functional {

namespace {
constexpr double kFp16Max = 65504.0;  // the largest finite float16 (0x7BFF)
}

Tensor saturate_weight_to_fp16(const Tensor& weight) {
  const char* op = "quantized::linear_prepack_fp16";
  EMBER_CHECK(weight.defined() && weight.is_floating_point() && !weight.is_quantized(), op,
              ": weight must be a floating point tensor, got ",
              weight.defined() ? dtype_name(weight.dtype()) : "an undefined tensor");
  return clamp(weight.detach().to(kFloat32), -kFp16Max, kFp16Max).to(kFloat16);
}

Tensor linear_dynamic_fp16(const Tensor& input, const Tensor& weight, const Tensor& bias, bool relu) {
  const char* op = relu ? "quantized::linear_relu_dynamic_fp16" : "quantized::linear_dynamic_fp16";
  EMBER_CHECK(input.defined() && input.is_floating_point() && !input.is_quantized(), op,
              ": input must be a floating point tensor, got ",
              input.defined() ? dtype_name(input.dtype()) : "an undefined tensor");
  EMBER_CHECK(weight.defined() && weight.dtype() == kFloat16, op, ": weight must be a float16 tensor, got ",
              weight.defined() ? dtype_name(weight.dtype()) : "an undefined tensor");
  EMBER_CHECK(weight.dim() == 2 && input.dim() >= 1 && input.size(-1) == weight.size(1), op,
              ": input's last dim must equal the weight's in_features (", weight.size(1), "), got input sizes ",
              input.sizes(), " and weight sizes ", weight.sizes());
  Tensor y = matmul(input.to(kFloat32), weight.to(kFloat32).t());
  if (bias.defined()) {
    EMBER_CHECK(bias.dim() == 1 && bias.size(0) == weight.size(0), op, ": bias must have ", weight.size(0),
                " elements, got sizes ", bias.sizes());
    y = y + bias.to(kFloat32);
  }
  return relu ? y.relu() : y;
}

}  // namespace ember::ao::nn::quantized::functional
