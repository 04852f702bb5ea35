#include "text_checkpoint.h"

#include <cstring>

#include <ember/ops/factories.h>
#include <ember/optim/state_io.h>

#include "common/checkpoint_format.h"

namespace ember::apps::text_app {
namespace {

const CheckpointFormat kCheckpoint("ember-text", "ember-text/1", "text");
constexpr const char* kVocabBytes = "text.vocab_bytes";
constexpr const char* kVocabLengths = "text.vocab_lengths";
constexpr const char* kSpModel = "text.sentencepiece_model";

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
  Metadata meta = kCheckpoint.new_metadata();
  meta["text.task"] = state.task;
  meta["text.tokenizer"] = pipeline.kind();
  model.spec.write(meta);
  meta["text.classes"] = json_string_list(state.classes);
  meta["text.epochs_done"] = std::to_string(state.epochs_done);
  meta["text.seed"] = std::to_string(state.seed);
  meta["text.best_val"] = metadata_number(state.best_val);
  meta["text.last_val"] = metadata_number(state.last_val);
  std::vector<std::vector<double>> history;
  for (const EpochRecord& e : state.history)
    history.push_back({static_cast<double>(e.epoch), e.train_loss, e.val_metric, e.val_loss, e.lr, e.seconds,
                       e.tokens_per_s});
  meta["text.history"] = json_number_rows(history);

  std::string vocab_bytes;
  std::vector<int64_t> lengths;
  for (const std::string& token : pipeline.vocab().get_itos()) {
    vocab_bytes += token;
    lengths.push_back(static_cast<int64_t>(token.size()));
  }
  tensors.insert(kVocabBytes, bytes_tensor(vocab_bytes));
  tensors.insert(kVocabLengths, tensor(lengths, kInt64));
  if (!pipeline.sp_model().empty()) tensors.insert(kSpModel, bytes_tensor(pipeline.sp_model()));
  const optim::Dict scheduler_state = scheduler != nullptr ? scheduler->state_dict() : optim::Dict();
  kCheckpoint.add_training_state(tensors, meta, optimizer, scheduler != nullptr ? &scheduler_state : nullptr);
  kCheckpoint.save(path, tensors, meta);
}

TextCheckpoint load_text_checkpoint(const std::string& path) {
  Metadata meta;
  StateDict tensors = kCheckpoint.load(path, meta);
  RunState state;
  state.task = kCheckpoint.entry(meta, "text.task", path);
  EMBER_CHECK(state.task == "classify" || state.task == "lm", "ember-text: checkpoint '", path, "': unknown task '",
              state.task, "'");
  state.classes = kCheckpoint.string_list(meta, "text.classes", path);
  state.epochs_done = kCheckpoint.integer(meta, "text.epochs_done", path);
  state.seed = kCheckpoint.unsigned_integer(meta, "text.seed", path);
  state.best_val = kCheckpoint.number(meta, "text.best_val", path);
  state.last_val = kCheckpoint.number(meta, "text.last_val", path);
  for (const std::vector<double>& v : kCheckpoint.number_rows(meta, "text.history", path, 7))
    state.history.push_back({.epoch = static_cast<int64_t>(v[0]), .train_loss = v[1], .val_metric = v[2],
                             .val_loss = v[3], .lr = v[4], .seconds = v[5], .tokens_per_s = v[6]});
  const ModelSpec spec = ModelSpec::read(meta, path);
  EMBER_CHECK(state.task != "classify" || static_cast<int64_t>(state.classes.size()) == spec.num_classes,
              "ember-text: checkpoint '", path, "' lists ", state.classes.size(), " class names for ",
              spec.num_classes, " classes");
  const std::string& kind = kCheckpoint.entry(meta, "text.tokenizer", path);
  std::string sp_model;
  if (kind == "sentencepiece") sp_model = tensor_bytes(tensor_entry(tensors, kSpModel, path), kSpModel, path);
  TextPipeline pipeline(kind, std::move(sp_model), read_vocab(tensors, path));
  EMBER_CHECK(pipeline.vocab().size() == spec.vocab_size, "ember-text: checkpoint '", path, "' holds ",
              pipeline.vocab().size(), " vocabulary tokens for a model of ", spec.vocab_size);
  StateDict model_state = kCheckpoint.model_state(tensors);
  return TextCheckpoint{.state = std::move(state),
                        .spec = spec,
                        .pipeline = std::move(pipeline),
                        .model_state = std::move(model_state),
                        .tensors = std::move(tensors),
                        .metadata = std::move(meta)};
}

void restore_training_state(const TextCheckpoint& c, optim::Optimizer& optimizer, optim::LRScheduler* scheduler) {
  kCheckpoint.restore_training_state(c.tensors, c.metadata, optimizer);
  if (scheduler != nullptr) scheduler->load_state_dict(optim::read_scheduler_state(c.metadata));
}

}  // namespace ember::apps::text_app
