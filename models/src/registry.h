#pragma once
// Each model family adds its builders here; registry.cpp calls the families
// once, explicitly (no static initializers a static link could drop).
#include <functional>
#include <string>

#include "ember/models/classifier.h"

namespace ember::models::detail {

using ModelBuilder = std::function<ImageClassifier(const ModelOptions&)>;
using AddModel = std::function<void(const std::string& name, ModelBuilder builder)>;

// The families (each in its own source file).
void register_resnet_models(const AddModel& add);    // resnet.cpp
void register_vgg_models(const AddModel& add);       // vgg.cpp
void register_densenet_models(const AddModel& add);  // densenet.cpp

}  // namespace ember::models::detail
