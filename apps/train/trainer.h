#pragma once
// ember-train's training run: data, model, optimizer and schedule, epochs
// with a progress bar, validation, checkpoints (resumable), final metrics.
#include <cstdint>
#include <memory>
#include <string>

namespace ember::apps {

struct TrainConfig {
  std::string data;                    // dataset root; empty: generate the shapes dataset
  std::string format = "imagefolder";
  std::string model = "resnet18";
  int64_t image_size = 0;              // 0: 28 MNIST, 32 CIFAR and generated shapes, 224 ImageFolder
  int64_t shapes_per_class = 1000;     // training images per class of the generated dataset
  int64_t epochs = 8;
  int64_t batch_size = 32;
  std::string optimizer = "sgd";       // sgd (momentum 0.9, Nesterov) or adamw
  double lr = 0.05;
  double weight_decay = 5e-4;
  std::string scheduler = "onecycle";  // onecycle, cosine, step, none
  double label_smoothing = 0.0;
  double val_fraction = 0.1;
  int64_t workers = 2;
  int64_t threads = 0;                 // intra-op threads; 0: Ember's default
  int64_t seed = 0;
  // Bitwise-reproducible runs whatever the machine's load (use_deterministic_algorithms:
  // OpenBLAS and oneDNN keep their thread count when other processes share the cores).
  bool deterministic = false;
  bool channels_last = false;
  // Parameters and activations in float64: slow, for reproducibility checks
  // (1 and 2 ranks train the same parameters; docs/apps.md).
  bool float64 = false;
  std::string output = "ember-train-out";
  std::string resume;                  // checkpoint to continue from
  int64_t stop_after = 0;              // stop after this many epochs in this run (0: all); resume later
  double min_accuracy = 0;             // fail (exit 1) when the final validation accuracy is lower
  bool progress = true;
  // After the float training (or --resume of a finished run): "ptq" or "qat"
  // quantization of the model's quantizable form (apps/train/quantize_stage.h).
  std::string quantize;
  std::string qengine = "onednn";      // the qconfig's backend: onednn, x86, qnnpack (fbgemm)
  int64_t calibration_batches = 32;    // ptq: training batches through the observers
  int64_t qat_epochs = 1;              // qat: fine-tuning epochs with fake quantization
  double qat_lr = 1e-3;                // qat: SGD's initial learning rate (cosine to 0)
};

struct QuantizeReport;

struct TrainResult {
  double final_accuracy = 0;
  double best_accuracy = 0;
  int64_t epochs_done = 0;
  std::string checkpoint;  // the last epoch's
  // What the last epoch of this run saw (0 when it ran none).
  int64_t last_epoch_steps = 0, last_epoch_images = 0, val_images = 0;
  // With --quantize (after a complete float run): the float vs int8 comparison.
  std::shared_ptr<const QuantizeReport> quantization;
};

// Runs the training; ember::Errors (bad data, unknown model, mismatched
// checkpoint...) propagate to the caller.
TrainResult train(const TrainConfig& config);

}  // namespace ember::apps
