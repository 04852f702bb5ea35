// Transform (de)serialization and the registry of factories.
#include "ember/transforms/serialize.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include <ember/serialize/json.h>

#include "transforms/containers_registry.h"

namespace ember::transforms {
namespace {

namespace json = ember::serialize::json;

constexpr const char* kFormat = "ember.transform";
constexpr int64_t kVersion = 1;

// A tensor transform's factory as the registry stores it: its children
// checked to be tensor transforms.
AnyTransformFactory any_factory(const std::string& type, TransformFactory factory) {
  return [type, factory = std::move(factory)](const Params& params, std::vector<AnyTransformPtr> children) {
    return AnyTransformPtr(factory(params, tensor_transforms(std::move(children), type)));
  };
}

// A loaded transform that must be a tensor transform.
TransformPtr as_tensor_transform(AnyTransformPtr t, const char* op) {
  auto tensor = std::dynamic_pointer_cast<TransformImpl>(t);
  EMBER_CHECK(tensor != nullptr, op, ": the saved transform ", t->name(),
              " does not transform tensors (load it with the *_any functions or its library's load)");
  return tensor;
}

struct Registry {
  Registry() = default;
  Registry(Registry&& other) noexcept : factories(std::move(other.factories)) {}
  std::mutex mutex;
  std::map<std::string, AnyTransformFactory> factories;
  std::set<std::string> families;  // register_*transform_family names done
};

// Holds the containers from the start (a function-local static: initialised
// once, thread-safely); libraries add their families on first use.
Registry& registry() {
  static Registry r = [] {
    Registry built;
    detail::register_container_transforms([&built](const std::string& type, TransformFactory factory) {
      EMBER_CHECK(built.factories.emplace(type, any_factory(type, std::move(factory))).second,
                  "transforms: built-in type '", type, "' registered twice");
    });
    return built;
  }();
  return r;
}

void write_node(const TransformBase& t, std::string& out) {
  out += R"({"type": )" + json::quote(t.name()) + R"(, "params": )" + json::plain_map_to_json(t.params(), "transforms::to_json") +
         R"(, "children": [)";
  bool first = true;
  for (const auto& child : t.children()) {
    const auto* transform = dynamic_cast<const TransformBase*>(child.get());
    EMBER_CHECK(transform != nullptr, "transforms::to_json: ", t.name(), " has a child module ", child->name(),
                " that is not a transform");
    out += first ? "" : ", ";
    write_node(*transform, out);
    first = false;
  }
  out += "]}";
}

// node[key], which must hold a value of the kind `is` checks.
const IValue& member(const IValue& node, const char* key, bool (IValue::*is)() const, const std::string& where) {
  const IValue* v = node.is_dict() ? node.find(key) : nullptr;
  EMBER_CHECK(v != nullptr && (v->*is)(), "transforms::load: ", where, " lacks a valid '", key, "' member");
  return *v;
}

// The saved params object, back as Params (the inverse of json::plain_map_to_json).
Params read_params(const IValue& object, const std::string& where) {
  Params params = json::plain_map_from_json(object, "transforms::load", where);
  // Lists hold numbers (sizes, means) or strings (text's labels and tokens).
  for (const auto& [key, value] : params) {
    if (!value.is_list()) continue;
    const auto& items = value.to_list();
    const bool numbers = std::all_of(items.begin(), items.end(), [](const IValue& v) { return v.is_number(); });
    const bool strings = std::all_of(items.begin(), items.end(), [](const IValue& v) { return v.is_string(); });
    EMBER_CHECK(numbers || strings, "transforms::load: ", where, ": parameter '", key,
                "' must be a list of numbers or a list of strings");
  }
  return params;
}

AnyTransformPtr read_node(const IValue& node, const std::string& where) {
  const std::string& type = member(node, "type", &IValue::is_string, where).to_string();
  const Params params = read_params(member(node, "params", &IValue::is_dict, where), where + " (" + type + ")");
  std::vector<AnyTransformPtr> children;
  const auto& list = member(node, "children", &IValue::is_list, where).to_list();
  for (size_t i = 0; i < list.size(); ++i)
    children.push_back(read_node(list[i], where + "." + type + "[" + std::to_string(i) + "]"));
  AnyTransformFactory factory;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    const auto it = r.factories.find(type);
    EMBER_CHECK(it != r.factories.end(), "transforms::load: unknown transform type '", type, "' at ", where,
                " (register it with transforms::register_transform)");
    factory = it->second;
  }
  AnyTransformPtr t = factory(params, std::move(children));
  EMBER_CHECK(t != nullptr, "transforms::load: the factory of '", type, "' returned no transform");
  return t;
}

}  // namespace

namespace detail {
void missing_param(const std::string& key, const std::string& type) {
  EMBER_FAIL(type, ": the saved parameters lack '", key, "'");
}
std::vector<int64_t> to_int_list(const IValue& value, const std::string& key, const std::string& type) {
  std::vector<int64_t> out;
  if (value.is_int()) return {value.to_int()};
  for (double d : value.to_double_list()) {
    EMBER_CHECK(std::isfinite(d) && d == std::trunc(d), type, ": saved parameter '", key,
                "' must hold integers, got ", d);
    out.push_back(static_cast<int64_t>(d));
  }
  return out;
}
}  // namespace detail

