#pragma once
// The quantizable torchvision models by name, as models::create builds their
// float forms: the same names, the same ModelOptions, the same parameter and
// buffer names (so a float model's state_dict loads strictly into its
// quantizable form before quantization).
//
//   if (models::quantization::has_quantizable_form("resnet18")) {
//     auto q = models::quantization::create("resnet18", {.num_classes = 6});
//     q->load_state_dict(float_model->state_dict());
//     models::quantization::quantize_model(*q, "onednn", calibration);
//   }
#include <memory>
#include <string>
#include <vector>

#include <ember/models/classifier.h>
#include <ember/models/quantization/quantizable.h>

namespace ember::models::quantization {

using QuantizableModel = std::shared_ptr<QuantizableModuleImpl>;

// The quantizable form of the models::create model `name` (float, freshly
// initialised). An ember::Error listing list_quantizable_models() for a name
// without one.
QuantizableModel create(const std::string& name, const ModelOptions& options = {});

// The models::create names that have a quantizable form, sorted.
std::vector<std::string> list_quantizable_models();
bool has_quantizable_form(const std::string& name);

}  // namespace ember::models::quantization
