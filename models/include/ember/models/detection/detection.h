#pragma once
// models::detection (torchvision.models.detection): the box machinery
// detection models assemble (docs/detection.md).
#include "ember/models/detection/anchor_utils.h"
#include "ember/models/detection/backbone_utils.h"
#include "ember/models/detection/box_coder.h"
#include "ember/models/detection/image_list.h"
#include "ember/models/detection/matcher.h"
#include "ember/models/detection/retinanet.h"
#include "ember/models/detection/transform.h"
