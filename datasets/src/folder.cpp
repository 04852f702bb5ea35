#include "ember/datasets/folder.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

#include <ember/core/error.h>
#include <ember/io/image.h>

#include "format_util.h"

namespace ember::datasets {

namespace fs = std::filesystem;

const std::vector<std::string>& img_extensions() {
  static const std::vector<std::string> extensions = {".jpg", ".jpeg", ".png",  ".ppm", ".bmp",
                                                      ".pgm", ".tif",  ".tiff", ".webp"};
  return extensions;
}

bool has_file_allowed_extension(const std::string& filename,
                                const std::vector<std::string>& extensions) {
  std::string lower = filename;
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  for (const std::string& ext : extensions)
    if (lower.size() >= ext.size() &&
        lower.compare(lower.size() - ext.size(), ext.size(), ext) == 0)
      return true;
  return false;
}

Tensor default_loader(const std::string& path) {
  try {
    return io::read_image(path, io::ImageReadMode::RGB);
  } catch (const Error& e) {
    EMBER_FAIL("default_loader: cannot load ", path, ": ", e.what());
  }
}

namespace {

// Subfolders and files of one folder, as os.scandir classifies them: an entry
// is a folder when it is one after following links; everything else (files,
// links to files, broken links, devices) is a file.
struct FolderEntries {
  std::vector<std::string> folders;
  std::vector<std::string> files;
};

FolderEntries list_folder(const std::string& path, std::string_view who) {
  FolderEntries out;
  std::error_code ec;
  fs::directory_iterator it(path, ec);
  EMBER_CHECK(!ec, who, ": cannot list the folder ", path, ": ", ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    EMBER_CHECK(!ec, who, ": cannot list the folder ", path, ": ", ec.message());
    std::error_code dir_ec;
    const bool is_dir = it->is_directory(dir_ec);  // follows links
    (is_dir ? out.folders : out.files).push_back(it->path().filename().string());
  }
  EMBER_CHECK(!ec, who, ": cannot list the folder ", path, ": ", ec.message());
  return out;
}

// os.walk(top, followlinks=True), each folder once with its files. A link back
// to a folder already on the current path (a cycle) is not followed again;
// Python would follow it until the path is too long.
void walk(const std::string& top,
          std::vector<std::pair<std::string, std::vector<std::string>>>& out,
          std::vector<std::pair<dev_t, ino_t>>& ancestors, std::string_view who) {
  struct stat st;
  if (::stat(top.c_str(), &st) != 0) return;
  const std::pair<dev_t, ino_t> id{st.st_dev, st.st_ino};
  if (std::find(ancestors.begin(), ancestors.end(), id) != ancestors.end()) return;
  ancestors.push_back(id);
  FolderEntries entries = list_folder(top, who);
  out.emplace_back(top, std::move(entries.files));
  for (const std::string& sub : entries.folders)
    walk(detail::join_path(top, sub), out, ancestors, who);
  ancestors.pop_back();
}

std::string join_list(const std::vector<std::string>& items) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
  return s;
}

}  // namespace

FolderClasses find_classes(const std::string& directory) {
  EMBER_CHECK(detail::is_directory(directory), "find_classes: the dataset folder ", directory,
              " does not exist (expected ", directory,
              "/<class>/<files>, one folder per class; Ember never downloads)");
  FolderClasses out;
  out.classes = list_folder(directory, "find_classes").folders;
  std::sort(out.classes.begin(), out.classes.end());
  EMBER_CHECK(!out.classes.empty(), "find_classes: couldn't find any class folder in ", directory,
              " (expected ", directory, "/<class>/<files>)");
  for (size_t i = 0; i < out.classes.size(); ++i)
    out.class_to_idx[out.classes[i]] = static_cast<int64_t>(i);
  return out;
}

