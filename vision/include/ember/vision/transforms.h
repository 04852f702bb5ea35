#pragma once
// ember::vision::transforms: torchvision.transforms on tensors (see
// transforms/transform.h for the conventions).
#include "ember/vision/transforms/autoaugment.h"
#include "ember/vision/transforms/color.h"
#include "ember/vision/transforms/containers.h"
#include "ember/vision/transforms/functional.h"
#include "ember/vision/transforms/geometry.h"
#include "ember/vision/transforms/random_sampling.h"
#include "ember/vision/transforms/serialize.h"
#include "ember/vision/transforms/transform.h"
