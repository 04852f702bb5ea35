#include "ember/models/detection/transform.h"

#include <algorithm>
#include <cmath>
#include <ostream>

#include <ember/core/error.h>
#include <ember/nn/functional/sampling.h>
#include <ember/ops/factories.h>
#include <ember/ops/shape.h>

namespace ember::models::detection {

namespace F = nn::functional;

namespace {

using Size = std::pair<int64_t, int64_t>;

// ratio new / original per side, as torchvision's float32 tensors divide them.
std::pair<float, float> ratios(Size original, Size resized) {
  EMBER_CHECK(original.first > 0 && original.second > 0, "resize_boxes: original size must be positive, got (",
              original.first, ", ", original.second, ")");
  return {static_cast<float>(resized.first) / static_cast<float>(original.first),
          static_cast<float>(resized.second) / static_cast<float>(original.second)};
}

Size hw(const Tensor& image) { return {image.size(-2), image.size(-1)}; }

}  // namespace

Tensor resize_boxes(const Tensor& boxes, Size original_size, Size new_size) {
  EMBER_CHECK(boxes.dim() == 2 && boxes.size(1) == 4, "resize_boxes: boxes should be [N, 4], got ", boxes.sizes());
  const auto [ratio_h, ratio_w] = ratios(original_size, new_size);
  // A float32 ratio times the boxes (a 0-dim float32 tensor in torchvision).
  Tensor rw = scalar_tensor(ratio_w, kFloat32), rh = scalar_tensor(ratio_h, kFloat32);
  return stack({boxes.select(1, 0) * rw, boxes.select(1, 1) * rh, boxes.select(1, 2) * rw, boxes.select(1, 3) * rh},
               1);
}

Tensor resize_keypoints(const Tensor& keypoints, Size original_size, Size new_size) {
  EMBER_CHECK(keypoints.dim() == 3 && keypoints.size(2) >= 2, "resize_keypoints: keypoints should be [N, K, 3], got ",
              keypoints.sizes());
  const auto [ratio_h, ratio_w] = ratios(original_size, new_size);
  Tensor out = keypoints.clone();
  out.select(2, 0).mul_(scalar_tensor(ratio_w, kFloat32));
  out.select(2, 1).mul_(scalar_tensor(ratio_h, kFloat32));
  return out;
}

GeneralizedRCNNTransformImpl::GeneralizedRCNNTransformImpl(GeneralizedRCNNTransformOptions opts)
    : Module("GeneralizedRCNNTransform"), options(std::move(opts)) {
  EMBER_CHECK(!options.min_size.empty(), "GeneralizedRCNNTransform: min_size is empty");
  for (int64_t s : options.min_size) EMBER_CHECK(s > 0, "GeneralizedRCNNTransform: min_size must be positive, got ", s);
  EMBER_CHECK(options.max_size > 0, "GeneralizedRCNNTransform: max_size must be positive, got ", options.max_size);
  EMBER_CHECK(options.size_divisible > 0, "GeneralizedRCNNTransform: size_divisible must be positive, got ",
              options.size_divisible);
  EMBER_CHECK(options.image_mean.size() == options.image_std.size(),
              "GeneralizedRCNNTransform: image_mean and image_std differ in length (", options.image_mean.size(),
              " and ", options.image_std.size(), ")");
}

Tensor GeneralizedRCNNTransformImpl::normalize(const Tensor& image) const {
  EMBER_CHECK(is_floating_point(image.dtype()), "GeneralizedRCNNTransform: Expected input images to be of floating ",
              "type (in range [0, 1]), but found type ", image.dtype(), " instead");
  EMBER_CHECK(image.size(0) == static_cast<int64_t>(options.image_mean.size()), "GeneralizedRCNNTransform: an image ",
              "of ", image.size(0), " channels for ", options.image_mean.size(), " image_mean / image_std values");
  const TensorOptions like = TensorOptions(image.dtype()).device(image.device());
  Tensor mean = tensor<double>(options.image_mean).to(like).view({-1, 1, 1});
  Tensor std = tensor<double>(options.image_std).to(like).view({-1, 1, 1});
  return (image - mean) / std;
}

std::pair<Tensor, std::optional<Target>> GeneralizedRCNNTransformImpl::resize(const Tensor& image,
                                                                                std::optional<Target> target) {
  const Size original = hw(image);
  EMBER_CHECK(original.first > 0 && original.second > 0, "GeneralizedRCNNTransform: empty image of shape ",
              image.sizes());
  int64_t out_h = 0, out_w = 0;
  if (options.fixed_size) {
    out_w = options.fixed_size->first;
    out_h = options.fixed_size->second;
  } else {
    double size = static_cast<double>(options.min_size.back());
    if (is_training()) {
      // torch_choice: int(empty(1).uniform_(0, len(k))).
      const double u = empty({1}, kFloat32).uniform_(0.0, static_cast<double>(options.min_size.size()), generator_)
                           .item<float>();
      size = static_cast<double>(
          options.min_size[std::min<size_t>(static_cast<size_t>(u), options.min_size.size() - 1)]);
    }
    // Note [Detection resize scale]: torchvision computes
    // min(self_min_size / min_side, self_max_size / max_side) on float32
    // tensors, where Python's number / tensor is tensor.reciprocal() * number;
    // the output size is then floor(side * scale) in double (interpolate's
    // recompute_scale_factor). The float32 steps decide sizes one pixel apart.
    const float min_side = static_cast<float>(std::min(original.first, original.second));
    const float max_side = static_cast<float>(std::max(original.first, original.second));
    const float s_min = (1.0f / min_side) * static_cast<float>(size);
    const float s_max = (1.0f / max_side) * static_cast<float>(options.max_size);
    const double scale = static_cast<double>(std::min(s_min, s_max));
    out_h = static_cast<int64_t>(std::floor(static_cast<double>(original.first) * scale));
    out_w = static_cast<int64_t>(std::floor(static_cast<double>(original.second) * scale));
  }
  EMBER_CHECK(out_h > 0 && out_w > 0, "GeneralizedRCNNTransform: an image of ", original.first, " x ",
              original.second, " resizes to ", out_h, " x ", out_w);
  Tensor resized =
      F::interpolate(image.unsqueeze(0), {.size = {out_h, out_w}, .mode = "bilinear", .align_corners = false})
          .squeeze(0);
  if (!target) return {resized, std::nullopt};
  Target t = std::move(*target);
  if (auto it = t.find("masks"); it != t.end()) {
    const Tensor& mask = it->second;
    EMBER_CHECK(mask.dim() == 3 && hw(mask) == original, "GeneralizedRCNNTransform: target masks must be [N, ",
                original.first, ", ", original.second, "], got ", mask.sizes());
    it->second = F::interpolate(mask.unsqueeze(1).to(kFloat32), {.size = {out_h, out_w}}).select(1, 0).to(kUInt8);
  }
  auto boxes = t.find("boxes");
  EMBER_CHECK(boxes != t.end(), "GeneralizedRCNNTransform: a target has no \"boxes\"");
  boxes->second = resize_boxes(boxes->second, original, {out_h, out_w});
  if (auto it = t.find("keypoints"); it != t.end())
    it->second = resize_keypoints(it->second, original, {out_h, out_w});
  return {resized, std::move(t)};
}

Tensor GeneralizedRCNNTransformImpl::batch_images(const std::vector<Tensor>& images) const {
  EMBER_CHECK(!images.empty(), "GeneralizedRCNNTransform: no images to batch");
  std::vector<int64_t> max_size(images[0].sizes().begin(), images[0].sizes().end());
  for (const Tensor& img : images) {
    EMBER_CHECK(img.dim() == 3, "GeneralizedRCNNTransform: images is expected to be a list of 3d tensors of shape ",
                "[C, H, W], got ", img.sizes());
    for (int64_t d = 0; d < 3; ++d) max_size[d] = std::max(max_size[d], img.size(d));
  }
  const double stride = static_cast<double>(options.size_divisible);
  for (int64_t d : {1, 2})
    max_size[d] = static_cast<int64_t>(std::ceil(static_cast<double>(max_size[d]) / stride) * stride);
  Tensor batched = zeros({static_cast<int64_t>(images.size()), max_size[0], max_size[1], max_size[2]},
                         TensorOptions(images[0].dtype()).device(images[0].device()));
  for (size_t i = 0; i < images.size(); ++i) {
    const Tensor& img = images[i];
    batched.select(0, static_cast<int64_t>(i))
        .narrow(0, 0, img.size(0))
        .narrow(1, 0, img.size(1))
        .narrow(2, 0, img.size(2))
        .copy_(img);
  }
  return batched;
}

std::pair<ImageList, std::vector<Target>> GeneralizedRCNNTransformImpl::forward(std::vector<Tensor> images,
                                                                                 std::vector<Target> targets) {
  EMBER_CHECK(!images.empty(), "GeneralizedRCNNTransform: no images");
  EMBER_CHECK(targets.empty() || targets.size() == images.size(), "GeneralizedRCNNTransform: ", images.size(),
              " images but ", targets.size(), " targets");
  for (size_t i = 0; i < images.size(); ++i) {
    EMBER_CHECK(images[i].dim() == 3, "GeneralizedRCNNTransform: images is expected to be a list of 3d tensors of ",
                "shape [C, H, W], got ", images[i].sizes());
    Tensor image = normalize(images[i]);
    std::optional<Target> target;
    if (!targets.empty()) target = std::move(targets[i]);
    auto [resized, t] = resize(image, std::move(target));
    images[i] = resized;
    if (t) targets[i] = std::move(*t);
  }
  ImageList list;
  for (const Tensor& img : images) list.image_sizes.push_back(hw(img));
  list.tensors = batch_images(images);
  return {std::move(list), std::move(targets)};
}

std::vector<Target> GeneralizedRCNNTransformImpl::postprocess(std::vector<Target> result,
                                                              const std::vector<Size>& image_shapes,
                                                              const std::vector<Size>& original_image_sizes) const {
  if (is_training()) return result;
  EMBER_CHECK(result.size() == image_shapes.size() && result.size() == original_image_sizes.size(),
              "GeneralizedRCNNTransform.postprocess: ", result.size(), " results for ", image_shapes.size(),
              " image shapes and ", original_image_sizes.size(), " original sizes");
  for (size_t i = 0; i < result.size(); ++i) {
    Target& pred = result[i];
    EMBER_CHECK(!pred.count("masks"), "GeneralizedRCNNTransform.postprocess: pasting instance masks (Mask R-CNN's ",
                "paste_masks_in_image) is outside Ember's detection models; remove \"masks\" from the results");
    auto boxes = pred.find("boxes");
    EMBER_CHECK(boxes != pred.end(), "GeneralizedRCNNTransform.postprocess: result ", i, " has no \"boxes\"");
    boxes->second = resize_boxes(boxes->second, image_shapes[i], original_image_sizes[i]);
    if (auto it = pred.find("keypoints"); it != pred.end())
      it->second = resize_keypoints(it->second, image_shapes[i], original_image_sizes[i]);
  }
  return result;
}

void GeneralizedRCNNTransformImpl::pretty_print(std::ostream& os) const {
  auto list = [&](const auto& v) {
    os << "[";
    for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
    os << "]";
  };
  os << "GeneralizedRCNNTransform(\n    Normalize(mean=";
  list(options.image_mean);
  os << ", std=";
  list(options.image_std);
  os << ")\n    Resize(min_size=(";
  for (size_t i = 0; i < options.min_size.size(); ++i) os << (i ? ", " : "") << options.min_size[i];
  os << (options.min_size.size() == 1 ? ",)" : ")") << ", max_size=" << options.max_size << ", mode='bilinear')\n)";
}

}  // namespace ember::models::detection
