#pragma once
// ember-detect's run configuration (its flags; apps/detect/main.cpp).
#include <cstdint>
#include <string>

namespace ember::apps::detect {

struct DetectConfig {
  // A COCO layout: DATA/train, DATA/val and DATA/annotations/instances_{train,val}.json.
  // Empty: the generated shapes dataset under OUTPUT/data.
  std::string data;
  int64_t shapes_train_images = 400;  // generated dataset's sizes
  int64_t shapes_val_images = 100;
  std::string backbone = "resnet18";  // resnet18, resnet34 or resnet50 (FPN on layer2..4, P6/P7)
  // FPN and head width: torchvision's 256; 128 by default, as the heads'
  // eight 3x3 convolutions dominate a small backbone's cost.
  int64_t fpn_channels = 128;
  // Anchor size of the finest level (P3); the levels double it (torchvision:
  // 32, for 800-px COCO images; 16 fits the shapes' small objects at 128 px).
  int64_t anchor_size = 16;
  // GeneralizedRCNNTransform's min_size / max_size; 0: the shapes' 128 / 256.
  int64_t min_size = 0, max_size = 0;
  int64_t epochs = 10;
  int64_t batch_size = 4;
  std::string optimizer = "adamw";  // adamw or sgd (momentum 0.9)
  double lr = 2e-4;                 // peak of the one-cycle schedule (1e-3 diverges from scratch)
  double weight_decay = 1e-4;
  double hflip = 0.5;               // horizontal-flip probability in training
  int64_t workers = 2;
  int64_t threads = 0;              // intra-op threads; 0: Ember's default
  int64_t seed = 0;
  std::string output = "ember-detect-out";
  std::string resume;       // checkpoint to continue from
  int64_t stop_after = 0;   // stop after N epochs of this run (0: all)
  double min_map50 = 0;     // exit 1 when the final mAP@0.5 is lower
  bool progress = true;
};

struct DetectResult {
  int64_t epochs_done = 0;
  double map = 0, map50 = 0;  // the last evaluation's mAP@[.5:.95] and mAP@.5
  std::string checkpoint;
};

}  // namespace ember::apps::detect
