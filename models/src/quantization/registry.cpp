// models::quantization::create: the quantizable builders behind models::create's
// names, with the options models::create passes to the float builders
// (models/src/*.cpp, register_*_models), so both forms have the same tensors.
#include "ember/models/quantization/registry.h"

#include <functional>
#include <map>

#include <ember/core/error.h>
#include <ember/models/quantization/googlenet.h>
#include <ember/models/quantization/inception.h>
#include <ember/models/quantization/mobilenet_v2.h>
#include <ember/models/quantization/mobilenet_v3.h>
#include <ember/models/quantization/resnet.h>
#include <ember/models/quantization/shufflenet_v2.h>

namespace ember::models::quantization {
namespace {

using Builder = std::function<QuantizableModel(const ModelOptions&)>;

const std::map<std::string, Builder>& builders() {
  static const std::map<std::string, Builder> table = [] {
    std::map<std::string, Builder> t;
    for (const auto& [name, build] : std::vector<std::pair<std::string, QuantizableResNet (*)(const ResNetOptions&)>>{
             {"resnet18", resnet18},
             {"resnet50", resnet50},
             {"resnext101_32x8d", resnext101_32x8d},
             {"resnext101_64x4d", resnext101_64x4d}}) {
      t[name] = [build](const ModelOptions& o) -> QuantizableModel { return build({.num_classes = o.num_classes}).ptr(); };
    }
    for (const auto& [name, build] :
         std::vector<std::pair<std::string, QuantizableShuffleNetV2 (*)(const ShuffleNetV2Options&)>>{
             {"shufflenet_v2_x0_5", shufflenet_v2_x0_5},
             {"shufflenet_v2_x1_0", shufflenet_v2_x1_0},
             {"shufflenet_v2_x1_5", shufflenet_v2_x1_5},
             {"shufflenet_v2_x2_0", shufflenet_v2_x2_0}}) {
      t[name] = [build](const ModelOptions& o) -> QuantizableModel { return build({.num_classes = o.num_classes}).ptr(); };
    }
    t["mobilenet_v2"] = [](const ModelOptions& o) -> QuantizableModel {
      MobileNetV2Options options{.num_classes = o.num_classes};
      if (o.dropout) options.dropout = *o.dropout;
      return quantization::mobilenet_v2(options).ptr();
    };
    t["mobilenet_v3_large"] = [](const ModelOptions& o) -> QuantizableModel {
      MobileNetV3Options options{.num_classes = o.num_classes};
      if (o.dropout) options.dropout = *o.dropout;
      return quantization::mobilenet_v3_large(options).ptr();
    };
    t["googlenet"] = [](const ModelOptions& o) -> QuantizableModel {
      GoogLeNetOptions options{.num_classes = o.num_classes, .transform_input = o.transform_input};
      if (o.aux_logits) options.aux_logits = *o.aux_logits;
      if (o.dropout) options.dropout = *o.dropout;
      return quantization::googlenet(options).ptr();
    };
    t["inception_v3"] = [](const ModelOptions& o) -> QuantizableModel {
      Inception3Options options{.num_classes = o.num_classes, .transform_input = o.transform_input};
      if (o.aux_logits) options.aux_logits = *o.aux_logits;
      if (o.dropout) options.dropout = *o.dropout;
      return quantization::inception_v3(options).ptr();
    };
    return t;
  }();
  return table;
}

std::string joined_names() {
  std::string names;
  for (const auto& [n, build] : builders()) names += (names.empty() ? "" : ", ") + n;
  return names;
}

}  // namespace

QuantizableModel create(const std::string& name, const ModelOptions& options) {
  EMBER_CHECK(options.num_classes > 0, "models::quantization::create: num_classes must be positive, got ",
              options.num_classes);
  const auto it = builders().find(name);
  EMBER_CHECK(it != builders().end(), "model '", name, "' has no quantizable form; models with one: ", joined_names());
  return it->second(options);
}

std::vector<std::string> list_quantizable_models() {
  std::vector<std::string> names;
  for (const auto& [name, build] : builders()) names.push_back(name);
  return names;
}

bool has_quantizable_form(const std::string& name) { return builders().contains(name); }

}  // namespace ember::models::quantization
