#pragma once
// ember-asr's checkpoint: one safetensors file holding Wav2Letter's weights
// (under torchaudio's state_dict keys), the optimizer's state ("optimizer.*"),
// the default generator's state ("asr.generator": SpecAugment's masks), and as
// metadata the feature spec, the vocabulary, the learning-rate schedule and
// the run's progress and history. A checkpoint alone rebuilds the model and
// its features (--transcribe needs no corpus).
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/ordered_dict.h>
#include <ember/models/wav2letter.h>
#include <ember/optim/lr_scheduler.h>
#include <ember/optim/optimizer.h>

#include "asr_features.h"
#include "common/checkpoint_format.h"
#include "char_vocabulary.h"

namespace ember::apps::asr_app {

// One epoch of a run, as metrics.json lists it (dev values are NaN without a dev subset).
struct EpochRecord {
  int64_t epoch = 0;
  double train_loss = 0;
  double dev_loss = 0;
  double dev_cer_greedy = 0, dev_wer_greedy = 0, dev_cer_beam = 0, dev_wer_beam = 0;
  double lr = 0;
  double seconds = 0;
  double utterances_per_s = 0;
};

struct AsrRunState {
  int64_t epochs = 0;       // the run's planned epochs (the schedule's length)
  int64_t epochs_done = 0;
  int64_t batch_size = 0;
  int64_t total_steps = 0;  // optimizer steps of the whole schedule
  double max_lr = 0;
  uint64_t seed = 0;
  std::vector<EpochRecord> history;
};

struct AsrCheckpoint {
  AsrRunState state;
  FeatureSpec features;
  CharVocabulary vocabulary;
  StateDict model_state;  // the model's tensors only
  StateDict tensors;      // everything
  Metadata metadata;
};

// optimizer and scheduler may be null (a model-only checkpoint). Written to
// PATH.partial, then renamed.
// The format's name, key prefix ("asr.") and metadata readers.
const CheckpointFormat& asr_checkpoint_format();

void save_asr_checkpoint(const std::string& path, const models::Wav2Letter& model, const FeatureSpec& features,
                         const CharVocabulary& vocabulary, const optim::Optimizer* optimizer,
                         const optim::LRScheduler* scheduler, const AsrRunState& state);

// A file that is not an ember-asr checkpoint is an ember::Error naming it.
AsrCheckpoint load_asr_checkpoint(const std::string& path);

// Wav2Letter for the checkpoint's features, with its weights (strict).
models::Wav2Letter load_asr_model(const AsrCheckpoint& checkpoint);

// Restores the optimizer, the scheduler and the default generator (resuming a run).
void restore_training_state(const AsrCheckpoint& checkpoint, optim::Optimizer& optimizer,
                            optim::LRScheduler& scheduler);

}  // namespace ember::apps::asr_app
