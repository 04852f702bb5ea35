// CocoDetection against torchvision 0.14's CocoDetection (with pycocotools'
// index) on the committed tree, and bad files (the JSON cursor it reads with
// is tested in tests/core/test_json.cpp).
#include <cmath>

#include <ember/datasets/coco.h>
#include <ember/ops/factories.h>

#include "formats_test_util.h"

namespace ember::datasets {
namespace formats_coco_test {

using ember::testing::at;
using ember::testing::copy_tree;
using ember::testing::error_of;
using ember::testing::formats_dir;
using ember::testing::formats_expected;
using ember::testing::formats_npy;
using ember::testing::TempDir;
using ember::testing::tensors_equal;
using ember::testing::write_bytes;

std::string coco_root() { return formats_dir() + "/coco"; }

TEST(FormatsCoco, MatchesTorchvision) {
  CocoDetection ds(coco_root() + "/images", coco_root() + "/instances.json",
                   {.keep_segmentation = true});
  const auto& exp = at(formats_expected(), "coco");
  const auto& ids = at(exp, "ids").to_list();
  ASSERT_EQ(ds.size(), static_cast<int64_t>(ids.size()));
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ds.ids()[i], ids[i].to_int());
  const auto& samples = at(exp, "samples").to_list();
  for (int64_t i = 0; i < ds.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& s = samples[static_cast<size_t>(i)];
    auto [image, target] = ds.get(i);
    EXPECT_TRUE(tensors_equal(image, formats_npy("coco_" + std::to_string(i))));
    EXPECT_EQ(target.image_id, at(s, "image_id").to_int());
    EXPECT_EQ(ds.image_info(i).file_name, at(s, "file_name").to_string());
    const auto& anns = at(s, "annotations").to_list();
    const auto n = static_cast<int64_t>(anns.size());
    ASSERT_EQ(static_cast<int64_t>(target.annotations.size()), n);
    EXPECT_EQ(target.boxes.sizes(), IntArrayRef({n, 4}));
    EXPECT_EQ(target.boxes.dtype(), kFloat32);
    EXPECT_EQ(target.labels.dtype(), kInt64);
    EXPECT_EQ(target.area.dtype(), kFloat32);
    EXPECT_EQ(target.iscrowd.dtype(), kInt64);
    for (int64_t k = 0; k < n; ++k) {
      const auto& e = anns[static_cast<size_t>(k)];
      const CocoAnnotation& a = target.annotations[static_cast<size_t>(k)];
      EXPECT_EQ(a.id, at(e, "id").to_int());
      EXPECT_EQ(a.image_id, at(e, "image_id").to_int());
      EXPECT_EQ(a.category_id, at(e, "category_id").to_int());
      EXPECT_EQ(a.iscrowd, at(e, "iscrowd").to_int());
      EXPECT_EQ(a.area, at(e, "area").to_double());
      EXPECT_EQ(a.segmentation, at(e, "segmentation").to_string());
      EXPECT_EQ(target.annotation_ids[k].item<int64_t>(), a.id);
      EXPECT_EQ(target.labels[k].item<int64_t>(), a.category_id);
      EXPECT_EQ(target.iscrowd[k].item<int64_t>(), a.iscrowd);
      EXPECT_EQ(target.area[k].item<float>(), static_cast<float>(at(e, "area").to_double()));
      for (int64_t j = 0; j < 4; ++j) {
        const double v = at(e, "bbox").to_list()[static_cast<size_t>(j)].to_double();
        EXPECT_EQ(a.bbox[static_cast<size_t>(j)], v);
        EXPECT_EQ(target.boxes[k][j].item<float>(), static_cast<float>(v));
      }
    }
  }
  // -0.0 in the file stays -0.0 (Python's float).
  const CocoTarget t42 = ds.target(2);
  EXPECT_TRUE(std::signbit(t42.annotations[2].bbox[0]));
  // Categories, in file order, with \u escapes decoded.
  const auto& cats = at(exp, "categories").to_list();
  ASSERT_EQ(ds.categories().size(), cats.size());
  for (size_t c = 0; c < cats.size(); ++c) {
    EXPECT_EQ(ds.categories()[c].id, at(cats[c], "id").to_int());
    EXPECT_EQ(ds.categories()[c].name, at(cats[c], "name").to_string());
    EXPECT_EQ(ds.categories()[c].supercategory, at(cats[c], "supercategory").to_string());
  }
  EXPECT_EQ(ds.categories()[2].name, "toothbrush \xC3\xA9\xC3\xA8 \"q\"");
  // Every annotation of the file is kept, also the one of a missing image.
  EXPECT_EQ(ds.annotations().size(), 6u);
  EXPECT_EQ(ds.images().size(), 4u);
  EXPECT_EQ(ds.images()[0].width, 9);
  EXPECT_EQ(ds.images()[0].height, 7);
}

TEST(FormatsCoco, SegmentationSkippedByDefault) {
  CocoDetection ds(coco_root() + "/images", coco_root() + "/instances.json");
  for (const CocoAnnotation& a : ds.annotations()) EXPECT_TRUE(a.segmentation.empty());
  EXPECT_EQ(ds.target(2).annotations.size(), 3u);
}

TEST(FormatsCoco, BoxesToXyxy) {
  Tensor xywh = tensor(std::vector<float>{1.5f, 2.25f, 3.f, 4.f, 0.f, 0.f, 0.f, 0.f}).view({2, 4});
  Tensor xyxy = coco_boxes_to_xyxy(xywh);
  Tensor expected =
      tensor(std::vector<float>{1.5f, 2.25f, 4.5f, 6.25f, 0.f, 0.f, 0.f, 0.f}).view({2, 4});
  EXPECT_TRUE(tensors_equal(xyxy, expected));
  EXPECT_EQ(coco_boxes_to_xyxy(empty({0, 4}, kFloat32)).sizes(), IntArrayRef({0, 4}));
  EXPECT_EMBER_ERROR(coco_boxes_to_xyxy(empty({3, 5}, kFloat32)), "coco_boxes_to_xyxy", "[N, 4]",
                     "[3, 5]");
}

TEST(FormatsCoco, Transforms) {
  CocoDetection a(coco_root() + "/images", coco_root() + "/instances.json",
                  {.transform = [](const Tensor& t) { return t.narrow(0, 0, 1); },
                   .target_transform =
                       [](CocoTarget t) {
                         t.boxes = coco_boxes_to_xyxy(t.boxes);
                         return t;
                       }});
  auto [image, target] = a.get(2);
  EXPECT_EQ(image.size(0), 1);
  EXPECT_EQ(target.boxes[0][2].item<float>(), 4.5f);
  CocoDetection b(coco_root() + "/images", coco_root() + "/instances.json",
                  {.transforms = [](Tensor image, CocoTarget t) {
                    t.image_id = -t.image_id;
                    return CocoSample{image.narrow(0, 1, 2), std::move(t)};
                  }});
  auto [image_b, target_b] = b.get(0);
  EXPECT_EQ(image_b.size(0), 2);
  EXPECT_EQ(target_b.image_id, -7);
  EXPECT_EMBER_ERROR(CocoDetection(coco_root() + "/images", coco_root() + "/instances.json",
                                   {.transform = [](const Tensor& t) { return t; },
                                    .transforms =
                                        [](Tensor i, CocoTarget t) {
                                          return CocoSample{i, t};
                                        }}),
                     "only transforms or transform/target_transform");
}

std::string coco_error(const std::string& json) {
  TempDir tmp;
  write_bytes(tmp / "a.json", json);
  std::filesystem::create_directories(tmp / "images");
  return error_of([&] { CocoDetection(tmp / "images", tmp / "a.json"); });
}

TEST(FormatsCoco, BadFiles) {
  auto expect_has = [](const std::string& msg, std::initializer_list<const char*> parts) {
    EXPECT_FALSE(msg.empty());
    for (const char* p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg << " lacks " << p;
  };
  TempDir tmp;
  EXPECT_EMBER_ERROR(CocoDetection(tmp / "images", tmp / "none.json"),
                     "CocoDetection: annotation file", "none.json not found", "never downloads");
  write_bytes(tmp / "ok.json", "{}");
  EXPECT_EMBER_ERROR(CocoDetection(tmp / "images", tmp / "ok.json"), "image folder",
                     "images not found");
  std::filesystem::create_directories(tmp / "images");
  EXPECT_EQ(CocoDetection(tmp / "images", tmp / "ok.json").size(), 0);

  expect_has(coco_error(""),
             {"CocoDetection", "a.json", "invalid JSON at byte 0", "expected an object"});
  expect_has(coco_error("{\"images\": [{\"id\": 1, \"file_name\": \"a.jpg\"}"),
             {"a.json", "expected ',' or ']'"});
  expect_has(coco_error("{\"images\": [], \"info\": {\"x\": [1, 2,]}}"),
             {"invalid JSON at byte 35: unexpected character"});
  expect_has(coco_error("{\"images\": []} x"), {"unexpected data after the JSON value"});
  expect_has(coco_error("{\"images\": [{\"id\": \"7\", \"file_name\": \"a.jpg\"}]}"),
             {"expected an integer"});
  expect_has(coco_error("{\"images\": [{\"file_name\": \"a.jpg\"}]}"),
             {"image record (at byte 12) has no \"id\""});
  expect_has(coco_error("{\"images\": [{\"id\": 1, \"file_name\": \"a.jpg\"}, {\"id\": 1, "
                        "\"file_name\": \"b.jpg\"}]}"),
             {"image id 1 appears more than once"});
  expect_has(coco_error("{\"annotations\": [{\"id\": 1, \"image_id\": 1, \"category_id\": 1}]}"),
             {"annotation at byte 17 has no \"bbox\""});
  expect_has(coco_error("{\"annotations\": [{\"id\": 1, \"image_id\": 1, \"category_id\": 1, "
                        "\"bbox\": [1, 2, 3]}]}"),
             {"bbox of 3 numbers (expected 4"});
  expect_has(
      coco_error("{\"annotations\": [{\"id\": 1, \"image_id\": 1, \"category_id\": 1, \"bbox\": "
                 "[1, 2, 3, 4]},"
                 "{\"id\": 1, \"image_id\": 2, \"category_id\": 1, \"bbox\": [1, 2, 3, 4]}]}"),
      {"annotation id 1 appears more than once"});
  // Deep nesting in a skipped value is refused, not recursed into.
  expect_has(coco_error("{\"info\": " + std::string(100000, '[') + std::string(100000, ']') + "}"),
             {"nesting too deep"});
  expect_has(coco_error("{\"images\": [{\"id\": 1, \"file_name\": \"a\xff.jpg\"}]}"),
             {"invalid UTF-8 in string"});

  // A missing image file is reported by get(), naming the path.
  TempDir t2;
  copy_tree(coco_root(), t2 / "coco");
  std::filesystem::remove(t2 / "coco/images/000042.jpg");
  CocoDetection ds(t2 / "coco/images", t2 / "coco/instances.json");
  EXPECT_EMBER_ERROR(ds.get(2), "CocoDetection: cannot load image 42", "000042.jpg");
  EXPECT_EMBER_ERROR(ds.get(4), "CocoDetection: index 4 is out of range");
  EXPECT_EMBER_ERROR(ds.target(-1), "index -1 is out of range");
}

TEST(FormatsCoco, MissingOptionalFields) {
  TempDir tmp;
  std::filesystem::create_directories(tmp / "images");
  write_bytes(
      tmp / "a.json",
      "{\"images\":[{\"id\":3,\"file_name\":\"x.png\",\"width\":null}],"
      "\"annotations\":[{\"id\":8,\"image_id\":3,\"category_id\":2,\"bbox\":[1,1,2.5,4],"
      "\"iscrowd\":true}],"
      "\"categories\":[{\"id\":2,\"name\":\"n\",\"supercategory\":null,\"keypoints\":[\"a\"]}]}");
  CocoDetection ds(tmp / "images", tmp / "a.json");
  CocoTarget t = ds.target(0);
  EXPECT_EQ(t.annotations[0].area, 10.0);  // width * height when the file has no area
  EXPECT_EQ(t.annotations[0].iscrowd, 1);
  EXPECT_EQ(ds.images()[0].width, 0);
  EXPECT_EQ(ds.categories()[0].supercategory, "");
}

}  // namespace ember::datasets

}  // namespace formats_coco_test
