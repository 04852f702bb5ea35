#pragma once
// CIFAR-10 and CIFAR-100 from their binary versions (the files of
// cifar-10-binary.tar.gz and cifar-100-binary.tar.gz):
//
//   root/cifar-10-batches-bin/data_batch_1.bin ... data_batch_5.bin, test_batch.bin,
//                             batches.meta.txt (the 10 class names, one a line)
//   root/cifar-100-binary/train.bin, test.bin,
//                         fine_label_names.txt, coarse_label_names.txt
//
// A CIFAR-10 record is 1 label byte and 3072 pixel bytes (the red, green and
// blue 32 x 32 planes); a CIFAR-100 record has 2 label bytes (coarse, fine)
// before the pixels. torchvision reads the Python (pickle) versions instead;
// the images and labels are the same. The split is read at construction and
// validated (whole records, labels within the class list).
//
// A sample is (image uint8 [3, 32, 32], label int64). torchvision gives a PIL
// RGB image; ToTensor/PILToTensor turn it into the same [3, 32, 32] layout.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/datasets/dataset.h>
#include <ember/datasets/transform.h>

namespace ember::datasets {

namespace detail {
struct CifarLayout;  // the files and record format of one binary version
}

struct CIFAROptions {
  // The training batches when true, else the test batch.
  bool train = true;
  ImageTransform transform{};
  TargetTransform target_transform{};
  // CIFAR-100 only: the sample's label is the coarse one (20 superclasses)
  // instead of the fine one (100 classes, torchvision's).
  bool coarse = false;
};

class CIFAR10 : public Dataset<std::pair<Tensor, int64_t>> {
 public:
  explicit CIFAR10(const std::string& root, CIFAROptions options = {});

  // (image uint8 [3, 32, 32] (a copy), label).
  std::pair<Tensor, int64_t> get(int64_t index) override;
  int64_t size() const override { return data_.size(0); }

  // All images, uint8 [N, 3, 32, 32] (torchvision's data is [N, 32, 32, 3]),
  // and the labels of the samples, int64 [N].
  const Tensor& data() const { return data_; }
  const Tensor& targets() const { return targets_; }
  // The names of the labels the samples carry.
  const std::vector<std::string>& classes() const { return classes_; }
  std::map<std::string, int64_t> class_to_idx() const;
  bool train() const { return options_.train; }

 protected:
  CIFAR10(const std::string& root, CIFAROptions options, const detail::CifarLayout& layout);

  std::string name_;
  CIFAROptions options_;
  Tensor data_;
  Tensor targets_;
  std::vector<std::string> classes_;
  // CIFAR-100: both label kinds and both name lists.
  Tensor fine_targets_, coarse_targets_;
  std::vector<std::string> fine_classes_, coarse_classes_;
};

class CIFAR100 : public CIFAR10 {
 public:
  explicit CIFAR100(const std::string& root, CIFAROptions options = {});

  // Fine (100 classes) and coarse (20 superclasses) labels of every sample,
  // whichever options.coarse selects for get().
  const Tensor& fine_targets() const { return fine_targets_; }
  const Tensor& coarse_targets() const { return coarse_targets_; }
  const std::vector<std::string>& fine_classes() const { return fine_classes_; }
  const std::vector<std::string>& coarse_classes() const { return coarse_classes_; }
  // The coarse label of sample `index`.
  int64_t coarse_target(int64_t index) const;
};

}  // namespace ember::datasets
