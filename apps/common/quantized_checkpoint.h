#pragma once
// ember-train's int8 checkpoint: an ember-train checkpoint (the same format
// tag and metadata: model name, classes, input size, evaluation transform)
// whose tensors are the converted model's quantized state
// (models::quantization::quantized_state_dict: qint8 weights with their
// scale / zero point / axis, float biases, every quantized module's output
// scale and zero point; no observers) and whose metadata carries the marker
//   "quantized": "<engine>" (onednn, x86, qnnpack, fbgemm),
//   "quantization": "ptq" | "qat", "qconfig": the qconfig's name.
// Loading rebuilds the quantizable model (models::quantization::create), fuses
// it, prepares it with the engine's qconfig, converts it after a dummy
// calibration batch (which fixes the module types only), then overwrites
// every quantized parameter from the file: the outputs equal the saved
// model's exactly.
#include <string>

#include <ember/models/quantization/registry.h>

#include "checkpoint.h"

namespace ember::apps {

struct QuantizationInfo {
  std::string engine = "onednn";  // the qconfig's backend
  std::string mode = "ptq";       // ptq or qat
};

// The qconfig ember-train uses: get_default_qconfig(engine) for ptq,
// get_default_qat_qconfig(engine) for qat (torchvision's train_quantization.py).
std::string qconfig_name(const QuantizationInfo& q);

void save_quantized_checkpoint(const std::string& path, nn::Module& quantized_model,
                               const vision::transforms::TransformImpl& eval_transform, const CheckpointInfo& info,
                               const QuantizationInfo& q);

// Whether a checkpoint (load_checkpoint) holds a quantized model, and its marker.
bool is_quantized(const Checkpoint& checkpoint);
QuantizationInfo quantization_info(const Checkpoint& checkpoint, const std::string& path);

// The converted model of a quantized checkpoint, in eval mode, ready to run
// (float images in, float logits out).
models::quantization::QuantizableModel load_quantized_model(const Checkpoint& checkpoint, const std::string& path);

}  // namespace ember::apps
