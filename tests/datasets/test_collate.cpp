// default_collate: tensors, numbers, strings, nested standard containers,
// described structs, and the errors that name where a mismatch sits.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <ember/datasets/collate.h>
#include <ember/ember.h>

using namespace ember;
using namespace ember::datasets;

namespace {

// The message of the ember::Error that f throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

Tensor t(std::vector<float> v, std::vector<int64_t> shape) { return tensor(v).view(shape); }

}  // namespace

TEST(Collate, StacksTensorsAlongNewDim) {
  Tensor a = t({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = a * 10;
  Tensor batch = default_collate(std::vector<Tensor>{a, b});
  ASSERT_EQ(batch.sizes(), IntArrayRef({2, 2, 3}));
  EXPECT_TRUE(batch[0].equal(a));
  EXPECT_TRUE(batch[1].equal(b));
  EXPECT_EQ(batch.dtype(), kFloat32);
}

TEST(Collate, StacksNonContiguousViews) {
  Tensor base = arange(24, kFloat32).view({2, 3, 4});
  Tensor a = base[0].t();  // [4, 3], transposed
  Tensor b = base[1].t();
  Tensor batch = default_collate(std::vector<Tensor>{a, b});
  ASSERT_EQ(batch.sizes(), IntArrayRef({2, 4, 3}));
  EXPECT_TRUE(batch[0].equal(a));
  EXPECT_TRUE(batch[1].equal(b));
}

TEST(Collate, NumbersBecomeOneDimTensors) {
  Tensor i = default_collate(std::vector<int64_t>{3, -1, 7});
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_TRUE(i.equal(tensor({3, -1, 7})));

  Tensor small = default_collate(std::vector<int>{1, 2});  // a C++ int is a Python int: int64
  EXPECT_EQ(small.dtype(), kInt64);

  Tensor d = default_collate(std::vector<double>{0.5, 1.25});
  EXPECT_EQ(d.dtype(), kFloat64);  // torch collates Python floats as float64
  EXPECT_EQ(d[1].item<double>(), 1.25);

  Tensor f = default_collate(std::vector<float>{0.5f});
  EXPECT_EQ(f.dtype(), kFloat32);

  Tensor b = default_collate(std::vector<bool>{true, false, true});
  EXPECT_EQ(b.dtype(), kBool);
  EXPECT_TRUE(b.equal(tensor({true, false, true})));

  Tensor u = default_collate(std::vector<uint8_t>{255, 0});
  EXPECT_EQ(u.dtype(), kUInt8);
  EXPECT_EQ(u[0].item<int64_t>(), 255);
}

TEST(Collate, UnsignedTooLargeForInt64) {
  const std::string message = error_of([] { default_collate(std::vector<uint64_t>{1, ~0ULL}); });
  EXPECT_NE(message.find("batch element 1 does not fit in int64"), std::string::npos) << message;
}

TEST(Collate, StringsStayAList) {
  auto batch = default_collate(std::vector<std::string>{"a.jpg", "b.jpg"});
  static_assert(std::is_same_v<decltype(batch), std::vector<std::string>>);
  EXPECT_EQ(batch, (std::vector<std::string>{"a.jpg", "b.jpg"}));
}

TEST(Collate, PairOfImageAndLabel) {
  using Sample = std::pair<Tensor, int64_t>;
  std::vector<Sample> samples{{full({3, 2, 2}, 1.f), 4}, {full({3, 2, 2}, 2.f), 9}};
  auto [images, labels] = default_collate(samples);
  static_assert(std::is_same_v<collate_t<Sample>, std::pair<Tensor, Tensor>>);
  EXPECT_EQ(images.sizes(), IntArrayRef({2, 3, 2, 2}));
  EXPECT_EQ(images[1][0][0][0].item<float>(), 2.f);
  EXPECT_TRUE(labels.equal(tensor({4, 9})));
}

TEST(Collate, TupleRecursesIntoEachElement) {
  using Sample = std::tuple<Tensor, double, std::string, bool>;
  std::vector<Sample> samples{{ones({2}), 0.5, "x", true}, {zeros({2}), 1.5, "y", false}};
  auto [x, weight, name, flag] = default_collate(samples);
  EXPECT_TRUE(x.equal(tensor({{1.f, 1.f}, {0.f, 0.f}})));
  EXPECT_EQ(weight.dtype(), kFloat64);
  EXPECT_EQ(name, (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(flag.equal(tensor({true, false})));
}

TEST(Collate, VectorIsTransposedAsTorchDoesForLists) {
  // torch: default_collate([[1, 2, 3], [4, 5, 6]]) == [tensor([1, 4]), tensor([2, 5]), tensor([3, 6])]
  auto batch = default_collate(std::vector<std::vector<int64_t>>{{1, 2, 3}, {4, 5, 6}});
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_TRUE(batch[0].equal(tensor({1, 4})));
  EXPECT_TRUE(batch[1].equal(tensor({2, 5})));
  EXPECT_TRUE(batch[2].equal(tensor({3, 6})));
}

TEST(Collate, ArrayAndMap) {
  using Sample = std::map<std::string, std::array<Tensor, 2>>;
  std::vector<Sample> samples(3);
  for (int i = 0; i < 3; ++i) {
    samples[i]["boxes"] = {full({4}, float(i)), full({1}, float(-i))};
    samples[i]["mask"] = {full({2, 2}, float(i)), full({2}, float(i))};
  }
  auto batch = default_collate(samples);
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch.at("boxes")[0].sizes(), IntArrayRef({3, 4}));
  EXPECT_EQ(batch.at("boxes")[1][2][0].item<float>(), -2.f);
  EXPECT_EQ(batch.at("mask")[0].sizes(), IntArrayRef({3, 2, 2}));
}

TEST(Collate, NestedContainersThreeLevelsDeep) {
  using Inner = std::pair<std::vector<Tensor>, std::map<std::string, int64_t>>;
  using Sample = std::tuple<Inner, std::string>;
  std::vector<Sample> samples;
  for (int64_t i = 0; i < 4; ++i)
    samples.push_back({{{full({2}, float(i)), full({3}, float(10 * i))}, {{"id", i}, {"h", 2 * i}}}, "s"});
  auto [inner, names] = default_collate(samples);
  auto& [tensors, ids] = inner;
  ASSERT_EQ(tensors.size(), 2u);
  EXPECT_EQ(tensors[1].sizes(), IntArrayRef({4, 3}));
  EXPECT_EQ(tensors[1][3][0].item<float>(), 30.f);
  EXPECT_TRUE(ids.at("h").equal(tensor({0, 2, 4, 6})));
  EXPECT_EQ(names.size(), 4u);
}

// ---- described structs ----

struct DetectionBatch {
  Tensor image;
  Tensor label;
  std::vector<std::string> path;
  std::vector<Tensor> extras;
};

struct DetectionSample {
  Tensor image;
  int64_t label = 0;
  std::string path;
  std::vector<Tensor> extras;
  static constexpr auto collate_fields() {
    return std::tuple{collate_field("image", &DetectionSample::image, &DetectionBatch::image),
                      collate_field("label", &DetectionSample::label, &DetectionBatch::label),
                      collate_field("path", &DetectionSample::path, &DetectionBatch::path),
                      collate_field("extras", &DetectionSample::extras, &DetectionBatch::extras)};
  }
};

TEST(Collate, DescribedStructGivesItsBatchStruct) {
  std::vector<DetectionSample> samples;
  for (int64_t i = 0; i < 3; ++i)
    samples.push_back({full({1, 2, 2}, float(i)), 7 * i, "p" + std::to_string(i), {full({5}, 1.f)}});
  DetectionBatch batch = default_collate(samples);
  EXPECT_EQ(batch.image.sizes(), IntArrayRef({3, 1, 2, 2}));
  EXPECT_TRUE(batch.label.equal(tensor({0, 7, 14})));
  EXPECT_EQ(batch.path, (std::vector<std::string>{"p0", "p1", "p2"}));
  ASSERT_EQ(batch.extras.size(), 1u);
  EXPECT_EQ(batch.extras[0].sizes(), IntArrayRef({3, 5}));
}

// Its own batch type: every field batches to its own type.
struct Pair {
  Tensor input;
  Tensor target;
  static constexpr auto collate_fields() {
    return std::tuple{collate_field("input", &Pair::input), collate_field("target", &Pair::target)};
  }
};

// Described from outside, through the CollateFields specialization.
struct Foreign {
  Tensor x;
  double w = 0;
};
struct ForeignBatch {
  Tensor x;
  Tensor w;
};

template <>
struct ember::datasets::CollateFields<Foreign> {
  static constexpr auto fields() {
    return std::tuple{collate_field("x", &Foreign::x, &ForeignBatch::x), collate_field("w", &Foreign::w, &ForeignBatch::w)};
  }
};

TEST(Collate, StructAsItsOwnBatchAndForeignStruct) {
  Pair p = default_collate(std::vector<Pair>{{ones({2}), zeros({1})}, {ones({2}), ones({1})}});
  EXPECT_EQ(p.input.sizes(), IntArrayRef({2, 2}));
  EXPECT_TRUE(p.target.equal(tensor({{0.f}, {1.f}})));

  ForeignBatch f = default_collate(std::vector<Foreign>{{ones({1}), 0.25}, {ones({1}), 4.0}});
  EXPECT_EQ(f.w.dtype(), kFloat64);
  EXPECT_EQ(f.w[1].item<double>(), 4.0);
}

TEST(Collate, StructsNestInsideContainers) {
  using Sample = std::pair<DetectionSample, int64_t>;
  std::vector<Sample> samples{{{ones({2}), 1, "a", {}}, 5}, {{ones({2}), 2, "b", {}}, 6}};
  auto [detection, n] = default_collate(samples);
  EXPECT_TRUE(detection.label.equal(tensor({1, 2})));
  EXPECT_TRUE(n.equal(tensor({5, 6})));
}

// ---- errors ----

TEST(Collate, MismatchedShapesNameTheFieldAndShapes) {
  std::vector<DetectionSample> samples;
  samples.push_back({zeros({3, 32, 32}), 0, "a", {}});
  samples.push_back({zeros({3, 32, 32}), 0, "b", {}});
  samples.push_back({zeros({3, 28, 28}), 0, "c", {}});
  const std::string message = error_of([&] { default_collate(samples); });
  EXPECT_EQ(message,
            "default_collate: sample.image: tensors in a batch must have the same shape, got [3, 32, 32] in batch "
            "element 0 and [3, 28, 28] in batch element 2");
}

TEST(Collate, ErrorPathsThroughNestedContainers) {
  using Sample = std::tuple<int64_t, std::map<std::string, std::vector<Tensor>>>;
  std::vector<Sample> samples(2);
  std::get<1>(samples[0])["boxes"] = {zeros({4}), zeros({2, 4})};
  std::get<1>(samples[1])["boxes"] = {zeros({4}), zeros({3, 4})};
  EXPECT_EQ(error_of([&] { default_collate(samples); }),
            "default_collate: sample[1][\"boxes\"][1]: tensors in a batch must have the same shape, got [2, 4] in "
            "batch element 0 and [3, 4] in batch element 1");

  std::get<1>(samples[1])["boxes"] = {zeros({4})};
  EXPECT_EQ(error_of([&] { default_collate(samples); }),
            "default_collate: sample[1][\"boxes\"]: each std::vector in a batch must have the same size, got size 2 "
            "in batch element 0 and size 1 in batch element 1");
}

TEST(Collate, MapKeysMustMatch) {
  using Sample = std::pair<Tensor, std::map<std::string, int64_t>>;
  std::vector<Sample> samples{{ones({1}), {{"a", 1}, {"b", 2}}}, {ones({1}), {{"a", 1}}}};
  EXPECT_EQ(error_of([&] { default_collate(samples); }),
            "default_collate: sample.second: batch element 1 has no key \"b\" (batch element 0 has it); every map in "
            "a batch must have the same keys");
  samples[1].second = {{"a", 1}, {"b", 2}, {"c", 3}};
  EXPECT_EQ(error_of([&] { default_collate(samples); }),
            "default_collate: sample.second: batch element 1 has a key \"c\" that batch element 0 does not have; "
            "every map in a batch must have the same keys");
}

TEST(Collate, UndefinedTensorAndEmptyBatch) {
  EXPECT_EQ(error_of([] { default_collate(std::vector<Tensor>{ones({1}), Tensor()}); }),
            "default_collate: sample: batch element 1 is an undefined tensor");
  EXPECT_EQ(error_of([] { default_collate(std::vector<Tensor>{}); }), "default_collate: the batch is empty");
}
