// Random sampling: the Philox engine, Generator state, distribution moments and
// histograms on fixed seeds, reproducibility, thread-count independence and
// argument errors; plus the deterministic-algorithms flag.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <thread>
#include <vector>

#include <ember/ember.h>

#include "kernels/philox.h"
#include "test_util.h"

using namespace ember;

namespace random_test {

std::vector<double> values(const Tensor& t) {
  Tensor d = t.to(kFloat64).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

struct Moments {
  double mean = 0, var = 0;
};
Moments moments(const std::vector<double>& v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= static_cast<double>(v.size() - 1);
  return m;
}

// Pearson's chi-square of observed counts against expected probabilities.
double chi_square(const std::vector<int64_t>& counts, const std::vector<double>& probs) {
  double total = 0;
  for (int64_t c : counts) total += static_cast<double>(c);
  double chi2 = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const double expected = total * probs[i];
    chi2 += (counts[i] - expected) * (counts[i] - expected) / expected;
  }
  return chi2;
}
// Upper bound that a chi-square with `df` degrees of freedom exceeds with
// probability ~1e-6 (Wilson-Hilferty, z = 4.75): a fixed-seed test far from flaky.
double chi_square_limit(int df) {
  const double k = df, z = 4.75;
  const double t = 1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k));
  return k * t * t * t;
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

constexpr int64_t kN = 1 << 20;

