#pragma once
// MNIST, FashionMNIST and KMNIST (torchvision.datasets.MNIST & co.) from the
// IDX files in torchvision's layout:
//
//   root/<MNIST|FashionMNIST|KMNIST>/raw/train-images-idx3-ubyte  train-labels-idx1-ubyte
//                                        t10k-images-idx3-ubyte   t10k-labels-idx1-ubyte
//
// each file plain or gzip-compressed (the same name plus ".gz"; a plain file is
// preferred when both exist). The whole split is read at construction (47 MB
// for MNIST's training images) and validated: magic numbers, dimensions, file
// lengths and equal image and label counts; bad files raise an ember::Error
// naming the file and what is wrong. Ember never downloads.
//
// A sample is (image, label): the image a uint8 [1, H, W] tensor (28 x 28;
// torchvision gives a PIL image of mode "L", which ToTensor/PILToTensor turn
// into the same [1, H, W] layout), the label an int64 class index.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/datasets/dataset.h>
#include <ember/datasets/transform.h>

namespace ember::datasets {

struct MNISTOptions {
  // The training split (train-*) when true, else the test split (t10k-*).
  bool train = true;
  ImageTransform transform{};
  TargetTransform target_transform{};
};

class MNIST : public Dataset<std::pair<Tensor, int64_t>> {
 public:
  explicit MNIST(const std::string& root, MNISTOptions options = {});

  // (image uint8 [1, H, W] (a copy: transforms may write to it), label).
  std::pair<Tensor, int64_t> get(int64_t index) override;
  int64_t size() const override { return data_.size(0); }

  // All images, uint8 [N, H, W], and labels, int64 [N] (torchvision's data and targets).
  const Tensor& data() const { return data_; }
  const Tensor& targets() const { return targets_; }
  const std::vector<std::string>& classes() const { return classes_; }
  std::map<std::string, int64_t> class_to_idx() const;
  bool train() const { return options_.train; }
  // root/<Name>/raw
  const std::string& raw_folder() const { return raw_folder_; }

 protected:
  MNIST(const std::string& root, MNISTOptions options, std::string name,
        std::vector<std::string> classes);

 private:
  std::string name_;
  MNISTOptions options_;
  std::vector<std::string> classes_;
  std::string raw_folder_;
  Tensor data_;
  Tensor targets_;
};

// Zalando's Fashion-MNIST: root/FashionMNIST/raw/..., the same files.
class FashionMNIST : public MNIST {
 public:
  explicit FashionMNIST(const std::string& root, MNISTOptions options = {});
};

// Kuzushiji-MNIST: root/KMNIST/raw/..., the same files.
class KMNIST : public MNIST {
 public:
  explicit KMNIST(const std::string& root, MNISTOptions options = {});
};

}  // namespace ember::datasets
