// Samplers: orders and distributions (fixed seeds, statistical bounds), batch
// grouping, and DistributedSampler's partitioning checked against torch's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include <ember/datasets/distributed_sampler.h>
#include <ember/datasets/sampler.h>
#include <ember/ember.h>

#include "loader_test_util.h"
#include "npy.h"

using namespace ember;
using namespace ember::datasets;
using namespace ember::testing;

namespace samplers_test {

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

std::vector<int64_t> sorted(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// |count - n p| within 5 binomial standard deviations (a fixed seed makes the
// test deterministic; the bound only documents that the draw is plausible).
void expect_binomial(int64_t count, int64_t n, double p, const std::string& what) {
  const double mean = static_cast<double>(n) * p;
  const double sd = std::sqrt(static_cast<double>(n) * p * (1 - p));
  EXPECT_LE(std::abs(static_cast<double>(count) - mean), 5 * sd) << what << ": " << count << " vs " << mean;
}

TEST(Samplers, Sequential) {
  SequentialSampler s(5);
  EXPECT_EQ(s.size(), 5);
  EXPECT_EQ(s.indices(), iota(5));
  EXPECT_TRUE(SequentialSampler(0).indices().empty());
}

TEST(Samplers, RandomSamplerPermutesUniformly) {
  auto generator = std::make_shared<Generator>(7);
  RandomSampler sampler(10, {.generator = generator});
  EXPECT_EQ(sampler.size(), 10);
  std::vector<int64_t> first_counts(10, 0);
  std::set<std::vector<int64_t>> distinct;
  const int passes = 20000;
  for (int pass = 0; pass < passes; ++pass) {
    const std::vector<int64_t> order = sampler.indices();
    ASSERT_EQ(sorted(order), iota(10));
    ++first_counts[static_cast<size_t>(order[0])];
    if (pass < 100) distinct.insert(order);
  }
  for (int64_t i = 0; i < 10; ++i) expect_binomial(first_counts[static_cast<size_t>(i)], passes, 0.1, "first = " + std::to_string(i));
  EXPECT_EQ(distinct.size(), 100u);

  // The same generator seed replays the same orders.
  RandomSampler a(10, {.generator = std::make_shared<Generator>(3)});
  RandomSampler b(10, {.generator = std::make_shared<Generator>(3)});
  EXPECT_EQ(a.indices(), b.indices());
}

TEST(Samplers, RandomSamplerWithReplacementAndNumSamples) {
  RandomSampler sampler(7, {.replacement = true, .num_samples = 70000, .generator = std::make_shared<Generator>(1)});
  EXPECT_EQ(sampler.size(), 70000);
  const std::vector<int64_t> draws = sampler.indices();
  ASSERT_EQ(draws.size(), 70000u);
  std::vector<int64_t> counts(7, 0);
  for (int64_t d : draws) {
    ASSERT_TRUE(d >= 0 && d < 7);
    ++counts[static_cast<size_t>(d)];
  }
  for (int64_t i = 0; i < 7; ++i) expect_binomial(counts[static_cast<size_t>(i)], 70000, 1.0 / 7, "value " + std::to_string(i));

  // Without replacement, more samples than the dataset chain permutations (torch 1.13).
  RandomSampler chained(4, {.num_samples = 10, .generator = std::make_shared<Generator>(2)});
  const std::vector<int64_t> c = chained.indices();
  ASSERT_EQ(c.size(), 10u);
  EXPECT_EQ(sorted({c.begin(), c.begin() + 4}), iota(4));
  EXPECT_EQ(sorted({c.begin() + 4, c.begin() + 8}), iota(4));
  EXPECT_EQ(std::set<int64_t>(c.begin() + 8, c.end()).size(), 2u);
}

TEST(Samplers, RandomSamplerWithoutGeneratorDrawsFromTheDefault) {
  RandomSampler sampler(30);
  Generator g(5);
  std::vector<int64_t> a, b;
  {
    GeneratorScope scope(g);
    a = sampler.indices();
  }
  g.manual_seed(5);
  {
    GeneratorScope scope(g);
    b = sampler.indices();
  }
  EXPECT_EQ(a, b);
}

TEST(Samplers, RandomSamplerErrors) {
  EXPECT_NE(thrown_message([] { RandomSampler(5, {.num_samples = 0}); }).find("num_samples should be a positive integer value, but got num_samples=0"),
            std::string::npos);
  EXPECT_NE(thrown_message([] { RandomSampler(0); }).find("RandomSampler"), std::string::npos);
}

TEST(Samplers, SubsetRandomSampler) {
  SubsetRandomSampler sampler({10, 20, 30, 40}, std::make_shared<Generator>(0));
  EXPECT_EQ(sampler.size(), 4);
  std::map<int64_t, int> first;
  for (int pass = 0; pass < 4000; ++pass) {
    const std::vector<int64_t> order = sampler.indices();
    EXPECT_EQ(sorted(order), (std::vector<int64_t>{10, 20, 30, 40}));
    ++first[order[0]];
  }
  for (int64_t v : {10, 20, 30, 40}) expect_binomial(first[v], 4000, 0.25, "first = " + std::to_string(v));
}

TEST(Samplers, WeightedRandomSamplerFollowsTheWeights) {
  WeightedRandomSampler sampler({1, 2, 3, 4}, 100000, true, std::make_shared<Generator>(42));
  const std::vector<int64_t> draws = sampler.indices();
  ASSERT_EQ(draws.size(), 100000u);
  std::vector<int64_t> counts(4, 0);
  for (int64_t d : draws) ++counts[static_cast<size_t>(d)];
  for (int64_t i = 0; i < 4; ++i)
    expect_binomial(counts[static_cast<size_t>(i)], 100000, (i + 1) / 10.0, "index " + std::to_string(i));

  // Without replacement: distinct indices, never a zero weight.
  WeightedRandomSampler distinct({0, 1, 1, 5, 0.5}, 3, false, std::make_shared<Generator>(1));
  int64_t heavy = 0;
  for (int pass = 0; pass < 2000; ++pass) {
    const std::vector<int64_t> d = distinct.indices();
    ASSERT_EQ(std::set<int64_t>(d.begin(), d.end()).size(), 3u);
    EXPECT_EQ(std::count(d.begin(), d.end(), 0), 0);
    heavy += std::count(d.begin(), d.end(), 3);
  }
  EXPECT_GT(heavy, 1900);  // weight 5 of 7.5: picked in nearly every draw of 3
}

TEST(Samplers, WeightedRandomSamplerErrors) {
  EXPECT_NE(thrown_message([] { WeightedRandomSampler({1, -1}, 2); }).find("weight 1 is -1"), std::string::npos);
  EXPECT_NE(thrown_message([] { WeightedRandomSampler({0, 0}, 2); }).find("the weights sum to zero"), std::string::npos);
  EXPECT_NE(thrown_message([] { WeightedRandomSampler({1, 0, 1}, 3, false); })
                .find("cannot draw 3 samples without replacement from 2 non-zero weights"),
            std::string::npos);
  EXPECT_NE(thrown_message([] { WeightedRandomSampler({1}, 0); }).find("num_samples should be a positive integer"),
            std::string::npos);
}

TEST(Samplers, BatchSamplerGroupsIndices) {
  auto base = std::make_shared<SequentialSampler>(10);
  BatchSampler keep(base, 3, false);
  EXPECT_EQ(keep.size(), 4);
  EXPECT_EQ(keep.batches(), (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9}}));
  BatchSampler drop(base, 3, true);
  EXPECT_EQ(drop.size(), 3);
  EXPECT_EQ(drop.batches().size(), 3u);
  BatchSampler exact(base, 5, true);
  EXPECT_EQ(exact.size(), 2);
  EXPECT_NE(thrown_message([&] { BatchSampler(base, 0, false); }).find("batch_size should be a positive integer value"),
            std::string::npos);
}

