#pragma once
// ember-detect's training run: COCO-layout data (or the generated shapes),
// RetinaNet (detect_model.h), AdamW or SGD under a one-cycle schedule,
// COCO bbox evaluation of the validation split after every epoch,
// checkpoints (resumable) and metrics.json.
#include "detect_config.h"

namespace ember::apps::detect {

// ember::Errors (bad data, bad options, a checkpoint of another run) propagate.
DetectResult train_detector(const DetectConfig& config);

}  // namespace ember::apps::detect
