#pragma once
// ember-vocoder's checkpoint: one safetensors file holding the WaveRNN's
// weights (under their state_dict keys, so `ember::load` + `load_state_dict`
// reads them directly), the optimizer's state ("optimizer.*"), the default
// generator's state, and as metadata the scheduler's state, the features (sample rate, STFT, mel and
// mu-law parameters), the model's size and the progress of the run. A
// checkpoint alone rebuilds the vocoder (--vocode needs no corpus).
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/ordered_dict.h>
#include <ember/models/wavernn.h>
#include <ember/optim/lr_scheduler.h>
#include <ember/optim/optimizer.h>

#include "vocoder_config.h"
#include "common/checkpoint_format.h"
#include "vocoder_features.h"

namespace ember::apps::vocoder {

// The WaveRNN's size (torchaudio's constructor arguments besides the
// features'); n_freq is the features' n_mels, n_classes 2^bits.
struct ModelSpec {
  int64_t n_rnn = 96, n_fc = 96, n_res_block = 2, n_hidden = 64, n_output = 64, kernel_size = 5;

  void validate() const;
  models::WaveRNNOptions options(const FeatureSpec& features) const;
  void write(Metadata& meta) const;
  static ModelSpec read(const Metadata& meta, const std::string& path);
};

struct RunState {
  int64_t epochs_done = 0;
  uint64_t seed = 0;
  double best_val = 0;               // lowest validation loss so far
  std::vector<EpochRecord> history;  // every epoch so far (a resumed run's metrics.json lists them all)
};

struct VocoderCheckpoint {
  FeatureSpec features;
  ModelSpec model;
  RunState state;
  StateDict model_state;  // the model's tensors only
  StateDict tensors;      // everything
  Metadata metadata;
};

// optimizer and scheduler may be null. Written to PATH.partial, then renamed.
// The format's name, key prefix ("vocoder.") and metadata readers.
const CheckpointFormat& vocoder_checkpoint_format();

void save_vocoder_checkpoint(const std::string& path, const models::WaveRNN& net, const FeatureSpec& features,
                             const ModelSpec& model, const optim::Optimizer* optimizer,
                             const optim::LRScheduler* scheduler, const RunState& state);

// A file that is not an ember-vocoder checkpoint is an ember::Error naming it.
VocoderCheckpoint load_vocoder_checkpoint(const std::string& path);

// Builds the checkpoint's WaveRNN with its weights (strict), in eval mode.
models::WaveRNN load_vocoder_model(const VocoderCheckpoint& checkpoint);

// Restores the optimizer, the scheduler and the default generator (resuming a run).
void restore_training_state(const VocoderCheckpoint& checkpoint, optim::Optimizer& optimizer,
                            optim::LRScheduler* scheduler);

}  // namespace ember::apps::vocoder
