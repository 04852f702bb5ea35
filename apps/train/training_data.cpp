#include "training_data.h"

#include <algorithm>
#include <filesystem>

#include <ember/core/error.h>
#include <ember/core/generator.h>
#include <ember/datasets/cifar.h>
#include <ember/datasets/detail/worker_pool.h>
#include <ember/datasets/folder.h>
#include <ember/datasets/mnist.h>
#include <ember/datasets/subset.h>
#include <ember/ops/random.h>
#include <ember/vision/transforms.h>
#include <ember/vision/transforms/color.h>
#include <ember/vision/transforms/geometry.h>

namespace ember::apps {
namespace {

namespace T = vision::transforms;
namespace D = datasets;
namespace fs = std::filesystem;

bool is_mnist_family(const std::string& format) {
  return format == "mnist" || format == "fashion-mnist" || format == "kmnist";
}
bool is_cifar(const std::string& format) { return format == "cifar10" || format == "cifar100"; }

T::TransformPtr normalize_tail(std::vector<T::TransformPtr> head) {
  head.push_back(T::ConvertImageDtype(kFloat32));
  head.push_back(T::Normalize({.mean = {0.485, 0.456, 0.406}, .std = {0.229, 0.224, 0.225}}));
  return T::Compose(std::move(head));
}

// The ImageFolder splits: root/train + root/val when both exist, else root
// split at random (same indices for the two transforms).
TrainingData image_folder(const DataSpec& spec, const T::TransformPtr& train_t, const T::TransformPtr& eval_t) {
  const fs::path root(spec.root);
  if (fs::is_directory(root / "train") && fs::is_directory(root / "val")) {
    auto train = std::make_shared<D::ImageFolder>((root / "train").string(), D::ImageFolderOptions{.transform = train_t});
    auto val = std::make_shared<D::ImageFolder>((root / "val").string(), D::ImageFolderOptions{.transform = eval_t});
    EMBER_CHECK(train->classes() == val->classes(), "ImageFolder: '", (root / "train").string(), "' and '",
                (root / "val").string(), "' have different class folders");
    return {train, val, train->classes(),
            "ImageFolder " + spec.root + ": " + std::to_string(train->size()) + " training images (train/), " +
                std::to_string(val->size()) + " validation images (val/)"};
  }
  EMBER_CHECK(spec.val_fraction > 0 && spec.val_fraction < 1, "--val-fraction must be in (0, 1), got ",
              spec.val_fraction);
  auto train_all = std::make_shared<D::ImageFolder>(spec.root, D::ImageFolderOptions{.transform = train_t});
  auto val_all = std::make_shared<D::ImageFolder>(spec.root, D::ImageFolderOptions{.transform = eval_t});
  const int64_t n = train_all->size();
  const int64_t n_val = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(n) * spec.val_fraction));
  EMBER_CHECK(n - n_val >= 1, "ImageFolder '", spec.root, "' has too few images (", n, ") to split");
  Generator g(spec.seed);
  const Tensor order = randperm(n, kInt64, &g);
  const int64_t* p = order.data_ptr<int64_t>();
  std::vector<int64_t> train_idx(p, p + (n - n_val)), val_idx(p + (n - n_val), p + n);
  return {std::make_shared<D::Subset<Sample>>(train_all, std::move(train_idx)),
          std::make_shared<D::Subset<Sample>>(val_all, std::move(val_idx)), train_all->classes(),
          "ImageFolder " + spec.root + ": " + std::to_string(n) + " images, " + std::to_string(n_val) +
              " held out for validation"};
}

template <class Dataset, class Options>
TrainingData fixed_splits(const DataSpec& spec, const T::TransformPtr& train_t, const T::TransformPtr& eval_t,
                          const std::string& name, Options train_options, Options test_options) {
  train_options.train = true;
  train_options.transform = train_t;
  test_options.train = false;
  test_options.transform = eval_t;
  auto train = std::make_shared<Dataset>(spec.root, train_options);
  auto val = std::make_shared<Dataset>(spec.root, test_options);
  return {train, val, train->classes(),
          name + " " + spec.root + ": " + std::to_string(train->size()) + " training and " +
              std::to_string(val->size()) + " test images"};
}

}  // namespace

