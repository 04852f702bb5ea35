#include "asr_checkpoint.h"

#include <cmath>
#include <cstdio>

#include <ember/core/generator.h>
#include <ember/optim/state_io.h>
#include <ember/serialize/json.h>
#include <ember/serialize/safetensors.h>

namespace ember::apps::asr_app {
namespace {

namespace json = serialize::json;

constexpr const char* kFormatKey = "ember.checkpoint";
constexpr const char* kFormat = "ember-asr/1";
constexpr const char* kOptimizerPrefix = "optimizer";
constexpr const char* kGenerator = "asr.generator";
constexpr size_t kHistoryFields = 10;

const std::string& entry(const Metadata& meta, const std::string& key, const std::string& path) {
  const std::string* v = meta.find(key);
  EMBER_CHECK(v != nullptr, "ember-asr: checkpoint '", path, "' has no '", key, "' entry");
  return *v;
}

// JSON has no NaN: a missing dev value is null.
std::string number(double x) {
  if (!std::isfinite(x)) return "null";
  char b[40];
  std::snprintf(b, sizeof(b), "%.17g", x);
  return b;
}

double parse_number(const Metadata& meta, const std::string& key, const std::string& path) {
  const std::string& text = entry(meta, key, path);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  EMBER_CHECK(!text.empty() && end == text.c_str() + text.size(), "ember-asr: checkpoint '", path, "': entry '", key,
              "' is not a number: '", text, "'");
  return v;
}

}  // namespace

void save_asr_checkpoint(const std::string& path, const models::Wav2Letter& model, const FeatureSpec& features,
                         const CharVocabulary& vocabulary, const optim::Optimizer* optimizer,
                         const optim::LRScheduler* scheduler, const AsrRunState& state) {
  StateDict tensors = model->state_dict();
  Metadata meta;
  meta[kFormatKey] = kFormat;
  meta["asr.model"] = "wav2letter";
  meta["asr.num_classes"] = std::to_string(model->options.num_classes);
  features.write(meta);
  std::string tokens = "[";
  for (size_t i = 0; i < vocabulary.tokens().size(); ++i) tokens += (i ? ", " : "") + json::quote(vocabulary.tokens()[i]);
  meta["asr.vocabulary"] = tokens + "]";
  meta["asr.epochs"] = std::to_string(state.epochs);
  meta["asr.epochs_done"] = std::to_string(state.epochs_done);
  meta["asr.batch_size"] = std::to_string(state.batch_size);
  meta["asr.total_steps"] = std::to_string(state.total_steps);
  meta["asr.max_lr"] = number(state.max_lr);
  meta["asr.seed"] = std::to_string(state.seed);
  std::string history = "[";
  for (size_t i = 0; i < state.history.size(); ++i) {
    const EpochRecord& e = state.history[i];
    history += std::string(i ? ", [" : "[") + std::to_string(e.epoch) + ", " + number(e.train_loss) + ", " +
               number(e.dev_loss) + ", " + number(e.dev_cer_greedy) + ", " + number(e.dev_wer_greedy) + ", " +
               number(e.dev_cer_beam) + ", " + number(e.dev_wer_beam) + ", " + number(e.lr) + ", " +
               number(e.seconds) + ", " + number(e.utterances_per_s) + "]";
  }
  meta["asr.history"] = history + "]";
  tensors.insert(kGenerator, default_generator().get_state().clone());
  if (optimizer != nullptr) optim::write_optimizer_state(optimizer->state_dict(), tensors, meta, kOptimizerPrefix);
  if (scheduler != nullptr) optim::write_scheduler_state(scheduler->state_dict(), meta);
  const std::string partial = path + ".partial";
  ember::save(partial, tensors, meta);
  EMBER_CHECK(std::rename(partial.c_str(), path.c_str()) == 0, "ember-asr: cannot move the checkpoint into place at '",
              path, "'");
}

AsrCheckpoint load_asr_checkpoint(const std::string& path) {
  Metadata meta;
  StateDict tensors = ember::load(path, &meta);
  EMBER_CHECK(meta.contains(kFormatKey) && meta.at(kFormatKey) == kFormat, "'", path,
              "' is not an ember-asr checkpoint (no \"", kFormatKey, "\": \"", kFormat, "\" metadata",
              meta.contains(kFormatKey) ? "; it is an " + meta.at(kFormatKey) + " checkpoint" : std::string(), ")");
  EMBER_CHECK(entry(meta, "asr.model", path) == "wav2letter", "ember-asr: checkpoint '", path, "' holds a ",
              meta.at("asr.model"), " model, not wav2letter");
  std::vector<std::string> tokens;
  const IValue list = json::parse(entry(meta, "asr.vocabulary", path), "checkpoint vocabulary");
  EMBER_CHECK(list.is_list(), "ember-asr: checkpoint '", path, "': 'asr.vocabulary' is not a list");
  for (const auto& t : list.to_list()) {
    EMBER_CHECK(t.is_string(), "ember-asr: checkpoint '", path, "': a vocabulary token is not a string");
    tokens.push_back(t.to_string());
  }
  CharVocabulary vocabulary(tokens);
  EMBER_CHECK(static_cast<int64_t>(parse_number(meta, "asr.num_classes", path)) == vocabulary.size(),
              "ember-asr: checkpoint '", path, "': 'asr.num_classes' is not the vocabulary's ", vocabulary.size());
  AsrRunState state;
  state.epochs = static_cast<int64_t>(parse_number(meta, "asr.epochs", path));
  state.epochs_done = static_cast<int64_t>(parse_number(meta, "asr.epochs_done", path));
  state.batch_size = static_cast<int64_t>(parse_number(meta, "asr.batch_size", path));
  state.total_steps = static_cast<int64_t>(parse_number(meta, "asr.total_steps", path));
  state.max_lr = parse_number(meta, "asr.max_lr", path);
  state.seed = static_cast<uint64_t>(parse_number(meta, "asr.seed", path));
  const IValue history = json::parse(entry(meta, "asr.history", path), "checkpoint history");
  EMBER_CHECK(history.is_list(), "ember-asr: checkpoint '", path, "': 'asr.history' is not a list");
  for (const auto& row : history.to_list()) {
    EMBER_CHECK(row.is_list() && row.to_list().size() == kHistoryFields, "ember-asr: checkpoint '", path,
                "': an 'asr.history' entry is not ", kHistoryFields, " numbers");
    std::vector<double> v;
    for (const auto& x : row.to_list()) v.push_back(x.is_none() ? NAN : x.to_double());
    state.history.push_back({.epoch = static_cast<int64_t>(v[0]), .train_loss = v[1], .dev_loss = v[2],
                             .dev_cer_greedy = v[3], .dev_wer_greedy = v[4], .dev_cer_beam = v[5],
                             .dev_wer_beam = v[6], .lr = v[7], .seconds = v[8], .utterances_per_s = v[9]});
  }
  StateDict model_state;
  const std::string optimizer_prefix = std::string(kOptimizerPrefix) + ".";
  for (const auto& [key, t] : tensors)
    if (key.rfind(optimizer_prefix, 0) != 0 && key.rfind("asr.", 0) != 0) model_state.insert(key, t);
  return AsrCheckpoint{.state = std::move(state),
                       .features = FeatureSpec::read(meta, path),
                       .vocabulary = std::move(vocabulary),
                       .model_state = std::move(model_state),
                       .tensors = std::move(tensors),
                       .metadata = std::move(meta)};
}

models::Wav2Letter load_asr_model(const AsrCheckpoint& c) {
  models::Wav2Letter model(c.vocabulary.size(), c.features.input_type, c.features.num_features());
  model->load_state_dict(c.model_state, /*strict=*/true);
  return model;
}

void restore_training_state(const AsrCheckpoint& c, optim::Optimizer& optimizer, optim::LRScheduler& scheduler) {
  optimizer.load_state_dict(optim::read_optimizer_state(c.tensors, c.metadata, kOptimizerPrefix));
  scheduler.load_state_dict(optim::read_scheduler_state(c.metadata));
  const Tensor* g = c.tensors.find(kGenerator);
  EMBER_CHECK(g != nullptr, "ember-asr: the checkpoint has no '", kGenerator, "' tensor");
  default_generator().set_state(*g);
}

}  // namespace ember::apps::asr_app
