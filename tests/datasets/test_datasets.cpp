// Dataset building blocks: Subset, ConcatDataset, random_split, TensorDataset
// and map (dataset transforms).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include <ember/datasets/concat_dataset.h>
#include <ember/datasets/map_dataset.h>
#include <ember/datasets/subset.h>
#include <ember/datasets/tensor_dataset.h>
#include <ember/ember.h>

#include "loader_test_util.h"

using namespace ember;
using namespace ember::datasets;
using namespace ember::testing;

namespace datasets_test {

// Sample i is offset + i.
class Numbers : public Dataset<int64_t> {
 public:
  Numbers(int64_t n, int64_t offset = 0) : n_(n), offset_(offset) {}
  int64_t get(int64_t index) override {
    EMBER_CHECK(index >= 0 && index < n_, "Numbers: index ", index, " out of range");
    return offset_ + index;
  }
  int64_t size() const override { return n_; }

 private:
  int64_t n_, offset_;
};

TEST(Subset, IndexesThroughItsList) {
  auto base = std::make_shared<Numbers>(10, 100);
  Subset subset(base, {7, 2, 2, 9});
  static_assert(std::is_same_v<decltype(subset), Subset<int64_t>>);
  EXPECT_EQ(subset.size(), 4);
  EXPECT_EQ(subset.get(0), 107);
  EXPECT_EQ(subset.get(2), 102);
  EXPECT_EQ(subset.get(3), 109);
  EXPECT_EQ(thrown_message([&] { subset.get(4); }), "Subset: index 4 is out of range for a subset of size 4");
  EXPECT_EQ(thrown_message([&] { Subset(base, {1, 10}); }),
            "Subset: index 10 (at position 1) is out of range for a dataset of size 10");
}

TEST(ConcatDataset, MapsIndicesAcrossParts) {
  std::vector<DatasetPtr<int64_t>> parts{std::make_shared<Numbers>(3, 0), std::make_shared<Numbers>(0, 50),
                                         std::make_shared<Numbers>(4, 100)};
  ConcatDataset<int64_t> all(parts);
  EXPECT_EQ(all.size(), 7);
  EXPECT_EQ(all.cumulative_sizes(), (std::vector<int64_t>{3, 3, 7}));
  std::vector<int64_t> values;
  for (int64_t i = 0; i < all.size(); ++i) values.push_back(all.get(i));
  EXPECT_EQ(values, (std::vector<int64_t>{0, 1, 2, 100, 101, 102, 103}));  // the empty part is skipped
  EXPECT_EQ(thrown_message([&] { all.get(7); }), "ConcatDataset: index 7 is out of range for a dataset of size 7");
  EXPECT_EQ(thrown_message([&] { all.get(-1); }), "ConcatDataset: index -1 is out of range for a dataset of size 7");
  EXPECT_EQ(thrown_message([] { ConcatDataset<int64_t>({}); }), "ConcatDataset: expected at least one dataset");
}

TEST(RandomSplit, LengthsGiveDisjointSubsetsCoveringTheDataset) {
  auto base = std::make_shared<Numbers>(20);
  Generator g(4);
  auto parts = random_split(base, {12, 5, 3}, &g);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0]->size(), 12);
  EXPECT_EQ(parts[1]->size(), 5);
  EXPECT_EQ(parts[2]->size(), 3);
  std::vector<int64_t> all;
  for (auto& p : parts)
    for (int64_t i = 0; i < p->size(); ++i) all.push_back(p->get(i));
  std::sort(all.begin(), all.end());
  std::vector<int64_t> expected(20);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(all, expected);

  // Same generator seed, same split; another seed, another split.
  Generator again(4);
  EXPECT_EQ(random_split(base, {12, 5, 3}, &again)[0]->indices(), parts[0]->indices());
  Generator other(5);
  EXPECT_NE(random_split(base, {12, 5, 3}, &other)[0]->indices(), parts[0]->indices());
}

TEST(RandomSplit, FractionsFollowTorchsRounding) {
  auto base = std::make_shared<Numbers>(10);
  // torch: floor(10 * 0.33) = 3 each, remainder 1 goes to the first split.
  auto thirds = random_split(base, {0.33, 0.33, 0.34});
  EXPECT_EQ(thirds[0]->size(), 4);
  EXPECT_EQ(thirds[1]->size(), 3);
  EXPECT_EQ(thirds[2]->size(), 3);
  EXPECT_EQ(datasets::detail::split_lengths(11, {0.25, 0.25, 0.25, 0.25}), (std::vector<int64_t>{3, 3, 3, 2}));
  EXPECT_EQ(datasets::detail::split_lengths(7, {0.8, 0.2}), (std::vector<int64_t>{6, 1}));

  EXPECT_EQ(thrown_message([&] { random_split(base, {8, 3}); }),
            "random_split: sum of input lengths (11) does not equal the length of the input dataset (10)");
  EXPECT_EQ(thrown_message([&] { random_split(base, {0.5, 0.6}); }), "random_split: fractions must sum to 1, got 1.1");
  EXPECT_EQ(thrown_message([&] { random_split(base, {1.5, -0.5}); }),
            "random_split: fraction at index 0 is 1.5, not between 0 and 1");
}

TEST(TensorDataset, RowsOfEachTensor) {
  Tensor x = arange(12, kFloat32).view({4, 3});
  Tensor y = tensor({5, 6, 7, 8});
  TensorDataset dataset({x, y});
  EXPECT_EQ(dataset.size(), 4);
  std::vector<Tensor> row = dataset.get(2);
  ASSERT_EQ(row.size(), 2u);
  EXPECT_TRUE(row[0].equal(tensor({6.f, 7.f, 8.f})));
  EXPECT_EQ(row[1].item<int64_t>(), 7);
  EXPECT_EQ(thrown_message([&] { TensorDataset({x, arange(3)}); }),
            "TensorDataset: size mismatch between tensors: tensor 0 has 4 rows and tensor 1 has 3");
  EXPECT_EQ(thrown_message([&] { dataset.get(4); }), "TensorDataset: index 4 is out of range for a dataset of size 4");
}

TEST(MapDataset, TransformsAndChains) {
  auto base = std::make_shared<Numbers>(5);
  auto doubled = map(base, [](int64_t v) { return 2 * v; });
  auto as_pair = map(doubled, [](int64_t v) { return std::pair<Tensor, int64_t>{full({2}, double(v)), v + 1}; });
  static_assert(std::is_same_v<decltype(as_pair)::element_type::SampleType, std::pair<Tensor, int64_t>>);
  EXPECT_EQ(as_pair->size(), 5);
  auto [t, label] = as_pair->get(3);
  EXPECT_EQ(t[0].item<float>(), 6.f);
  EXPECT_EQ(label, 7);
  // A mapped dataset is a Dataset: Subset and ConcatDataset take it.
  Subset sub(doubled, {4});
  EXPECT_EQ(sub.get(0), 8);
}

TEST(MapDataset, RandomTransformsFollowTheGeneratorScope) {
  auto base = std::make_shared<Numbers>(3);
  auto noisy = map(base, [](int64_t v) { return static_cast<double>(v) + uniform_scalar(0, 1); });
  Generator g(1);
  double a, b;
  {
    GeneratorScope scope(g);
    a = noisy->get(1);
  }
  g.manual_seed(1);
  {
    GeneratorScope scope(g);
    b = noisy->get(1);
  }
  EXPECT_EQ(a, b);
  EXPECT_GE(a, 1.0);
  EXPECT_LT(a, 2.0);
}

}  // namespace datasets_test
