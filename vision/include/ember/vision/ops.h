#pragma once
// torchvision.ops: the layers and functions models share.
#include "ember/vision/ops/misc.h"
#include "ember/vision/ops/stochastic_depth.h"