std::vector<std::pair<std::string, int64_t>> make_dataset(
    const std::string& directory, const std::map<std::string, int64_t>& class_to_idx,
    const std::vector<std::string>& extensions, const FileFilter& is_valid_file) {
  EMBER_CHECK(!class_to_idx.empty(),
              "make_dataset: class_to_idx must have at least one entry to collect any samples");
  const bool has_ext = !extensions.empty();
  EMBER_CHECK(has_ext != static_cast<bool>(is_valid_file),
              "make_dataset: exactly one of extensions and is_valid_file must be given (got ",
              has_ext ? "both" : "neither", ")");
  const auto valid = [&](const std::string& path) {
    return has_ext ? has_file_allowed_extension(path, extensions) : is_valid_file(path);
  };

  std::vector<std::pair<std::string, int64_t>> instances;
  std::set<std::string> available;
  // std::map iterates keys in sorted order, as torchvision's sorted(class_to_idx).
  for (const auto& [target_class, class_index] : class_to_idx) {
    const std::string target_dir = detail::join_path(directory, target_class);
    if (!detail::is_directory(target_dir)) continue;
    std::vector<std::pair<std::string, std::vector<std::string>>> folders;
    std::vector<std::pair<dev_t, ino_t>> ancestors;
    walk(target_dir, folders, ancestors, "make_dataset");
    // sorted(os.walk(...)) orders the folders by path; names sort by code
    // point, which is byte order for UTF-8.
    std::sort(folders.begin(), folders.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [root, files] : folders) {
      std::sort(files.begin(), files.end());
      for (const std::string& fname : files) {
        std::string path = detail::join_path(root, fname);
        if (valid(path)) {
          instances.emplace_back(std::move(path), class_index);
          available.insert(target_class);
        }
      }
    }
  }

  std::vector<std::string> empty_classes;
  for (const auto& kv : class_to_idx)
    if (!available.count(kv.first)) empty_classes.push_back(kv.first);
  if (!empty_classes.empty()) {
    std::string msg = "make_dataset: found no valid file in " + directory + " for the classes " +
                      join_list(empty_classes) + ".";
    if (has_ext) msg += " Supported extensions are: " + join_list(extensions);
    EMBER_FAIL(msg);
  }
  return instances;
}

DatasetFolder::DatasetFolder(std::string root, DatasetFolderOptions options)
    : DatasetFolder(std::move(root), std::move(options), "DatasetFolder") {}

DatasetFolder::DatasetFolder(std::string root, DatasetFolderOptions options, std::string name)
    : name_(std::move(name)), root_(std::move(root)), options_(std::move(options)) {
  EMBER_CHECK(static_cast<bool>(options_.loader), name_, ": a loader is required");
  try {
    FolderClasses found = find_classes(root_);
    classes_ = std::move(found.classes);
    class_to_idx_ = std::move(found.class_to_idx);
    samples_ = make_dataset(root_, class_to_idx_, options_.extensions, options_.is_valid_file);
  } catch (const Error& e) {
    EMBER_FAIL(name_, ": ", e.what());
  }
  targets_.reserve(samples_.size());
  for (const auto& s : samples_) targets_.push_back(s.second);
}

std::pair<Tensor, int64_t> DatasetFolder::get(int64_t index) {
  detail::check_index(name_, index, size());
  const auto& [path, target] = samples_[static_cast<size_t>(index)];
  Tensor sample = options_.loader(path);
  if (options_.transform) sample = options_.transform(sample);
  int64_t t = target;
  if (options_.target_transform) t = options_.target_transform(t);
  return {std::move(sample), t};
}

namespace {
DatasetFolderOptions image_folder_options(ImageFolderOptions o) {
  DatasetFolderOptions d;
  d.loader = o.loader ? std::move(o.loader) : Loader(default_loader);
  if (!o.is_valid_file) d.extensions = img_extensions();
  d.transform = std::move(o.transform);
  d.target_transform = std::move(o.target_transform);
  d.is_valid_file = std::move(o.is_valid_file);
  return d;
}
}  // namespace

ImageFolder::ImageFolder(std::string root, ImageFolderOptions options)
    : DatasetFolder(std::move(root), image_folder_options(std::move(options)), "ImageFolder") {}

}  // namespace ember::datasets
