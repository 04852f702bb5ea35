#pragma once
// ember-detect's checkpoint (apps/common/checkpoint_format.h's conventions,
// format "ember-detect/1", own entries under "detect."): the model's
// weights, what rebuilds it (DetectModelSpec), the categories, the per-epoch
// history, and the optimizer's, scheduler's and generator's state for --resume.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/optim/lr_scheduler.h>
#include <ember/optim/optimizer.h>

#include "common/checkpoint_format.h"
#include "detect_model.h"

namespace ember::apps::detect {

struct EpochRecord {
  int64_t epoch = 0;
  double train_loss = 0, classification_loss = 0, regression_loss = 0;
  double map = 0, map50 = 0, map75 = 0;  // COCO bbox mAP@[.5:.95], @.5, @.75 on the validation split
  double lr = 0, seconds = 0;
};

struct DetectRunState {
  int64_t epochs = 0, epochs_done = 0, batch_size = 0, steps_per_epoch = 0;
  uint64_t seed = 0;
  std::vector<EpochRecord> history;
};

struct DetectCheckpoint {
  DetectModelSpec spec;
  std::vector<int64_t> category_ids;       // the dataset's, in file order
  std::vector<std::string> category_names;
  DetectRunState state;
  StateDict model_state, tensors;
  Metadata metadata;
};

const CheckpointFormat& detect_checkpoint_format();

void save_detect_checkpoint(const std::string& path, const models::detection::RetinaNet& model,
                            const DetectModelSpec& spec, const std::vector<int64_t>& category_ids,
                            const std::vector<std::string>& category_names, const optim::Optimizer* optimizer,
                            const optim::LRScheduler* scheduler, const DetectRunState& state);

DetectCheckpoint load_detect_checkpoint(const std::string& path);

// make_detector(spec) with the checkpoint's weights, loaded strictly.
models::detection::RetinaNet load_detector(const DetectCheckpoint& checkpoint);

}  // namespace ember::apps::detect
