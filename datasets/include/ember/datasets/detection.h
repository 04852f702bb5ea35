#pragma once
// Detection batches for the DataLoader: images of different sizes and
// targets with different numbers of boxes cannot be stacked, so a batch is
// the list of images and the list of targets (torchvision's references use
// collate_fn = lambda batch: tuple(zip(*batch))).
//
//   auto coco = std::make_shared<CocoDetection>(root, ann_file, CocoDetectionOptions{...});
//   auto samples = map(coco, [](CocoSample s) { return to_detection_sample(std::move(s)); });
//   DataLoader loader(samples, {.batch_size = 4, .num_workers = 2}, DetectionCollate{});
//   for (DetectionBatch& batch : loader) model(batch.images, batch.targets);
#include <utility>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/datasets/coco.h>
#include <ember/vision/detection/coco_eval.h>
#include <ember/vision/detection/target.h>

namespace ember::datasets {

using DetectionSample = std::pair<Tensor, vision::detection::Target>;

struct DetectionBatch {
  std::vector<Tensor> images;                         // [C, H_i, W_i] each
  std::vector<vision::detection::Target> targets;    // one per image
};

// Checks every sample (an image [C, H, W]; a target whose "boxes" is [N, 4]
// and whose "labels", if any, is [N]) and lists them. Errors name the batch element.
DetectionBatch detection_collate(std::vector<DetectionSample> samples);

struct DetectionCollate {
  DetectionBatch operator()(std::vector<DetectionSample> samples) const {
    return detection_collate(std::move(samples));
  }
};

// A COCO target as detection models take it (references'
// ConvertCocoPolysToMask without masks): "boxes" float32 [N, 4] as x1, y1, x2, y2
// clamped to the image (width x height), "labels" int64 category ids,
// "image_id" int64 [1], "area" float32, "iscrowd" int64, keeping only boxes
// with positive width and height.
vision::detection::Target to_detection_target(const CocoTarget& target, int64_t height, int64_t width);
// The same for a sample: the image's own height and width.
DetectionSample to_detection_sample(CocoSample sample);

// The ground truth of a COCO evaluation from a CocoDetection's records
// (every image and category, annotations in file order), without reading the
// JSON again: CocoEvaluator(coco_ground_truth(val)). Image sizes are filled;
// segmentations are not (box evaluation; for iou_type "segm" read the ground
// truth with CocoGroundTruth::from_json).
vision::detection::CocoGroundTruth coco_ground_truth(const CocoDetection& dataset);

}  // namespace ember::datasets
