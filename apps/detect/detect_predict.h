#pragma once
// ember-detect --predict: runs a trained checkpoint on one image and writes
// the image with its detections drawn (vision::utils::draw_bounding_boxes,
// "name 0.87" labels, one colour per category).
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::apps::detect {

struct Detection {
  std::string label;  // the category's name
  int64_t category_id = 0;
  double score = 0;
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
};

struct PredictOptions {
  double score_thresh = 0.3;  // detections drawn and listed
};

// Reads the image (JPEG or PNG), detects, writes the drawing to output_path
// (PNG or JPEG by its extension) and returns the detections kept, best first.
std::vector<Detection> predict_image(const std::string& checkpoint_path, const std::string& image_path,
                                     const std::string& output_path, const PredictOptions& options = {});

}  // namespace ember::apps::detect
