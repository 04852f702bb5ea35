#include "detect_checkpoint.h"

#include <ember/optim/state_io.h>

namespace ember::apps::detect {
namespace {

constexpr size_t kHistoryFields = 9;

}  // namespace

const CheckpointFormat& detect_checkpoint_format() {
  static const CheckpointFormat format("ember-detect", "ember-detect/1", "detect");
  return format;
}

void save_detect_checkpoint(const std::string& path, const models::detection::RetinaNet& model,
                            const DetectModelSpec& spec, const std::vector<int64_t>& category_ids,
                            const std::vector<std::string>& category_names, const optim::Optimizer* optimizer,
                            const optim::LRScheduler* scheduler, const DetectRunState& state) {
  const CheckpointFormat& f = detect_checkpoint_format();
  StateDict tensors = model->state_dict();
  Metadata meta = f.new_metadata();
  meta["detect.backbone"] = spec.backbone;
  meta["detect.num_classes"] = std::to_string(spec.num_classes);
  meta["detect.fpn_channels"] = std::to_string(spec.fpn_channels);
  meta["detect.anchor_size"] = std::to_string(spec.anchor_size);
  meta["detect.min_size"] = std::to_string(spec.min_size);
  meta["detect.max_size"] = std::to_string(spec.max_size);
  std::vector<std::vector<double>> ids;
  for (int64_t id : category_ids) ids.push_back({static_cast<double>(id)});
  meta["detect.category_ids"] = json_number_rows(ids);
  meta["detect.category_names"] = json_string_list(category_names);
  meta["detect.epochs"] = std::to_string(state.epochs);
  meta["detect.epochs_done"] = std::to_string(state.epochs_done);
  meta["detect.batch_size"] = std::to_string(state.batch_size);
  meta["detect.steps_per_epoch"] = std::to_string(state.steps_per_epoch);
  meta["detect.seed"] = std::to_string(state.seed);
  std::vector<std::vector<double>> history;
  for (const EpochRecord& e : state.history)
    history.push_back({static_cast<double>(e.epoch), e.train_loss, e.classification_loss, e.regression_loss, e.map,
                       e.map50, e.map75, e.lr, e.seconds});
  meta["detect.history"] = json_number_rows(history);
  const optim::Dict scheduler_state = scheduler != nullptr ? scheduler->state_dict() : optim::Dict();
  f.add_training_state(tensors, meta, optimizer, scheduler != nullptr ? &scheduler_state : nullptr);
  f.save(path, tensors, meta);
}

DetectCheckpoint load_detect_checkpoint(const std::string& path) {
  const CheckpointFormat& f = detect_checkpoint_format();
  DetectCheckpoint c;
  c.tensors = f.load(path, c.metadata);
  const Metadata& meta = c.metadata;
  c.spec.backbone = f.entry(meta, "detect.backbone", path);
  c.spec.num_classes = f.integer(meta, "detect.num_classes", path);
  c.spec.fpn_channels = f.integer(meta, "detect.fpn_channels", path);
  c.spec.anchor_size = f.integer(meta, "detect.anchor_size", path);
  c.spec.min_size = f.integer(meta, "detect.min_size", path);
  c.spec.max_size = f.integer(meta, "detect.max_size", path);
  for (const auto& row : f.number_rows(meta, "detect.category_ids", path, 1))
    c.category_ids.push_back(static_cast<int64_t>(row[0]));
  c.category_names = f.string_list(meta, "detect.category_names", path);
  EMBER_CHECK(c.category_ids.size() == c.category_names.size(), "ember-detect: checkpoint '", path, "' lists ",
              c.category_ids.size(), " category ids but ", c.category_names.size(), " names");
  c.state.epochs = f.integer(meta, "detect.epochs", path);
  c.state.epochs_done = f.integer(meta, "detect.epochs_done", path);
  c.state.batch_size = f.integer(meta, "detect.batch_size", path);
  c.state.steps_per_epoch = f.integer(meta, "detect.steps_per_epoch", path);
  c.state.seed = f.unsigned_integer(meta, "detect.seed", path);
  for (const auto& v : f.number_rows(meta, "detect.history", path, kHistoryFields))
    c.state.history.push_back({.epoch = static_cast<int64_t>(v[0]), .train_loss = v[1], .classification_loss = v[2],
                               .regression_loss = v[3], .map = v[4], .map50 = v[5], .map75 = v[6], .lr = v[7],
                               .seconds = v[8]});
  c.model_state = f.model_state(c.tensors);
  return c;
}

models::detection::RetinaNet load_detector(const DetectCheckpoint& c) {
  models::detection::RetinaNet model = make_detector(c.spec);
  model->load_state_dict(c.model_state, /*strict=*/true);
  return model;
}

}  // namespace ember::apps::detect
