#pragma once
// ember-detect's data: a COCO layout read with datasets::CocoDetection,
// or the shapes dataset generated into OUTPUT/data on the first run.
#include <memory>
#include <string>
#include <vector>

#include <ember/datasets/coco.h>

#include "detect_config.h"

namespace ember::apps::detect {

struct DetectData {
  std::string root;
  std::shared_ptr<datasets::CocoDetection> train, val;
  std::vector<int64_t> category_ids;
  std::vector<std::string> category_names;
  int64_t num_classes = 0;  // the largest category id + 1 (torchvision's convention, 0 the background)
  bool generated = false;
};

// Missing folders or annotation files are ember::Errors naming the path.
DetectData load_detect_data(const DetectConfig& config);

}  // namespace ember::apps::detect