int64_t natural_image_size(const std::string& format) {
  if (is_mnist_family(format)) return 28;
  if (is_cifar(format)) return 32;
  return 0;
}

T::TransformPtr make_train_transform(const std::string& format, int64_t image_size) {
  if (is_mnist_family(format))
    return normalize_tail({T::Grayscale(3), T::Resize(image_size),
                           T::RandomCrop({.size = {image_size}, .padding = {2}})});
  if (is_cifar(format))
    return normalize_tail({T::Resize(image_size), T::RandomCrop({.size = {image_size}, .padding = {4}}),
                           T::RandomHorizontalFlip()});
  // Small images (up to 64 px, e.g. the generated shapes): CIFAR-style
  // augmentation; cropping away 40% of a 32 px image loses the object.
  if (image_size <= 64)
    return normalize_tail({T::Resize({.size = {image_size, image_size}, .antialias = true}),
                           T::RandomCrop({.size = {image_size}, .padding = {image_size / 8}, .padding_mode = "edge"}),
                           T::RandomHorizontalFlip()});
  return normalize_tail({T::RandomResizedCrop({.size = {image_size}, .scale = {0.35, 1.0}, .antialias = true}),
                         T::RandomHorizontalFlip()});
}

T::TransformPtr make_eval_transform(const std::string& format, int64_t image_size) {
  if (is_mnist_family(format)) return normalize_tail({T::Grayscale(3), T::Resize(image_size)});
  if (is_cifar(format)) return normalize_tail({T::Resize(image_size)});
  if (image_size <= 64) return normalize_tail({T::Resize({.size = {image_size, image_size}, .antialias = true})});
  return normalize_tail({T::Resize({.size = {image_size * 8 / 7}, .antialias = true}), T::CenterCrop(image_size)});
}

Sample IndexSeededDataset::get(int64_t index) {
  // A stream word of its own, apart from the DataLoader's order and sample streams.
  constexpr uint64_t kIndexStream = 0x6170707331ULL;
  Generator generator(datasets::detail::mix_seed(
      {seed_, kIndexStream, static_cast<uint64_t>(epoch_.load()), static_cast<uint64_t>(index)}));
  GeneratorScope scope(generator);
  return inner_->get(index);
}

TrainingData load_training_data(const DataSpec& spec, const T::TransformPtr& train_t, const T::TransformPtr& eval_t) {
  EMBER_CHECK(!spec.root.empty(), "no data root given (--data DIR)");
  EMBER_CHECK(fs::exists(spec.root), "data root '", spec.root, "' does not exist");
  if (spec.format == "imagefolder") return image_folder(spec, train_t, eval_t);
  if (spec.format == "mnist") return fixed_splits<D::MNIST>(spec, train_t, eval_t, "MNIST", D::MNISTOptions{}, D::MNISTOptions{});
  if (spec.format == "fashion-mnist")
    return fixed_splits<D::FashionMNIST>(spec, train_t, eval_t, "FashionMNIST", D::MNISTOptions{}, D::MNISTOptions{});
  if (spec.format == "kmnist") return fixed_splits<D::KMNIST>(spec, train_t, eval_t, "KMNIST", D::MNISTOptions{}, D::MNISTOptions{});
  if (spec.format == "cifar10")
    return fixed_splits<D::CIFAR10>(spec, train_t, eval_t, "CIFAR-10", D::CIFAROptions{}, D::CIFAROptions{});
  if (spec.format == "cifar100")
    return fixed_splits<D::CIFAR100>(spec, train_t, eval_t, "CIFAR-100", D::CIFAROptions{}, D::CIFAROptions{});
  EMBER_FAIL("unknown data format '", spec.format,
             "' (expected imagefolder, mnist, fashion-mnist, kmnist, cifar10 or cifar100)");
}

}  // namespace ember::apps
