#pragma once
// DatasetFolder and ImageFolder (torchvision.datasets.folder): one folder per
// class under a root,
//
//   root/dog/xxx.png
//   root/dog/[...]/xxz.png
//   root/cat/123.jpg
//
// classes are the sorted names of root's subfolders (symbolic links to folders
// count), class_to_idx numbers them 0.., and the samples (path, class index)
// are listed as torchvision lists them: classes in sorted order, within a class
// the folders of the tree (followed through links) sorted by path, and the
// files of each folder sorted by name. A sample is std::pair<Tensor, int64_t>.
//
//   ImageFolder train("data/train", {.transform = transforms::Compose({...})});
//   auto [image, label] = train.get(0);   // uint8 [3, H, W] RGB, class index
//
// See docs/datasets.md, "Dataset formats", for where Ember differs.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/datasets/dataset.h>
#include <ember/datasets/transform.h>

namespace ember::datasets {

// Loads one sample from its path.
using Loader = std::function<Tensor(const std::string& path)>;
// Whether a path is a sample (torchvision's is_valid_file).
using FileFilter = std::function<bool(const std::string& path)>;

// torchvision's IMG_EXTENSIONS: .jpg .jpeg .png .ppm .bmp .pgm .tif .tiff .webp.
// Ember::io decodes JPEG and PNG; the others are listed (so the samples and
// class indices match torchvision's) but default_loader raises on them.
const std::vector<std::string>& img_extensions();

// Whether filename, lowercased (ASCII), ends with one of extensions (lowercase).
bool has_file_allowed_extension(const std::string& filename,
                                const std::vector<std::string>& extensions);

// The default ImageFolder loader: decodes a JPEG or PNG through Ember::io to a
// uint8 [3, H, W] RGB tensor (torchvision's loader converts to RGB as well).
Tensor default_loader(const std::string& path);

// The sorted class folders of `directory` and their indices. Raises when the
// directory does not exist or has no subfolder.
struct FolderClasses {
  std::vector<std::string> classes{};
  std::map<std::string, int64_t> class_to_idx;
};
FolderClasses find_classes(const std::string& directory);

// The (path, class index) samples of `directory`, in torchvision's order.
// Exactly one of `extensions` (non-empty) and `is_valid_file` must be given.
// Raises, naming the classes and the extensions, when a class has no valid file.
std::vector<std::pair<std::string, int64_t>> make_dataset(
    const std::string& directory, const std::map<std::string, int64_t>& class_to_idx,
    const std::vector<std::string>& extensions, const FileFilter& is_valid_file = {});

struct DatasetFolderOptions {
  // Loads a sample from its path (required).
  Loader loader{};
  // Allowed extensions, lowercase with the dot (".npy"); or is_valid_file.
  std::vector<std::string> extensions{};
  // Applied to the loaded sample.
  ImageTransform transform{};
  // Applied to the class index.
  TargetTransform target_transform{};
  FileFilter is_valid_file{};
};

class DatasetFolder : public Dataset<std::pair<Tensor, int64_t>> {
 public:
  DatasetFolder(std::string root, DatasetFolderOptions options);

  // (loader(path) then transform, target_transform(class index)).
  std::pair<Tensor, int64_t> get(int64_t index) override;
  int64_t size() const override { return static_cast<int64_t>(samples_.size()); }

  const std::string& root() const { return root_; }
  const std::vector<std::string>& classes() const { return classes_; }
  const std::map<std::string, int64_t>& class_to_idx() const { return class_to_idx_; }
  // (path, class index), in order.
  const std::vector<std::pair<std::string, int64_t>>& samples() const { return samples_; }
  // The class index of each sample.
  const std::vector<int64_t>& targets() const { return targets_; }
  const std::vector<std::string>& extensions() const { return options_.extensions; }

 protected:
  DatasetFolder(std::string root, DatasetFolderOptions options, std::string name);

 private:
  std::string name_;  // for error messages: "DatasetFolder" or "ImageFolder"
  std::string root_;
  DatasetFolderOptions options_;
  std::vector<std::string> classes_;
  std::map<std::string, int64_t> class_to_idx_;
  std::vector<std::pair<std::string, int64_t>> samples_;
  std::vector<int64_t> targets_;
};

struct ImageFolderOptions {
  ImageTransform transform{};
  TargetTransform target_transform{};
  // Empty: default_loader (uint8 [3, H, W] RGB).
  Loader loader{};
  // Empty: files with an extension of img_extensions().
  FileFilter is_valid_file{};
};

class ImageFolder : public DatasetFolder {
 public:
  explicit ImageFolder(std::string root, ImageFolderOptions options = {});
  // The samples (torchvision's `imgs`).
  const std::vector<std::pair<std::string, int64_t>>& imgs() const { return samples(); }
};

}  // namespace ember::datasets
