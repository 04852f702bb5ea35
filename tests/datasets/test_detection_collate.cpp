// datasets::detection_collate / DetectionCollate with the DataLoader, and
// COCO targets converted for detection models (to_detection_target).
#include <gtest/gtest.h>

#include <algorithm>

#include <ember/datasets/data_loader.h>
#include <ember/datasets/detection.h>
#include <ember/ember.h>
#include <ember/vision/detection/transforms.h>

namespace ember {
namespace detection_collate_test {

using namespace datasets;
using vision::detection::Target;

template <class Fn>
void expect_error(Fn&& fn, const std::string& needle) {
  try {
    fn();
    FAIL() << "expected an ember::Error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// Image i is 3 x (10 + i) x (12 + 2i) with i + 1 boxes; a flip transform runs in the workers.
class ToyDetection : public Dataset<DetectionSample> {
 public:
  DetectionSample get(int64_t i) override {
    Tensor image = full({3, 10 + i, 12 + 2 * i}, static_cast<double>(i), kUInt8);
    Tensor boxes = tensor<float>({{1, 1, 5, 6}}).repeat({i + 1, 1});
    Target t{{"boxes", boxes}, {"labels", full({i + 1}, i, kInt64)}, {"image_id", tensor<int64_t>({i})}};
    return vision::detection::hflip(image, std::move(t));
  }
  int64_t size() const override { return 7; }
};

TEST(DetectionCollate, DataLoaderBatchesListsOfImagesAndTargets) {
  auto ds = std::make_shared<ToyDetection>();
  DataLoader loader(ds, {.batch_size = 3, .num_workers = 2}, DetectionCollate{});
  int64_t seen = 0;
  for (DetectionBatch& batch : loader) {
    ASSERT_EQ(batch.images.size(), batch.targets.size());
    for (size_t k = 0; k < batch.images.size(); ++k, ++seen) {
      EXPECT_EQ(batch.images[k].sizes(), (std::vector<int64_t>{3, 10 + seen, 12 + 2 * seen}));
      EXPECT_EQ(batch.targets[k]["boxes"].size(0), seen + 1);
      EXPECT_EQ(batch.targets[k]["image_id"].item<int64_t>(), seen);
      // Flipped in the worker: x1 = width - 5.
      EXPECT_FLOAT_EQ(batch.targets[k]["boxes"][0][0].item<float>(), static_cast<float>(12 + 2 * seen - 5));
    }
  }
  EXPECT_EQ(seen, 7);
}

TEST(DetectionCollate, BadSamples) {
  expect_error([] { detection_collate({}); }, "the batch is empty");
  expect_error([] { detection_collate({{zeros({3, 4, 4}), Target{{"labels", zeros({1}, kInt64)}}}}); },
               "batch element 0: the target has no \"boxes\"");
  expect_error(
      [] {
        detection_collate({{zeros({3, 4, 4}), Target{{"boxes", zeros({1, 4})}}},
                           {zeros({3, 4, 4}), Target{{"boxes", zeros({2, 4})}, {"labels", zeros({3}, kInt64)}}}});
      },
      "batch element 1: 2 boxes but labels of shape [3]");
  expect_error([] { detection_collate({{zeros({4, 4}), Target{{"boxes", zeros({1, 4})}}}}); }, "[C, H, W]");
}

TEST(DetectionCollate, CocoTargetsBecomeXyxyClampedAndFiltered) {
  CocoTarget t;
  t.image_id = 9;
  // xywh: an ordinary box, one past the right edge, one of zero width.
  t.boxes = tensor<float>({{2, 3, 10, 4}, {25, 1, 10, 10}, {5, 5, 0, 3}});
  t.labels = tensor<int64_t>({1, 2, 3});
  t.area = tensor<float>({40, 100, 0});
  t.iscrowd = tensor<int64_t>({0, 1, 0});
  const Target out = to_detection_target(t, 20, 30);
  EXPECT_TRUE(out.at("boxes").equal(tensor<float>({{2, 3, 12, 7}, {25, 1, 30, 11}})));
  EXPECT_TRUE(out.at("labels").equal(tensor<int64_t>({1, 2})));
  EXPECT_TRUE(out.at("iscrowd").equal(tensor<int64_t>({0, 1})));
  EXPECT_TRUE(out.at("area").equal(tensor<float>({40, 100})));
  EXPECT_EQ(out.at("image_id").item<int64_t>(), 9);
  const auto sample = to_detection_sample({zeros({3, 20, 30}, kUInt8), t});
  EXPECT_TRUE(sample.second.at("boxes").equal(out.at("boxes")));
}

// The ground truth taken from a CocoDetection equals the one read from its
// JSON, and evaluating the ground truth's own boxes scores AP 1.
TEST(DetectionCollate, CocoGroundTruthFromDataset) {
  const std::string root = std::string(EMBER_TEST_DATA_DIR) + "/datasets/datasets_formats/coco";
  CocoDetection ds(root + "/images", root + "/instances.json");
  const auto gt = coco_ground_truth(ds);
  const auto from_json = vision::detection::CocoGroundTruth::from_json(root + "/instances.json");
  EXPECT_EQ(gt.image_ids, from_json.image_ids);
  EXPECT_EQ(gt.category_ids, from_json.category_ids);
  EXPECT_EQ(gt.image_sizes, from_json.image_sizes);
  ASSERT_EQ(gt.annotations.size(), from_json.annotations.size());
  std::vector<vision::detection::CocoDetectionResult> dets;
  bool any_regular = false;
  for (size_t i = 0; i < gt.annotations.size(); ++i) {
    const auto& a = gt.annotations[i];
    EXPECT_EQ(a.id, from_json.annotations[i].id);
    EXPECT_EQ(a.bbox, from_json.annotations[i].bbox);
    EXPECT_EQ(a.iscrowd, from_json.annotations[i].iscrowd);
    // (The fixture has an annotation of an image it does not list: never evaluated.)
    const bool listed = std::find(gt.image_ids.begin(), gt.image_ids.end(), a.image_id) != gt.image_ids.end();
    if (!a.iscrowd && listed) dets.push_back({a.image_id, a.category_id, a.bbox, 1.0}), any_regular = true;
  }
  ASSERT_TRUE(any_regular);
  EXPECT_DOUBLE_EQ(vision::detection::coco_evaluate(gt, dets).stats[1], 1.0);
}

}  // namespace detection_collate_test
}  // namespace ember
