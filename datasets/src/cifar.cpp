#include "ember/datasets/cifar.h"

#include <cstring>

#include <ember/core/checked_size.h>
#include <ember/core/error.h>
#include <ember/ops/factories.h>

#include "format_util.h"

namespace ember::datasets {

// What differs between the two binary versions.
struct detail::CifarLayout {
  const char* name;
  const char* folder;
  std::vector<std::string> train_files;
  std::vector<std::string> test_files;
  int64_t label_bytes;  // 1 (label) or 2 (coarse, fine)
  // Class-name files and their expected lengths: {file, count}; CIFAR-10 has
  // one, CIFAR-100 fine then coarse.
  std::vector<std::pair<std::string, int64_t>> name_files;
};

namespace {

constexpr int64_t kPixels = 3 * 32 * 32;

const detail::CifarLayout& cifar10_layout();

}  // namespace

CIFAR10::CIFAR10(const std::string& root, CIFAROptions options)
    : CIFAR10(root, std::move(options), cifar10_layout()) {}

CIFAR10::CIFAR10(const std::string& root, CIFAROptions options, const detail::CifarLayout& layout)
    : name_(layout.name), options_(std::move(options)) {
  const bool cifar100 = layout.label_bytes == 2;
  EMBER_CHECK(cifar100 || !options_.coarse, name_,
              ": coarse labels exist only in CIFAR-100 (options.coarse = true)");
  const std::string folder = detail::join_path(root, layout.folder);
  const std::vector<std::string>& files = options_.train ? layout.train_files : layout.test_files;

  // Every file the split needs, checked before reading any.
  std::string missing;
  for (const std::string& f : files)
    if (!detail::is_regular_file(detail::join_path(folder, f)))
      missing += (missing.empty() ? "" : ", ") + f;
  for (const auto& nf : layout.name_files)
    if (!detail::is_regular_file(detail::join_path(folder, nf.first)))
      missing += (missing.empty() ? "" : ", ") + nf.first;
  if (!missing.empty()) {
    std::string expected;
    for (const std::string& f : files) expected += (expected.empty() ? "" : ", ") + f;
    for (const auto& nf : layout.name_files) expected += ", " + nf.first;
    EMBER_FAIL(name_, ": dataset not found: expected ", folder, "/ with ", expected,
               " (the binary version of the dataset; missing: ", missing,
               "). Ember never downloads.");
  }

  // Class names.
  std::vector<std::vector<std::string>> names;
  for (const auto& [file, count] : layout.name_files) {
    const std::string path = detail::join_path(folder, file);
    std::vector<std::string> lines = detail::read_nonempty_lines(path, name_);
    EMBER_CHECK(static_cast<int64_t>(lines.size()) == count, name_, ": ", path, " lists ",
                lines.size(), " class names; expected ", count);
    names.push_back(std::move(lines));
  }

  // Records: label byte(s) then the 3072 pixels. Sizes are checked for every
  // file first, then each file is read and unpacked in turn.
  const int64_t record = layout.label_bytes + kPixels;
  std::vector<int64_t> counts;
  int64_t total = 0;
  for (const std::string& f : files) {
    const std::string path = detail::join_path(folder, f);
    const uint64_t n = detail::file_size(path, name_);
    EMBER_CHECK(n > 0 && n % record == 0, name_, ": ", path, " holds ", n,
                " bytes, not a whole number of ", record, "-byte records (",
                layout.label_bytes == 1 ? "1 label byte" : "2 label bytes",
                " + 3072 pixels): truncated or not a CIFAR file");
    counts.push_back(static_cast<int64_t>(n) / record);
    total = checked_add(total, counts.back(), name_);
  }
  checked_nbytes({total, 3, 32, 32}, 1, name_);  // Note [Checked sizes]
  data_ = empty({total, 3, 32, 32}, kUInt8);
  std::vector<Tensor> label_tensors;
  for (int64_t k = 0; k < layout.label_bytes; ++k) label_tensors.push_back(empty({total}, kInt64));
  uint8_t* pixels = data_.data_ptr<uint8_t>();
  int64_t i = 0;
  for (size_t fi = 0; fi < files.size(); ++fi) {
    const std::string path = detail::join_path(folder, files[fi]);
    const std::vector<uint8_t> bytes = detail::read_whole_file(path, name_);
    EMBER_CHECK(static_cast<int64_t>(bytes.size()) == counts[fi] * record, name_, ": ", path,
                " changed while being read");
    for (int64_t r = 0; r < counts[fi]; ++r, ++i) {
      const uint8_t* rec = bytes.data() + r * record;
      for (int64_t k = 0; k < layout.label_bytes; ++k) {
        // CIFAR-100 records hold (coarse, fine); the name files are (fine, coarse).
        const size_t names_index = cifar100 ? static_cast<size_t>(1 - k) : 0;
        const int64_t classes = static_cast<int64_t>(names[names_index].size());
        EMBER_CHECK(rec[k] < classes, name_, ": ", path, ", record ", r, ": ",
                    cifar100 ? (k == 0 ? "coarse " : "fine ") : "", "label ", int{rec[k]},
                    " is out of range for ", classes, " classes");
        label_tensors[static_cast<size_t>(k)].data_ptr<int64_t>()[i] = rec[k];
      }
      std::memcpy(pixels + i * kPixels, rec + layout.label_bytes, kPixels);
    }
  }

  if (cifar100) {
    coarse_targets_ = label_tensors[0];
    fine_targets_ = label_tensors[1];
    fine_classes_ = std::move(names[0]);
    coarse_classes_ = std::move(names[1]);
    targets_ = options_.coarse ? coarse_targets_ : fine_targets_;
    classes_ = options_.coarse ? coarse_classes_ : fine_classes_;
  } else {
    targets_ = label_tensors[0];
    classes_ = std::move(names[0]);
  }
}

std::pair<Tensor, int64_t> CIFAR10::get(int64_t index) {
  detail::check_index(name_, index, size());
  Tensor image = data_.select(0, index).clone();
  int64_t target = targets_.data_ptr<int64_t>()[index];
  if (options_.transform) image = options_.transform(image);
  if (options_.target_transform) target = options_.target_transform(target);
  return {std::move(image), target};
}

std::map<std::string, int64_t> CIFAR10::class_to_idx() const {
  std::map<std::string, int64_t> m;
  for (size_t i = 0; i < classes_.size(); ++i) m[classes_[i]] = static_cast<int64_t>(i);
  return m;
}

namespace {

const detail::CifarLayout& cifar10_layout() {
  static const detail::CifarLayout layout{
      "CIFAR10",
      "cifar-10-batches-bin",
      {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin",
       "data_batch_5.bin"},
      {"test_batch.bin"},
      1,
      {{"batches.meta.txt", 10}}};
  return layout;
}

const detail::CifarLayout& cifar100_layout() {
  static const detail::CifarLayout layout{
      "CIFAR100",
      "cifar-100-binary",
      {"train.bin"},
      {"test.bin"},
      2,
      {{"fine_label_names.txt", 100}, {"coarse_label_names.txt", 20}}};
  return layout;
}

}  // namespace

CIFAR100::CIFAR100(const std::string& root, CIFAROptions options)
    : CIFAR10(root, std::move(options), cifar100_layout()) {}

int64_t CIFAR100::coarse_target(int64_t index) const {
  detail::check_index(name_, index, size());
  return coarse_targets_.data_ptr<int64_t>()[index];
}

}  // namespace ember::datasets
