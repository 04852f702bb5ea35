#pragma once
// COCO detection (torchvision.datasets.CocoDetection): images in a folder and
// an instances annotation file,
//
//   CocoDetection val("coco/val2017", "coco/annotations/instances_val2017.json");
//   auto [image, target] = val.get(0);  // uint8 [3, H, W] RGB, CocoTarget
//
// The samples are the images of the JSON ordered by id (torchvision's
// sorted(coco.imgs.keys())); a sample's annotations are those whose image_id
// is its id, in file order (pycocotools' getAnnIds/loadAnns). The JSON is read
// once, at construction, by a pull reader into compact records (no document
// tree; see docs/datasets.md for the memory and time measured).
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/datasets/dataset.h>
#include <ember/datasets/transform.h>

namespace ember::datasets {

struct CocoImage {
  int64_t id = 0;
  std::string file_name;
  int64_t width = 0;  // 0 when the file does not say
  int64_t height = 0;
};

struct CocoCategory {
  int64_t id = 0;
  std::string name;
  std::string supercategory;
};

struct CocoAnnotation {
  int64_t id = 0;
  int64_t image_id = 0;
  int64_t category_id = 0;
  std::array<double, 4> bbox{};  // x, y, width, height (COCO's xywh)
  double area = 0;               // the file's; width * height when it has none
  int64_t iscrowd = 0;           // 0 when the file has none
  // The annotation's "segmentation" value as JSON text (polygons or RLE),
  // when CocoDetectionOptions::keep_segmentation; else empty.
  std::string segmentation;
};

// The target of one image, with tensors ready for detection models.
struct CocoTarget {
  int64_t image_id = 0;
  Tensor boxes;           // float32 [N, 4], COCO's x, y, width, height: see coco_boxes_to_xyxy
  Tensor labels;          // int64 [N], category_id
  Tensor area;            // float32 [N]
  Tensor iscrowd;         // int64 [N]
  Tensor annotation_ids;  // int64 [N], the annotations' ids
  // The annotation records themselves (torchvision's list of dicts).
  std::vector<CocoAnnotation> annotations;
};

// [N, 4] boxes from COCO's (x, y, width, height) to (x1, y1, x2, y2) =
// (x, y, x + width, y + height), the layout of torchvision's detection models
// and box ops (torchvision.ops.box_convert(boxes, "xywh", "xyxy")).
Tensor coco_boxes_to_xyxy(const Tensor& xywh);

using CocoSample = std::pair<Tensor, CocoTarget>;

struct CocoDetectionOptions {
  // Applied to the image.
  ImageTransform transform{};
  // Applied to the target.
  std::function<CocoTarget(CocoTarget)> target_transform{};
  // Applied to (image, target) together; not with transform/target_transform
  // (torchvision raises the same way).
  std::function<CocoSample(Tensor, CocoTarget)> transforms{};
  // Keep each annotation's segmentation as JSON text (off: it is most of the
  // file, about 2/3 of instances_train2017.json).
  bool keep_segmentation = false;
};

class CocoDetection : public Dataset<CocoSample> {
 public:
  // root: the folder of the images (file_name is relative to it);
  // ann_file: the instances JSON.
  CocoDetection(std::string root, const std::string& ann_file, CocoDetectionOptions options = {});

  // (image uint8 [3, H, W] RGB, target).
  CocoSample get(int64_t index) override;
  int64_t size() const override { return static_cast<int64_t>(ids_.size()); }

  // The target of sample `index`, without loading the image.
  CocoTarget target(int64_t index) const;
  // The image ids, sorted: sample i is image ids()[i].
  const std::vector<int64_t>& ids() const { return ids_; }
  // The image record of sample `index`.
  const CocoImage& image_info(int64_t index) const;
  // Every image, annotation and category, in file order.
  const std::vector<CocoImage>& images() const { return images_; }
  const std::vector<CocoAnnotation>& annotations() const { return annotations_; }
  const std::vector<CocoCategory>& categories() const { return categories_; }
  const std::string& root() const { return root_; }

 private:
  std::string root_;
  CocoDetectionOptions options_;
  std::vector<CocoImage> images_;
  std::vector<CocoAnnotation> annotations_;
  std::vector<CocoCategory> categories_;
  std::vector<int64_t> ids_;
  // Sample i's image is images_[sample_image_[i]]; its annotations are
  // annotations_[ann_index_[ann_begin_[i] .. ann_begin_[i + 1])].
  std::vector<int64_t> sample_image_;
  std::vector<int64_t> ann_begin_;
  std::vector<int64_t> ann_index_;
};

}  // namespace ember::datasets
