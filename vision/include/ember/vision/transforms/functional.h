#pragma once
// ember::vision::transforms::functional: torchvision.transforms.functional on
// tensors, the stateless forms the transform classes call.
#include "ember/vision/transforms/functional/geometry.h"
#include "ember/vision/transforms/interpolation.h"
