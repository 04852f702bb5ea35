#pragma once
// ember-detect's built-in dataset (docs/detection.md, "The shapes detection
// dataset"): images of several shapes each (circle, square, triangle, star,
// cross) at random positions, sizes (some small), rotations and colours on
// textured backgrounds, written in COCO's layout so that the app's first run
// reads it exactly as it reads a user's COCO-format data:
//
//   root/train/000001.jpg ...          root/val/...
//   root/annotations/instances_train.json, root/annotations/instances_val.json
//
// Each object is one polygon: the pixels drawn are the polygon's (antialiased
// at its edge), its "segmentation" is that polygon, "bbox" its tight box and
// "area" the pixel count of its COCO mask (pycocotools' rasterisation), as in
// COCO's own files; iscrowd 0. Objects do not overlap, so no object hides
// another. Deterministic: the same options give the same bytes.
//
//   apps::detect::write_shapes_coco("data/shapes", {.train_images = 500, .seed = 1});
//   datasets::CocoDetection train("data/shapes/train", "data/shapes/annotations/instances_train.json");
#include <cstdint>
#include <string>
#include <vector>

namespace ember::apps::detect {

struct ShapesCocoOptions {
  int64_t train_images = 400;
  int64_t val_images = 100;
  int64_t image_width = 160;
  int64_t image_height = 128;
  // Objects per image, drawn uniformly from [min_objects, max_objects] (fewer
  // when no free place is found).
  int64_t min_objects = 2;
  int64_t max_objects = 6;
  // The share of objects drawn small (COCO's "small": under 32 x 32 pixels).
  double small_fraction = 0.3;
  uint64_t seed = 0;
};

// The category names; category ids are 1.. in this order (0 is the
// background class of torchvision's detection models).
const std::vector<std::string>& shapes_coco_categories();

struct ShapesCocoSummary {
  int64_t images = 0;
  int64_t annotations = 0;
  int64_t small_annotations = 0;  // area < 32 * 32
};

// Writes both splits under root (creating the folders); returns what it wrote.
ShapesCocoSummary write_shapes_coco(const std::string& root, const ShapesCocoOptions& options = {});

}  // namespace ember::apps::detect
