#pragma once
// The entries of default_conversion_table() (PyTorch 1.13's
// DEFAULT_STATIC_QUANT_MODULE_MAPPINGS and the from_float of each quantized
// module), one file per module family, and what they share.
#include <utility>

#include "ember/ao/quantization/quantize.h"

namespace ember::ao::quantization::detail {

// Conv2d, ConvReLU2d, Linear, LinearReLU and their QAT forms (convert_weighted.cpp).
void add_weighted_conversions(ConversionTable& table);
// QuantMarker, DeQuantMarker, BatchNorm2d, BNReLU2d, ReLU6, Hardswish, Dropout,
// FloatFunctional, and the layers PyTorch leaves to tensor dispatch
// (convert_activations.cpp).
void add_activation_conversions(ConversionTable& table);

// The output parameters from the module's activation observer, as PyTorch's
// float(scale), int(zero_point); an error naming `who` when there is none.
std::pair<double, int64_t> output_qparams(ObserverOrFakeQuantize* activation_observer, const char* who);

}  // namespace ember::ao::quantization::detail
