// models::create and models::list_models over the families' builders.
#include <map>

#include <ember/core/error.h>

#include "registry.h"

namespace ember::models {
namespace {

const std::map<std::string, detail::ModelBuilder>& builders() {
  static const std::map<std::string, detail::ModelBuilder> table = [] {
    std::map<std::string, detail::ModelBuilder> t;
    const detail::AddModel add = [&t](const std::string& name, detail::ModelBuilder builder) {
      EMBER_CHECK(t.emplace(name, std::move(builder)).second, "models: '", name, "' registered twice");
    };
    detail::register_resnet_models(add);
    detail::register_vgg_models(add);
    detail::register_densenet_models(add);
    return t;
  }();
  return table;
}

}  // namespace

ImageClassifier create(const std::string& name, const ModelOptions& options) {
  EMBER_CHECK(options.num_classes > 0, "models::create: num_classes must be positive, got ", options.num_classes);
  const auto& table = builders();
  const auto it = table.find(name);
  if (it == table.end()) {
    std::string names;
    for (const auto& [n, builder] : table) names += (names.empty() ? "" : ", ") + n;
    EMBER_FAIL("models::create: unknown model '", name, "'; available: ", names);
  }
  return it->second(options);
}

std::vector<std::string> list_models() {
  std::vector<std::string> names;
  for (const auto& [name, builder] : builders()) names.push_back(name);
  return names;
}

}  // namespace ember::models