// torch's DistributedSampler(range(n), r, rank, shuffle=False, drop_last) for
// every rank (scripts/fixtures/samplers.py).
TEST(DistributedSampler, PartitionMatchesTorch) {
  int cases = 0;
  for (int64_t n : {1, 2, 5, 10, 11, 17, 23}) {
    for (int64_t r : {1, 2, 3, 4, 7, 8}) {
      for (bool drop_last : {false, true}) {
        const std::string name = "datasets/samplers/distributed_n" + std::to_string(n) + "_r" + std::to_string(r) +
                                 (drop_last ? "_drop" : "_keep") + ".npy";
        const Tensor expected = load_npy(fixture_path(name));
        ASSERT_EQ(expected.size(0), r) << name;
        for (int64_t rank = 0; rank < r; ++rank) {
          DistributedSampler sampler(n, {.num_replicas = r, .rank = rank, .shuffle = false, .drop_last = drop_last});
          EXPECT_EQ(sampler.size(), expected.size(1)) << name;
          EXPECT_EQ(sampler.total_size(), expected.size(1) * r) << name;
          EXPECT_EQ(sampler.indices(), to_vector(expected[rank])) << name << " rank " << rank;
        }
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 84);
}

TEST(DistributedSampler, ShuffledShardsPartitionTheDataset) {
  for (bool drop_last : {false, true}) {
    const int64_t n = 103, r = 4;
    for (int64_t epoch : {0, 1}) {
      std::vector<int64_t> all;
      std::vector<std::vector<int64_t>> shards;
      for (int64_t rank = 0; rank < r; ++rank) {
        DistributedSampler sampler(n, {.num_replicas = r, .rank = rank, .seed = 17, .drop_last = drop_last});
        sampler.set_epoch(epoch);
        shards.push_back(sampler.indices());
        EXPECT_EQ(static_cast<int64_t>(shards.back().size()), sampler.size());
        all.insert(all.end(), shards.back().begin(), shards.back().end());
      }
      std::vector<int64_t> distinct = sorted(all);
      distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
      if (drop_last) {
        // 25 per rank, 100 distinct indices, none repeated across ranks.
        EXPECT_EQ(all.size(), 100u);
        EXPECT_EQ(distinct.size(), 100u);
      } else {
        // 26 per rank: all 103 indices, plus the permutation's first 1 repeated.
        EXPECT_EQ(all.size(), 104u);
        EXPECT_EQ(distinct, iota(n));
      }
    }
  }
  // Epochs differ; the same epoch gives the same order on every call.
  DistributedSampler s(50, {.num_replicas = 2, .rank = 1, .seed = 3});
  const auto e0 = s.indices();
  EXPECT_EQ(s.indices(), e0);
  s.set_epoch(1);
  EXPECT_NE(s.indices(), e0);
}

TEST(DistributedSampler, Errors) {
  EXPECT_EQ(thrown_message([] { DistributedSampler(10, {.num_replicas = 2, .rank = 2}); }),
            "DistributedSampler: invalid rank 2, rank should be in the interval [0, 1]");
  EXPECT_NE(thrown_message([] { DistributedSampler(10, {.num_replicas = 0}); }).find("num_replicas should be positive"),
            std::string::npos);
}

}  // namespace samplers_test
