#pragma once
// Ember::vision: image transforms (batched, on tensors), vision ops, detection
// utilities and drawing (torchvision.utils).
#include "ember/vision/detection.h"
#include "ember/vision/ops.h"
#include "ember/vision/transforms.h"
#include "ember/vision/utils.h"
