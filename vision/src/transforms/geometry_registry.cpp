// Factories of the geometry transforms, for transforms::load (the inverse of
// each transform's params()).
#include "ember/vision/transforms/geometry.h"
#include "transforms/geometry_options.h"
#include "transforms/registry.h"

namespace ember::vision::transforms::detail {

void register_geometry_transforms(const AddTransform& add) {
  add("Resize", [](const Params& p, std::vector<TransformPtr>) {
    const char* t = "Resize";
    return std::make_shared<ResizeImpl>(ResizeOptions{param<std::vector<int64_t>>(p, "size", t),
                                                      interpolation_param(p, t),
                                                      param<std::optional<int64_t>>(p, "max_size", t),
                                                      param<std::optional<bool>>(p, "antialias", t)});
  });
  add("CenterCrop", [](const Params& p, std::vector<TransformPtr>) {
    return std::make_shared<CenterCropImpl>(CenterCropOptions{param<std::vector<int64_t>>(p, "size", "CenterCrop")});
  });
  add("RandomCrop", [](const Params& p, std::vector<TransformPtr>) {
    const char* t = "RandomCrop";
    return std::make_shared<RandomCropImpl>(RandomCropOptions{
        param<std::vector<int64_t>>(p, "size", t), int_list_param_or_empty(p, "padding", t),
        param<bool>(p, "pad_if_needed", t), param<double>(p, "fill", t), param<std::string>(p, "padding_mode", t)});
  });
  add("RandomResizedCrop", [](const Params& p, std::vector<TransformPtr>) {
    const char* t = "RandomResizedCrop";
    return std::make_shared<RandomResizedCropImpl>(RandomResizedCropOptions{
        param<std::vector<int64_t>>(p, "size", t), pair_param(p, "scale", t), pair_param(p, "ratio", t),
        interpolation_param(p, t), param<std::optional<bool>>(p, "antialias", t)});
  });
  add("FiveCrop", [](const Params& p, std::vector<TransformPtr>) {
    return std::make_shared<FiveCropImpl>(FiveCropOptions{param<std::vector<int64_t>>(p, "size", "FiveCrop")});
  });
  add("TenCrop", [](const Params& p, std::vector<TransformPtr>) {
    return std::make_shared<TenCropImpl>(TenCropOptions{param<std::vector<int64_t>>(p, "size", "TenCrop"),
                                                        param<bool>(p, "vertical_flip", "TenCrop")});
  });
  add("Pad", [](const Params& p, std::vector<TransformPtr>) {
    const char* t = "Pad";
    return std::make_shared<PadImpl>(PadOptions{param<std::vector<int64_t>>(p, "padding", t),
                                                param<double>(p, "fill", t), param<std::string>(p, "padding_mode", t)});
  });
  add("RandomHorizontalFlip", [](const Params& p, std::vector<TransformPtr>) {
    return std::make_shared<RandomHorizontalFlipImpl>(param<double>(p, "p", "RandomHorizontalFlip"));
  });
  add("RandomVerticalFlip", [](const Params& p, std::vector<TransformPtr>) {
    return std::make_shared<RandomVerticalFlipImpl>(param<double>(p, "p", "RandomVerticalFlip"));
  });
  add("RandomRotation", [](const Params& p, std::vector<TransformPtr>) {
    const char* t = "RandomRotation";
    return std::make_shared<RandomRotationImpl>(RandomRotationOptions{
        param<std::vector<double>>(p, "degrees", t), interpolation_param(p, t), param<bool>(p, "expand", t),
        list_param_or_empty(p, "center", t), param<std::vector<double>>(p, "fill", t)});
  });
  add("RandomAffine", [](const Params& p, std::vector<TransformPtr>) {
    const char* t = "RandomAffine";
    return std::make_shared<RandomAffineImpl>(RandomAffineOptions{
        param<std::vector<double>>(p, "degrees", t), list_param_or_empty(p, "translate", t),
        list_param_or_empty(p, "scale", t), list_param_or_empty(p, "shear", t), interpolation_param(p, t),
        param<std::vector<double>>(p, "fill", t), list_param_or_empty(p, "center", t)});
  });
  add("RandomPerspective", [](const Params& p, std::vector<TransformPtr>) {
    const char* t = "RandomPerspective";
    return std::make_shared<RandomPerspectiveImpl>(
        RandomPerspectiveOptions{param<double>(p, "distortion_scale", t), param<double>(p, "p", t),
                                 interpolation_param(p, t), param<std::vector<double>>(p, "fill", t)});
  });
  add("RandomErasing", [](const Params& p, std::vector<TransformPtr>) {
    const char* t = "RandomErasing";
    const auto it = p.find("value");
    std::vector<double> value;  // "random" -> {}
    if (it == p.end() || !(it->second.is_string() && it->second.to_string() == "random"))
      value = param<std::vector<double>>(p, "value", t);
    return std::make_shared<RandomErasingImpl>(RandomErasingOptions{
        param<double>(p, "p", t), pair_param(p, "scale", t), pair_param(p, "ratio", t), value,
        param<bool>(p, "inplace", t)});
  });
}

}  // namespace ember::vision::transforms::detail
