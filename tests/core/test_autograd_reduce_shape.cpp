// Backward formulas of reductions, scans, sorting/selection and shape /
// combination ops: gradcheck for every op (table-driven), gradgradcheck for
// the common ones, dims/keepdim variants, non-contiguous and zero-size
// inputs, ties, zeros in products, in-place and out= variants. Expected
// values in the hand-written tests are PyTorch's (derivatives.yaml).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "tensor_expect.h"
#include "gradcheck_tight.h"

namespace ember {
namespace autograd_reduce_shape_test {

using testing::kTightGradcheck;
using autograd::variable_list;
using testing::expect_error;
using testing::expect_tensor_near;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Deterministic float64 leaf.
Tensor leaf_randn(IntArrayRef sizes, uint64_t seed) {
  Generator gen(seed);
  return randn(sizes, kFloat64, &gen).requires_grad_();
}

Tensor leaf_crandn(IntArrayRef sizes, uint64_t seed) {
  Generator gen(seed);
  Tensor re = randn(sizes, kFloat64, &gen), im = randn(sizes, kFloat64, &gen);
  return (re.to(kComplex128) + im.to(kComplex128) * Scalar(complex128(0, 1))).detach().requires_grad_();
}

Tensor leaf(const Tensor& values) { return values.to(kFloat64).detach().requires_grad_(); }

// A non-contiguous leaf: the transpose of a (cols, rows) tensor.
Tensor leaf_transposed(int64_t rows, int64_t cols, uint64_t seed) {
  Generator gen(seed);
  Tensor t = randn({cols, rows}, kFloat64, &gen).t().detach().requires_grad_();
  EXPECT_FALSE(t.is_contiguous());
  return t;
}

// Input values spread well apart (gradcheck's eps must not reorder them).
Tensor leaf_spread(IntArrayRef sizes, uint64_t seed) {
  Generator gen(seed);
  const int64_t n = [&] {
    int64_t k = 1;
    for (int64_t s : sizes) k *= s;
    return k;
  }();
  Tensor perm = randperm(n, kInt64, &gen).to(kFloat64);
  // No zeros and no x, -x pairs (ties of |x| in norms).
  return (perm * 0.5 - 0.25 * static_cast<double>(n) + 0.13).reshape(sizes).detach().requires_grad_();
}

struct Case {
  std::string name;
  std::function<Tensor(const Tensor&)> f;
  Tensor input;
  bool gradgrad = false;
};

void run_cases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto fn = [&c](const variable_list& x) { return variable_list{c.f(x[0])}; };
    EXPECT_TRUE(autograd::gradcheck(fn, {c.input}, kTightGradcheck)) << c.name;
    if (c.gradgrad) {
      EXPECT_TRUE(autograd::gradgradcheck(fn, {c.input}, {}, kTightGradcheck)) << c.name;
    }
  }
}

// Gradient of sum(f(x) * w) for a fixed w, as a plain tensor.
Tensor grad_of(const std::function<Tensor(const Tensor&)>& f, const Tensor& x, const Tensor& w = Tensor()) {
  Tensor y = f(x);
  Tensor g = w.defined() ? w : ones_like(y);
  return autograd::grad({y}, {x}, {g})[0];
}

// ---------------------------------------------------------------- reductions

TEST(AutogradReduce, SumMeanGradcheck) {
  run_cases({
      {"sum", [](const Tensor& x) { return x.sum(); }, leaf_randn({3, 4}, 1), true},
      {"sum dim", [](const Tensor& x) { return x.sum({1}); }, leaf_randn({3, 4}, 2), true},
      {"sum dims keepdim", [](const Tensor& x) { return x.sum({0, 2}, true); }, leaf_randn({2, 3, 2}, 3), true},
      {"sum negative dim", [](const Tensor& x) { return x.sum({-1}); }, leaf_randn({2, 3, 2}, 4)},
      {"sum transposed", [](const Tensor& x) { return x.sum({0}); }, leaf_transposed(3, 4, 5)},
      {"sum 0-d", [](const Tensor& x) { return x.sum(); }, leaf(scalar_tensor(1.5, kFloat64))},
      {"sum complex", [](const Tensor& x) { return x.sum({1}); }, leaf_crandn({2, 3}, 6), true},
      {"mean", [](const Tensor& x) { return x.mean(); }, leaf_randn({3, 4}, 7), true},
      {"mean dims keepdim", [](const Tensor& x) { return x.mean({0, 2}, true); }, leaf_randn({2, 3, 2}, 8), true},
      {"mean dim", [](const Tensor& x) { return x.mean({1}); }, leaf_transposed(3, 4, 9)},
      {"mean complex", [](const Tensor& x) { return x.mean({0}); }, leaf_crandn({2, 3}, 10), true},
  });
}

