#include "checkpoint.h"

#include <cstdio>

#include <ember/core/generator.h>
#include <ember/ops/factories.h>
#include <ember/optim/state_io.h>
#include <ember/serialize/json.h>
#include <ember/serialize/safetensors.h>
#include <ember/vision/transforms/serialize.h>

namespace ember::apps {
namespace {

namespace json = serialize::json;

constexpr const char* kFormatKey = "ember.checkpoint";
constexpr const char* kFormat = "ember-train/1";
constexpr const char* kOptimizerPrefix = "optimizer";

std::string hex(const Tensor& bytes) {
  std::string s;
  const Tensor c = bytes.contiguous();
  for (int64_t i = 0; i < c.numel(); ++i) {
    char b[3];
    std::snprintf(b, sizeof(b), "%02x", c.data_ptr<uint8_t>()[i]);
    s += b;
  }
  return s;
}

Tensor unhex(const std::string& s, const std::string& path) {
  EMBER_CHECK(s.size() % 2 == 0, "checkpoint '", path, "': malformed generator state");
  Tensor out = empty({static_cast<int64_t>(s.size() / 2)}, kUInt8);
  for (size_t i = 0; i < s.size(); i += 2) {
    unsigned value = 0;
    EMBER_CHECK(std::sscanf(s.c_str() + i, "%2x", &value) == 1, "checkpoint '", path, "': malformed generator state");
    out.data_ptr<uint8_t>()[i / 2] = static_cast<uint8_t>(value);
  }
  return out;
}

const std::string& entry(const Metadata& meta, const std::string& key, const std::string& path) {
  const std::string* v = meta.find(key);
  EMBER_CHECK(v != nullptr, "checkpoint '", path, "' has no '", key, "' entry (not written by ember-train?)");
  return *v;
}

int64_t integer(const Metadata& meta, const std::string& key, const std::string& path) {
  const std::string& text = entry(meta, key, path);
  try {
    size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  EMBER_FAIL("checkpoint '", path, "': entry '", key, "' is not an integer: '", text, "'");
}

}  // namespace

void save_checkpoint(const std::string& path, const nn::Module& model, const optim::Optimizer* optimizer,
                     const optim::LRScheduler* scheduler, const vision::transforms::TransformImpl& eval_transform,
                     const CheckpointInfo& info) {
  StateDict tensors = model.state_dict();
  Metadata meta;
  meta[kFormatKey] = kFormat;
  meta["model"] = info.model;
  meta["num_classes"] = std::to_string(info.num_classes);
  std::string classes = "[";
  for (size_t i = 0; i < info.classes.size(); ++i) classes += (i ? ", " : "") + json::quote(info.classes[i]);
  meta["classes"] = classes + "]";
  meta["image_size"] = std::to_string(info.image_size);
  meta["epochs_done"] = std::to_string(info.epochs_done);
  meta["seed"] = std::to_string(info.seed);
  meta["best_accuracy"] = std::to_string(info.best_accuracy);
  meta["generator"] = hex(default_generator().get_state());
  vision::transforms::write_transform(eval_transform, meta);
  if (optimizer != nullptr) optim::write_optimizer_state(optimizer->state_dict(), tensors, meta, kOptimizerPrefix);
  if (scheduler != nullptr) optim::write_scheduler_state(scheduler->state_dict(), meta);
  // Write next to the target, then rename: an interrupted save never leaves a
  // truncated checkpoint in place of the last good one.
  const std::string partial = path + ".partial";
  ember::save(partial, tensors, meta);
  EMBER_CHECK(std::rename(partial.c_str(), path.c_str()) == 0, "cannot move the checkpoint into place at '", path,
              "'");
}

Checkpoint load_checkpoint(const std::string& path) {
  Checkpoint c;
  c.tensors = ember::load(path, &c.metadata);
  const Metadata& meta = c.metadata;
  EMBER_CHECK(meta.contains(kFormatKey) && meta.at(kFormatKey) == kFormat, "'", path,
              "' is not an ember-train checkpoint (no \"", kFormatKey, "\": \"", kFormat, "\" metadata)");
  c.info.model = entry(meta, "model", path);
  c.info.num_classes = integer(meta, "num_classes", path);
  c.info.image_size = integer(meta, "image_size", path);
  c.info.epochs_done = integer(meta, "epochs_done", path);
  c.info.seed = static_cast<uint64_t>(integer(meta, "seed", path));
  c.info.best_accuracy = std::stod(entry(meta, "best_accuracy", path));
  const IValue classes = json::parse(entry(meta, "classes", path), "checkpoint classes");
  EMBER_CHECK(classes.is_list(), "checkpoint '", path, "': 'classes' is not a list");
  for (const auto& name : classes.to_list()) {
    EMBER_CHECK(name.is_string(), "checkpoint '", path, "': a class name is not a string");
    c.info.classes.push_back(name.to_string());
  }
  EMBER_CHECK(static_cast<int64_t>(c.info.classes.size()) == c.info.num_classes, "checkpoint '", path, "' lists ",
              c.info.classes.size(), " class names for ", c.info.num_classes, " classes");
  c.eval_transform = vision::transforms::read_transform(meta);
  const std::string prefix = std::string(kOptimizerPrefix) + ".";
  for (const auto& [key, tensor] : c.tensors)
    if (key.rfind(prefix, 0) != 0) c.model_state.insert(key, tensor);
  return c;
}

void restore_training_state(const Checkpoint& checkpoint, optim::Optimizer& optimizer,
                            optim::LRScheduler* scheduler) {
  optimizer.load_state_dict(optim::read_optimizer_state(checkpoint.tensors, checkpoint.metadata, kOptimizerPrefix));
  if (scheduler != nullptr) scheduler->load_state_dict(optim::read_scheduler_state(checkpoint.metadata));
  default_generator().set_state(unhex(entry(checkpoint.metadata, "generator", "checkpoint"), "checkpoint"));
}

}  // namespace ember::apps
