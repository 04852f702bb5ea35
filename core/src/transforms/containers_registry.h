#pragma once
// The containers' factories (Compose, RandomApply, RandomChoice, RandomOrder,
// Lambda), which the registry holds from its start.
#include "ember/transforms/serialize.h"

namespace ember::transforms::detail {

void register_container_transforms(const AddTransform& add);

}  // namespace ember::transforms::detail