TEST(AutogradReduce, SumMeanDtypeAndEmpty) {
  // dtype=: the gradient comes back in the input's dtype.
  Tensor x = randn({2, 3}, kFloat32).requires_grad_();
  x.sum({1}, false, kFloat64).sum().backward();
  EXPECT_EQ(x.grad().dtype(), kFloat32);
  expect_tensor_near(x.grad(), ones({2, 3}, kFloat32));
  Tensor y = randn({2, 3}, kFloat32).requires_grad_();
  y.mean({0}, true, kFloat64).sum().backward();
  expect_tensor_near(y.grad(), full({2, 3}, 0.5, kFloat32));
  // Zero-size inputs: gradients of the input's (empty) shape.
  Tensor e = zeros({0, 3}, kFloat64).requires_grad_();
  Tensor ge = grad_of([](const Tensor& t) { return t.sum({0}); }, e);
  EXPECT_EQ(ge.sizes(), e.sizes());
  Tensor gm = grad_of([](const Tensor& t) { return t.mean({1}); }, e);
  EXPECT_EQ(gm.sizes(), e.sizes());
  // A sum over an empty dim gives zeros of the output's shape, and a zero gradient... of shape (0, 3).
  Tensor ge2 = grad_of([](const Tensor& t) { return t.sum({1}, true); }, e);
  EXPECT_EQ(ge2.sizes(), e.sizes());
  EXPECT_EQ(x.sum().grad_fn()->name(), "SumBackward0");
}

TEST(AutogradReduce, ProdGradcheck) {
  run_cases({
      {"prod", [](const Tensor& x) { return x.prod(); }, leaf_randn({2, 3}, 11), true},
      {"prod one zero", [](const Tensor& x) { return x.prod(); },
       leaf(tensor({2.0, 0.0, 3.0, -1.5}, kFloat64)), true},
      {"prod two zeros", [](const Tensor& x) { return x.prod(); },
       leaf(tensor({2.0, 0.0, 3.0, 0.0}, kFloat64)), true},
      {"prod dim", [](const Tensor& x) { return x.prod(1); }, leaf_randn({3, 4}, 12), true},
      {"prod dim keepdim", [](const Tensor& x) { return x.prod(0, true); }, leaf_randn({3, 4}, 13), true},
      {"prod dim zeros", [](const Tensor& x) { return x.prod(1); },
       leaf(tensor({{1.0, 0.0, 2.0, 3.0}, {0.0, 2.0, 0.0, 1.5}, {1.0, 2.0, 3.0, 4.0}}, kFloat64)), true},
      {"prod dim zeros keepdim", [](const Tensor& x) { return x.prod(0, true); },
       leaf(tensor({{1.0, 0.0, 2.0}, {0.0, 0.0, 3.0}}, kFloat64)), true},
      {"prod transposed", [](const Tensor& x) { return x.prod(0); }, leaf_transposed(3, 2, 14)},
      {"prod 0-d", [](const Tensor& x) { return x.prod(); }, leaf(scalar_tensor(-2.0, kFloat64))},
      {"prod complex", [](const Tensor& x) { return x.prod(1); }, leaf_crandn({2, 3}, 15), true},
  });
}

TEST(AutogradReduce, ProdZerosMatchPyTorch) {
  // torch: x = [2, 0, 3, 5, 4]; x.prod().backward() -> [0, 120, 0, 0, 0]
  Tensor x = leaf(tensor({2.0, 0.0, 3.0, 5.0, 4.0}));
  expect_tensor_near(grad_of([](const Tensor& t) { return t.prod(); }, x),
                     tensor({0.0, 120.0, 0.0, 0.0, 0.0}, kFloat64));
  // Two zeros: every partial product is zero.
  Tensor y = leaf(tensor({2.0, 0.0, 3.0, 0.0, 4.0}));
  expect_tensor_near(grad_of([](const Tensor& t) { return t.prod(); }, y), zeros({5}, kFloat64));
  Tensor e = zeros({2, 0}, kFloat64).requires_grad_();
  EXPECT_EQ(grad_of([](const Tensor& t) { return t.prod(1); }, e).sizes(), e.sizes());
}

TEST(AutogradReduce, MaxMinAmaxAminGradcheck) {
  run_cases({
      {"max", [](const Tensor& x) { return x.max(); }, leaf_spread({3, 4}, 20)},
      {"min", [](const Tensor& x) { return x.min(); }, leaf_spread({3, 4}, 21)},
      {"max dim", [](const Tensor& x) { return x.max(1).first; }, leaf_spread({3, 4}, 22)},
      {"max dim keepdim", [](const Tensor& x) { return x.max(0, true).first; }, leaf_spread({3, 4}, 23)},
      {"min dim", [](const Tensor& x) { return x.min(-1).first; }, leaf_spread({2, 3, 2}, 24)},
      {"amax", [](const Tensor& x) { return x.amax(); }, leaf_spread({3, 4}, 25), true},
      {"amax dims keepdim", [](const Tensor& x) { return x.amax({0, 2}, true); }, leaf_spread({2, 3, 2}, 26), true},
      {"amin dim", [](const Tensor& x) { return x.amin({1}); }, leaf_spread({3, 4}, 27), true},
      {"amax transposed", [](const Tensor& x) { return x.amax({0}); }, leaf_transposed(4, 3, 28)},
  });
}

