#include "vocoder_checkpoint.h"

#include <cstdio>
#include <cstdlib>

#include <ember/core/generator.h>
#include <ember/optim/state_io.h>
#include <ember/serialize/json.h>
#include <ember/serialize/safetensors.h>

namespace ember::apps::vocoder {
namespace {

namespace json = serialize::json;

constexpr const char* kFormatKey = "ember.checkpoint";
constexpr const char* kFormat = "ember-vocoder/1";
constexpr const char* kOptimizerPrefix = "optimizer";
constexpr const char* kGenerator = "vocoder.generator";

const std::string& entry(const Metadata& meta, const std::string& key, const std::string& path) {
  const std::string* v = meta.find(key);
  EMBER_CHECK(v != nullptr, "ember-vocoder: checkpoint '", path, "' has no '", key, "' entry");
  return *v;
}

double parse_number(const Metadata& meta, const std::string& key, const std::string& path) {
  const std::string& text = entry(meta, key, path);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  EMBER_CHECK(!text.empty() && end == text.c_str() + text.size(), "ember-vocoder: checkpoint '", path, "': entry '",
              key, "' is not a number: '", text, "'");
  return v;
}

int64_t parse_int(const Metadata& meta, const std::string& key, const std::string& path) {
  return static_cast<int64_t>(parse_number(meta, key, path));
}

std::string number(double x) {
  char b[40];
  std::snprintf(b, sizeof(b), "%.17g", x);
  return b;
}

}  // namespace

void ModelSpec::validate() const {
  EMBER_CHECK(n_rnn >= 1 && n_rnn <= 4096, "ember-vocoder: --n-rnn must be in [1, 4096] (got ", n_rnn, ")");
  EMBER_CHECK(n_fc >= 1 && n_fc <= 4096, "ember-vocoder: --n-fc must be in [1, 4096] (got ", n_fc, ")");
  EMBER_CHECK(n_res_block >= 0 && n_res_block <= 64, "ember-vocoder: --n-res-block must be in [0, 64] (got ",
              n_res_block, ")");
  EMBER_CHECK(n_hidden >= 1 && n_hidden <= 4096, "ember-vocoder: --n-hidden must be in [1, 4096] (got ", n_hidden,
              ")");
  EMBER_CHECK(n_output >= 4 && n_output % 4 == 0 && n_output <= 4096,
              "ember-vocoder: --n-output must be a multiple of 4 in [4, 4096] (got ", n_output, ")");
  EMBER_CHECK(kernel_size >= 3 && kernel_size % 2 == 1 && kernel_size <= 31,
              "ember-vocoder: --kernel-size must be odd and in [3, 31] (got ", kernel_size, ")");
}

models::WaveRNNOptions ModelSpec::options(const FeatureSpec& f) const {
  return {.upsample_scales = f.upsample_scales,
          .n_classes = f.n_classes(),
          .hop_length = f.hop_length(),
          .n_res_block = n_res_block,
          .n_rnn = n_rnn,
          .n_fc = n_fc,
          .kernel_size = kernel_size,
          .n_freq = f.n_mels,
          .n_hidden = n_hidden,
          .n_output = n_output};
}

void ModelSpec::write(Metadata& meta) const {
  meta["vocoder.n_rnn"] = std::to_string(n_rnn);
  meta["vocoder.n_fc"] = std::to_string(n_fc);
  meta["vocoder.n_res_block"] = std::to_string(n_res_block);
  meta["vocoder.n_hidden"] = std::to_string(n_hidden);
  meta["vocoder.n_output"] = std::to_string(n_output);
  meta["vocoder.kernel_size"] = std::to_string(kernel_size);
}

ModelSpec ModelSpec::read(const Metadata& meta, const std::string& path) {
  ModelSpec m;
  m.n_rnn = parse_int(meta, "vocoder.n_rnn", path);
  m.n_fc = parse_int(meta, "vocoder.n_fc", path);
  m.n_res_block = parse_int(meta, "vocoder.n_res_block", path);
  m.n_hidden = parse_int(meta, "vocoder.n_hidden", path);
  m.n_output = parse_int(meta, "vocoder.n_output", path);
  m.kernel_size = parse_int(meta, "vocoder.kernel_size", path);
  m.validate();
  return m;
}

void save_vocoder_checkpoint(const std::string& path, const models::WaveRNN& net, const FeatureSpec& features,
                             const ModelSpec& model, const optim::Optimizer* optimizer,
                             const optim::LRScheduler* scheduler, const RunState& state) {
  StateDict tensors = net->state_dict();
  Metadata meta;
  meta[kFormatKey] = kFormat;
  features.write(meta);
  model.write(meta);
  meta["vocoder.epochs_done"] = std::to_string(state.epochs_done);
  meta["vocoder.seed"] = std::to_string(state.seed);
  meta["vocoder.best_val"] = number(state.best_val);
  std::string history = "[";
  for (size_t i = 0; i < state.history.size(); ++i) {
    const EpochRecord& e = state.history[i];
    history += (i ? ", [" : "[") + std::to_string(e.epoch) + ", " + number(e.train_loss) + ", " +
               number(e.val_loss) + ", " + number(e.lr) + ", " + number(e.seconds) + ", " + number(e.samples_per_s) +
               "]";
  }
  meta["vocoder.history"] = history + "]";
  tensors.insert(kGenerator, default_generator().get_state().clone());
  if (optimizer != nullptr) optim::write_optimizer_state(optimizer->state_dict(), tensors, meta, kOptimizerPrefix);
  if (scheduler != nullptr) optim::write_scheduler_state(scheduler->state_dict(), meta);
  const std::string partial = path + ".partial";
  ember::save(partial, tensors, meta);
  EMBER_CHECK(std::rename(partial.c_str(), path.c_str()) == 0,
              "ember-vocoder: cannot move the checkpoint into place at '", path, "'");
}

VocoderCheckpoint load_vocoder_checkpoint(const std::string& path) {
  Metadata meta;
  StateDict tensors = ember::load(path, &meta);
  EMBER_CHECK(meta.contains(kFormatKey) && meta.at(kFormatKey) == kFormat, "'", path,
              "' is not an ember-vocoder checkpoint (no \"", kFormatKey, "\": \"", kFormat, "\" metadata",
              meta.contains(kFormatKey) ? "; it is an " + meta.at(kFormatKey) + " checkpoint" : std::string(), ")");
  VocoderCheckpoint c;
  c.features = FeatureSpec::read(meta, path);
  c.model = ModelSpec::read(meta, path);
  c.state.epochs_done = parse_int(meta, "vocoder.epochs_done", path);
  c.state.seed = static_cast<uint64_t>(parse_number(meta, "vocoder.seed", path));
  c.state.best_val = parse_number(meta, "vocoder.best_val", path);
  const IValue history = json::parse(entry(meta, "vocoder.history", path), "checkpoint history");
  EMBER_CHECK(history.is_list(), "ember-vocoder: checkpoint '", path, "': 'vocoder.history' is not a list");
  for (const auto& row : history.to_list()) {
    const std::vector<double> v = row.to_double_list();
    EMBER_CHECK(v.size() == 6, "ember-vocoder: checkpoint '", path, "': a 'vocoder.history' entry is not 6 numbers");
    c.state.history.push_back({.epoch = static_cast<int64_t>(v[0]), .train_loss = v[1], .val_loss = v[2],
                               .lr = v[3], .seconds = v[4], .samples_per_s = v[5]});
  }
  const std::string optimizer_prefix = std::string(kOptimizerPrefix) + ".";
  for (const auto& [key, t] : tensors)
    if (key.rfind(optimizer_prefix, 0) != 0 && key.rfind("vocoder.", 0) != 0) c.model_state.insert(key, t);
  c.tensors = std::move(tensors);
  c.metadata = std::move(meta);
  return c;
}

models::WaveRNN load_vocoder_model(const VocoderCheckpoint& c) {
  models::WaveRNN net(c.model.options(c.features));
  net->load_state_dict(c.model_state, /*strict=*/true);
  net->eval();
  return net;
}

void restore_training_state(const VocoderCheckpoint& c, optim::Optimizer& optimizer, optim::LRScheduler* scheduler) {
  optimizer.load_state_dict(optim::read_optimizer_state(c.tensors, c.metadata, kOptimizerPrefix));
  if (scheduler != nullptr) scheduler->load_state_dict(optim::read_scheduler_state(c.metadata));
  const Tensor* g = c.tensors.find(kGenerator);
  EMBER_CHECK(g != nullptr, "ember-vocoder: checkpoint has no '", kGenerator, "' tensor");
  default_generator().set_state(*g);
}

}  // namespace ember::apps::vocoder
