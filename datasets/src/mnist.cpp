#include "ember/datasets/mnist.h"

#include <ember/core/error.h>

#include "format_util.h"
#include "idx_reader.h"

namespace ember::datasets {

namespace {

const std::vector<std::string>& mnist_classes() {
  static const std::vector<std::string> c = {"0 - zero",  "1 - one",  "2 - two", "3 - three",
                                             "4 - four",  "5 - five", "6 - six", "7 - seven",
                                             "8 - eight", "9 - nine"};
  return c;
}

// `raw/<base>` if it exists, else `raw/<base>.gz`, else "" .
std::string find_idx_file(const std::string& raw_folder, const std::string& base) {
  const std::string plain = detail::join_path(raw_folder, base);
  if (detail::is_regular_file(plain)) return plain;
  if (detail::is_regular_file(plain + ".gz")) return plain + ".gz";
  return {};
}

}  // namespace

MNIST::MNIST(const std::string& root, MNISTOptions options)
    : MNIST(root, std::move(options), "MNIST", mnist_classes()) {}

MNIST::MNIST(const std::string& root, MNISTOptions options, std::string name,
             std::vector<std::string> classes)
    : name_(std::move(name)), options_(std::move(options)), classes_(std::move(classes)) {
  raw_folder_ = detail::join_path(detail::join_path(root, name_), "raw");
  const std::string split = options_.train ? "train" : "t10k";
  const std::string images_name = split + "-images-idx3-ubyte";
  const std::string labels_name = split + "-labels-idx1-ubyte";
  const std::string images_path = find_idx_file(raw_folder_, images_name);
  const std::string labels_path = find_idx_file(raw_folder_, labels_name);
  EMBER_CHECK(
      !images_path.empty() && !labels_path.empty(), name_, ": dataset not found: expected ",
      raw_folder_, "/", images_name, " and ", raw_folder_, "/", labels_name,
      " (each may also be gzipped, with \".gz\"; missing: ", images_path.empty() ? images_name : "",
      images_path.empty() && labels_path.empty() ? ", " : "",
      labels_path.empty() ? labels_name : "", "). Ember never downloads.");

  Tensor images = detail::read_idx_ubyte(images_path, 3, name_);
  Tensor labels = detail::read_idx_ubyte(labels_path, 1, name_);
  EMBER_CHECK(images.size(1) > 0 && images.size(2) > 0, name_, ": ", images_path,
              " holds images of size ", images.size(1), " x ", images.size(2));
  EMBER_CHECK(images.size(0) == labels.size(0), name_, ": ", images_path, " holds ", images.size(0),
              " images but ", labels_path, " holds ", labels.size(0), " labels");
  data_ = std::move(images);
  targets_ = labels.to(kInt64);
}

std::pair<Tensor, int64_t> MNIST::get(int64_t index) {
  detail::check_index(name_, index, size());
  Tensor image = data_.select(0, index).unsqueeze(0).clone();
  int64_t target = targets_.data_ptr<int64_t>()[index];
  if (options_.transform) image = options_.transform(image);
  if (options_.target_transform) target = options_.target_transform(target);
  return {std::move(image), target};
}

std::map<std::string, int64_t> MNIST::class_to_idx() const {
  std::map<std::string, int64_t> m;
  for (size_t i = 0; i < classes_.size(); ++i) m[classes_[i]] = static_cast<int64_t>(i);
  return m;
}

FashionMNIST::FashionMNIST(const std::string& root, MNISTOptions options)
    : MNIST(root, std::move(options), "FashionMNIST",
            {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker",
             "Bag", "Ankle boot"}) {}

KMNIST::KMNIST(const std::string& root, MNISTOptions options)
    : MNIST(root, std::move(options), "KMNIST",
            {"o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"}) {}

}  // namespace ember::datasets