TEST(AutogradReduce, TiesAmaxSplitsMaxDimPicksIndex) {
  const Tensor values = tensor({{1.0, 3.0, 3.0, 2.0}, {5.0, 5.0, 5.0, 0.0}}, kFloat64);
  // amax: ties share evenly (scale_grad_by_count).
  Tensor x = leaf(values);
  expect_tensor_near(grad_of([](const Tensor& t) { return t.amax({1}); }, x),
                     tensor({{0.0, 0.5, 0.5, 0.0}, {1.0 / 3, 1.0 / 3, 1.0 / 3, 0.0}}, kFloat64));
  expect_tensor_near(grad_of([](const Tensor& t) { return t.amin({0}); }, x),
                     tensor({{1.0, 1.0, 1.0, 0.0}, {0.0, 0.0, 0.0, 1.0}}, kFloat64));
  // Full max()/min(): evenly distributed too.
  expect_tensor_near(grad_of([](const Tensor& t) { return t.max(); }, x),
                     tensor({{0.0, 0.0, 0.0, 0.0}, {1.0 / 3, 1.0 / 3, 1.0 / 3, 0.0}}, kFloat64));
  // max(dim): the whole gradient goes to the returned (first) index.
  expect_tensor_near(grad_of([](const Tensor& t) { return t.max(1).first; }, x),
                     tensor({{0.0, 1.0, 0.0, 0.0}, {1.0, 0.0, 0.0, 0.0}}, kFloat64));
  expect_tensor_near(grad_of([](const Tensor& t) { return t.max(1, true).first; }, x, tensor({{2.0}, {3.0}}, kFloat64)),
                     tensor({{0.0, 2.0, 0.0, 0.0}, {3.0, 0.0, 0.0, 0.0}}, kFloat64));
  // max() of a tensor with NaN: the gradient goes to the NaN (torch: [0, 1, 0]).
  Tensor n = leaf(tensor({1.0, kNaN, 3.0}));
  expect_tensor_near(grad_of([](const Tensor& t) { return t.max(); }, n), tensor({0.0, 1.0, 0.0}, kFloat64));
  EXPECT_EQ(x.amax({1}).grad_fn()->name(), "AmaxBackward0");
  EXPECT_EQ(x.max(1).first.grad_fn()->name(), "MaxBackward0");
  EXPECT_FALSE(x.max(1).second.requires_grad());
  EXPECT_FALSE(x.argmax().requires_grad());
}

TEST(AutogradReduce, VarStdGradcheck) {
  run_cases({
      {"var", [](const Tensor& x) { return x.var(); }, leaf_randn({3, 4}, 30), true},
      {"var dim", [](const Tensor& x) { return x.var({1}); }, leaf_randn({3, 4}, 31), true},
      {"var dims keepdim correction 0", [](const Tensor& x) { return x.var({0, 2}, 0, true); },
       leaf_randn({2, 3, 2}, 32), true},
      {"var correction 2", [](const Tensor& x) { return x.var({0}, 2); }, leaf_randn({4, 3}, 33)},
      {"var transposed", [](const Tensor& x) { return x.var({1}); }, leaf_transposed(3, 4, 34)},
      {"std", [](const Tensor& x) { return x.std(); }, leaf_randn({3, 4}, 35), true},
      {"std dim keepdim", [](const Tensor& x) { return x.std({1}, 1, true); }, leaf_randn({3, 4}, 36), true},
      {"std dims correction 0", [](const Tensor& x) { return x.std({0, 2}, 0); }, leaf_randn({2, 3, 2}, 37), true},
      {"std transposed", [](const Tensor& x) { return x.std({0}); }, leaf_transposed(3, 4, 38)},
  });
}

TEST(AutogradReduce, VarStdEdgeCases) {
  // std of constant slices: zero gradient (torch: std([2, 2]) -> [0, 0]).
  Tensor c = leaf(tensor({{2.0, 2.0}, {1.0, 3.0}}));
  expect_tensor_near(grad_of([](const Tensor& t) { return t.std({1}); }, c),
                     tensor({{0.0, 0.0}, {-0.5 * std::sqrt(2.0), 0.5 * std::sqrt(2.0)}}, kFloat64), 1e-6, 1e-9);
  // No degrees of freedom left: nan where x equals the mean, inf elsewhere (full reduction).
  Tensor one = leaf(tensor({2.0}));
  Tensor g1 = grad_of([](const Tensor& t) { return t.var(); }, one);
  EXPECT_TRUE(std::isnan(g1.item<double>()));
  Tensor two = leaf(tensor({2.0, 3.0}));
  Tensor g2 = grad_of([](const Tensor& t) { return t.var({}, 2); }, two);
  EXPECT_TRUE(std::isinf(g2[0].item<double>()) && std::isinf(g2[1].item<double>()));
  EXPECT_EQ(one.var().grad_fn()->name(), "VarBackward0");
}

