#pragma once
// ember-text's checkpoint: one safetensors file holding the model's weights
// (under their state_dict keys), the optimizer's state ("optimizer.*"), the
// vocabulary's tokens and the SentencePiece model bytes ("text.*" uint8
// tensors, so any bytes survive), the default generator's state, and as
// metadata the task, the tokenizer kind, the model's hyperparameters, the
// class names and the progress of the run. A checkpoint alone rebuilds the
// model and its text pipeline (--predict needs no corpus).
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/ordered_dict.h>
#include <ember/nn/module.h>
#include <ember/optim/lr_scheduler.h>
#include <ember/optim/optimizer.h>

#include "text_models.h"
#include "text_pipeline.h"

namespace ember::apps::text_app {

// One epoch of a run, as metrics.json lists it.
struct EpochRecord {
  int64_t epoch = 0;
  double train_loss = 0;
  double val_metric = 0;  // accuracy or perplexity
  double val_loss = 0;
  double lr = 0;
  double seconds = 0;
  double tokens_per_s = 0;
};

struct RunState {
  std::string task;                  // classify or lm
  std::vector<std::string> classes;  // classify: index -> name
  int64_t epochs_done = 0;
  uint64_t seed = 0;
  double best_val = 0;               // best validation accuracy, or lowest perplexity
  double last_val = 0;               // the last epoch's (the classifier's schedule reads it)
  std::vector<EpochRecord> history;  // every epoch so far, so a resumed run's metrics.json lists them all
};

struct TextCheckpoint {
  RunState state;
  ModelSpec spec;
  TextPipeline pipeline;
  StateDict model_state;  // the model's tensors only
  StateDict tensors;      // everything
  Metadata metadata;
};

// optimizer and scheduler may be null. Written to PATH.partial, then renamed.
void save_text_checkpoint(const std::string& path, const TextModel& model, const TextPipeline& pipeline,
                          const optim::Optimizer* optimizer, const optim::LRScheduler* scheduler,
                          const RunState& state);

// A file that is not an ember-text checkpoint is an ember::Error naming it.
TextCheckpoint load_text_checkpoint(const std::string& path);

// Restores the optimizer, the scheduler and the default generator (resuming a run).
void restore_training_state(const TextCheckpoint& checkpoint, optim::Optimizer& optimizer,
                            optim::LRScheduler* scheduler);

}  // namespace ember::apps::text_app
