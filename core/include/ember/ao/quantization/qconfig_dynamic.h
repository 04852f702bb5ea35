#pragma once
// The weight-only and dynamic QConfigs of torch.ao.quantization.qconfig
// (PyTorch 1.13), used by quantize_dynamic (quantize_dynamic.h) and the
// quantized embeddings' from_float. Their activation observer only names the
// dtype (NoopObserver: nothing is observed ahead of time).
#include "ember/ao/quantization/qconfig.h"

namespace ember::ao::quantization {

// default_dynamic_qconfig: activations quint8 quantized per call (a
// NoopObserver naming quint8), weights default_weight_observer (MinMax, qint8,
// per_tensor_symmetric).
QConfig default_dynamic_qconfig();
// per_channel_dynamic_qconfig: the same with default_per_channel_weight_observer.
QConfig per_channel_dynamic_qconfig();
// float16_dynamic_qconfig: activations and weights float16 placeholders
// (torch's PlaceholderObserver(dtype=float16); NoopObserver here): the
// dynamic modules store float16 weights and compute in float32.
QConfig float16_dynamic_qconfig();
// float_qparams_weight_only_qconfig: weights PerChannelMinMaxObserver(quint8,
// per_channel_affine_float_qparams, ch_axis 0), activations float32
// (embeddings; torch's default_placeholder_observer).
QConfig float_qparams_weight_only_qconfig();
// float_qparams_weight_only_qconfig_4bit: the same with quint4x2 weights.
QConfig float_qparams_weight_only_qconfig_4bit();

}  // namespace ember::ao::quantization