TEST(AutogradReduce, NormGradcheck) {
  run_cases({
      {"norm 2", [](const Tensor& x) { return x.norm(); }, leaf_randn({3, 4}, 40), true},
      {"norm 2 dim", [](const Tensor& x) { return x.norm(2, {1}); }, leaf_randn({3, 4}, 41), true},
      {"norm 2 dims keepdim", [](const Tensor& x) { return x.norm(2, {0, 2}, true); }, leaf_randn({2, 3, 2}, 42), true},
      {"norm 1", [](const Tensor& x) { return x.norm(1, {1}); }, leaf_spread({3, 4}, 43), true},
      {"norm inf", [](const Tensor& x) { return x.norm(kInf, {1}); }, leaf_spread({3, 4}, 44), true},
      {"norm -inf", [](const Tensor& x) { return x.norm(-kInf, {0}, true); }, leaf_spread({3, 4}, 45)},
      {"norm 0", [](const Tensor& x) { return x.norm(0, {1}); }, leaf_spread({3, 4}, 46)},
      {"norm 3", [](const Tensor& x) { return x.norm(3, {1}); }, leaf_randn({3, 4}, 47)},
      {"norm 1.5", [](const Tensor& x) { return x.norm(1.5); }, leaf_spread({3, 4}, 48)},
      {"norm 0.5", [](const Tensor& x) { return x.norm(0.5, {0}); }, leaf_spread({3, 4}, 49)},
      {"norm transposed", [](const Tensor& x) { return x.norm(2, {0}); }, leaf_transposed(3, 4, 50)},
      {"norm complex 2", [](const Tensor& x) { return x.norm(2, {1}); }, leaf_crandn({2, 3}, 51), true},
      {"norm complex 3", [](const Tensor& x) { return x.norm(3); }, leaf_crandn({2, 3}, 52)},
      {"norm complex 1", [](const Tensor& x) { return x.norm(1, {0}); }, leaf_crandn({2, 3}, 53)},
  });
}

TEST(AutogradReduce, NormAtZero) {
  // torch gives 0 at a zero vector for p = 2 (masked), 3, 1.5 and 0.5.
  for (double p : {2.0, 3.0, 1.5, 0.5}) {
    SCOPED_TRACE(p);
    Tensor z = zeros({2, 3}, kFloat64).requires_grad_();
    expect_tensor_near(grad_of([p](const Tensor& t) { return t.norm(p, {1}); }, z), zeros({2, 3}, kFloat64));
  }
  // p = 0: no gradient at all (the leaf's grad stays undefined, as PyTorch).
  Tensor x = leaf(tensor({1.0, -2.0, 0.0}));
  x.norm(0).backward();
  EXPECT_FALSE(x.grad().defined());
  // A zero entry in a non-zero vector for p < 1: 0 there.
  Tensor y = leaf(tensor({1.0, 0.0, 4.0}));
  Tensor g = grad_of([](const Tensor& t) { return t.norm(0.5); }, y);
  EXPECT_EQ(g[1].item<double>(), 0.0);
  EXPECT_TRUE(std::isfinite(g[0].item<double>()));
}

TEST(AutogradReduce, LogsumexpGradcheck) {
  run_cases({
      {"logsumexp dim", [](const Tensor& x) { return x.logsumexp({1}); }, leaf_randn({3, 4}, 60), true},
      {"logsumexp dims keepdim", [](const Tensor& x) { return x.logsumexp({0, 2}, true); }, leaf_randn({2, 3, 2}, 61),
       true},
      {"logsumexp transposed", [](const Tensor& x) { return x.logsumexp({0}); }, leaf_transposed(3, 4, 62)},
  });
  // -inf entries get 0; an all -inf slice gives NaN (as PyTorch).
  Tensor x = leaf(tensor({{-kInf, -kInf}, {1.0, -kInf}}));
  Tensor g = grad_of([](const Tensor& t) { return t.logsumexp({1}); }, x);
  EXPECT_TRUE(std::isnan(g[0][0].item<double>()) && std::isnan(g[0][1].item<double>()));
  expect_tensor_near(g[1], tensor({1.0, 0.0}, kFloat64));
  EXPECT_EQ(x.logsumexp({1}).grad_fn()->name(), "LogsumexpBackward0");
}

// ---------------------------------------------------------------- scans

TEST(AutogradScan, Gradcheck) {
  run_cases({
      {"cumsum 0", [](const Tensor& x) { return x.cumsum(0); }, leaf_randn({3, 4}, 70), true},
      {"cumsum -1", [](const Tensor& x) { return x.cumsum(-1); }, leaf_randn({3, 4}, 71), true},
      {"cumsum transposed", [](const Tensor& x) { return x.cumsum(1); }, leaf_transposed(3, 4, 72)},
      {"cumsum complex", [](const Tensor& x) { return x.cumsum(0); }, leaf_crandn({3, 2}, 73), true},
      {"cumsum 0-d", [](const Tensor& x) { return x.cumsum(0); }, leaf(scalar_tensor(2.0, kFloat64))},
      {"cumprod", [](const Tensor& x) { return x.cumprod(1); }, leaf_randn({3, 4}, 74), true},
      {"cumprod one zero", [](const Tensor& x) { return x.cumprod(0); },
       leaf(tensor({2.0, 0.0, 3.0, -1.5, 0.5}, kFloat64)), true},
      {"cumprod two zeros", [](const Tensor& x) { return x.cumprod(0); },
       leaf(tensor({2.0, 0.0, 3.0, 0.0, 4.0}, kFloat64)), true},
      {"cumprod zeros rows", [](const Tensor& x) { return x.cumprod(1); },
       leaf(tensor({{0.0, 2.0, 3.0}, {1.5, 2.0, 0.0}, {1.0, -2.0, 3.0}}, kFloat64)), true},
      {"cumprod transposed", [](const Tensor& x) { return x.cumprod(0); }, leaf_transposed(3, 2, 75)},
      {"cumprod complex", [](const Tensor& x) { return x.cumprod(1); }, leaf_crandn({2, 3}, 76), true},
      {"cummax", [](const Tensor& x) { return x.cummax(1).first; }, leaf_spread({3, 4}, 77)},
      {"cummin", [](const Tensor& x) { return x.cummin(0).first; }, leaf_spread({3, 4}, 78)},
      {"logcumsumexp", [](const Tensor& x) { return x.logcumsumexp(1); }, leaf_randn({3, 4}, 79)},
      {"logcumsumexp transposed", [](const Tensor& x) { return x.logcumsumexp(0); }, leaf_transposed(3, 4, 80)},
  });
}

