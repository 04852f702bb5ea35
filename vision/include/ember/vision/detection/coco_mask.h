#pragma once
// COCO's run-length encoded masks: pycocotools.mask (maskApi.c) in C++, with
// its exact rules (Note [COCO RLE] in vision/src/detection/coco_mask.cpp).
//
//   namespace M = ember::vision::detection::mask;
//   M::Rle r = M::encode(mask);                        // uint8/bool [H, W]
//   std::string s = M::to_string(r);                   // the "counts" of a results file
//   M::Rle p = M::from_polygons({{x0, y0, x1, y1, ...}}, h, w);   // a polygon annotation
//   double a = M::area(r); auto xywh = M::to_bbox(r);
//   Tensor ious = M::iou(detections, ground_truth, iscrowd);       // float64 [D, G]
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::vision::detection::mask {

// A binary mask of height x width as runs over its pixels in column-major
// (Fortran) order, alternating 0s and 1s and starting with 0s (counts[0] may
// be 0). Masks from encode() and from_polygon() are canonical (no other empty
// runs); uncompressed RLEs read from files are taken as they are.
struct Rle {
  int64_t height = 0;
  int64_t width = 0;
  std::vector<uint32_t> counts;
  bool operator==(const Rle&) const = default;
};

// mask: [H, W] (or [N, H, W] with encode_all) of bool or an integer type;
// nonzero pixels are in the mask.
Rle encode(const Tensor& mask);
std::vector<Rle> encode_all(const Tensor& masks);
// uint8 [H, W] of 0 and 1.
Tensor decode(const Rle& rle);
// The number of pixels in the mask.
double area(const Rle& rle);
// The tight box [x, y, width, height] of the mask; zeros for an empty mask.
std::array<double, 4> to_bbox(const Rle& rle);
// Union (or intersection) of masks of one size (pycocotools' merge).
Rle merge(const std::vector<Rle>& rles, bool intersect = false);
// A polygon [x0, y0, x1, y1, ...] (any number of points) rasterized with
// pycocotools' rules (frPoly); from_polygons merges several (one object in
// parts), as COCO.annToRLE.
Rle from_polygon(const std::vector<double>& xy, int64_t height, int64_t width);
Rle from_polygons(const std::vector<std::vector<double>>& polygons, int64_t height, int64_t width);
// COCO's compressed "counts" string (6 bits per character, deltas after the
// second run) and back.
std::string to_string(const Rle& rle);
Rle from_string(const std::string& counts, int64_t height, int64_t width);
// [D, G] float64: intersection over union of each detection and each
// ground-truth mask; for a crowd ground truth the union is the detection's
// area. All masks must have one size.
Tensor iou(const std::vector<Rle>& detections, const std::vector<Rle>& ground_truth,
           const std::vector<uint8_t>& iscrowd);
// One pair (the kernel of iou).
double iou(const Rle& detection, const Rle& ground_truth, bool crowd);

}  // namespace ember::vision::detection::mask
