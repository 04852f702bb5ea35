// Suite models: one epoch of ember-train against the PyTorch script a user
// would write for the same job (peers/train_epoch.py, run by the harness).
//
// The data: ember-train's generated shapes (apps/common/shapes_data.h), 200
// training and 50 validation images per class of six, 32x32 JPEG/PNG files in
// ImageFolder layout, written once per ember_bench process. One run is what
// `ember-train --data DIR --epochs 1` does, start to end: datasets and
// transforms (32-pixel CIFAR-style augmentation: 4-pixel edge-padded random
// crop, flip, normalize), ResNet-18 from the factory, SGD (Nesterov momentum,
// weight decay) with a one-cycle schedule stepped per batch, a DataLoader with
// 2 workers, batches of 32 (drop_last), one training pass, validation, and a
// resumable checkpoint (model, optimizer, schedule, preprocessing) and
// metrics written to disk. The peer does the same with torchvision's
// ImageFolder (PIL), transforms, resnet18, torch.optim and
// torch.utils.data.DataLoader (worker processes), and torch.save.
// Both sides must agree on [training steps, training images, validation
// images]; accuracy after one epoch differs with the random draws.
#include <cstdio>
#include <filesystem>
#include <string>

#include "bench.h"
#include "common/shapes_data.h"
#include "train/trainer.h"

namespace {

using ember_bench::Case;

constexpr int64_t kTrainPerClass = 200, kValPerClass = 50, kBatch = 32, kWorkers = 2;

const std::string& shapes_root() {
  static const std::string root = [] {
    const std::string dir = ember_bench::scratch_dir() + "/train_epoch_shapes";
    std::filesystem::remove_all(dir);
    ember::apps::write_shapes_dataset(
        dir, {.train_per_class = kTrainPerClass, .val_per_class = kValPerClass, .test_per_class = 1, .image_size = 32});
    return dir;
  }();
  return root;
}

ember::Tensor ember_epoch() {
  ember::apps::TrainConfig config;
  config.data = shapes_root();
  config.image_size = 32;  // a given ImageFolder defaults to 224
  config.epochs = 1;
  config.batch_size = kBatch;
  config.workers = kWorkers;
  config.output = ember_bench::scratch_dir() + "/train_epoch_out";
  config.progress = false;
  const ember::apps::TrainResult r = ember::apps::train(config);
  return ember::tensor<int64_t>({r.last_epoch_steps, r.last_epoch_images, r.val_images});
}

Case train_epoch_case() {
  Case c{ember_epoch, nullptr};
  c.rtol = 0;
  c.atol = 0;
  c.under_load = true;
  const char* python = std::getenv("EMBER_BENCH_PYTHON");
  c.external_peers = {{"torch_script",
                       {python && *python ? python : "/usr/bin/python3",
                        ember_bench::source_dir() + "/peers/train_epoch.py", "torch_script", "--root", shapes_root(),
                        "--workers", std::to_string(kWorkers), "--batch", std::to_string(kBatch)}}};
  return c;
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads({
    {"models", "ember_train_epoch_shapes_resnet18", train_epoch_case},
});

}  // namespace
