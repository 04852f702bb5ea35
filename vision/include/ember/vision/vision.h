#pragma once
// Ember::vision: image transforms (batched, on tensors).
#include "ember/vision/transforms.h"
