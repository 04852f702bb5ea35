#pragma once
// Saving and loading transforms: a transform is written as its type name, its
// params() and its child transforms, as JSON; loading looks the type up in a
// registry of factories. The registry holds the containers (Compose, ...)
// and every family a library has registered; each library's own load
// functions (ember::vision::transforms::load, ember::audio::transforms::load)
// register its family first, so prefer those:
//
//   vision::transforms::save("preprocess.json", *pipeline);
//   TransformPtr pipeline = vision::transforms::load("preprocess.json");
//   // or inside a checkpoint: metadata["transform"] = transforms::to_json(*pipeline);
//
// The document: {"format": "ember.transform", "version": 1, "transform": NODE},
// NODE = {"type": "Resize", "params": {...}, "children": [NODE, ...]}.
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include <ember/core/error.h>
#include <ember/core/ordered_dict.h>
#include "ember/transforms/transform.h"

namespace ember::transforms {

std::string to_json(const TransformBase& transform);
void save(const std::string& path, const TransformBase& transform);
// Tensor transforms: a saved transform of another kind (text's) is an
// ember::Error naming its type; the *_any forms return any transform.
TransformPtr from_json(const std::string& text);
TransformPtr load(const std::string& path);
AnyTransformPtr from_json_any(const std::string& text);
AnyTransformPtr load_any(const std::string& path);

// A transform inside a checkpoint, so a deployed app loads its preprocessing
// with its weights:
//   Metadata meta;
//   transforms::write_transform(*preprocess, meta);
//   ember::save("model.safetensors", model->state_dict(), meta);
//   ...
//   Metadata loaded;
//   model->load_state_dict(ember::load("model.safetensors", &loaded));
//   TransformPtr preprocess = transforms::read_transform(loaded);
// An existing entry `key` is replaced; a missing one is an ember::Error.
void write_transform(const TransformBase& transform, Metadata& metadata, const std::string& key = "transform");
TransformPtr read_transform(const Metadata& metadata, const std::string& key = "transform");
AnyTransformPtr read_transform_any(const Metadata& metadata, const std::string& key = "transform");

// Rebuilds a tensor transform of one type from its saved params and its
// (tensor transform) children.
using TransformFactory = std::function<TransformPtr(const Params& params, std::vector<TransformPtr> children)>;
// The same for any transform (text's): children of any kind.
using AnyTransformFactory =
    std::function<AnyTransformPtr(const Params& params, std::vector<AnyTransformPtr> children)>;
// Registers a type for load()/from_json() (user transforms; an existing type
// name is an error). Thread-safe.
void register_transform(const std::string& type, TransformFactory factory);
void register_any_transform(const std::string& type, AnyTransformFactory factory);
bool is_registered_transform(const std::string& type);
// Every registered type name, sorted.
std::vector<std::string> registered_transforms();

// A library's built-in transforms, registered together: `add(type, factory)`
// for each (a type registered twice is an error). The first call with a
// family name runs `fill`; later calls with that name do nothing. Libraries
// call it from their own load functions rather than from static
// initializers, which a static link can drop.
using AddTransform = std::function<void(const std::string& type, TransformFactory factory)>;
void register_transform_family(const std::string& family, const std::function<void(const AddTransform&)>& fill);
// The same for a family of transforms of any kind (text's).
using AddAnyTransform = std::function<void(const std::string& type, AnyTransformFactory factory)>;
void register_any_transform_family(const std::string& family, const std::function<void(const AddAnyTransform&)>& fill);

// A factory's children as tensor transforms; a child of another kind is an
// ember::Error naming `type`.
std::vector<TransformPtr> tensor_transforms(std::vector<AnyTransformPtr> children, const std::string& type);

// A saved parameter, for factories: params.at(key) as T (see IValue::as;
// std::vector<int64_t> reads a list of integral floats). A missing key or a
// wrong type is an ember::Error naming the transform type and the key.
template <class T>
T param(const Params& params, const std::string& key, const std::string& type);

}  // namespace ember::transforms

// ---- implementation ----
namespace ember::transforms {
namespace detail {
[[noreturn]] void missing_param(const std::string& key, const std::string& type);
std::vector<int64_t> to_int_list(const IValue& value, const std::string& key, const std::string& type);
}  // namespace detail

template <class T>
T param(const Params& params, const std::string& key, const std::string& type) {
  const auto it = params.find(key);
  if (it == params.end()) detail::missing_param(key, type);
  try {
    if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
      return detail::to_int_list(it->second, key, type);
    } else {
      return it->second.as<T>();
    }
  } catch (const Error& e) {
    EMBER_FAIL(type, ": saved parameter '", key, "' has the wrong type: ", e.what());
  }
}

}  // namespace ember::transforms
