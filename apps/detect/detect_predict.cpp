#include "detect_predict.h"

#include <cstdio>
#include <filesystem>

#include <ember/autograd/grad_mode.h>
#include <ember/core/error.h>
#include <ember/io/image.h>
#include <ember/ops/indexing.h>
#include <ember/vision/detection/target.h>
#include <ember/vision/utils.h>

#include "detect_checkpoint.h"

namespace ember::apps::detect {

std::vector<Detection> predict_image(const std::string& checkpoint_path, const std::string& image_path,
                                     const std::string& output_path, const PredictOptions& options) {
  EMBER_CHECK(options.score_thresh >= 0 && options.score_thresh <= 1,
              "ember-detect: --score-thresh must be in [0, 1], got ", options.score_thresh);
  EMBER_CHECK(std::filesystem::is_regular_file(image_path), "ember-detect: no image file '", image_path, "'");
  const std::string ext = std::filesystem::path(output_path).extension().string();
  EMBER_CHECK(ext == ".png" || ext == ".jpg" || ext == ".jpeg", "ember-detect: --predict-output '", output_path,
              "' must end in .png, .jpg or .jpeg");
  const DetectCheckpoint ck = load_detect_checkpoint(checkpoint_path);
  models::detection::RetinaNet model = load_detector(ck);
  model->eval();
  const Tensor image = io::read_image(image_path, io::ImageReadMode::RGB);
  vision::detection::Target det;
  {
    NoGradGuard no_grad;
    det = model->forward({image.to(kFloat32).div(255.0)}).detections[0];
  }
  const Tensor keep = det.at("scores").ge(options.score_thresh);
  const Tensor boxes = det.at("boxes").index({keep}).contiguous();
  const Tensor scores = det.at("scores").index({keep}).to(kFloat64).contiguous();
  const Tensor labels = det.at("labels").index({keep}).contiguous();
  std::vector<Detection> out;
  std::vector<std::string> texts;
  std::vector<vision::utils::Color> colors;
  for (int64_t i = 0; i < scores.numel(); ++i) {
    Detection d;
    d.category_id = labels[i].item<int64_t>();
    d.label = "class " + std::to_string(d.category_id);
    for (size_t k = 0; k < ck.category_ids.size(); ++k)
      if (ck.category_ids[k] == d.category_id) d.label = ck.category_names[k];
    d.score = scores[i].item<double>();
    const Tensor b = boxes[i].to(kFloat64);
    d.x1 = b[0].item<double>();
    d.y1 = b[1].item<double>();
    d.x2 = b[2].item<double>();
    d.y2 = b[3].item<double>();
    char text[96];
    std::snprintf(text, sizeof(text), "%s %.2f", d.label.c_str(), d.score);
    texts.emplace_back(text);
    // One colour per category, from a fixed list.
    static const char* kColors[] = {"red", "lime", "blue", "yellow", "magenta", "cyan", "orange", "white"};
    colors.emplace_back(kColors[d.category_id % 8]);
    out.push_back(d);
  }
  // Nothing to draw: the image as it is (draw_bounding_boxes warns on no boxes).
  const Tensor drawn =
      out.empty() ? image : vision::utils::draw_bounding_boxes(image, boxes, {.labels = texts, .colors = colors});
  if (ext == ".png")
    io::write_png(drawn, output_path);
  else
    io::write_jpeg(drawn, output_path, 90);
  return out;
}

}  // namespace ember::apps::detect
