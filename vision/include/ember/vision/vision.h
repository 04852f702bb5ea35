#pragma once
// Ember::vision: image transforms (batched, on tensors) and vision ops.
#include "ember/vision/ops.h"
#include "ember/vision/transforms.h"
