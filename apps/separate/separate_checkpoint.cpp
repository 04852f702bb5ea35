#include "separate_checkpoint.h"

#include <ember/optim/state_io.h>

#include "common/checkpoint_format.h"

namespace ember::apps::separate_app {
namespace {

const CheckpointFormat kCheckpoint("ember-separate", "ember-separate/1", "separate");
constexpr const char* kPrefix = "separate.";

// The model's hyperparameters under "separate.<torchaudio's argument name>".
void write_model(const models::ConvTasNetOptions& o, Metadata& meta) {
  const std::string p = kPrefix;
  meta[p + "num_sources"] = std::to_string(o.num_sources);
  meta[p + "enc_kernel_size"] = std::to_string(o.enc_kernel_size);
  meta[p + "enc_num_feats"] = std::to_string(o.enc_num_feats);
  meta[p + "msk_kernel_size"] = std::to_string(o.msk_kernel_size);
  meta[p + "msk_num_feats"] = std::to_string(o.msk_num_feats);
  meta[p + "msk_num_hidden_feats"] = std::to_string(o.msk_num_hidden_feats);
  meta[p + "msk_num_layers"] = std::to_string(o.msk_num_layers);
  meta[p + "msk_num_stacks"] = std::to_string(o.msk_num_stacks);
  meta[p + "msk_activate"] = o.msk_activate;
}

models::ConvTasNetOptions read_model(const Metadata& meta, const std::string& path) {
  const std::string p = kPrefix;
  return {.num_sources = kCheckpoint.integer(meta, p + "num_sources", path),
          .enc_kernel_size = kCheckpoint.integer(meta, p + "enc_kernel_size", path),
          .enc_num_feats = kCheckpoint.integer(meta, p + "enc_num_feats", path),
          .msk_kernel_size = kCheckpoint.integer(meta, p + "msk_kernel_size", path),
          .msk_num_feats = kCheckpoint.integer(meta, p + "msk_num_feats", path),
          .msk_num_hidden_feats = kCheckpoint.integer(meta, p + "msk_num_hidden_feats", path),
          .msk_num_layers = kCheckpoint.integer(meta, p + "msk_num_layers", path),
          .msk_num_stacks = kCheckpoint.integer(meta, p + "msk_num_stacks", path),
          .msk_activate = kCheckpoint.entry(meta, p + "msk_activate", path)};
}

}  // namespace

void save_separate_checkpoint(const std::string& path, const models::ConvTasNetImpl& model,
                              const optim::Optimizer* optimizer, const optim::ReduceLROnPlateau* scheduler,
                              const RunState& state) {
  StateDict tensors = model.state_dict();
  Metadata meta = kCheckpoint.new_metadata();
  write_model(model.options, meta);
  const std::string p = kPrefix;
  meta[p + "layout"] = state.layout;
  meta[p + "task"] = state.task;
  meta[p + "sample_rate"] = std::to_string(state.sample_rate);
  meta[p + "segment_seconds"] = metadata_number(state.segment_seconds);
  meta[p + "epochs"] = std::to_string(state.epochs);
  meta[p + "epochs_done"] = std::to_string(state.epochs_done);
  meta[p + "seed"] = std::to_string(state.seed);
  meta[p + "best_val"] = metadata_number(state.best_val);
  std::vector<std::vector<double>> history;
  for (const EpochRecord& e : state.history)
    history.push_back(
        {static_cast<double>(e.epoch), e.train_si_snr, e.val_si_snri, e.lr, e.seconds, e.segments_per_s});
  meta[p + "history"] = json_number_rows(history);
  const optim::Dict scheduler_state = scheduler != nullptr ? scheduler->state_dict() : optim::Dict();
  kCheckpoint.add_training_state(tensors, meta, optimizer, scheduler != nullptr ? &scheduler_state : nullptr);
  kCheckpoint.save(path, tensors, meta);
}

SeparateCheckpoint load_separate_checkpoint(const std::string& path) {
  Metadata meta;
  StateDict tensors = kCheckpoint.load(path, meta);
  const std::string p = kPrefix;
  RunState state;
  state.layout = kCheckpoint.entry(meta, p + "layout", path);
  state.task = kCheckpoint.entry(meta, p + "task", path);
  state.sample_rate = kCheckpoint.integer(meta, p + "sample_rate", path);
  EMBER_CHECK(state.sample_rate > 0, "ember-separate: checkpoint '", path, "': sample rate ", state.sample_rate);
  state.segment_seconds = kCheckpoint.number(meta, p + "segment_seconds", path);
  state.epochs = kCheckpoint.integer(meta, p + "epochs", path);
  state.epochs_done = kCheckpoint.integer(meta, p + "epochs_done", path);
  state.seed = kCheckpoint.unsigned_integer(meta, p + "seed", path);
  state.best_val = kCheckpoint.number(meta, p + "best_val", path);
  for (const std::vector<double>& v : kCheckpoint.number_rows(meta, p + "history", path, 6))
    state.history.push_back({.epoch = static_cast<int64_t>(v[0]), .train_si_snr = v[1], .val_si_snri = v[2],
                             .lr = v[3], .seconds = v[4], .segments_per_s = v[5]});
  const models::ConvTasNetOptions model = read_model(meta, path);
  StateDict model_state = kCheckpoint.model_state(tensors);
  return SeparateCheckpoint{.state = std::move(state),
                            .model = model,
                            .model_state = std::move(model_state),
                            .tensors = std::move(tensors),
                            .metadata = std::move(meta)};
}

models::ConvTasNet model_from_checkpoint(const SeparateCheckpoint& c) {
  models::ConvTasNet model(c.model);
  model->load_state_dict(c.model_state, /*strict=*/true);
  return model;
}

void restore_training_state(const SeparateCheckpoint& c, optim::Optimizer& optimizer,
                            optim::ReduceLROnPlateau& scheduler) {
  kCheckpoint.restore_training_state(c.tensors, c.metadata, optimizer);
  scheduler.load_state_dict(optim::read_scheduler_state(c.metadata));
}

}  // namespace ember::apps::separate_app
