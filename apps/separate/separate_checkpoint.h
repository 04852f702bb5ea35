#pragma once
// ember-separate's checkpoint: one safetensors file holding the ConvTasNet's
// weights (under torchaudio's state_dict keys, so `ember::load` +
// `load_state_dict` reads them directly), the Adam state ("optimizer.*"), the
// default generator's state ("separate.generator"), and as metadata the
// model's hyperparameters, the sample rate, the data it was trained on, the
// ReduceLROnPlateau state and the run's progress and history. A checkpoint
// alone rebuilds the model (--separate needs no corpus).
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/ivalue.h>
#include <ember/core/ordered_dict.h>
#include <ember/models/conv_tasnet.h>
#include <ember/optim/lr_scheduler.h>
#include <ember/optim/optimizer.h>

namespace ember::apps::separate_app {

// One epoch of a run, as metrics.json lists it.
struct EpochRecord {
  int64_t epoch = 0;
  double train_si_snr = 0;  // mean over the epoch's segments, best permutation (dB)
  double val_si_snri = 0;   // mean SI-SNRi on the dev split (dB)
  double lr = 0;            // the epoch's learning rate
  double seconds = 0;       // training time of the epoch
  double segments_per_s = 0;
};

struct RunState {
  std::string layout, task;  // the data trained on (librimix or wsj0mix; sep_clean or sep_noisy)
  int64_t sample_rate = 0;
  double segment_seconds = 0;
  int64_t epochs = 0;       // the run's planned epochs (a resume without --epochs continues to them)
  int64_t epochs_done = 0;
  uint64_t seed = 0;
  double best_val = 0;               // best dev SI-SNRi so far
  std::vector<EpochRecord> history;  // every epoch so far, so a resumed run's metrics.json lists them all
};

struct SeparateCheckpoint {
  RunState state;
  models::ConvTasNetOptions model;
  StateDict model_state;  // the model's tensors only
  StateDict tensors;      // everything
  Metadata metadata;
};

// optimizer and scheduler may be null (a model-only checkpoint). Written to
// PATH.partial, then renamed.
void save_separate_checkpoint(const std::string& path, const models::ConvTasNetImpl& model,
                              const optim::Optimizer* optimizer, const optim::ReduceLROnPlateau* scheduler,
                              const RunState& state);

// A file that is not an ember-separate checkpoint is an ember::Error naming it
// (and, for another app's checkpoint, that app's format).
SeparateCheckpoint load_separate_checkpoint(const std::string& path);

// The model a checkpoint describes, with its weights loaded strictly.
models::ConvTasNet model_from_checkpoint(const SeparateCheckpoint& checkpoint);

// Restores the optimizer, the scheduler and the default generator (resuming a run).
void restore_training_state(const SeparateCheckpoint& checkpoint, optim::Optimizer& optimizer,
                            optim::ReduceLROnPlateau& scheduler);

}  // namespace ember::apps::separate_app