TEST(AutogradScan, MatchPyTorch) {
  // torch: cumprod([2, 0, 3, 0, 4]).sum().backward() -> [1, 8, 0, 0, 0]
  Tensor x = leaf(tensor({2.0, 0.0, 3.0, 0.0, 4.0}));
  expect_tensor_near(grad_of([](const Tensor& t) { return t.cumprod(0); }, x), tensor({1.0, 8.0, 0.0, 0.0, 0.0}, kFloat64));
  // torch: cummax([3, 1, 3, 2]) -> indices [0, 0, 2, 2]; grad [2, 0, 2, 0]
  Tensor y = leaf(tensor({3.0, 1.0, 3.0, 2.0}));
  expect_tensor_near(grad_of([](const Tensor& t) { return t.cummax(0).first; }, y), tensor({2.0, 0.0, 2.0, 0.0}, kFloat64));
  // Large-magnitude inputs stay finite in logcumsumexp's backward.
  Tensor z = leaf(tensor({-1000.0, 0.0, 1000.0}));
  Tensor gz = grad_of([](const Tensor& t) { return t.logcumsumexp(0); }, z);
  expect_tensor_near(gz, tensor({1.0, 1.0, 1.0}, kFloat64));
  // Zero-size and dtype=.
  Tensor e = zeros({0, 3}, kFloat64).requires_grad_();
  EXPECT_EQ(grad_of([](const Tensor& t) { return t.cumsum(0); }, e).sizes(), e.sizes());
  EXPECT_EQ(grad_of([](const Tensor& t) { return t.cumprod(1); }, e).sizes(), e.sizes());
  Tensor f = randn({2, 3}, kFloat32).requires_grad_();
  f.cumsum(1, kFloat64).sum().backward();
  EXPECT_EQ(f.grad().dtype(), kFloat32);
  expect_tensor_near(f.grad(), tensor({{3.0f, 2.0f, 1.0f}, {3.0f, 2.0f, 1.0f}}));
  EXPECT_EQ(x.cumsum(0).grad_fn()->name(), "CumsumBackward0");
}

TEST(AutogradScan, InplaceAndOut) {
  Tensor x = leaf_randn({2, 3}, 81);
  Tensor y = x * 1;
  y.cumsum_(1);
  EXPECT_TRUE(y.requires_grad());
  y.sum().backward();
  expect_tensor_near(x.grad(), tensor({{3.0, 2.0, 1.0}, {3.0, 2.0, 1.0}}, kFloat64));
  Tensor a = leaf(tensor({1.0, 2.0, 3.0}));
  Tensor b = a * 1;
  b.cumprod_(0);
  b.sum().backward();
  expect_tensor_near(a.grad(), tensor({1.0 + 2.0 + 6.0, 1.0 + 3.0, 2.0}, kFloat64));
  Tensor out = empty({2, 3}, kFloat64);
  expect_error([&] { cumsum_out(out, x, 0); }, "don't support automatic differentiation");
  expect_error([&] { x.cumsum_(0); }, "leaf Variable");
}

// ---------------------------------------------------------------- sorting / selection

TEST(AutogradSort, Gradcheck) {
  run_cases({
      {"sort", [](const Tensor& x) { return x.sort().first; }, leaf_spread({3, 4}, 90)},
      {"sort dim 0 descending", [](const Tensor& x) { return x.sort(0, true).first; }, leaf_spread({3, 4}, 91)},
      {"sort transposed", [](const Tensor& x) { return x.sort(1).first; }, leaf_transposed(3, 4, 92)},
      {"sort 0-d", [](const Tensor& x) { return x.sort().first; }, leaf(scalar_tensor(1.0, kFloat64))},
      {"msort", [](const Tensor& x) { return x.msort(); }, leaf_spread({3, 2}, 93)},
      {"topk", [](const Tensor& x) { return x.topk(2).first; }, leaf_spread({3, 4}, 94)},
      {"topk smallest dim 0", [](const Tensor& x) { return x.topk(2, 0, false).first; }, leaf_spread({3, 4}, 95)},
      {"topk unsorted", [](const Tensor& x) { return x.topk(3, 1, true, false).first; }, leaf_spread({2, 5}, 96)},
      {"kthvalue", [](const Tensor& x) { return x.kthvalue(2).first; }, leaf_spread({3, 4}, 97)},
      {"kthvalue keepdim", [](const Tensor& x) { return x.kthvalue(1, 0, true).first; }, leaf_spread({3, 4}, 98)},
      {"median", [](const Tensor& x) { return x.median(); }, leaf_spread({3, 4}, 99)},
      {"median dim", [](const Tensor& x) { return x.median(1).first; }, leaf_spread({3, 4}, 100)},
      {"median dim keepdim", [](const Tensor& x) { return x.median(0, true).first; }, leaf_spread({3, 4}, 101)},
      {"nanmedian", [](const Tensor& x) { return x.nanmedian(); }, leaf_spread({3, 3}, 102)},
      {"nanmedian dim", [](const Tensor& x) { return x.nanmedian(1).first; }, leaf_spread({3, 4}, 103)},
      {"nanmedian with nan", [](const Tensor& x) { return x.nanmedian(1).first; },
       leaf(tensor({{1.0, kNaN, 3.0, 2.0}, {kNaN, 0.5, -1.0, 4.0}}, kFloat64))},
      {"mode", [](const Tensor& x) { return x.mode(1).first; }, leaf_spread({3, 4}, 104)},
      {"mode keepdim", [](const Tensor& x) { return x.mode(0, true).first; }, leaf_spread({3, 4}, 105)},
  });
}

