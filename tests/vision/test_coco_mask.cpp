// vision::detection::mask (pycocotools.mask): hand-computed encodings,
// strings, boxes, areas, merges and IoUs (crowd, empty masks), and polygons
// against the numpy reimplementation of frPoly in
// scripts/fixtures/vision_coco_eval.py.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <ember/ember.h>
#include <ember/vision/detection/coco_mask.h>

#include "npy.h"

namespace ember {
namespace coco_mask_test {

namespace M = vision::detection::mask;
using testing::fixture_path;
using testing::load_npy;

template <class Fn>
void expect_error(Fn&& fn, const std::string& needle) {
  try {
    fn();
    FAIL() << "expected an ember::Error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

Tensor mask_of(std::vector<std::vector<uint8_t>> rows) {
  const int64_t h = static_cast<int64_t>(rows.size()), w = static_cast<int64_t>(rows[0].size());
  Tensor m = zeros({h, w}, kUInt8);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) m.data_ptr<uint8_t>()[y * w + x] = rows[y][x];
  return m;
}

TEST(CocoMask, EncodeDecodeAreaBoxByHand) {
  // Column-major runs: column 0 is 0 0 1, column 1 is 1 1 1, column 2 is 1 0 0.
  const Tensor m = mask_of({{0, 1, 1, 0}, {0, 1, 0, 0}, {1, 1, 0, 0}});
  const M::Rle r = M::encode(m);
  EXPECT_EQ(r.height, 3);
  EXPECT_EQ(r.width, 4);
  EXPECT_EQ(r.counts, (std::vector<uint32_t>{2, 5, 5}));
  EXPECT_TRUE(equal(M::decode(r), m));
  EXPECT_EQ(M::area(r), 5);
  // The 1-run crosses columns 0 -> 2: the box spans all rows (maskApi's rule).
  EXPECT_EQ(M::to_bbox(r), (std::array<double, 4>{0, 0, 3, 3}));
  // A mask starting with a 1: an empty first run.
  const M::Rle r2 = M::encode(mask_of({{1, 0}, {1, 0}}));
  EXPECT_EQ(r2.counts, (std::vector<uint32_t>{0, 2, 2}));
  EXPECT_EQ(M::to_bbox(r2), (std::array<double, 4>{0, 0, 1, 2}));
  // One pixel in the middle of a column: a box of one row.
  EXPECT_EQ(M::to_bbox(M::encode(mask_of({{0, 0}, {0, 1}, {0, 0}}))), (std::array<double, 4>{1, 1, 1, 1}));
  // Empty masks.
  const M::Rle empty = M::encode(zeros({3, 2}, kUInt8));
  EXPECT_EQ(empty.counts, (std::vector<uint32_t>{6}));
  EXPECT_EQ(M::area(empty), 0);
  EXPECT_EQ(M::to_bbox(empty), (std::array<double, 4>{0, 0, 0, 0}));
  EXPECT_EQ(M::encode_all(zeros({2, 3, 2}, kBool)).size(), 2u);
}

TEST(CocoMask, CompressedStringsByHand) {
  // 2 -> '2'; deltas after the second run, negative ones with the sign bit:
  // 1 - 3 = -2 -> 'N', 2 - 10 = -8 -> 'H'; 100 -> 'T3' (two groups);
  // 21 has bit 4 set, so a second group marks it positive: 'e0'.
  EXPECT_EQ(M::to_string({3, 4, {2, 5, 5}}), "255");
  EXPECT_EQ(M::to_string({4, 4, {0, 3, 10, 1, 2}}), "03:NH");
  EXPECT_EQ(M::to_string({11, 11, {100, 21}}), "T3e0");
  for (const M::Rle& r : {M::Rle{4, 4, {0, 3, 10, 1, 2}}, M::Rle{11, 11, {100, 21}}, M::Rle{3, 4, {2, 5, 5}}})
    EXPECT_EQ(M::from_string(M::to_string(r), r.height, r.width), r);
  expect_error([] { M::from_string("03:NH", 5, 5); }, "cover 16 pixels");
  expect_error([] { M::from_string("0\x7f", 4, 4); }, "is not a COCO RLE string");
}

TEST(CocoMask, MergeAndIouWithCrowdsAndEmptyMasks) {
  const Tensor a = mask_of({{1, 1, 0, 0}, {1, 1, 0, 0}});          // 4 pixels
  const Tensor b = mask_of({{0, 1, 1, 1}, {0, 1, 1, 1}});          // 6 pixels, 2 shared
  const M::Rle ra = M::encode(a), rb = M::encode(b);
  EXPECT_EQ(M::merge({ra, rb}), M::encode(a.logical_or(b).to(kUInt8)));
  EXPECT_EQ(M::merge({ra, rb}, true), M::encode(a.logical_and(b).to(kUInt8)));
  EXPECT_DOUBLE_EQ(M::iou(ra, rb, false), 2.0 / 8.0);
  // A crowd ground truth: the union is the detection's area.
  EXPECT_DOUBLE_EQ(M::iou(ra, rb, true), 2.0 / 4.0);
  EXPECT_DOUBLE_EQ(M::iou(rb, ra, true), 2.0 / 6.0);
  const M::Rle empty = M::encode(zeros({2, 4}, kUInt8));
  EXPECT_EQ(M::iou(empty, ra, false), 0.0);
  EXPECT_EQ(M::iou(ra, empty, true), 0.0);
  EXPECT_EQ(M::iou(empty, empty, false), 0.0);
  const Tensor ious = M::iou({ra, rb, empty}, {rb, ra}, {0, 1});
  EXPECT_EQ(ious.sizes(), (std::vector<int64_t>{3, 2}));
  EXPECT_DOUBLE_EQ(ious[0][0].item<double>(), 0.25);
  EXPECT_DOUBLE_EQ(ious[0][1].item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(ious[1][1].item<double>(), 2.0 / 6.0);
  EXPECT_EQ(ious[2][0].item<double>(), 0.0);
  // Uncompressed RLEs may hold empty runs; the walk takes them as they are.
  EXPECT_DOUBLE_EQ(M::iou(M::Rle{2, 4, {0, 0, 0, 4, 4}}, ra, false), 1.0);
  expect_error([&] { M::iou(ra, M::encode(zeros({4, 2}, kUInt8)), false); }, "a detection mask of 2 x 4");
}

TEST(CocoMask, PolygonsByHand) {
  // An axis-aligned polygon on integer corners covers the pixels inside it:
  // x 1..3, y 1..2 for the corners (1, 1) and (4, 3).
  const M::Rle r = M::from_polygon({1, 1, 4, 1, 4, 3, 1, 3}, 5, 6);
  Tensor expected = zeros({5, 6}, kUInt8);
  expected.slice(0, 1, 3).slice(1, 1, 4).fill_(1);
  EXPECT_TRUE(equal(M::decode(r), expected)) << M::decode(r);
  EXPECT_EQ(M::to_bbox(r), (std::array<double, 4>{1, 1, 3, 2}));
  // Two parts of one object merge; a polygon outside the image is empty.
  const M::Rle two = M::from_polygons({{1, 1, 4, 1, 4, 3, 1, 3}, {0, 4, 2, 4, 2, 5, 0, 5}}, 5, 6);
  EXPECT_EQ(M::area(two), 6 + 2);
  EXPECT_EQ(M::area(M::from_polygon({10, 10, 12, 10, 12, 12}, 5, 6)), 0);
  expect_error([] { M::from_polygon({1, 2, 3}, 5, 5); }, "a list of (x, y) points");
  // Two points: a line, which covers no pixel column's inside.
  EXPECT_EQ(M::area(M::from_polygon({1, 1, 4, 3}, 5, 6)), 0);
}

TEST(CocoMask, PolygonsMatchReference) {
  // Random polygons (convex and not, partly outside the image, repeated and
  // fractional vertices) rasterized by the numpy frPoly.
  const std::string dir = fixture_path("vision/vision_coco_eval/");
  std::ifstream f(dir + "polygons.txt");
  std::string line;
  int n = 0;
  while (std::getline(f, line)) {
    std::istringstream ss(line);
    int64_t h, w;
    std::string name;
    ss >> name >> h >> w;
    std::vector<double> xy;
    for (double v; ss >> v;) xy.push_back(v);
    const Tensor expected = load_npy(dir + name + ".npy").to(kUInt8);
    const M::Rle r = M::from_polygon(xy, h, w);
    EXPECT_TRUE(equal(M::decode(r), expected)) << name;
    // Canonical runs: re-encoding the decoded mask gives the same RLE.
    EXPECT_EQ(M::encode(M::decode(r)), r) << name;
    ++n;
  }
  EXPECT_GE(n, 20);
}

}  // namespace coco_mask_test
}  // namespace ember
