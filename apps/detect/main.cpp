// ember-detect: trains RetinaNet on a COCO-layout dataset, evaluating COCO
// mAP every epoch (docs/detection.md, "The ember-detect app"). With no
// arguments it generates the shapes dataset and trains a ResNet-18-FPN
// RetinaNet on it. --predict IMAGE draws a checkpoint's detections.
#include <cstdio>
#include <exception>
#include <filesystem>

#include "common/flags.h"
#include "detect_predict.h"
#include "detect_trainer.h"

int main(int argc, char** argv) {
  using ember::apps::Flags;
  namespace D = ember::apps::detect;
  D::DetectConfig c;
  std::string predict, checkpoint, predict_output;
  double score_thresh = 0.3;
  bool no_progress = false;
  Flags flags("ember-detect",
              "Trains a RetinaNet object detector on a COCO-layout dataset (DIR/train, DIR/val,\n"
              "DIR/annotations/instances_{train,val}.json), evaluates COCO mAP on val every epoch, saves a\n"
              "resumable checkpoint and metrics.json. Without --data it generates a shapes dataset\n"
              "under OUTPUT/data. With --predict IMAGE it draws a checkpoint's detections instead.");
  flags.add("--data", &c.data, "DIR", "COCO-layout dataset root (empty: generated shapes)");
  flags.add("--shapes-train-images", &c.shapes_train_images, "N", "training images of the generated dataset");
  flags.add("--shapes-val-images", &c.shapes_val_images, "N", "validation images of the generated dataset");
  flags.add("--backbone", &c.backbone, "NAME", "resnet18, resnet34 or resnet50 (FPN on layer2..4, P6/P7)");
  flags.add("--fpn-channels", &c.fpn_channels, "N", "FPN and head width (torchvision: 256)");
  flags.add("--anchor-size", &c.anchor_size, "PX", "anchor size on P3, doubled per level (torchvision: 32)");
  flags.add("--min-size", &c.min_size, "PX", "resize the shorter side to this (0: 128 shapes, 800 otherwise)");
  flags.add("--max-size", &c.max_size, "PX", "longest side at most (0: 256 shapes, 1333 otherwise)");
  flags.add("--epochs", &c.epochs, "N", "passes over the training split");
  flags.add("--batch-size", &c.batch_size, "N", "images per step");
  flags.add("--optimizer", &c.optimizer, "NAME", "adamw or sgd (momentum 0.9)");
  flags.add("--lr", &c.lr, "X", "peak learning rate of the one-cycle schedule");
  flags.add("--weight-decay", &c.weight_decay, "X", "weight decay");
  flags.add("--hflip", &c.hflip, "P", "horizontal-flip probability in training");
  flags.add("--workers", &c.workers, "N", "DataLoader worker threads");
  flags.add("--threads", &c.threads, "N", "intra-op threads (0: all cores)");
  flags.add("--seed", &c.seed, "N", "seed of the data, initialisation, order and flips");
  flags.add("--output", &c.output, "DIR", "checkpoint.safetensors and metrics.json go here");
  flags.add("--resume", &c.resume, "FILE", "continue a run from its checkpoint");
  flags.add("--stop-after", &c.stop_after, "N", "stop after N epochs of this run (0: all; --resume later)");
  flags.add("--min-map50", &c.min_map50, "X", "exit with 1 if the final mAP@0.5 is lower");
  flags.add("--predict", &predict, "IMAGE", "detect on IMAGE with --checkpoint instead of training");
  flags.add("--checkpoint", &checkpoint, "FILE", "for --predict (default: OUTPUT/checkpoint.safetensors)");
  flags.add("--predict-output", &predict_output, "FILE", "the drawing (default: OUTPUT/predicted.png)");
  flags.add("--score-thresh", &score_thresh, "X", "for --predict: detections drawn");
  flags.add_switch("--no-progress", &no_progress, "one line per 10 s instead of a live progress bar");
  if (!flags.parse(argc, argv).empty()) ember::apps::fail("ember-detect", "unexpected positional argument (see --help)", 2);
  c.progress = !no_progress;
  try {
    if (!predict.empty()) {
      namespace fs = std::filesystem;
      if (checkpoint.empty()) checkpoint = (fs::path(c.output) / "checkpoint.safetensors").string();
      if (predict_output.empty()) {
        fs::create_directories(c.output);
        predict_output = (fs::path(c.output) / "predicted.png").string();
      }
      const auto found = D::predict_image(checkpoint, predict, predict_output, {.score_thresh = score_thresh});
      for (const D::Detection& d : found)
        std::printf("%s %.3f [%.1f, %.1f, %.1f, %.1f]\n", d.label.c_str(), d.score, d.x1, d.y1, d.x2, d.y2);
      std::printf("%zu detections with score >= %.2f drawn in %s\n", found.size(), score_thresh,
                  predict_output.c_str());
      return 0;
    }
    const D::DetectResult r = D::train_detector(c);
    if (r.epochs_done == c.epochs && r.map50 < c.min_map50) {
      std::fprintf(stderr, "ember-detect: validation mAP@0.5 %.4f is below --min-map50 %.4f\n", r.map50, c.min_map50);
      return 1;
    }
  } catch (const std::exception& e) {
    ember::apps::fail("ember-detect", e.what());
  }
  return 0;
}
