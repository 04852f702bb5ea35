#include "checkpoint.h"

#include <cstdio>

#include <ember/core/generator.h>
#include <ember/ops/factories.h>
#include <ember/optim/state_io.h>
#include <ember/vision/transforms/serialize.h>

#include "checkpoint_format.h"

namespace ember::apps {
namespace {

constexpr const char* kOptimizerPrefix = "optimizer";
// ember-train's entries are unprefixed ("model", "classes", ...); "train." is
// unused, so model_state() would keep every non-optimizer tensor.
const CheckpointFormat kCheckpoint("ember-train", "ember-train/1", "train");

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

}  // namespace

Metadata checkpoint_metadata(const CheckpointInfo& info, const vision::transforms::TransformImpl& eval_transform) {
  Metadata meta = kCheckpoint.new_metadata();
  meta["model"] = info.model;
  meta["num_classes"] = std::to_string(info.num_classes);
  meta["classes"] = json_string_list(info.classes);
  meta["image_size"] = std::to_string(info.image_size);
  meta["epochs_done"] = std::to_string(info.epochs_done);
  meta["seed"] = std::to_string(info.seed);
  meta["best_accuracy"] = std::to_string(info.best_accuracy);
  meta["generator"] = hex(default_generator().get_state());
  vision::transforms::write_transform(eval_transform, meta);
  return meta;
}

void write_checkpoint(const std::string& path, const StateDict& tensors, const Metadata& meta) {
  kCheckpoint.save(path, tensors, meta);
}

void save_checkpoint(const std::string& path, const nn::Module& model, const optim::Optimizer* optimizer,
                     const optim::LRScheduler* scheduler, const vision::transforms::TransformImpl& eval_transform,
                     const CheckpointInfo& info) {
  StateDict tensors = model.state_dict();
  Metadata meta = checkpoint_metadata(info, eval_transform);
  if (optimizer != nullptr) optim::write_optimizer_state(optimizer->state_dict(), tensors, meta, kOptimizerPrefix);
  if (scheduler != nullptr) optim::write_scheduler_state(scheduler->state_dict(), meta);
  kCheckpoint.save(path, tensors, meta);
}

Checkpoint load_checkpoint(const std::string& path) {
  Checkpoint c;
  c.tensors = kCheckpoint.load(path, c.metadata);
  const Metadata& meta = c.metadata;
  c.info.model = kCheckpoint.entry(meta, "model", path);
  c.info.num_classes = kCheckpoint.integer(meta, "num_classes", path);
  c.info.image_size = kCheckpoint.integer(meta, "image_size", path);
  c.info.epochs_done = kCheckpoint.integer(meta, "epochs_done", path);
  c.info.seed = kCheckpoint.unsigned_integer(meta, "seed", path);
  c.info.best_accuracy = kCheckpoint.number(meta, "best_accuracy", path);
  c.info.classes = kCheckpoint.string_list(meta, "classes", path);
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
  default_generator().set_state(unhex(kCheckpoint.entry(checkpoint.metadata, "generator", "checkpoint"), "checkpoint"));
}

}  // namespace ember::apps