TEST(AutogradSort, TiesMatchPyTorch) {
  // median(): ties share evenly; median(dim): the returned index only.
  Tensor x = leaf(tensor({1.0, 2.0, 2.0, 3.0}));
  expect_tensor_near(grad_of([](const Tensor& t) { return t.median(); }, x), tensor({0.0, 0.5, 0.5, 0.0}, kFloat64));
  auto [mv, mi] = x.detach().median(0);
  Tensor expected = zeros({4}, kFloat64);
  expected[mi.item<int64_t>()].fill_(1.0);
  expect_tensor_near(grad_of([](const Tensor& t) { return t.median(0).first; }, x), expected);
  // nanmedian(): NaNs skipped, ties share (torch: [0, 0, .5, .5, 0]).
  Tensor n = leaf(tensor({1.0, kNaN, 2.0, 2.0, 3.0}));
  expect_tensor_near(grad_of([](const Tensor& t) { return t.nanmedian(); }, n),
                     tensor({0.0, 0.0, 0.5, 0.5, 0.0}, kFloat64));
  // median() with a NaN: the NaN gets the gradient (torch: [0, 1, 0, 0]).
  Tensor m = leaf(tensor({1.0, kNaN, 2.0, 3.0}));
  expect_tensor_near(grad_of([](const Tensor& t) { return t.median(); }, m), tensor({0.0, 1.0, 0.0, 0.0}, kFloat64));
  // mode: the index of the last occurrence (torch: mode([3, 3, 1, 3]) -> grad [0, 0, 0, 1]).
  Tensor d = leaf(tensor({3.0, 3.0, 1.0, 3.0}));
  expect_tensor_near(grad_of([](const Tensor& t) { return t.mode(0).first; }, d), tensor({0.0, 0.0, 0.0, 1.0}, kFloat64));
  // sort with ties: a permutation of the gradient.
  Tensor s = leaf(tensor({2.0, 1.0, 2.0}));
  expect_tensor_near(grad_of([](const Tensor& t) { return t.sort().first; }, s, tensor({10.0, 20.0, 30.0}, kFloat64)),
                     tensor({20.0, 10.0, 30.0}, kFloat64));
  EXPECT_EQ(s.sort().first.grad_fn()->name(), "SortBackward0");
  EXPECT_FALSE(s.sort().second.requires_grad());
  EXPECT_FALSE(std::get<0>(unique(s)).requires_grad());  // unique has no gradient
  Tensor e = zeros({2, 0}, kFloat64).requires_grad_();
  EXPECT_EQ(grad_of([](const Tensor& t) { return t.sort(1).first; }, e).sizes(), e.sizes());
}

// ---------------------------------------------------------------- shape / combination

