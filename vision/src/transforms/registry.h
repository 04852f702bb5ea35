#pragma once
// The built-in transform families register their factories here, once, the
// first time the registry is used (an explicit list, not static initializers,
// so a static link cannot drop a family). Each family's .cpp defines its function.
#include <string>

#include "ember/vision/transforms/serialize.h"

namespace ember::vision::transforms::detail {

using AddTransform = std::function<void(const std::string& type, TransformFactory factory)>;

void register_container_transforms(const AddTransform& add);
void register_color_transforms(const AddTransform& add);
void register_geometry_transforms(const AddTransform& add);
void register_augment_transforms(const AddTransform& add);

}  // namespace ember::vision::transforms::detail
