#pragma once
// The built-in transform families register their factories here, once, the
// first time vision's registry functions are used (an explicit list, not
// static initializers, so a static link cannot drop a family). Each family's
// .cpp defines its function.
#include "ember/vision/transforms/serialize.h"

namespace ember::vision::transforms::detail {

using ::ember::transforms::AddTransform;

void register_color_transforms(const AddTransform& add);
void register_geometry_transforms(const AddTransform& add);
void register_augment_transforms(const AddTransform& add);

}  // namespace ember::vision::transforms::detail