TEST(AutogradShape, CatStackGradcheck) {
  Tensor a = leaf_randn({2, 3}, 110), b = leaf_randn({1, 3}, 111), c = leaf_randn({2, 2}, 112);
  auto cat0 = [](const variable_list& x) { return variable_list{cat({x[0], x[1]}, 0)}; };
  EXPECT_TRUE(autograd::gradcheck(cat0, {a, b}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck(cat0, {a, b}, {}, kTightGradcheck));
  auto cat1 = [](const variable_list& x) { return variable_list{cat({x[0], x[1], x[0]}, -1)}; };
  EXPECT_TRUE(autograd::gradcheck(cat1, {a, c}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck(cat1, {a, c}, {}, kTightGradcheck));
  // Mixed dtypes (promoted) and a non-contiguous input.
  Tensor t = leaf_transposed(2, 3, 113);
  auto mixed = [](const variable_list& x) { return variable_list{cat({x[0], x[1]}, 0)}; };
  EXPECT_TRUE(autograd::gradcheck(mixed, {t, leaf_crandn({1, 3}, 114)}, kTightGradcheck));
  // Skipped 1-d empty inputs get empty gradients; (2, 0) inputs get (2, 0) ones.
  Tensor skip = zeros({0}, kFloat64).requires_grad_(), empty2 = zeros({2, 0}, kFloat64).requires_grad_();
  Tensor y = cat({skip, a, empty2}, 1);
  auto grads = autograd::grad({y}, {skip, a, empty2}, {ones_like(y)});
  EXPECT_EQ(grads[0].dim(), 1);
  EXPECT_EQ(grads[0].numel(), 0);
  expect_tensor_near(grads[1], ones({2, 3}, kFloat64));
  EXPECT_EQ(grads[2].sizes(), empty2.sizes());
  EXPECT_EQ(cat({a, b}).grad_fn()->name(), "CatBackward0");

  auto st0 = [](const variable_list& x) { return variable_list{stack({x[0], x[1]}, 0)}; };
  Tensor d = leaf_randn({2, 3}, 115);
  EXPECT_TRUE(autograd::gradcheck(st0, {a, d}, kTightGradcheck));
  EXPECT_TRUE(autograd::gradgradcheck(st0, {a, d}, {}, kTightGradcheck));
  auto st_last = [](const variable_list& x) { return variable_list{stack({x[0], x[1], x[0]}, -1)}; };
  EXPECT_TRUE(autograd::gradcheck(st_last, {a, leaf_transposed(2, 3, 116)}, kTightGradcheck));
  EXPECT_EQ(stack({a, d}).grad_fn()->name(), "StackBackward0");
  auto hv = [](const variable_list& x) { return variable_list{hstack({x[0], x[1]}), vstack({x[0], x[1]})}; };
  EXPECT_TRUE(autograd::gradcheck(hv, {a, d}, kTightGradcheck));
  // Only the inputs that require grad get gradients.
  Tensor plain = randn({2, 3}, kFloat64);
  Tensor z = cat({plain, a});
  z.sum().backward();
  EXPECT_FALSE(plain.grad().defined());
  Tensor out = empty({0}, kFloat64);
  expect_error([&] { cat_out(out, {a, b}); }, "don't support automatic differentiation");
  expect_error([&] { stack_out(out, {a, d}); }, "don't support automatic differentiation");
}

TEST(AutogradShape, Gradcheck) {
  Tensor reps = tensor({2, 0, 1}, kInt64);
  run_cases({
      {"flip", [](const Tensor& x) { return x.flip({0, 2}); }, leaf_randn({2, 3, 2}, 120), true},
      {"flip transposed", [](const Tensor& x) { return x.flip({1}); }, leaf_transposed(3, 4, 121)},
      {"fliplr", [](const Tensor& x) { return x.fliplr(); }, leaf_randn({2, 3}, 122)},
      {"flipud", [](const Tensor& x) { return x.flipud(); }, leaf_randn({3, 2}, 123)},
      {"flip complex", [](const Tensor& x) { return x.flip({1}); }, leaf_crandn({2, 3}, 124)},
      {"roll", [](const Tensor& x) { return x.roll({1, -2}, {0, 1}); }, leaf_randn({3, 4}, 125), true},
      {"roll flat", [](const Tensor& x) { return x.roll({5}); }, leaf_randn({3, 4}, 126)},
      {"roll transposed", [](const Tensor& x) { return x.roll({2}, {1}); }, leaf_transposed(3, 4, 127)},
      {"repeat", [](const Tensor& x) { return x.repeat({2, 1, 3}); }, leaf_randn({2, 3}, 128), true},
      {"repeat zero", [](const Tensor& x) { return x.repeat({0, 2}); }, leaf_randn({2, 3}, 129)},
      {"repeat transposed", [](const Tensor& x) { return x.repeat({2, 2}); }, leaf_transposed(2, 3, 130)},
      {"tile", [](const Tensor& x) { return x.tile({2}); }, leaf_randn({2, 3}, 131), true},
      {"repeat_interleave int", [](const Tensor& x) { return x.repeat_interleave(2, 1); }, leaf_randn({2, 3}, 132),
       true},
      {"repeat_interleave flat", [](const Tensor& x) { return x.repeat_interleave(3); }, leaf_randn({2, 2}, 133)},
      {"repeat_interleave tensor", [reps](const Tensor& x) { return x.repeat_interleave(reps, 0); },
       leaf_randn({3, 2}, 134), true},
      {"repeat_interleave transposed", [reps](const Tensor& x) { return x.repeat_interleave(reps, 1); },
       leaf_transposed(2, 3, 135)},
      {"tril", [](const Tensor& x) { return x.tril(); }, leaf_randn({3, 4}, 136), true},
      {"tril -1 batched", [](const Tensor& x) { return x.tril(-1); }, leaf_randn({2, 3, 3}, 137)},
      {"triu 1", [](const Tensor& x) { return x.triu(1); }, leaf_randn({3, 4}, 138), true},
      {"triu transposed", [](const Tensor& x) { return x.triu(); }, leaf_transposed(3, 3, 139)},
      {"triu complex", [](const Tensor& x) { return x.triu(); }, leaf_crandn({2, 2}, 140)},
  });
  Tensor x = leaf_randn({2, 3}, 141);
  EXPECT_EQ(x.flip({0}).grad_fn()->name(), "FlipBackward0");
  EXPECT_EQ(x.repeat({2, 2}).grad_fn()->name(), "RepeatBackward0");
  EXPECT_EQ(x.tril().grad_fn()->name(), "TrilBackward0");
  Tensor e = zeros({0, 3}, kFloat64).requires_grad_();
  EXPECT_EQ(grad_of([](const Tensor& t) { return t.flip({0}); }, e).sizes(), e.sizes());
  EXPECT_EQ(grad_of([](const Tensor& t) { return t.repeat({2, 2}); }, e).sizes(), e.sizes());
}

TEST(AutogradShape, RepeatInterleaveAccumulates) {
  Tensor x = leaf(tensor({1.0, 2.0, 3.0}));
  Tensor y = x.repeat_interleave(tensor({2, 0, 3}, kInt64));
  y.backward(tensor({1.0, 2.0, 3.0, 4.0, 5.0}, kFloat64));
  expect_tensor_near(x.grad(), tensor({3.0, 0.0, 12.0}, kFloat64));
}

TEST(AutogradShape, TrilTriuInplace) {
  Tensor x = leaf_randn({3, 3}, 150);
  Tensor y = x * 2;
  y.tril_();
  y.sum().backward();
  expect_tensor_near(x.grad(), ones({3, 3}, kFloat64).tril() * 2);
  Tensor a = leaf_randn({2, 3}, 151);
  Tensor b = a * 1;
  b.triu_(1);
  b.sum().backward();
  expect_tensor_near(a.grad(), ones({2, 3}, kFloat64).triu(1));
  // Through a view: the base's history is rebased.
  Tensor c = leaf_randn({2, 3, 3}, 152);
  Tensor base = c * 1;
  Tensor v = base.select(0, 1);
  v.triu_();
  base.sum().backward();
  Tensor expected = ones({2, 3, 3}, kFloat64);
  expected.select(0, 1).copy_(ones({3, 3}, kFloat64).triu());
  expect_tensor_near(c.grad(), expected);
  expect_error([&] { x.tril_(); }, "leaf Variable");
  Tensor out = empty({0}, kFloat64);
  expect_error([&] { tril_out(out, x); }, "don't support automatic differentiation");
}

TEST(AutogradPad, Gradcheck) {
  run_cases({
      {"constant", [](const Tensor& x) { return pad(x, {1, 2}, "constant", 3.0); }, leaf_randn({2, 3}, 160), true},
      {"constant 2d", [](const Tensor& x) { return pad(x, {1, 0, 2, 1}); }, leaf_randn({2, 3}, 161), true},
      {"constant negative", [](const Tensor& x) { return pad(x, {-1, 2, 1, -1}); }, leaf_randn({3, 4}, 162), true},
      {"constant crop all", [](const Tensor& x) { return pad(x, {-4, 2}); }, leaf_randn({2, 3}, 163)},
      {"constant transposed", [](const Tensor& x) { return pad(x, {1, 1}); }, leaf_transposed(2, 3, 164)},
      {"constant complex", [](const Tensor& x) { return pad(x, {1, 1}); }, leaf_crandn({2, 2}, 165)},
      {"reflect 1d", [](const Tensor& x) { return pad(x, {2, 1}, "reflect"); }, leaf_randn({2, 4}, 166), true},
      {"reflect 2d", [](const Tensor& x) { return pad(x, {1, 2, 2, 1}, "reflect"); }, leaf_randn({1, 3, 4}, 167),
       true},
      {"reflect transposed", [](const Tensor& x) { return pad(x, {1, 1}, "reflect"); }, leaf_transposed(2, 3, 168)},
      {"replicate", [](const Tensor& x) { return pad(x, {2, 3}, "replicate"); }, leaf_randn({2, 3}, 169), true},
      {"replicate 2d", [](const Tensor& x) { return pad(x, {1, 1, 2, 0}, "replicate"); }, leaf_randn({1, 2, 3}, 170)},
      {"circular", [](const Tensor& x) { return pad(x, {2, 3}, "circular"); }, leaf_randn({2, 3}, 171), true},
      {"circular 2d", [](const Tensor& x) { return pad(x, {1, 2, 1, 0}, "circular"); }, leaf_randn({1, 2, 3}, 172)},
      {"reflect negative", [](const Tensor& x) { return pad(x, {-1, 2}, "reflect"); }, leaf_randn({2, 4}, 174)},
      {"replicate negative", [](const Tensor& x) { return pad(x, {2, -1}, "replicate"); }, leaf_randn({2, 4}, 175)},
      {"circular negative", [](const Tensor& x) { return pad(x, {-1, 2}, "circular"); }, leaf_randn({2, 4}, 173)},
  });
  // Replicate: the border element collects the gradient of its copies.
  Tensor x = leaf(tensor({{1.0, 2.0, 3.0}}));
  expect_tensor_near(grad_of([](const Tensor& t) { return pad(t, {2, 1}, "replicate"); }, x),
                     tensor({{3.0, 1.0, 2.0}}, kFloat64));
  // Reflect: reflected elements collect twice.
  expect_tensor_near(grad_of([](const Tensor& t) { return pad(t, {2, 2}, "reflect"); }, x),
                     tensor({{2.0, 3.0, 2.0}}, kFloat64));
  EXPECT_EQ(pad(x, {1, 1}).grad_fn()->name(), "ConstantPadNdBackward0");
  Tensor e = zeros({0, 3}, kFloat64).requires_grad_();
  EXPECT_EQ(grad_of([](const Tensor& t) { return pad(t, {1, 1}); }, e).sizes(), e.sizes());
}

}  // namespace autograd_reduce_shape_test
}  // namespace ember
