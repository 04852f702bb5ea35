#include "ember/datasets/detection.h"

#include <ember/core/error.h>
#include <ember/ops/factories.h>
#include <ember/ops/indexing.h>
#include <ember/ops/shape.h>

namespace ember::datasets {

DetectionBatch detection_collate(std::vector<DetectionSample> samples) {
  EMBER_CHECK(!samples.empty(), "detection_collate: the batch is empty");
  DetectionBatch batch;
  batch.images.reserve(samples.size());
  batch.targets.reserve(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    auto& [image, target] = samples[i];
    EMBER_CHECK(image.defined() && image.dim() == 3, "detection_collate: batch element ", i,
                ": the image should be [C, H, W], got ", image.defined() ? image.sizes() : IntArrayRef{});
    auto boxes = target.find("boxes");
    EMBER_CHECK(boxes != target.end(), "detection_collate: batch element ", i, ": the target has no \"boxes\"");
    EMBER_CHECK(boxes->second.dim() == 2 && boxes->second.size(1) == 4, "detection_collate: batch element ", i,
                ": target[\"boxes\"] should be [N, 4], got ", boxes->second.sizes());
    if (auto labels = target.find("labels"); labels != target.end())
      EMBER_CHECK(labels->second.dim() == 1 && labels->second.size(0) == boxes->second.size(0),
                  "detection_collate: batch element ", i, ": ", boxes->second.size(0), " boxes but labels of shape ",
                  labels->second.sizes());
    batch.images.push_back(std::move(image));
    batch.targets.push_back(std::move(target));
  }
  return batch;
}

vision::detection::Target to_detection_target(const CocoTarget& t, int64_t height, int64_t width) {
  EMBER_CHECK(height > 0 && width > 0, "to_detection_target: image size must be positive, got ", height, " x ", width);
  Tensor xyxy = coco_boxes_to_xyxy(t.boxes.to(kFloat32));
  const Tensor x = xyxy.slice(1, 0, std::nullopt, 2).clamp(0, width);
  const Tensor y = xyxy.slice(1, 1, std::nullopt, 2).clamp(0, height);
  xyxy = stack({x.select(1, 0), y.select(1, 0), x.select(1, 1), y.select(1, 1)}, 1);
  const Tensor keep =
      nonzero((xyxy.select(1, 3) > xyxy.select(1, 1)).logical_and(xyxy.select(1, 2) > xyxy.select(1, 0))).select(1, 0);
  vision::detection::Target out;
  out["boxes"] = xyxy.index_select(0, keep);
  out["labels"] = t.labels.to(kInt64).index_select(0, keep);
  out["image_id"] = tensor<int64_t>({t.image_id});
  out["area"] = t.area.to(kFloat32).index_select(0, keep);
  out["iscrowd"] = t.iscrowd.to(kInt64).index_select(0, keep);
  return out;
}

DetectionSample to_detection_sample(CocoSample sample) {
  auto& [image, target] = sample;
  EMBER_CHECK(image.dim() == 3, "to_detection_sample: the image should be [C, H, W], got ", image.sizes());
  return {image, to_detection_target(target, image.size(1), image.size(2))};
}

vision::detection::CocoGroundTruth coco_ground_truth(const CocoDetection& dataset) {
  vision::detection::CocoGroundTruth gt;
  for (const CocoImage& img : dataset.images()) {
    gt.image_ids.push_back(img.id);
    gt.image_sizes.push_back({img.height, img.width});
  }
  for (const CocoCategory& cat : dataset.categories()) gt.category_ids.push_back(cat.id);
  for (const CocoAnnotation& a : dataset.annotations())
    gt.annotations.push_back({a.id, a.image_id, a.category_id, a.bbox, a.area, a.iscrowd != 0});
  return gt;
}

}  // namespace ember::datasets
