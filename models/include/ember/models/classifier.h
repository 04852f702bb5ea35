#pragma once
// Image classification models (torchvision.models) and their factory.
//
//   auto model = models::create("resnet50", {.num_classes = 10});
//   Tensor logits = model->forward(images);            // [N, 3, H, W] float -> [N, num_classes]
//   for (const auto& name : models::list_models()) ...
//
// Every model has torchvision's architecture and its parameter and buffer
// names, so the state_dict of a torchvision checkpoint loads strictly:
//
//   model->load_state_dict(serialize::load_torch_state_dict("resnet50.pth"));
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ember/nn/module.h>

namespace ember::models {

// The base of every classifier: an nn::Module mapping images [N, 3, H, W] to
// logits [N, num_classes]. (Models with auxiliary heads, GoogLeNet and
// Inception v3, return the main logits here; see their headers for the rest.)
class ImageClassifierImpl : public nn::Module {
 public:
  using nn::Module::Module;
  virtual Tensor forward(const Tensor& images) = 0;
  Tensor operator()(const Tensor& images) { return forward(images); }
};

using ImageClassifier = std::shared_ptr<ImageClassifierImpl>;

// Options the factory understands; a model ignores what it has no use for
// (torchvision's keyword arguments of the model builders).
struct ModelOptions {
  int64_t num_classes = 1000;
  // Dropout before the classifier, where the architecture has one; unset:
  // torchvision's default for the model.
  std::optional<double> dropout = std::nullopt;
  // GoogLeNet / Inception v3: build the auxiliary classifiers (torchvision's
  // aux_logits; unset: torchvision's default).
  std::optional<bool> aux_logits = std::nullopt;
  // GoogLeNet / Inception v3: re-normalise ImageNet-normalised input as the
  // original weights expect (torchvision's transform_input; default false).
  bool transform_input = false;
};

// A new model with freshly initialised weights (torchvision's init scheme).
// Raises an ember::Error listing the available names for an unknown name.
ImageClassifier create(const std::string& name, const ModelOptions& options = {});

// The names create() accepts, sorted ("resnet18", "mobilenet_v2", ...).
std::vector<std::string> list_models();

}  // namespace ember::models