std::string to_json(const TransformBase& transform) {
  std::string out = R"({"format": ")" + std::string(kFormat) + R"(", "version": )" + std::to_string(kVersion) +
                    R"(, "transform": )";
  write_node(transform, out);
  return out + "}";
}

AnyTransformPtr from_json_any(const std::string& text) {
  const IValue root = json::parse(text, "transforms::load");
  const IValue* format = root.is_dict() ? root.find("format") : nullptr;
  EMBER_CHECK(format && format->is_string() && format->to_string() == kFormat,
              "transforms::load: not a saved transform (expected \"format\": \"", kFormat, "\")");
  const IValue& version = member(root, "version", &IValue::is_number, "the document");
  EMBER_CHECK(version.is_int() && version.to_int() == kVersion, "transforms::load: unsupported version ",
              version, " (this build reads version ", kVersion, ")");
  return read_node(member(root, "transform", &IValue::is_dict, "the document"), "transform");
}

TransformPtr from_json(const std::string& text) { return as_tensor_transform(from_json_any(text), "transforms::load"); }

void save(const std::string& path, const TransformBase& transform) {
  const std::string text = to_json(transform);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  EMBER_CHECK(file.good(), "transforms::save: cannot open '", path, "' for writing");
  file << text;
  file.close();
  EMBER_CHECK(!file.fail(), "transforms::save: writing '", path, "' failed");
}

AnyTransformPtr load_any(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  EMBER_CHECK(file.good(), "transforms::load: cannot open '", path, "'");
  std::stringstream text;
  text << file.rdbuf();
  EMBER_CHECK(!file.bad(), "transforms::load: reading '", path, "' failed");
  return from_json_any(text.str());
}

TransformPtr load(const std::string& path) { return as_tensor_transform(load_any(path), "transforms::load"); }

void write_transform(const TransformBase& transform, Metadata& metadata, const std::string& key) {
  metadata[key] = to_json(transform);
}

AnyTransformPtr read_transform_any(const Metadata& metadata, const std::string& key) {
  const std::string* text = metadata.find(key);
  EMBER_CHECK(text != nullptr, "transforms::read_transform: the metadata has no entry '", key, "'");
  return from_json_any(*text);
}

TransformPtr read_transform(const Metadata& metadata, const std::string& key) {
  return as_tensor_transform(read_transform_any(metadata, key), "transforms::read_transform");
}

std::vector<TransformPtr> tensor_transforms(std::vector<AnyTransformPtr> children, const std::string& type) {
  std::vector<TransformPtr> out;
  out.reserve(children.size());
  for (size_t i = 0; i < children.size(); ++i) {
    auto tensor = std::dynamic_pointer_cast<TransformImpl>(children[i]);
    EMBER_CHECK(tensor != nullptr, type, ": child ", i, " (", children[i] ? children[i]->name() : "none",
                ") does not transform tensors");
    out.push_back(std::move(tensor));
  }
  return out;
}

void register_any_transform(const std::string& type, AnyTransformFactory factory) {
  EMBER_CHECK(!type.empty() && factory != nullptr, "transforms::register_transform: needs a name and a factory");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  EMBER_CHECK(r.factories.emplace(type, std::move(factory)).second, "transforms::register_transform: '", type,
              "' is registered already");
}

void register_transform(const std::string& type, TransformFactory factory) {
  EMBER_CHECK(!type.empty() && factory != nullptr, "transforms::register_transform: needs a name and a factory");
  register_any_transform(type, any_factory(type, std::move(factory)));
}

bool is_registered_transform(const std::string& type) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.factories.contains(type);
}

void register_any_transform_family(const std::string& family,
                                   const std::function<void(const AddAnyTransform&)>& fill) {
  EMBER_CHECK(!family.empty() && fill != nullptr, "transforms::register_transform_family: needs a name and a function");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.families.contains(family)) return;
  // Collected first, so a family that fails half-way registers nothing.
  std::map<std::string, AnyTransformFactory> added;
  fill([&](const std::string& type, AnyTransformFactory factory) {
    EMBER_CHECK(!r.factories.contains(type) && added.emplace(type, std::move(factory)).second, "transforms: ",
                family, "'s type '", type, "' is registered already");
  });
  r.factories.merge(added);
  r.families.insert(family);
}

void register_transform_family(const std::string& family, const std::function<void(const AddTransform&)>& fill) {
  EMBER_CHECK(fill != nullptr, "transforms::register_transform_family: needs a name and a function");
  register_any_transform_family(family, [&fill](const AddAnyTransform& add) {
    fill([&add](const std::string& type, TransformFactory factory) { add(type, any_factory(type, std::move(factory))); });
  });
}

std::vector<std::string> registered_transforms() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, factory] : r.factories) names.push_back(name);
  return names;
}

}  // namespace ember::transforms
