#pragma once
// ember-train's checkpoint: one safetensors file holding the model's weights
// (under their state_dict keys, so `ember::load` + `load_state_dict` reads them
// directly), the optimizer's state tensors ("optimizer.*"), and as metadata
// the optimizer's and scheduler's other state, the evaluation transform, the
// state of the default random generator, and what ember-classify needs to
// rebuild the model (its factory name, classes, input size).
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/ordered_dict.h>
#include <ember/nn/module.h>
#include <ember/optim/lr_scheduler.h>
#include <ember/optim/optimizer.h>
#include <ember/vision/transforms/transform.h>

namespace ember::apps {

struct CheckpointInfo {
  std::string model;                 // models::create name
  int64_t num_classes = 0;
  std::vector<std::string> classes;  // index -> name
  int64_t image_size = 0;            // the model's input side
  int64_t epochs_done = 0;           // completed epochs
  uint64_t seed = 0;                 // the run's seed (data order and augmentation)
  double best_accuracy = 0;          // best validation accuracy so far
};

struct Checkpoint {
  CheckpointInfo info;
  StateDict model_state;                                   // the model's tensors only
  vision::transforms::TransformPtr eval_transform;         // image -> model input
  StateDict tensors;                                       // everything, for the optimizer
  Metadata metadata;
};

// optimizer and scheduler may be null (a model-only checkpoint).
void save_checkpoint(const std::string& path, const nn::Module& model, const optim::Optimizer* optimizer,
                     const optim::LRScheduler* scheduler, const vision::transforms::TransformImpl& eval_transform,
                     const CheckpointInfo& info);

// The metadata every ember-train checkpoint carries (format tag, model name,
// classes, input size, progress, generator state, evaluation transform);
// save_checkpoint adds the optimizer's and scheduler's state to it.
Metadata checkpoint_metadata(const CheckpointInfo& info, const vision::transforms::TransformImpl& eval_transform);
// The atomic save of an ember-train checkpoint's tensors and metadata.
void write_checkpoint(const std::string& path, const StateDict& tensors, const Metadata& meta);

// Reads a checkpoint written by save_checkpoint; a file that is not one is an
// ember::Error naming the path and what is missing.
Checkpoint load_checkpoint(const std::string& path);

// Restores the optimizer, the scheduler and the default generator from a
// checkpoint (resuming a run).
void restore_training_state(const Checkpoint& checkpoint, optim::Optimizer& optimizer,
                            optim::LRScheduler* scheduler);

}  // namespace ember::apps
