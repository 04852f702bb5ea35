#pragma once
// torchvision.utils (0.14): drawing detections on images and saving images.
//
//   Tensor shown = vision::utils::draw_bounding_boxes(image, boxes,
//       {.labels = {"cat", "dog"}, .colors = {"red", {0, 128, 255}}, .width = 2});
//   shown = vision::utils::draw_segmentation_masks(shown, masks, {.alpha = 0.5});
//   vision::utils::save_image(vision::utils::make_grid(batch, {.nrow = 4}), "grid.png");
//
// Boxes, fills, masks and keypoints cover exactly the pixels torchvision's
// (through PIL) do. Labels use Ember's own 5 x 7 bitmap font, so their glyph
// pixels differ from PIL's default font; their place and colour are torchvision's.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::vision::utils {

// A colour as torchvision takes it: a PIL colour string ("red", "#FF00FF",
// "#f0f", "rgb(240, 10, 157)") or an RGB triple.
class Color {
 public:
  Color(const char* spec);  // NOLINT: implicit, as torchvision's strings
  Color(const std::string& spec);  // NOLINT
  Color(int r, int g, int b);
  uint8_t r() const { return rgb_[0]; }
  uint8_t g() const { return rgb_[1]; }
  uint8_t b() const { return rgb_[2]; }
  bool operator==(const Color& o) const { return rgb_ == o.rgb_; }

 private:
  std::array<uint8_t, 3> rgb_{};
};

// The colours torchvision gives objects when none are given:
// (i * (2^25 - 1, 2^15 - 1, 2^21 - 1)) % 255 for object i.
std::vector<Color> generate_color_palette(int64_t num_objects);

struct DrawBoundingBoxesOptions {
  // One label per box, or none.
  std::vector<std::string> labels{};
  // One colour per box (or more), a single colour for all, or none (the palette).
  std::vector<Color> colors{};
  // Fill each box with its colour at alpha 100/255 (PIL's RGBA blend).
  bool fill = false;
  int64_t width = 1;
  // Label size: the 7-pixel font scaled by max(1, round(font_size / 10))
  // (torchvision's font_size applies to a TrueType font, which Ember does not load).
  std::optional<int64_t> font_size = std::nullopt;
};

// image: uint8 [C, H, W] with C = 1 or 3; boxes: [N, 4] (x1, y1, x2, y2), any
// real dtype, truncated to integers. Returns uint8 [3, H, W] (a gray image
// is drawn on as RGB, as torchvision).
Tensor draw_bounding_boxes(const Tensor& image, const Tensor& boxes, const DrawBoundingBoxesOptions& options = {});

struct DrawSegmentationMasksOptions {
  double alpha = 0.8;  // 0: masks invisible, 1: opaque
  std::vector<Color> colors{};  // one per mask (or more), one for all, or none (the palette)
};

// image: uint8 [3, H, W]; masks: bool [N, H, W] or [H, W]. Later masks paint
// over earlier ones; the result is image * (1 - alpha) + painted * alpha in
// float32, truncated to uint8.
Tensor draw_segmentation_masks(const Tensor& image, const Tensor& masks,
                               const DrawSegmentationMasksOptions& options = {});

struct DrawKeypointsOptions {
  // Pairs of keypoint indices joined by a line (white, as torchvision draws them).
  std::vector<std::pair<int64_t, int64_t>> connectivity{};
  // The discs' colour; none draws no discs (torchvision's behaviour: PIL's
  // ellipse with neither fill nor outline width draws nothing).
  std::optional<Color> colors = std::nullopt;
  int64_t radius = 2;
  int64_t width = 3;  // of the connecting lines
};

// image: uint8 [3, H, W]; keypoints: [N, K, 2] (x, y), truncated to integers.
Tensor draw_keypoints(const Tensor& image, const Tensor& keypoints, const DrawKeypointsOptions& options = {});

struct MakeGridOptions {
  int64_t nrow = 8;  // images per row
  int64_t padding = 2;
  // Shift values to [0, 1] by value_range (or the min and max) first.
  bool normalize = false;
  std::optional<std::pair<double, double>> value_range = std::nullopt;
  bool scale_each = false;  // normalize each image by its own min and max
  double pad_value = 0.0;
};

// tensor: [B, C, H, W], [C, H, W] or [H, W] (one channel is repeated to three).
// Returns [C, H', W'], or the single image itself for a batch of one.
Tensor make_grid(const Tensor& tensor, const MakeGridOptions& options = {});
Tensor make_grid(const std::vector<Tensor>& tensors, const MakeGridOptions& options = {});

// make_grid, then x * 255 + 0.5 clamped to [0, 255] as uint8, written as PNG
// or JPEG (by `format` "png"/"jpeg", or the path's extension) through Ember::io.
void save_image(const Tensor& tensor, const std::string& path, const MakeGridOptions& options = {},
                const std::string& format = "");
void save_image(const std::vector<Tensor>& tensors, const std::string& path, const MakeGridOptions& options = {},
                const std::string& format = "");

}  // namespace ember::vision::utils
