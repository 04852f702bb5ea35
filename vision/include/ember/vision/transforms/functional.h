#pragma once
// ember::vision::transforms::functional: torchvision.transforms.functional's
// tensor forms.
#include "ember/vision/transforms/functional/color.h"
