#include "ember/vision/detection/transforms.h"

#include <algorithm>
#include <cmath>

#include <ember/core/error.h>
#include <ember/nn/functional/sampling.h>
#include <ember/ops/elementwise.h>
#include <ember/ops/factories.h>
#include <ember/ops/indexing.h>
#include <ember/ops/random.h>
#include <ember/ops/shape.h>
#include <ember/vision/transforms/functional/color.h>
#include <ember/vision/transforms/functional/geometry.h>

namespace ember::vision::detection {

namespace F = transforms::functional;

namespace {

// Entries with one row per box: filtered with the boxes.
constexpr const char* kPerBox[] = {"labels", "masks", "keypoints", "area", "iscrowd", "scores"};

void check_image(const Tensor& image, const char* op) {
  EMBER_CHECK(image.defined() && image.dim() == 3 && image.size(1) > 0 && image.size(2) > 0, op,
              ": expected an image [C, H, W] with H, W > 0, got ", image.defined() ? image.sizes() : IntArrayRef{});
}

// The target's boxes, checked against the other per-box entries.
Tensor checked_boxes(const Target& target, const char* op, const Tensor& image) {
  auto it = target.find("boxes");
  EMBER_CHECK(it != target.end(), op, ": the target has no \"boxes\"");
  const Tensor& boxes = it->second;
  EMBER_CHECK(boxes.dim() == 2 && boxes.size(1) == 4, op, ": target[\"boxes\"] should be [N, 4], got ",
              boxes.sizes());
  EMBER_CHECK(is_floating_point(boxes.dtype()), op, ": target[\"boxes\"] must be floating point, got ",
              boxes.dtype());
  const int64_t n = boxes.size(0);
  for (const char* key : kPerBox) {
    auto e = target.find(key);
    if (e == target.end()) continue;
    EMBER_CHECK(e->second.dim() >= 1 && e->second.size(0) == n, op, ": target[\"", key, "\"] has ",
                e->second.dim() >= 1 ? e->second.size(0) : 0, " rows for ", n, " boxes");
  }
  if (auto m = target.find("masks"); m != target.end())
    EMBER_CHECK(m->second.dim() == 3 && m->second.size(1) == image.size(1) && m->second.size(2) == image.size(2), op,
                ": target[\"masks\"] should be [N, ", image.size(1), ", ", image.size(2), "], got ",
                m->second.sizes());
  return boxes;
}

double uniform(Generator* g) { return rand({1}, kFloat32, g).item<double>(); }

}  // namespace

Sample hflip(const Tensor& image, Target target) {
  constexpr const char* kOp = "detection::hflip";
  check_image(image, kOp);
  const Tensor boxes = checked_boxes(target, kOp, image);
  const int64_t width = image.size(2);
  // boxes[:, [0, 2]] = width - boxes[:, [2, 0]]
  target["boxes"] = stack({width - boxes.select(1, 2), boxes.select(1, 1), width - boxes.select(1, 0),
                           boxes.select(1, 3)}, 1);
  if (auto m = target.find("masks"); m != target.end()) m->second = m->second.flip({-1});
  if (auto k = target.find("keypoints"); k != target.end()) {
    Tensor kps = k->second;
    EMBER_CHECK(kps.dim() == 3 && kps.size(2) == 3, kOp, ": target[\"keypoints\"] should be [N, K, 3], got ",
                kps.sizes());
    if (kps.size(1) == 17) {
      // COCO person keypoints: left and right parts swap.
      static const std::vector<int64_t> kFlip = {0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15};
      kps = kps.index_select(1, tensor<int64_t>(kFlip));
    } else {
      kps = kps.clone();
    }
    kps.select(2, 0).copy_(width - kps.select(2, 0));
    // COCO's convention: invisible keypoints (v = 0) are (0, 0, 0).
    kps.masked_fill_(kps.select(2, 2).eq(0).unsqueeze(2), 0);
    k->second = kps;
  }
  return {F::hflip(image), std::move(target)};
}

Sample crop(const Tensor& image, Target target, int64_t top, int64_t left, int64_t height, int64_t width) {
  constexpr const char* kOp = "detection::crop";
  check_image(image, kOp);
  EMBER_CHECK(height > 0 && width > 0, kOp, ": the crop must be non-empty, got ", height, " x ", width);
  const Tensor boxes = checked_boxes(target, kOp, image);
  const Tensor cx = 0.5 * (boxes.select(1, 0) + boxes.select(1, 2));
  const Tensor cy = 0.5 * (boxes.select(1, 1) + boxes.select(1, 3));
  const Tensor keep = (cx > left).logical_and(cx < left + width).logical_and(cy > top).logical_and(cy < top + height);
  const Tensor index = nonzero(keep).select(1, 0);
  for (const char* key : kPerBox)
    if (auto e = target.find(key); e != target.end()) e->second = e->second.index_select(0, index);
  Tensor kept = boxes.index_select(0, index);
  const Tensor x = (kept.slice(1, 0, std::nullopt, 2) - left).clamp(0, width);
  const Tensor y = (kept.slice(1, 1, std::nullopt, 2) - top).clamp(0, height);
  target["boxes"] = stack({x.select(1, 0), y.select(1, 0), x.select(1, 1), y.select(1, 1)}, 1);
  if (auto m = target.find("masks"); m != target.end()) m->second = F::crop(m->second, top, left, height, width);
  if (auto k = target.find("keypoints"); k != target.end()) {
    Tensor kps = k->second.clone();
    kps.select(2, 0).sub_(left);
    kps.select(2, 1).sub_(top);
    k->second = kps;
  }
  return {F::crop(image, top, left, height, width), std::move(target)};
}

Sample zoom_out(const Tensor& image, Target target, int64_t canvas_height, int64_t canvas_width, int64_t top,
                int64_t left, const std::vector<double>& fill) {
  constexpr const char* kOp = "detection::zoom_out";
  check_image(image, kOp);
  const Tensor boxes = checked_boxes(target, kOp, image);
  const int64_t h = image.size(1), w = image.size(2), c = image.size(0);
  EMBER_CHECK(top >= 0 && left >= 0 && top + h <= canvas_height && left + w <= canvas_width, kOp, ": an image of ",
              h, " x ", w, " at (top ", top, ", left ", left, ") does not fit a canvas of ", canvas_height, " x ",
              canvas_width);
  EMBER_CHECK(fill.size() == 1 || static_cast<int64_t>(fill.size()) == c, kOp, ": fill has ", fill.size(),
              " values for ", c, " channels");
  Tensor values = tensor<double>(fill).to(image.dtype()).view({-1, 1, 1});
  Tensor canvas = values.expand({c, canvas_height, canvas_width}).contiguous();
  canvas.narrow(1, top, h).narrow(2, left, w).copy_(image);
  Tensor shift = tensor<double>({static_cast<double>(left), static_cast<double>(top), static_cast<double>(left),
                                 static_cast<double>(top)}).to(boxes.dtype());
  target["boxes"] = boxes + shift;
  if (auto m = target.find("masks"); m != target.end()) {
    Tensor padded = zeros({m->second.size(0), canvas_height, canvas_width}, m->second.dtype());
    padded.narrow(1, top, h).narrow(2, left, w).copy_(m->second);
    m->second = padded;
  }
  if (auto k = target.find("keypoints"); k != target.end()) {
    Tensor kps = k->second.clone();
    kps.select(2, 0).add_(left);
    kps.select(2, 1).add_(top);
    k->second = kps;
  }
  return {canvas, std::move(target)};
}

Sample resize(const Tensor& image, Target target, int64_t height, int64_t width,
              transforms::InterpolationMode interpolation) {
  constexpr const char* kOp = "detection::resize";
  check_image(image, kOp);
  EMBER_CHECK(height > 0 && width > 0, kOp, ": the size must be positive, got ", height, " x ", width);
  const Tensor boxes = checked_boxes(target, kOp, image);
  const int64_t h = image.size(1), w = image.size(2);
  // boxes[:, 0::2] *= new_width / orig_width (a Python float)
  const double sx = static_cast<double>(width) / static_cast<double>(w);
  const double sy = static_cast<double>(height) / static_cast<double>(h);
  const Tensor x = boxes.slice(1, 0, std::nullopt, 2) * sx;
  const Tensor y = boxes.slice(1, 1, std::nullopt, 2) * sy;
  target["boxes"] = stack({x.select(1, 0), y.select(1, 0), x.select(1, 1), y.select(1, 1)}, 1);
  if (auto m = target.find("masks"); m != target.end())
    m->second = F::resize(m->second, {height, width}, transforms::InterpolationMode::Nearest);
  if (auto k = target.find("keypoints"); k != target.end()) {
    Tensor kps = k->second.clone();
    kps.select(2, 0).mul_(sx);
    kps.select(2, 1).mul_(sy);
    k->second = kps;
  }
  return {F::resize(image, {height, width}, interpolation), std::move(target)};
}

RandomHorizontalFlip::RandomHorizontalFlip(double p) : p_(p) {
  EMBER_CHECK(p >= 0 && p <= 1, "RandomHorizontalFlip: p must be in [0, 1], got ", p);
}

Sample RandomHorizontalFlip::operator()(Tensor image, Target target, Generator* g) const {
  if (uniform(g) < p_) return hflip(image, std::move(target));
  return {std::move(image), std::move(target)};
}

RandomIoUCrop::RandomIoUCrop(RandomIoUCropOptions options) : o_(std::move(options)) {
  EMBER_CHECK(o_.min_scale > 0 && o_.min_scale <= o_.max_scale && o_.max_scale <= 1, "RandomIoUCrop: expected ",
              "0 < min_scale <= max_scale <= 1, got ", o_.min_scale, " and ", o_.max_scale);
  EMBER_CHECK(o_.min_aspect_ratio > 0 && o_.min_aspect_ratio <= o_.max_aspect_ratio,
              "RandomIoUCrop: expected 0 < min_aspect_ratio <= max_aspect_ratio, got ", o_.min_aspect_ratio, " and ",
              o_.max_aspect_ratio);
  EMBER_CHECK(!o_.sampler_options.empty() && o_.trials > 0, "RandomIoUCrop: sampler_options is empty or trials < 1");
}

Sample RandomIoUCrop::operator()(Tensor image, Target target, Generator* g) const {
  constexpr const char* kOp = "RandomIoUCrop";
  EMBER_CHECK(image.defined() && (image.dim() == 2 || image.dim() == 3), kOp,
              ": image should be 2/3 dimensional. Got ", image.defined() ? image.dim() : 0, " dimensions.");
  if (image.dim() == 2) image = image.unsqueeze(0);
  check_image(image, kOp);
  const Tensor boxes = checked_boxes(target, kOp, image).cpu().to(kFloat64).contiguous();
  const int64_t orig_h = image.size(1), orig_w = image.size(2);
  const int64_t n = boxes.size(0);
  const double* b = boxes.data_ptr<double>();
  // With no box the crop could never keep one: torchvision would loop forever.
  EMBER_CHECK(n > 0, kOp, ": the target has no boxes (a crop must keep the centre of one)");
  // A crop always exists eventually (the whole image keeps every centre
  // inside it), but the draws may take long: bound them as a guard.
  for (int64_t attempt = 0; attempt < 10000; ++attempt) {
    const auto idx = std::min<size_t>(static_cast<size_t>(uniform(g) * static_cast<double>(o_.sampler_options.size())),
                                      o_.sampler_options.size() - 1);
    const double min_iou = o_.sampler_options[idx];
    if (min_iou >= 1.0) return {std::move(image), std::move(target)};
    for (int64_t trial = 0; trial < o_.trials; ++trial) {
      const Tensor r = rand({2}, kFloat32, g);
      const int64_t new_w = static_cast<int64_t>(
          static_cast<double>(orig_w) * (o_.min_scale + (o_.max_scale - o_.min_scale) * r[0].item<double>()));
      const int64_t new_h = static_cast<int64_t>(
          static_cast<double>(orig_h) * (o_.min_scale + (o_.max_scale - o_.min_scale) * r[1].item<double>()));
      if (new_h == 0) continue;
      const double aspect = static_cast<double>(new_w) / static_cast<double>(new_h);
      if (!(o_.min_aspect_ratio <= aspect && aspect <= o_.max_aspect_ratio)) continue;
      const Tensor r2 = rand({2}, kFloat32, g);
      const int64_t left = static_cast<int64_t>(static_cast<double>(orig_w - new_w) * r2[0].item<double>());
      const int64_t top = static_cast<int64_t>(static_cast<double>(orig_h - new_h) * r2[1].item<double>());
      const int64_t right = left + new_w, bottom = top + new_h;
      if (left == right || top == bottom) continue;
      bool any_inside = false;
      double best_iou = -1;
      for (int64_t i = 0; i < n; ++i) {
        const double* q = b + 4 * i;
        const double cx = 0.5 * (q[0] + q[2]), cy = 0.5 * (q[1] + q[3]);
        if (!(left < cx && cx < right && top < cy && cy < bottom)) continue;
        any_inside = true;
        // IoU of the box with the crop rectangle.
        const double iw = std::max(0.0, std::min(q[2], double(right)) - std::max(q[0], double(left)));
        const double ih = std::max(0.0, std::min(q[3], double(bottom)) - std::max(q[1], double(top)));
        const double inter = iw * ih;
        const double uni = (q[2] - q[0]) * (q[3] - q[1]) + double(new_w) * double(new_h) - inter;
        best_iou = std::max(best_iou, inter / uni);
      }
      if (!any_inside || best_iou < min_iou) continue;
      return crop(image, std::move(target), top, left, new_h, new_w);
    }
  }
  EMBER_FAIL(kOp, ": no crop found after 10000 draws of the minimum IoU");
}

RandomZoomOut::RandomZoomOut(RandomZoomOutOptions options) : o_(std::move(options)) {
  EMBER_CHECK(o_.side_range[0] >= 1.0 && o_.side_range[0] <= o_.side_range[1],
              "RandomZoomOut: Invalid canvas side range provided [", o_.side_range[0], ", ", o_.side_range[1], "].");
  EMBER_CHECK(o_.p >= 0 && o_.p <= 1, "RandomZoomOut: p must be in [0, 1], got ", o_.p);
}

Sample RandomZoomOut::operator()(Tensor image, Target target, Generator* g) const {
  check_image(image, "RandomZoomOut");
  if (uniform(g) >= o_.p) return {std::move(image), std::move(target)};
  const int64_t h = image.size(1), w = image.size(2);
  const double r = o_.side_range[0] + uniform(g) * (o_.side_range[1] - o_.side_range[0]);
  const int64_t canvas_w = static_cast<int64_t>(static_cast<double>(w) * r);
  const int64_t canvas_h = static_cast<int64_t>(static_cast<double>(h) * r);
  const Tensor r2 = rand({2}, kFloat32, g);
  const int64_t left = static_cast<int64_t>(static_cast<double>(canvas_w - w) * r2[0].item<double>());
  const int64_t top = static_cast<int64_t>(static_cast<double>(canvas_h - h) * r2[1].item<double>());
  return zoom_out(image, std::move(target), canvas_h, canvas_w, top, left, o_.fill);
}

RandomPhotometricDistort::RandomPhotometricDistort(RandomPhotometricDistortOptions options) : o_(options) {
  EMBER_CHECK(o_.p >= 0 && o_.p <= 1, "RandomPhotometricDistort: p must be in [0, 1], got ", o_.p);
  EMBER_CHECK(o_.hue[0] >= -0.5 && o_.hue[1] <= 0.5 && o_.hue[0] <= o_.hue[1],
              "RandomPhotometricDistort: hue values should be between (-0.5, 0.5), got [", o_.hue[0], ", ", o_.hue[1],
              "]");
  for (const auto* range : {&o_.contrast, &o_.saturation, &o_.brightness})
    EMBER_CHECK((*range)[0] >= 0 && (*range)[0] <= (*range)[1],
                "RandomPhotometricDistort: factor ranges must be 0 <= low <= high, got [", (*range)[0], ", ",
                (*range)[1], "]");
}

Sample RandomPhotometricDistort::operator()(Tensor image, Target target, Generator* g) const {
  EMBER_CHECK(image.defined() && (image.dim() == 2 || image.dim() == 3), "RandomPhotometricDistort: image should be ",
              "2/3 dimensional. Got ", image.defined() ? image.dim() : 0, " dimensions.");
  if (image.dim() == 2) image = image.unsqueeze(0);
  const Tensor r = rand({7}, kFloat32, g);
  auto draw = [&](const std::array<double, 2>& range) { return range[0] + uniform(g) * (range[1] - range[0]); };
  auto p = [&](int i) { return r[i].item<double>() < o_.p; };
  if (p(0)) image = F::adjust_brightness(image, draw(o_.brightness));
  const bool contrast_before = r[1].item<double>() < 0.5;
  if (contrast_before && p(2)) image = F::adjust_contrast(image, draw(o_.contrast));
  if (p(3)) image = F::adjust_saturation(image, draw(o_.saturation));
  if (p(4)) image = F::adjust_hue(image, draw(o_.hue));
  if (!contrast_before && p(5)) image = F::adjust_contrast(image, draw(o_.contrast));
  if (p(6)) image = image.index_select(-3, randperm(image.size(-3), kInt64, g));
  return {std::move(image), std::move(target)};
}

ScaleJitter::ScaleJitter(std::array<int64_t, 2> target_size, std::array<double, 2> scale_range,
                         transforms::InterpolationMode interpolation)
    : target_size_(target_size), scale_range_(scale_range), interpolation_(interpolation) {
  EMBER_CHECK(target_size[0] > 0 && target_size[1] > 0, "ScaleJitter: target_size must be positive, got (",
              target_size[0], ", ", target_size[1], ")");
  EMBER_CHECK(scale_range[0] > 0 && scale_range[0] <= scale_range[1], "ScaleJitter: scale_range must be ",
              "0 < low <= high, got [", scale_range[0], ", ", scale_range[1], "]");
}

Sample ScaleJitter::operator()(Tensor image, Target target, Generator* g) const {
  check_image(image, "ScaleJitter");
  const int64_t h = image.size(1), w = image.size(2);
  const double scale = scale_range_[0] + uniform(g) * (scale_range_[1] - scale_range_[0]);
  const double r = std::min(static_cast<double>(target_size_[0]) / static_cast<double>(h),
                            static_cast<double>(target_size_[1]) / static_cast<double>(w)) *
                   scale;
  const int64_t new_w = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(w) * r));
  const int64_t new_h = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(h) * r));
  return resize(image, std::move(target), new_h, new_w, interpolation_);
}

Sample Compose::operator()(Tensor image, Target target, Generator* g) const {
  for (const auto& t : transforms_) {
    EMBER_CHECK(t != nullptr, "detection::Compose: a transform is empty");
    auto [i, tt] = t(std::move(image), std::move(target), g);
    image = std::move(i);
    target = std::move(tt);
  }
  return {std::move(image), std::move(target)};
}

}  // namespace ember::vision::detection