TEST(Random, PhiloxKnownAnswers) {
  // Random123's kat_vectors for philox4x32_10.
  auto a = philox::philox4x32_10(0, 0, 0);
  EXPECT_EQ(a, (philox::Block{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  auto b = philox::philox4x32_10(~0ull, ~0ull, ~0ull);
  EXPECT_EQ(b, (philox::Block{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  auto c = philox::philox4x32_10(0x299f31d0a4093822ull, 0x85a308d3243f6a88ull, 0x0370734413198a2eull);
  EXPECT_EQ(c, (philox::Block{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(Random, GeneratorStateAndReproducibility) {
  Generator g(42);
  EXPECT_EQ(g.initial_seed(), 42u);
  Tensor a = rand({100}, {}, &g);
  Tensor b = rand({100}, {}, &g);
  EXPECT_FALSE(a.equal(b));  // the stream advances
  g.manual_seed(42);
  EXPECT_TRUE(rand({100}, {}, &g).equal(a));

  // Copies carry the state; get/set_state round-trips it.
  Generator copy = g;
  Tensor state = g.get_state();
  EXPECT_EQ(state.dtype(), kUInt8);
  EXPECT_EQ(state.numel(), 16);
  Tensor next = randn({50}, {}, &g);
  EXPECT_TRUE(randn({50}, {}, &copy).equal(next));
  Generator other(7);
  other.set_state(state);
  EXPECT_TRUE(randn({50}, {}, &other).equal(next));
  EXPECT_THROW(other.set_state(zeros({8}, kUInt8)), Error);
  EXPECT_THROW(other.set_state(zeros({16}, kFloat32)), Error);

  // Different seeds differ; seed() picks and reports a fresh one.
  Generator g2(43);
  EXPECT_FALSE(rand({100}, {}, &g2).equal(a));
  const uint64_t s = g2.seed();
  EXPECT_EQ(g2.initial_seed(), s);

  // Default generator through ember::manual_seed.
  manual_seed(123);
  Tensor d1 = randint(0, 1000, {20});
  manual_seed(123);
  EXPECT_TRUE(randint(0, 1000, {20}).equal(d1));
  EXPECT_EQ(default_generator().initial_seed(), 123u);
}

TEST(Random, LayoutDoesNotChangeValues) {
  // Values follow the logical order, whatever the strides.
  Generator g1(5), g2(5);
  Tensor strided = empty({4, 3}).t();
  strided.uniform_(0, 1, &g1);
  Tensor plain = empty({3, 4});
  plain.uniform_(0, 1, &g2);
  EXPECT_TRUE(strided.equal(plain));
}

TEST(Random, IndependentOfThreadCount) {
  const int saved = get_num_threads();
  auto draw = [] {
    Generator g(2024);
    std::vector<Tensor> out;
    out.push_back(rand({100003}, {}, &g));
    out.push_back(randn({100003}, kFloat64, &g));
    out.push_back(randint(-5, 17, {70001}, {}, &g));
    out.push_back(bernoulli(full({50001}, 0.3), &g));
    out.push_back(empty({60001}, kFloat16).exponential_(2.0, &g));
    out.push_back(multinomial(rand({64, 30}, {}, &g), 10, false, &g));
    out.push_back(multinomial(rand({64, 30}, {}, &g), 50, true, &g));
    out.push_back(randperm(1000, {}, &g));
    return out;
  };
  set_num_threads(1);
  auto one = draw();
  set_num_threads(2);
  auto two = draw();
  set_num_threads(saved);
  for (size_t i = 0; i < one.size(); ++i) EXPECT_TRUE(one[i].equal(two[i])) << "draw " << i;
}

TEST(Random, UniformMomentsAndHistogram) {
  Generator g(1);
  for (DType dt : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    auto v = values(rand({kN}, dt, &g));
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    EXPECT_GE(*lo, 0.0) << dt;
    EXPECT_LT(*hi, 1.0) << dt;
    const Moments m = moments(v);
    const double tol = dt == kBFloat16 ? 5e-3 : 2e-3;  // bfloat16 uniforms have 8 bits
    EXPECT_NEAR(m.mean, 0.5 - (dt == kBFloat16 ? 1.0 / 512 : dt == kFloat16 ? 1.0 / 4096 : 0), tol) << dt;
    EXPECT_NEAR(m.var, 1.0 / 12, 2e-3) << dt;
    if (dt == kFloat32 || dt == kFloat64) {
      std::vector<int64_t> counts(100, 0);
      for (double x : v) ++counts[static_cast<size_t>(x * 100)];
      EXPECT_LT(chi_square(counts, std::vector<double>(100, 0.01)), chi_square_limit(99)) << dt;
    }
  }
  Tensor t = empty({kN}, kFloat64);
  t.uniform_(-3, 5, &g);
  const Moments m = moments(values(t));
  EXPECT_NEAR(m.mean, 1.0, 0.02);
  EXPECT_NEAR(m.var, 64.0 / 12, 0.05);
}

TEST(Random, NormalMomentsAndHistogram) {
  Generator g(2);
  for (DType dt : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    auto v = values(randn({kN}, dt, &g));
    const Moments m = moments(v);
    EXPECT_NEAR(m.mean, 0.0, 5e-3) << dt;
    EXPECT_NEAR(m.var, 1.0, dt == kBFloat16 ? 2e-2 : 1e-2) << dt;
    if (dt == kFloat32 || dt == kFloat64) {
      // 40 bins of width 0.2 over [-4, 4] plus two tails.
      std::vector<int64_t> counts(42, 0);
      for (double x : v) {
        const int bin = x < -4 ? 0 : x >= 4 ? 41 : 1 + static_cast<int>((x + 4) / 0.2);
        ++counts[std::min(bin, 40)];
      }
      std::vector<double> probs(42);
      probs[0] = normal_cdf(-4);
      probs[41] = 1 - normal_cdf(4);
      for (int b = 0; b < 40; ++b) probs[b + 1] = normal_cdf(-4 + 0.2 * (b + 1)) - normal_cdf(-4 + 0.2 * b);
      EXPECT_LT(chi_square(counts, probs), chi_square_limit(41)) << dt;
    }
  }
  Tensor t = empty({kN});
  t.normal_(3, 0.5, &g);
  const Moments m = moments(values(t));
  EXPECT_NEAR(m.mean, 3.0, 3e-3);
  EXPECT_NEAR(m.var, 0.25, 3e-3);
  // normal() with tensor and scalar parameters.
  Tensor means = tensor({-10.0, 0.0, 10.0}, kFloat64).unsqueeze(1).expand({3, 100000});
  Tensor stds = tensor({1.0, 2.0, 0.0}, kFloat64).unsqueeze(1);
  Tensor s = normal(means, stds, &g);
  EXPECT_EQ(s.sizes(), IntArrayRef({3, 100000}));
  const Moments r0 = moments(values(s[0])), r1 = moments(values(s[1]));
  EXPECT_NEAR(r0.mean, -10, 0.02);
  EXPECT_NEAR(r0.var, 1, 0.02);
  EXPECT_NEAR(r1.var, 4, 0.08);
  EXPECT_TRUE(s[2].equal(full({100000}, 10.0, kFloat64)));
  EXPECT_NEAR(moments(values(normal(tensor({5.f}).expand({200000}), 2.0, &g))).var, 4.0, 0.06);
  EXPECT_NEAR(moments(values(normal(-1.0, full({200000}, 0.5f), &g))).mean, -1.0, 0.01);
  EXPECT_NEAR(moments(values(normal(2.0, 3.0, {200000}, kFloat64, &g))).var, 9.0, 0.15);
}

TEST(Random, ExponentialGeometricBernoulli) {
  Generator g(3);
  for (DType dt : {kFloat32, kFloat64, kFloat16}) {
    Tensor e = empty({kN}, dt);
    e.exponential_(2.0, &g);
    const Moments m = moments(values(e));
    EXPECT_NEAR(m.mean, 0.5, 5e-3) << dt;
    EXPECT_NEAR(m.var, 0.25, 5e-3) << dt;
    EXPECT_GE(values(e.min())[0], 0.0);
  }
  for (DType dt : {kFloat32, kInt64}) {
    Tensor geo = empty({kN}, dt);
    geo.geometric_(0.25, &g);
    const Moments m = moments(values(geo));
    EXPECT_NEAR(m.mean, 4.0, 0.02) << dt;
    EXPECT_NEAR(m.var, 12.0, 0.2) << dt;
    EXPECT_GE(values(geo.min())[0], 1.0);
  }
  for (DType dt : {kFloat32, kBool, kUInt8, kFloat64}) {
    Tensor b = empty({kN}, dt);
    b.bernoulli_(0.3, &g);
    EXPECT_NEAR(moments(values(b)).mean, 0.3, 3e-3) << dt;
  }
  // Tensor probabilities, broadcast per column; exact 0 and 1 stay exact.
  Tensor p = tensor({0.0, 0.25, 1.0, 0.9}, kFloat64);
  Tensor b = empty({200000, 4});
  b.bernoulli_(p, &g);
  Tensor col = b.mean(IntArrayRef(int64_t{0}));
  EXPECT_EQ(ember::testing::at<float>(col, {0}), 0.f);
  EXPECT_NEAR(ember::testing::at<float>(col, {1}), 0.25, 5e-3);
  EXPECT_EQ(ember::testing::at<float>(col, {2}), 1.f);
  EXPECT_NEAR(ember::testing::at<float>(col, {3}), 0.9, 5e-3);
  Tensor fb = bernoulli(full({kN}, 0.7, kFloat64), &g);
  EXPECT_EQ(fb.dtype(), kFloat64);
  EXPECT_NEAR(moments(values(fb)).mean, 0.7, 3e-3);
  EXPECT_NEAR(moments(values(full({kN}, 0.6f).bernoulli(&g))).mean, 0.6, 3e-3);
  EXPECT_NEAR(moments(values(bernoulli(empty({kN}, kInt32), 0.2, &g))).mean, 0.2, 3e-3);
}

TEST(Random, IntegersUniformOverRange) {
  Generator g(4);
  Tensor r = randint(-3, 7, {kN}, {}, &g);
  EXPECT_EQ(r.dtype(), kInt64);
  std::vector<int64_t> counts(10, 0);
  for (double x : values(r)) {
    ASSERT_GE(x, -3);
    ASSERT_LT(x, 7);
    ++counts[static_cast<size_t>(x + 3)];
  }
  EXPECT_LT(chi_square(counts, std::vector<double>(10, 0.1)), chi_square_limit(9));
  EXPECT_EQ(randint(5, {3}, kInt32, &g).dtype(), kInt32);
  EXPECT_EQ(randint(5, {3}, TensorOptions(), &g).dtype(), kInt64);
  Tensor like = randint_like(zeros({2, 3}, kInt16), 10, 20, {}, &g);
  EXPECT_EQ(like.dtype(), kInt16);
  EXPECT_EQ(like.sizes(), IntArrayRef({2, 3}));
  EXPECT_GE(values(like.min())[0], 10);
  EXPECT_LT(values(like.max())[0], 20);
  EXPECT_EQ(randint_like(zeros({4}), 3, {}, &g).dtype(), kFloat32);

  // random_ variants: full uint8 range, [0, to), [from, to), floats up to 2^24.
  Tensor u8 = empty({kN}, kUInt8);
  u8.random_(&g);
  std::vector<int64_t> byte_counts(256, 0);
  for (double x : values(u8)) ++byte_counts[static_cast<size_t>(x)];
  EXPECT_LT(chi_square(byte_counts, std::vector<double>(256, 1.0 / 256)), chi_square_limit(255));
  Tensor i64 = empty({1000}, kInt64);
  i64.random_(&g);
  EXPECT_GE(values(i64.min())[0], 0.0);
  EXPECT_GT(values(i64.max())[0], 1e18);  // covers the high bits
  Tensor f = empty({1000});
  f.random_(&g);
  EXPECT_LE(values(f.max())[0], 16777216.0);
  EXPECT_EQ(f.remainder(1).abs().sum().item<float>(), 0.f);
  Tensor small = empty({10000}, kInt8);
  small.random_(-100, 100, &g);
  EXPECT_GE(values(small.min())[0], -100);
  EXPECT_LT(values(small.max())[0], 100);
  small.random_(3, &g);
  EXPECT_EQ(values(small.max())[0], 2);
  Tensor big = empty({1000}, kInt64);
  big.random_(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), &g);
  EXPECT_LT(values(big.min())[0], -1e18);
}

TEST(Random, Randperm) {
  Generator g(5);
  for (int64_t n : {0, 1, 2, 17, 10000}) {
    Tensor p = randperm(n, {}, &g);
    EXPECT_EQ(p.dtype(), kInt64);
    std::vector<double> v = values(p);
    std::sort(v.begin(), v.end());
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(v[i], i) << "n=" << n;
  }
  EXPECT_EQ(randperm(5, kFloat32, &g).dtype(), kFloat32);
  // All 6 orders of 3 elements equally likely.
  std::vector<int64_t> counts(6, 0);
  for (int trial = 0; trial < 30000; ++trial) {
    auto v = values(randperm(3, {}, &g));
    const int code = static_cast<int>(v[0]) * 2 + (v[1] > v[2] ? 1 : 0);
    ++counts[code];
  }
  EXPECT_LT(chi_square(counts, std::vector<double>(6, 1.0 / 6)), chi_square_limit(5));
}

TEST(Random, Multinomial) {
  Generator g(6);
  const std::vector<double> probs = {0.1, 0.0, 0.4, 0.2, 0.3};
  Tensor p = tensor(probs, kFloat64).mul(7.0);  // unnormalized
  // With replacement, 1-d: frequencies follow probs; category 1 never drawn.
  Tensor s = multinomial(p, 200000, true, &g);
  EXPECT_EQ(s.dtype(), kInt64);
  EXPECT_EQ(s.sizes(), IntArrayRef({200000}));
  std::vector<int64_t> counts(5, 0);
  for (double x : values(s)) ++counts[static_cast<size_t>(x)];
  EXPECT_EQ(counts[1], 0);
  std::vector<int64_t> nz = {counts[0], counts[2], counts[3], counts[4]};
  EXPECT_LT(chi_square(nz, {0.1, 0.4, 0.2, 0.3}), chi_square_limit(3));

  // Without replacement, 2-d: distinct indices per row, never a zero category,
  // and the first draw follows probs.
  Tensor rows = p.unsqueeze(0).expand({20000, 5}).to(kFloat32);
  Tensor w = rows.multinomial(3, false, &g);
  EXPECT_EQ(w.sizes(), IntArrayRef({20000, 3}));
  std::vector<int64_t> first(5, 0);
  auto wv = values(w);
  for (int64_t r = 0; r < 20000; ++r) {
    std::set<double> seen(wv.begin() + r * 3, wv.begin() + r * 3 + 3);
    ASSERT_EQ(seen.size(), 3u);
    ASSERT_EQ(seen.count(1.0), 0u);
    ++first[static_cast<size_t>(wv[r * 3])];
  }
  std::vector<int64_t> first_nz = {first[0], first[2], first[3], first[4]};
  EXPECT_LT(chi_square(first_nz, {0.1, 0.4, 0.2, 0.3}), chi_square_limit(3));
  // Second draw given first = 2 (prob 0.4): the rest renormalized.
  std::vector<int64_t> second(5, 0);
  for (int64_t r = 0; r < 20000; ++r)
    if (wv[r * 3] == 2) ++second[static_cast<size_t>(wv[r * 3 + 1])];
  std::vector<int64_t> second_nz = {second[0], second[3], second[4]};
  EXPECT_LT(chi_square(second_nz, {1.0 / 6, 2.0 / 6, 3.0 / 6}), chi_square_limit(2));

  // Drawing every non-zero category gives a permutation of them.
  Tensor all = multinomial(tensor({1.f, 2.f, 3.f}), 3, false, &g);
  auto av = values(all);
  std::sort(av.begin(), av.end());
  EXPECT_EQ(av, (std::vector<double>{0, 1, 2}));
}

TEST(Random, ArgumentErrors) {
  Tensor f = empty({4});
  Tensor i = empty({4}, kInt64);
  EXPECT_THROW(randint(5, 5, {3}), Error);
  EXPECT_THROW(randint(5, 2, {3}), Error);
  EXPECT_THROW(randint(0, 300, {3}, kUInt8), Error);  // out of uint8's range
  EXPECT_THROW(i.random_(4, 4), Error);
  EXPECT_THROW(empty({2}, kComplex64).random_(), Error);
  EXPECT_THROW(f.uniform_(2, 1), Error);
  EXPECT_THROW(i.uniform_(0, 1), Error);
  EXPECT_THROW(f.normal_(0, -1), Error);
  EXPECT_THROW(f.exponential_(0), Error);
  EXPECT_THROW(f.geometric_(0), Error);
  EXPECT_THROW(f.geometric_(1), Error);
  EXPECT_THROW(f.bernoulli_(1.5), Error);
  EXPECT_THROW(f.bernoulli_(-0.1), Error);
  EXPECT_THROW(f.bernoulli_(tensor({0.5f, 2.f, 0.1f, 0.2f})), Error);
  EXPECT_THROW(f.bernoulli_(tensor({0.5f, 0.2f})), Error);  // doesn't broadcast
  EXPECT_THROW(bernoulli(tensor({1, 0})), Error);           // integer probabilities
  EXPECT_THROW(normal(zeros({3}), tensor({1.f, -1.f, 1.f})), Error);
  EXPECT_THROW(normal(zeros({3}), -2.0), Error);
  EXPECT_THROW(normal(zeros({3}), ones({4})), Error);  // shapes don't broadcast
  EXPECT_THROW(rand({3}, kInt64), Error);
  EXPECT_THROW(randn({3}, kInt32), Error);
  EXPECT_THROW(randperm(-1), Error);
  EXPECT_THROW(randperm(300, kInt8), Error);
  EXPECT_THROW(multinomial(tensor({0.2f, 0.f, 0.f}), 2, false), Error);  // too few non-zero
  EXPECT_THROW(multinomial(tensor({0.2f, 0.8f}), 3, false), Error);
  EXPECT_THROW(multinomial(tensor({0.2f, -0.1f}), 1, true), Error);
  EXPECT_THROW(multinomial(tensor({0.f, 0.f}), 1, true), Error);
  EXPECT_THROW(multinomial(tensor({0.5f, NAN}), 1, true), Error);
  EXPECT_THROW(multinomial(tensor({0.5f, 0.5f}), 0, true), Error);
  EXPECT_THROW(multinomial(ones({2, 2, 2}), 1, true), Error);
  EXPECT_THROW(multinomial(tensor({1, 2}), 1, true), Error);
  try {
    randint(3, 3, {1});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("randint"), std::string::npos) << e.what();
  }
}

TEST(Random, EmptyOutputsConsumeNothing) {
  Generator g(9);
  const uint64_t before = g.offset();
  EXPECT_EQ(rand({0, 3}, {}, &g).numel(), 0);
  EXPECT_EQ(g.offset(), before);
  rand({10}, {}, &g);
  EXPECT_EQ(g.offset(), before + 3);  // 4 float samples per Philox block
}

// A stand-in for an op with only a nondeterministic implementation (no CPU op
// in Ember has one; see determinism.h).
Tensor nondeterministic_op(const Tensor& t) {
  detail::alert_not_deterministic("nondeterministic_op");
  return t;
}

TEST(Determinism, FlagAndAlert) {
  EXPECT_FALSE(are_deterministic_algorithms_enabled());
  EXPECT_NO_THROW(nondeterministic_op(ones({1})));
  set_deterministic(true);
  EXPECT_TRUE(are_deterministic_algorithms_enabled());
  try {
    nondeterministic_op(ones({1}));
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nondeterministic_op"), std::string::npos) << e.what();
  }
  // The CPU ops of this area stay available with the flag on.
  EXPECT_NO_THROW(mm(ones({2, 2}), ones({2, 2})));
  EXPECT_NO_THROW(rand({4}));
  use_deterministic_algorithms(false);
  EXPECT_FALSE(are_deterministic_algorithms_enabled());
}

TEST(Random, ScalarDraws) {
  Generator g(7);
  // uniform_scalar reads block 0 as uniform_double(lo word, hi word).
  const philox::Block b = philox::philox4x32_10(7, 0);
  EXPECT_DOUBLE_EQ(uniform_scalar(2.0, 6.0, &g), 2.0 + 4.0 * philox::uniform_double(b[0], b[1]));
  EXPECT_EQ(g.offset(), 1u);
  EXPECT_EQ(uniform_scalar(3.0, 3.0, &g), 3.0);

  // randint_scalar covers [low, high) evenly (chi-square over 10 bins, 20000 draws).
  std::vector<int> counts(10, 0);
  for (int i = 0; i < 20000; ++i) {
    const int64_t v = randint_scalar(-5, 5, &g);
    ASSERT_GE(v, -5);
    ASSERT_LT(v, 5);
    ++counts[static_cast<size_t>(v + 5)];
  }
  double chi2 = 0;
  for (int c : counts) chi2 += (c - 2000.0) * (c - 2000.0) / 2000.0;
  EXPECT_LT(chi2, 27.9);  // p = 0.001 for 9 degrees of freedom
  EXPECT_EQ(randint_scalar(INT64_MIN, INT64_MAX, &g) < INT64_MAX, true);

  EXPECT_THROW(uniform_scalar(1.0, 0.0), Error);
  EXPECT_THROW(uniform_scalar(0.0, INFINITY), Error);
  EXPECT_THROW(randint_scalar(3, 3), Error);
}

TEST(Random, GeneratorScopeRedirectsTheDefault) {
  manual_seed(1);
  const Tensor plain = rand({5});
  Generator mine(99);
  Tensor scoped, nested_inner;
  {
    GeneratorScope scope(mine);
    EXPECT_EQ(&default_generator(), &mine);
    scoped = rand({5});
    Generator inner(5);
    {
      GeneratorScope nested(inner);
      nested_inner = rand({5});
    }
    EXPECT_EQ(&default_generator(), &mine);
  }
  EXPECT_EQ(&default_generator(), &global_generator());
  Generator same(99), five(5);
  EXPECT_TRUE(equal(scoped, rand({5}, {}, &same)));
  EXPECT_TRUE(equal(nested_inner, rand({5}, {}, &five)));
  // The global stream did not move while the scope was active.
  manual_seed(1);
  EXPECT_TRUE(equal(plain, rand({5})));

  // Scopes are per thread: another thread still sees the global generator.
  GeneratorScope scope(mine);
  Generator* seen = nullptr;
  std::thread([&] { seen = &default_generator(); }).join();
  EXPECT_EQ(seen, &global_generator());
}

}  // namespace random_test
