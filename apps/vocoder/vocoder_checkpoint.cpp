#include "vocoder_checkpoint.h"

#include <ember/optim/state_io.h>

namespace ember::apps::vocoder {
namespace {

const CheckpointFormat& kCheckpoint = vocoder_checkpoint_format();

}  // namespace

const CheckpointFormat& vocoder_checkpoint_format() {
  static const CheckpointFormat format("ember-vocoder", "ember-vocoder/1", "vocoder");
  return format;
}

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
  m.n_rnn = kCheckpoint.integer(meta, "vocoder.n_rnn", path);
  m.n_fc = kCheckpoint.integer(meta, "vocoder.n_fc", path);
  m.n_res_block = kCheckpoint.integer(meta, "vocoder.n_res_block", path);
  m.n_hidden = kCheckpoint.integer(meta, "vocoder.n_hidden", path);
  m.n_output = kCheckpoint.integer(meta, "vocoder.n_output", path);
  m.kernel_size = kCheckpoint.integer(meta, "vocoder.kernel_size", path);
  m.validate();
  return m;
}

void save_vocoder_checkpoint(const std::string& path, const models::WaveRNN& net, const FeatureSpec& features,
                             const ModelSpec& model, const optim::Optimizer* optimizer,
                             const optim::LRScheduler* scheduler, const RunState& state) {
  StateDict tensors = net->state_dict();
  Metadata meta = kCheckpoint.new_metadata();
  features.write(meta);
  model.write(meta);
  meta["vocoder.epochs_done"] = std::to_string(state.epochs_done);
  meta["vocoder.seed"] = std::to_string(state.seed);
  meta["vocoder.best_val"] = metadata_number(state.best_val);
  std::vector<std::vector<double>> history;
  for (const EpochRecord& e : state.history)
    history.push_back({static_cast<double>(e.epoch), e.train_loss, e.val_loss, e.lr, e.seconds, e.samples_per_s});
  meta["vocoder.history"] = json_number_rows(history);
  const optim::Dict scheduler_state = scheduler != nullptr ? scheduler->state_dict() : optim::Dict();
  kCheckpoint.add_training_state(tensors, meta, optimizer, scheduler != nullptr ? &scheduler_state : nullptr);
  kCheckpoint.save(path, tensors, meta);
}

VocoderCheckpoint load_vocoder_checkpoint(const std::string& path) {
  Metadata meta;
  StateDict tensors = kCheckpoint.load(path, meta);
  VocoderCheckpoint c;
  c.features = FeatureSpec::read(meta, path);
  c.model = ModelSpec::read(meta, path);
  c.state.epochs_done = kCheckpoint.integer(meta, "vocoder.epochs_done", path);
  c.state.seed = kCheckpoint.unsigned_integer(meta, "vocoder.seed", path);
  c.state.best_val = kCheckpoint.number(meta, "vocoder.best_val", path);
  for (const std::vector<double>& v : kCheckpoint.number_rows(meta, "vocoder.history", path, 6))
    c.state.history.push_back({.epoch = static_cast<int64_t>(v[0]), .train_loss = v[1], .val_loss = v[2],
                               .lr = v[3], .seconds = v[4], .samples_per_s = v[5]});
  c.model_state = kCheckpoint.model_state(tensors);
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
  kCheckpoint.restore_training_state(c.tensors, c.metadata, optimizer);
  if (scheduler != nullptr) scheduler->load_state_dict(optim::read_scheduler_state(c.metadata));
}

}  // namespace ember::apps::vocoder
