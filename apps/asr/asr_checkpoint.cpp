#include "asr_checkpoint.h"

#include <ember/optim/state_io.h>

namespace ember::apps::asr_app {
namespace {

const CheckpointFormat& kCheckpoint = asr_checkpoint_format();
constexpr size_t kHistoryFields = 10;

}  // namespace

const CheckpointFormat& asr_checkpoint_format() {
  static const CheckpointFormat format("ember-asr", "ember-asr/1", "asr");
  return format;
}

void save_asr_checkpoint(const std::string& path, const models::Wav2Letter& model, const FeatureSpec& features,
                         const CharVocabulary& vocabulary, const optim::Optimizer* optimizer,
                         const optim::LRScheduler* scheduler, const AsrRunState& state) {
  StateDict tensors = model->state_dict();
  Metadata meta = kCheckpoint.new_metadata();
  meta["asr.model"] = "wav2letter";
  meta["asr.num_classes"] = std::to_string(model->options.num_classes);
  features.write(meta);
  meta["asr.vocabulary"] = json_string_list(vocabulary.tokens());
  meta["asr.epochs"] = std::to_string(state.epochs);
  meta["asr.epochs_done"] = std::to_string(state.epochs_done);
  meta["asr.batch_size"] = std::to_string(state.batch_size);
  meta["asr.total_steps"] = std::to_string(state.total_steps);
  meta["asr.max_lr"] = metadata_number(state.max_lr);
  meta["asr.seed"] = std::to_string(state.seed);
  std::vector<std::vector<double>> history;
  for (const EpochRecord& e : state.history)
    history.push_back({static_cast<double>(e.epoch), e.train_loss, e.dev_loss, e.dev_cer_greedy, e.dev_wer_greedy,
                       e.dev_cer_beam, e.dev_wer_beam, e.lr, e.seconds, e.utterances_per_s});
  meta["asr.history"] = json_number_rows(history);
  const optim::Dict scheduler_state = scheduler != nullptr ? scheduler->state_dict() : optim::Dict();
  kCheckpoint.add_training_state(tensors, meta, optimizer, scheduler != nullptr ? &scheduler_state : nullptr);
  kCheckpoint.save(path, tensors, meta);
}

AsrCheckpoint load_asr_checkpoint(const std::string& path) {
  Metadata meta;
  StateDict tensors = kCheckpoint.load(path, meta);
  EMBER_CHECK(kCheckpoint.entry(meta, "asr.model", path) == "wav2letter", "ember-asr: checkpoint '", path,
              "' holds a ", meta.at("asr.model"), " model, not wav2letter");
  CharVocabulary vocabulary(kCheckpoint.string_list(meta, "asr.vocabulary", path));
  EMBER_CHECK(kCheckpoint.integer(meta, "asr.num_classes", path) == vocabulary.size(), "ember-asr: checkpoint '",
              path, "': 'asr.num_classes' is not the vocabulary's ", vocabulary.size());
  AsrRunState state;
  state.epochs = kCheckpoint.integer(meta, "asr.epochs", path);
  state.epochs_done = kCheckpoint.integer(meta, "asr.epochs_done", path);
  state.batch_size = kCheckpoint.integer(meta, "asr.batch_size", path);
  state.total_steps = kCheckpoint.integer(meta, "asr.total_steps", path);
  state.max_lr = kCheckpoint.number(meta, "asr.max_lr", path);
  state.seed = kCheckpoint.unsigned_integer(meta, "asr.seed", path);
  for (const std::vector<double>& v : kCheckpoint.number_rows(meta, "asr.history", path, kHistoryFields))
    state.history.push_back({.epoch = static_cast<int64_t>(v[0]), .train_loss = v[1], .dev_loss = v[2],
                             .dev_cer_greedy = v[3], .dev_wer_greedy = v[4], .dev_cer_beam = v[5],
                             .dev_wer_beam = v[6], .lr = v[7], .seconds = v[8], .utterances_per_s = v[9]});
  StateDict model_state = kCheckpoint.model_state(tensors);
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
  kCheckpoint.restore_training_state(c.tensors, c.metadata, optimizer);
  scheduler.load_state_dict(optim::read_scheduler_state(c.metadata));
}

}  // namespace ember::apps::asr_app
