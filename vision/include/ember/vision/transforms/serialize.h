#pragma once
// Saving and loading vision transforms: the suite's JSON format and registry
// (ember/transforms/serialize.h). The functions here that read or query the
// registry first register vision's built-in transforms, so every torchvision
// type loads even from a static link:
//
//   transforms::save("preprocess.json", *pipeline);
//   TransformPtr pipeline = transforms::load("preprocess.json");
//   // or inside a checkpoint: transforms::write_transform(*pipeline, metadata);
#include <string>
#include <vector>

#include <ember/transforms/serialize.h>

#include "ember/vision/transforms/transform.h"

namespace ember::vision::transforms {

using ::ember::transforms::param;
using ::ember::transforms::save;
using ::ember::transforms::to_json;
using ::ember::transforms::TransformFactory;
using ::ember::transforms::write_transform;

TransformPtr from_json(const std::string& text);
TransformPtr load(const std::string& path);
TransformPtr read_transform(const Metadata& metadata, const std::string& key = "transform");
void register_transform(const std::string& type, TransformFactory factory);
bool is_registered_transform(const std::string& type);
std::vector<std::string> registered_transforms();

// Adds vision's built-in transforms to the registry (once; the functions
// above call it). Call it before ember::transforms::load when that is the
// loader you use.
void register_vision_transforms();

}  // namespace ember::vision::transforms
