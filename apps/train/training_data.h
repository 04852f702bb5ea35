#pragma once
// The datasets ember-train reads: an ImageFolder tree (with train/ and val/
// folders, or one folder split by --val-fraction), or MNIST / Fashion-MNIST /
// KMNIST (IDX files) or CIFAR-10/100 (binary version) in torchvision's layouts.
#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <ember/datasets/dataset.h>
#include <ember/vision/transforms/transform.h>

namespace ember::apps {

using Sample = std::pair<Tensor, int64_t>;
using SampleDataset = datasets::DatasetPtr<Sample>;

struct DataSpec {
  std::string root;
  std::string format = "imagefolder";  // imagefolder, mnist, fashion-mnist, kmnist, cifar10, cifar100
  double val_fraction = 0.1;           // ImageFolder without a val/ folder
  uint64_t seed = 0;                   // for that split
};

struct TrainingData {
  SampleDataset train, val;
  std::vector<std::string> classes;
  std::string description;  // one line for the log
};

// The formats' natural image side (28 for the MNIST family, 32 for CIFAR, 0
// for ImageFolder: no natural side).
int64_t natural_image_size(const std::string& format);

// Builds both splits with their transforms. Errors (unknown format, missing
// root, bad files) are ember::Errors naming the path and the expected layout.
TrainingData load_training_data(const DataSpec& spec, const vision::transforms::TransformPtr& train_transform,
                                const vision::transforms::TransformPtr& eval_transform);

// The transforms ember-train uses for `image_size` x `image_size` inputs:
// training: RandomResizedCrop (scale 0.6-1) and a horizontal flip for
// ImageFolder data (for the small fixed-size formats: a 4-pixel padded random
// crop and, for CIFAR, a flip), then float conversion and normalization; gray
// images become 3 channels (the models take RGB). Evaluation: the resize and
// center crop (ImageFolder) or nothing, then the same normalization.
vision::transforms::TransformPtr make_train_transform(const std::string& format, int64_t image_size);
vision::transforms::TransformPtr make_eval_transform(const std::string& format, int64_t image_size);

// The training set of a run under ember-run: sample i is read under a default
// generator seeded from (seed, epoch, i), so its random augmentation depends on
// the sample alone, not on the rank or the position in the epoch that reads it.
// Ranks draw different numbers (they read different samples), and N ranks see
// the very images one process sees: the same global batch gives the same
// training on any world size. (The DataLoader alone seeds by position in the
// rank's epoch, which depends on the world size.)
class IndexSeededDataset final : public datasets::Dataset<Sample> {
 public:
  IndexSeededDataset(SampleDataset inner, uint64_t seed) : inner_(std::move(inner)), seed_(seed) {}
  Sample get(int64_t index) override;
  int64_t size() const override { return inner_->size(); }
  void set_epoch(int64_t epoch) { epoch_ = epoch; }

 private:
  SampleDataset inner_;
  uint64_t seed_;
  std::atomic<int64_t> epoch_{0};
};

}  // namespace ember::apps
