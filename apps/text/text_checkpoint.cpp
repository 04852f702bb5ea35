#include "text_checkpoint.h"

#include <cstdio>
#include <cstring>

#include <ember/core/generator.h>
#include <ember/ops/factories.h>
#include <ember/optim/state_io.h>
#include <ember/serialize/json.h>
#include <ember/serialize/safetensors.h>

namespace ember::apps::text_app {
namespace {

namespace json = serialize::json;

constexpr const char* kFormatKey = "ember.checkpoint";
constexpr const char* kFormat = "ember-text/1";
constexpr const char* kOptimizerPrefix = "optimizer";
constexpr const char* kVocabBytes = "text.vocab_bytes";
constexpr const char* kVocabLengths = "text.vocab_lengths";
constexpr const char* kSpModel = "text.sentencepiece_model";
constexpr const char* kGenerator = "text.generator";

Tensor bytes_tensor(const std::string& s) {
  Tensor t = empty({static_cast<int64_t>(s.size())}, kUInt8);
  if (!s.empty()) std::memcpy(t.data_ptr<uint8_t>(), s.data(), s.size());
  return t;
}

std::string tensor_bytes(const Tensor& t, const std::string& what, const std::string& path) {
  EMBER_CHECK(t.dtype() == kUInt8 && t.dim() == 1, "ember-text: checkpoint '", path, "': '", what,
              "' is not a 1-D uint8 tensor");
  const Tensor c = t.contiguous();
  return std::string(reinterpret_cast<const char*>(c.data_ptr<uint8_t>()), static_cast<size_t>(c.numel()));
}

const Tensor& tensor_entry(const StateDict& tensors, const std::string& key, const std::string& path) {
  const Tensor* t = tensors.find(key);
  EMBER_CHECK(t != nullptr, "ember-text: checkpoint '", path, "' has no '", key, "' tensor");
  return *t;
}

const std::string& entry(const Metadata& meta, const std::string& key, const std::string& path) {
  const std::string* v = meta.find(key);
  EMBER_CHECK(v != nullptr, "ember-text: checkpoint '", path, "' has no '", key, "' entry");
  return *v;
}

std::string number(double x) {
  char b[40];
  std::snprintf(b, sizeof(b), "%.17g", x);
  return b;
}

double parse_number(const Metadata& meta, const std::string& key, const std::string& path) {
  const std::string& text = entry(meta, key, path);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  EMBER_CHECK(!text.empty() && end == text.c_str() + text.size(), "ember-text: checkpoint '", path, "': entry '", key,
              "' is not a number: '", text, "'");
  return v;
}

std::vector<std::string> read_vocab(const StateDict& tensors, const std::string& path) {
  const std::string bytes = tensor_bytes(tensor_entry(tensors, kVocabBytes, path), kVocabBytes, path);
  const Tensor lengths = tensor_entry(tensors, kVocabLengths, path).contiguous();
  EMBER_CHECK(lengths.dtype() == kInt64 && lengths.dim() == 1, "ember-text: checkpoint '", path, "': '",
              kVocabLengths, "' is not a 1-D int64 tensor");
  std::vector<std::string> tokens;
  size_t at = 0;
  for (int64_t i = 0; i < lengths.numel(); ++i) {
    const int64_t n = lengths.data_ptr<int64_t>()[i];
    EMBER_CHECK(n >= 0 && static_cast<size_t>(n) <= bytes.size() - at, "ember-text: checkpoint '", path,
                "': the vocabulary's token lengths do not match its bytes");
    tokens.push_back(bytes.substr(at, static_cast<size_t>(n)));
    at += static_cast<size_t>(n);
  }
  EMBER_CHECK(at == bytes.size(), "ember-text: checkpoint '", path,
              "': the vocabulary's token lengths do not match its bytes");
  return tokens;
}

}  // namespace

void save_text_checkpoint(const std::string& path, const TextModel& model, const TextPipeline& pipeline,
                          const optim::Optimizer* optimizer, const optim::LRScheduler* scheduler,
                          const RunState& state) {
  StateDict tensors = model.module().state_dict();
  Metadata meta;
  meta[kFormatKey] = kFormat;
  meta["text.task"] = state.task;
  meta["text.tokenizer"] = pipeline.kind();
  model.spec.write(meta);
  std::string classes = "[";
  for (size_t i = 0; i < state.classes.size(); ++i) classes += (i ? ", " : "") + json::quote(state.classes[i]);
  meta["text.classes"] = classes + "]";
  meta["text.epochs_done"] = std::to_string(state.epochs_done);
  meta["text.seed"] = std::to_string(state.seed);
  meta["text.best_val"] = number(state.best_val);
  meta["text.last_val"] = number(state.last_val);
  std::string history = "[";
  for (size_t i = 0; i < state.history.size(); ++i) {
    const EpochRecord& e = state.history[i];
    history += (i ? ", [" : "[") + std::to_string(e.epoch) + ", " + number(e.train_loss) + ", " +
               number(e.val_metric) + ", " + number(e.val_loss) + ", " + number(e.lr) + ", " + number(e.seconds) +
               ", " + number(e.tokens_per_s) + "]";
  }
  meta["text.history"] = history + "]";

  std::string vocab_bytes;
  std::vector<int64_t> lengths;
  for (const std::string& token : pipeline.vocab().get_itos()) {
    vocab_bytes += token;
    lengths.push_back(static_cast<int64_t>(token.size()));
  }
  tensors.insert(kVocabBytes, bytes_tensor(vocab_bytes));
  tensors.insert(kVocabLengths, tensor(lengths, kInt64));
  if (!pipeline.sp_model().empty()) tensors.insert(kSpModel, bytes_tensor(pipeline.sp_model()));
  tensors.insert(kGenerator, default_generator().get_state().clone());
  if (optimizer != nullptr) optim::write_optimizer_state(optimizer->state_dict(), tensors, meta, kOptimizerPrefix);
  if (scheduler != nullptr) optim::write_scheduler_state(scheduler->state_dict(), meta);
  const std::string partial = path + ".partial";
  ember::save(partial, tensors, meta);
  EMBER_CHECK(std::rename(partial.c_str(), path.c_str()) == 0, "ember-text: cannot move the checkpoint into place at '",
              path, "'");
}

TextCheckpoint load_text_checkpoint(const std::string& path) {
  Metadata meta;
  StateDict tensors = ember::load(path, &meta);
  EMBER_CHECK(meta.contains(kFormatKey) && meta.at(kFormatKey) == kFormat, "'", path,
              "' is not an ember-text checkpoint (no \"", kFormatKey, "\": \"", kFormat, "\" metadata",
              meta.contains(kFormatKey) ? "; it is an " + meta.at(kFormatKey) + " checkpoint" : std::string(), ")");
  RunState state;
  state.task = entry(meta, "text.task", path);
  EMBER_CHECK(state.task == "classify" || state.task == "lm", "ember-text: checkpoint '", path, "': unknown task '",
              state.task, "'");
  const IValue classes = json::parse(entry(meta, "text.classes", path), "checkpoint classes");
  EMBER_CHECK(classes.is_list(), "ember-text: checkpoint '", path, "': 'text.classes' is not a list");
  for (const auto& name : classes.to_list()) {
    EMBER_CHECK(name.is_string(), "ember-text: checkpoint '", path, "': a class name is not a string");
    state.classes.push_back(name.to_string());
  }
  state.epochs_done = static_cast<int64_t>(parse_number(meta, "text.epochs_done", path));
  state.seed = static_cast<uint64_t>(parse_number(meta, "text.seed", path));
  state.best_val = parse_number(meta, "text.best_val", path);
  state.last_val = parse_number(meta, "text.last_val", path);
  const IValue history = json::parse(entry(meta, "text.history", path), "checkpoint history");
  EMBER_CHECK(history.is_list(), "ember-text: checkpoint '", path, "': 'text.history' is not a list");
  for (const auto& row : history.to_list()) {
    const std::vector<double> v = row.to_double_list();
    EMBER_CHECK(v.size() == 7, "ember-text: checkpoint '", path, "': a 'text.history' entry is not 7 numbers");
    state.history.push_back({.epoch = static_cast<int64_t>(v[0]), .train_loss = v[1], .val_metric = v[2],
                             .val_loss = v[3], .lr = v[4], .seconds = v[5], .tokens_per_s = v[6]});
  }
  const ModelSpec spec = ModelSpec::read(meta, path);
  EMBER_CHECK(state.task != "classify" || static_cast<int64_t>(state.classes.size()) == spec.num_classes,
              "ember-text: checkpoint '", path, "' lists ", state.classes.size(), " class names for ",
              spec.num_classes, " classes");
  const std::string& kind = entry(meta, "text.tokenizer", path);
  std::string sp_model;
  if (kind == "sentencepiece") sp_model = tensor_bytes(tensor_entry(tensors, kSpModel, path), kSpModel, path);
  TextPipeline pipeline(kind, std::move(sp_model), read_vocab(tensors, path));
  EMBER_CHECK(pipeline.vocab().size() == spec.vocab_size, "ember-text: checkpoint '", path, "' holds ",
              pipeline.vocab().size(), " vocabulary tokens for a model of ", spec.vocab_size);
  StateDict model_state;
  const std::string optimizer_prefix = std::string(kOptimizerPrefix) + ".";
  for (const auto& [key, t] : tensors)
    if (key.rfind(optimizer_prefix, 0) != 0 && key.rfind("text.", 0) != 0) model_state.insert(key, t);
  return TextCheckpoint{.state = std::move(state),
                        .spec = spec,
                        .pipeline = std::move(pipeline),
                        .model_state = std::move(model_state),
                        .tensors = std::move(tensors),
                        .metadata = std::move(meta)};
}

void restore_training_state(const TextCheckpoint& c, optim::Optimizer& optimizer, optim::LRScheduler* scheduler) {
  optimizer.load_state_dict(optim::read_optimizer_state(c.tensors, c.metadata, kOptimizerPrefix));
  if (scheduler != nullptr) scheduler->load_state_dict(optim::read_scheduler_state(c.metadata));
  default_generator().set_state(tensor_entry(c.tensors, kGenerator, "checkpoint"));
}

}  // namespace ember::apps::text_app
