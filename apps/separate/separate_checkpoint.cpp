#include "separate_checkpoint.h"

#include <cstdio>
#include <cstdlib>

#include <ember/core/generator.h>
#include <ember/optim/state_io.h>
#include <ember/serialize/json.h>
#include <ember/serialize/safetensors.h>

namespace ember::apps::separate_app {
namespace {

namespace json = serialize::json;

constexpr const char* kFormatKey = "ember.checkpoint";
constexpr const char* kFormat = "ember-separate/1";
constexpr const char* kOptimizerPrefix = "optimizer";
constexpr const char* kPrefix = "separate.";
constexpr const char* kGenerator = "separate.generator";

std::string number(double x) {
  char b[40];
  std::snprintf(b, sizeof(b), "%.17g", x);
  return b;
}

const std::string& entry(const Metadata& meta, const std::string& key, const std::string& path) {
  const std::string* v = meta.find(key);
  EMBER_CHECK(v != nullptr, "ember-separate: checkpoint '", path, "' has no '", key, "' entry");
  return *v;
}

double parse_number(const Metadata& meta, const std::string& key, const std::string& path) {
  const std::string& text = entry(meta, key, path);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  EMBER_CHECK(!text.empty() && end == text.c_str() + text.size(), "ember-separate: checkpoint '", path,
              "': entry '", key, "' is not a number: '", text, "'");
  return v;
}

int64_t parse_integer(const Metadata& meta, const std::string& key, const std::string& path) {
  const double v = parse_number(meta, key, path);
  EMBER_CHECK(v == static_cast<double>(static_cast<int64_t>(v)), "ember-separate: checkpoint '", path, "': entry '",
              key, "' is not an integer: '", entry(meta, key, path), "'");
  return static_cast<int64_t>(v);
}

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
  return {.num_sources = parse_integer(meta, p + "num_sources", path),
          .enc_kernel_size = parse_integer(meta, p + "enc_kernel_size", path),
          .enc_num_feats = parse_integer(meta, p + "enc_num_feats", path),
          .msk_kernel_size = parse_integer(meta, p + "msk_kernel_size", path),
          .msk_num_feats = parse_integer(meta, p + "msk_num_feats", path),
          .msk_num_hidden_feats = parse_integer(meta, p + "msk_num_hidden_feats", path),
          .msk_num_layers = parse_integer(meta, p + "msk_num_layers", path),
          .msk_num_stacks = parse_integer(meta, p + "msk_num_stacks", path),
          .msk_activate = entry(meta, p + "msk_activate", path)};
}

}  // namespace

void save_separate_checkpoint(const std::string& path, const models::ConvTasNetImpl& model,
                              const optim::Optimizer* optimizer, const optim::ReduceLROnPlateau* scheduler,
                              const RunState& state) {
  StateDict tensors = model.state_dict();
  Metadata meta;
  meta[kFormatKey] = kFormat;
  write_model(model.options, meta);
  const std::string p = kPrefix;
  meta[p + "layout"] = state.layout;
  meta[p + "task"] = state.task;
  meta[p + "sample_rate"] = std::to_string(state.sample_rate);
  meta[p + "segment_seconds"] = number(state.segment_seconds);
  meta[p + "epochs"] = std::to_string(state.epochs);
  meta[p + "epochs_done"] = std::to_string(state.epochs_done);
  meta[p + "seed"] = std::to_string(state.seed);
  meta[p + "best_val"] = number(state.best_val);
  std::string history = "[";
  for (size_t i = 0; i < state.history.size(); ++i) {
    const EpochRecord& e = state.history[i];
    history += (i ? ", [" : "[") + std::to_string(e.epoch) + ", " + number(e.train_si_snr) + ", " +
               number(e.val_si_snri) + ", " + number(e.lr) + ", " + number(e.seconds) + ", " +
               number(e.segments_per_s) + "]";
  }
  meta[p + "history"] = history + "]";
  tensors.insert(kGenerator, default_generator().get_state().clone());
  if (optimizer != nullptr) optim::write_optimizer_state(optimizer->state_dict(), tensors, meta, kOptimizerPrefix);
  if (scheduler != nullptr) optim::write_scheduler_state(scheduler->state_dict(), meta);
  // Write next to the target, then rename: an interrupted save never leaves a
  // truncated checkpoint in place of the last good one.
  const std::string partial = path + ".partial";
  ember::save(partial, tensors, meta);
  EMBER_CHECK(std::rename(partial.c_str(), path.c_str()) == 0,
              "ember-separate: cannot move the checkpoint into place at '", path, "'");
}

SeparateCheckpoint load_separate_checkpoint(const std::string& path) {
  Metadata meta;
  StateDict tensors = ember::load(path, &meta);
  EMBER_CHECK(meta.contains(kFormatKey) && meta.at(kFormatKey) == kFormat, "'", path,
              "' is not an ember-separate checkpoint (no \"", kFormatKey, "\": \"", kFormat, "\" metadata",
              meta.contains(kFormatKey) ? "; it is an " + meta.at(kFormatKey) + " checkpoint" : std::string(), ")");
  const std::string p = kPrefix;
  RunState state;
  state.layout = entry(meta, p + "layout", path);
  state.task = entry(meta, p + "task", path);
  state.sample_rate = parse_integer(meta, p + "sample_rate", path);
  EMBER_CHECK(state.sample_rate > 0, "ember-separate: checkpoint '", path, "': sample rate ", state.sample_rate);
  state.segment_seconds = parse_number(meta, p + "segment_seconds", path);
  state.epochs = parse_integer(meta, p + "epochs", path);
  state.epochs_done = parse_integer(meta, p + "epochs_done", path);
  state.seed = static_cast<uint64_t>(parse_integer(meta, p + "seed", path));
  state.best_val = parse_number(meta, p + "best_val", path);
  const IValue history = json::parse(entry(meta, p + "history", path), "checkpoint history");
  EMBER_CHECK(history.is_list(), "ember-separate: checkpoint '", path, "': '", p, "history' is not a list");
  for (const auto& row : history.to_list()) {
    const std::vector<double> v = row.to_double_list();
    EMBER_CHECK(v.size() == 6, "ember-separate: checkpoint '", path, "': a '", p,
                "history' entry is not 6 numbers");
    state.history.push_back({.epoch = static_cast<int64_t>(v[0]), .train_si_snr = v[1], .val_si_snri = v[2],
                             .lr = v[3], .seconds = v[4], .segments_per_s = v[5]});
  }
  const models::ConvTasNetOptions model = read_model(meta, path);
  StateDict model_state;
  const std::string optimizer_prefix = std::string(kOptimizerPrefix) + ".";
  for (const auto& [key, t] : tensors)
    if (key.rfind(optimizer_prefix, 0) != 0 && key.rfind(p, 0) != 0) model_state.insert(key, t);
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
  optimizer.load_state_dict(optim::read_optimizer_state(c.tensors, c.metadata, kOptimizerPrefix));
  scheduler.load_state_dict(optim::read_scheduler_state(c.metadata));
  const Tensor* generator = c.tensors.find(kGenerator);
  EMBER_CHECK(generator != nullptr, "ember-separate: the checkpoint has no '", kGenerator, "' tensor");
  default_generator().set_state(*generator);
}

}  // namespace ember::apps::separate_app
