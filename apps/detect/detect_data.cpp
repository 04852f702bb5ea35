#include "detect_data.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include <ember/core/error.h>

#include "shapes_coco.h"

namespace ember::apps::detect {

namespace fs = std::filesystem;

DetectData load_detect_data(const DetectConfig& c) {
  DetectData d;
  d.generated = c.data.empty();
  d.root = d.generated ? (fs::path(c.output) / "data").string() : c.data;
  if (d.generated && !fs::exists(fs::path(d.root) / "annotations" / "instances_val.json")) {
    const auto t0 = std::chrono::steady_clock::now();
    const ShapesCocoSummary s = write_shapes_coco(
        d.root, {.train_images = c.shapes_train_images, .val_images = c.shapes_val_images,
                 .seed = static_cast<uint64_t>(c.seed)});
    std::printf("data: generated %lld shapes images (%lld objects, %lld small) in COCO layout in %s in %.1f s\n",
                static_cast<long long>(s.images), static_cast<long long>(s.annotations),
                static_cast<long long>(s.small_annotations), d.root.c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  for (const char* split : {"train", "val"}) {
    const fs::path images = fs::path(d.root) / split;
    const fs::path ann = fs::path(d.root) / "annotations" / (std::string("instances_") + split + ".json");
    EMBER_CHECK(fs::is_directory(images), "ember-detect: no image folder '", images.string(),
                "' (--data expects DIR/train, DIR/val and DIR/annotations/instances_{train,val}.json)");
    EMBER_CHECK(fs::is_regular_file(ann), "ember-detect: no annotation file '", ann.string(),
                "' (--data expects DIR/annotations/instances_{train,val}.json)");
    auto set = std::make_shared<datasets::CocoDetection>(images.string(), ann.string());
    (std::string(split) == "train" ? d.train : d.val) = set;
  }
  EMBER_CHECK(d.train->size() > 0 && d.val->size() > 0, "ember-detect: '", d.root, "' has ", d.train->size(),
              " training and ", d.val->size(), " validation images; both splits need some");
  EMBER_CHECK(!d.train->categories().empty(), "ember-detect: the training annotations list no categories");
  for (const datasets::CocoCategory& cat : d.train->categories()) {
    EMBER_CHECK(cat.id >= 1, "ember-detect: category '", cat.name, "' has id ", cat.id,
                "; ids must be >= 1 (0 is the background)");
    d.category_ids.push_back(cat.id);
    d.category_names.push_back(cat.name);
    d.num_classes = std::max(d.num_classes, cat.id + 1);
  }
  return d;
}

}  // namespace ember::apps::detect
