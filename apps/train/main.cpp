// ember-train: trains an image classifier end to end (see apps/README.md and
// `ember-train --help`). With no arguments it generates a small shapes dataset
// as JPEG/PNG files and trains a ResNet-18 on it.
#include <cstdio>
#include <exception>

#include <ember/core/error.h>

#include "common/flags.h"
#include "trainer.h"

int main(int argc, char** argv) {
  using ember::apps::Flags;
  ember::apps::TrainConfig c;
  Flags flags("ember-train",
              "Trains an image classifier: ImageFolder, MNIST-family or CIFAR data, a model from\n"
              "ember::models, SGD or AdamW with a learning-rate schedule; evaluates every epoch, saves a\n"
              "resumable checkpoint (model, optimizer, schedule, preprocessing) and metrics.json.\n"
              "Without --data it generates a shapes dataset (JPEG/PNG files) under OUTPUT/data.");
  flags.add("--data", &c.data, "DIR", "dataset root (ImageFolder: DIR/train and DIR/val, or one tree split)");
  flags.add("--format", &c.format, "NAME", "imagefolder, mnist, fashion-mnist, kmnist, cifar10, cifar100");
  flags.add("--model", &c.model, "NAME", "a model name of ember::models (resnet18, mobilenet_v2, ...)");
  flags.add("--image-size", &c.image_size, "PX", "model input side; 0: 28 MNIST, 32 CIFAR/shapes, 224 ImageFolder");
  flags.add("--shapes-per-class", &c.shapes_per_class, "N", "training images per class of the generated dataset");
  flags.add("--epochs", &c.epochs, "N", "passes over the training set");
  flags.add("--batch-size", &c.batch_size, "N", "images per step");
  flags.add("--optimizer", &c.optimizer, "NAME", "sgd (momentum 0.9, Nesterov) or adamw");
  flags.add("--lr", &c.lr, "X", "learning rate (the peak of the one-cycle schedule)");
  flags.add("--weight-decay", &c.weight_decay, "X", "weight decay");
  flags.add("--scheduler", &c.scheduler, "NAME", "onecycle, cosine, step or none (stepped per batch)");
  flags.add("--label-smoothing", &c.label_smoothing, "X", "cross-entropy label smoothing");
  flags.add("--val-fraction", &c.val_fraction, "X", "held out for validation when ImageFolder has no val/");
  flags.add("--workers", &c.workers, "N", "DataLoader worker threads");
  flags.add("--threads", &c.threads, "N", "intra-op threads (0: all cores)");
  flags.add("--seed", &c.seed, "N", "seed of the initialisation, data order and augmentation");
  flags.add_switch("--channels-last", &c.channels_last, "NHWC activations");
  flags.add_switch("--float64", &c.float64, "train in float64 (slow; for reproducibility checks)");
  flags.add_switch("--deterministic", &c.deterministic,
                   "bitwise-reproducible results under any machine load (slower when other processes share the cores)");
  flags.add("--output", &c.output, "DIR", "checkpoints and metrics.json go here");
  flags.add("--resume", &c.resume, "FILE", "continue a run from its checkpoint");
  flags.add("--stop-after", &c.stop_after, "N", "stop after N epochs of this run (0: run all; --resume later)");
  flags.add("--min-accuracy", &c.min_accuracy, "X", "exit with 1 if the final validation accuracy is lower");
  flags.add("--quantize", &c.quantize, "MODE",
            "after training: ptq (calibrate and convert) or qat (fine-tune with fake quantization); saves "
            "quantized.safetensors");
  flags.add("--qengine", &c.qengine, "NAME", "quantization qconfig backend: onednn, x86 or qnnpack (fbgemm as x86)");
  flags.add("--calibration-batches", &c.calibration_batches, "N", "ptq: training batches for calibration");
  flags.add("--qat-epochs", &c.qat_epochs, "N", "qat: fine-tuning epochs");
  flags.add("--qat-lr", &c.qat_lr, "X", "qat: initial learning rate (SGD, cosine schedule)");
  bool no_progress = false;
  flags.add_switch("--no-progress", &no_progress, "one line per 10 s instead of a live progress bar");
  if (!flags.parse(argc, argv).empty()) ember::apps::fail("ember-train", "unexpected positional argument (see --help)", 2);
  c.progress = !no_progress;
  try {
    const ember::apps::TrainResult r = ember::apps::train(c);
    if (r.epochs_done == c.epochs && r.final_accuracy < c.min_accuracy) {
      std::fprintf(stderr, "ember-train: validation accuracy %.4f is below --min-accuracy %.4f\n", r.final_accuracy,
                   c.min_accuracy);
      return 1;
    }
  } catch (const std::exception& e) {
    ember::apps::fail("ember-train", e.what());
  }
  return 0;
}
