// Vision's entry points to the transform registry: each registers the
// built-in vision families first.
#include "ember/vision/transforms/serialize.h"

#include "transforms/registry.h"

namespace ember::vision::transforms {

void register_vision_transforms() {
  ::ember::transforms::register_transform_family("vision", [](const detail::AddTransform& add) {
    detail::register_color_transforms(add);
    detail::register_geometry_transforms(add);
    detail::register_augment_transforms(add);
  });
}

TransformPtr from_json(const std::string& text) {
  register_vision_transforms();
  return ::ember::transforms::from_json(text);
}

TransformPtr load(const std::string& path) {
  register_vision_transforms();
  return ::ember::transforms::load(path);
}

TransformPtr read_transform(const Metadata& metadata, const std::string& key) {
  register_vision_transforms();
  return ::ember::transforms::read_transform(metadata, key);
}

void register_transform(const std::string& type, TransformFactory factory) {
  register_vision_transforms();  // so a user type cannot take a built-in name first
  ::ember::transforms::register_transform(type, std::move(factory));
}

bool is_registered_transform(const std::string& type) {
  register_vision_transforms();
  return ::ember::transforms::is_registered_transform(type);
}

std::vector<std::string> registered_transforms() {
  register_vision_transforms();
  return ::ember::transforms::registered_transforms();
}

}  // namespace ember::vision::transforms
