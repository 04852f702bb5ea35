#pragma once
// torchvision.ops: the layers and functions models share, and the detection ops.
#include "ember/vision/ops/boxes.h"
#include "ember/vision/ops/deform_conv.h"
#include "ember/vision/ops/deform_conv_module.h"
#include "ember/vision/ops/drop_block.h"
#include "ember/vision/ops/feature_pyramid_network.h"
#include "ember/vision/ops/focal_loss.h"
#include "ember/vision/ops/frozen_batch_norm.h"
#include "ember/vision/ops/misc.h"
#include "ember/vision/ops/nms.h"
#include "ember/vision/ops/poolers.h"
#include "ember/vision/ops/roi_pooling.h"
#include "ember/vision/ops/stochastic_depth.h"
