// Suite data: a training input pipeline end to end. 512 JPEGs (500x375, the
// size of a typical ImageNet photo, quality 90) in ImageFolder layout (4
// classes) are read, decoded, cropped with RandomResizedCrop(224, antialias),
// flipped with RandomHorizontalFlip, converted to float and normalized with
// the ImageNet statistics, and collated into batches of 32 with their labels,
// shuffled; one run is one epoch over the 512 images, with 0 or 2 workers
// (started for the epoch: persistent_workers off, the default, on both sides).
//
// Ember: datasets::ImageFolder + vision::transforms + datasets::DataLoader
// (worker threads). Peers (peers/data_pipeline.py, in Python, started by the
// harness): torch.utils.data.DataLoader (worker processes) over
// torchvision.datasets.ImageFolder with
//   - "torch_dataloader": the same transforms on tensors, images decoded with
//     torchvision.io.decode_jpeg;
//   - "torch_dataloader_pil": the classic pipeline, PIL's decoder and
//     transforms (RandomResizedCrop, RandomHorizontalFlip, ToTensor, Normalize).
// Random crops come from different generators, so the check compares what
// both sides must agree on: every batch's shape and the sum of all labels.
#include <filesystem>
#include <string>

#include "bench.h"
#include "ember/datasets/datasets.h"
#include "ember/io/image.h"
#include "ember/vision/transforms.h"
#include "io_test_image.h"

namespace {

using ember_bench::Case;
namespace T = ember::vision::transforms;
namespace D = ember::datasets;

constexpr int64_t kImages = 512, kClasses = 4, kBatch = 32, kCrop = 224;
constexpr int64_t kHeight = 375, kWidth = 500;

// The image tree, written once per ember_bench process: crops of one large
// test picture at different offsets, so every file is a different photo-like
// image.
const std::string& image_root() {
  static const std::string root = [] {
    const std::string dir = ember_bench::scratch_dir() + "/pipeline_images";
    const at::Tensor picture = ember_bench::make_test_image(1080, 1920);
    const ember::Tensor big = ember_bench::to_ember(picture);
    for (int64_t i = 0; i < kImages; ++i) {
      const std::string class_dir = dir + "/class" + std::to_string(i % kClasses);
      std::filesystem::create_directories(class_dir);
      const int64_t top = (i * 37) % (1080 - kHeight), left = (i * 101) % (1920 - kWidth);
      const ember::Tensor crop = big.slice(1, top, top + kHeight).slice(2, left, left + kWidth);
      ember::io::write_jpeg(crop, class_dir + "/" + std::to_string(i) + ".jpg", 90);
    }
    return dir;
  }();
  return root;
}

T::TransformPtr ember_transform() {
  return T::Compose({T::RandomResizedCrop({.size = {kCrop}, .antialias = true}), T::RandomHorizontalFlip(),
                     T::ConvertImageDtype(ember::kFloat32),
                     T::Normalize({.mean = {0.485, 0.456, 0.406}, .std = {0.229, 0.224, 0.225}})});
}

// One epoch: [number of batches + 1, 4] int64, each batch's shape, then the
// sum of all labels.
ember::Tensor ember_epoch(int64_t workers) {
  auto dataset = std::make_shared<D::ImageFolder>(image_root(), D::ImageFolderOptions{.transform = ember_transform()});
  D::DataLoader loader(dataset, {.batch_size = kBatch, .shuffle = true, .num_workers = workers, .seed = 0});
  std::vector<int64_t> rows;
  int64_t label_sum = 0;
  for (auto& [images, labels] : loader) {
    for (int64_t d = 0; d < 4; ++d) rows.push_back(images.size(d));
    label_sum += labels.sum().item<int64_t>();
  }
  rows.insert(rows.end(), {label_sum, 0, 0, 0});
  return ember::tensor(rows, ember::kInt64).reshape({-1, 4});
}

ember_bench::ExternalPeer python_peer(const std::string& name, int64_t workers) {
  const char* python = std::getenv("EMBER_BENCH_PYTHON");
  return {name,
          {python && *python ? python : "/usr/bin/python3", ember_bench::source_dir() + "/peers/data_pipeline.py",
           name, "--root", image_root(), "--workers", std::to_string(workers), "--batch", std::to_string(kBatch),
           "--crop", std::to_string(kCrop)}};
}

Case pipeline_case(int64_t workers) {
  image_root();
  Case c{[=] { return ember_epoch(workers); }, nullptr};
  c.rtol = 0;
  c.atol = 0;
  c.units = kImages;
  c.unit_name = "image";
  c.external_peers = {python_peer("torch_dataloader", workers), python_peer("torch_dataloader_pil", workers)};
  return c;
}

[[maybe_unused]] const bool kRegistered = ember_bench::add_workloads({
    {"data", "pipeline_512_jpeg_w0", [] { return pipeline_case(0); }},
    {"data", "pipeline_512_jpeg_w2", [] { return pipeline_case(2); }},
});

}  // namespace
