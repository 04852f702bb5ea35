#pragma once
// Ember::vision's detection utilities (docs/detection.md): targets, the
// transforms that move boxes with the image, and COCO box evaluation.
#include "ember/vision/detection/coco_eval.h"
#include "ember/vision/detection/target.h"
#include "ember/vision/detection/transforms.h"
