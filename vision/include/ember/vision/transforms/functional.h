#pragma once
// ember::vision::transforms::functional: torchvision.transforms.functional's
// tensor forms, the stateless functions the transform classes call.
#include "ember/vision/transforms/functional/augment.h"
#include "ember/vision/transforms/functional/color.h"
#include "ember/vision/transforms/functional/geometry.h"
#include "ember/vision/transforms/interpolation.h"
