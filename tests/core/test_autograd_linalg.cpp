// Backward formulas of the linear algebra products (mm, bmm, matmul in every
// broadcasting case, addmm/baddbmm/addmv and their in-place forms, dot, vdot,
// mv, outer) and of the ops composed from them (einsum, tensordot): gradcheck
// against central differences in float64 and complex128, gradgradcheck for
// the common ones, zero-size and non-contiguous operands.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <string>
#include <vector>

#include "tensor_expect.h"
#include "gradcheck_tight.h"

namespace ember {
namespace autograd_linalg_test {

using testing::kTightGradcheck;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::variable_list;
using testing::expect_error;
using testing::expect_tensor_near;

// A generator of this file's own: the default one's state (which later test
// files may depend on) is left alone.
Generator& gen() {
  static Generator g(20261122);
  return g;
}
Tensor plain(IntArrayRef sizes) { return randn(sizes, kFloat64, &gen()); }
Tensor rnd(IntArrayRef sizes) { return plain(sizes).requires_grad_(); }
Tensor crnd(IntArrayRef sizes) {
  return (plain(sizes).to(kComplex128) + plain(sizes).to(kComplex128) * Scalar(complex128(0, 1)))
      .requires_grad_();
}
// A transposed (non-contiguous) leaf of shape [rows, cols].
Tensor rnd_t(int64_t rows, int64_t cols) { return plain({cols, rows}).t().requires_grad_(); }

template <class F>
autograd::GradcheckFn fn2(F f) {
  return [f](const variable_list& x) { return variable_list{f(x[0], x[1])}; };
}
template <class F>
autograd::GradcheckFn fn3(F f) {
  return [f](const variable_list& x) { return variable_list{f(x[0], x[1], x[2])}; };
}

autograd::GradcheckFn einsum_fn(const std::string& eq) {
  return [eq](const variable_list& x) { return variable_list{einsum(eq, x)}; };
}

// ---- mm / bmm ----

TEST(AutogradLinalg, MmGradcheck) {
  auto f = fn2([](const Tensor& a, const Tensor& b) { return mm(a, b); });
  EXPECT_TRUE(gradcheck(f, {rnd({3, 4}), rnd({4, 2})}, kTightGradcheck));
  EXPECT_TRUE(gradgradcheck(f, {rnd({3, 4}), rnd({4, 2})}, {}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(f, {rnd_t(3, 4), rnd_t(4, 2)}, kTightGradcheck));  // transposed operands
  EXPECT_TRUE(gradcheck(f, {crnd({3, 4}), crnd({4, 2})}, kTightGradcheck));
  EXPECT_TRUE(gradgradcheck(f, {crnd({2, 3}), crnd({3, 2})}, {}, kTightGradcheck));
  // Only one operand requires grad: the other gets none.
  EXPECT_TRUE(gradcheck(f, {rnd({3, 4}), plain({4, 2})}, kTightGradcheck));
  Tensor a = rnd({2, 3}), b = plain({3, 2});
  Tensor y = a.mm(b);
  EXPECT_EQ(y.grad_fn()->name(), "MmBackward0");
  y.sum().backward();
  expect_tensor_near(a.grad(), ones({2, 2}, kFloat64).mm(b.t()));
}

TEST(AutogradLinalg, MmZeroSize) {
  auto f = fn2([](const Tensor& a, const Tensor& b) { return mm(a, b); });
  EXPECT_TRUE(gradcheck(f, {rnd({0, 3}), rnd({3, 4})}, kTightGradcheck));
  // Empty contraction: the product is zeros, its gradients are zeros.
  Tensor a = rnd({2, 0}), b = rnd({0, 4});
  a.mm(b).sum().backward();
  EXPECT_EQ(a.grad().sizes(), IntArrayRef({2, 0}));
  expect_tensor_near(b.grad(), zeros({0, 4}, kFloat64));
  Tensor c = rnd({3, 0}), d = rnd({0, 2});
  (c.mm(d) * 2).sum().backward();
  expect_tensor_near(c.grad(), zeros({3, 0}, kFloat64));
}

TEST(AutogradLinalg, BmmGradcheck) {
  auto f = fn2([](const Tensor& a, const Tensor& b) { return bmm(a, b); });
  EXPECT_TRUE(gradcheck(f, {rnd({2, 3, 4}), rnd({2, 4, 2})}, kTightGradcheck));
  EXPECT_TRUE(gradgradcheck(f, {rnd({2, 3, 2}), rnd({2, 2, 3})}, {}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(f, {rnd({2, 4, 3}).transpose(1, 2), rnd({2, 2, 4}).transpose(1, 2)}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(f, {crnd({2, 3, 2}), crnd({2, 2, 3})}, kTightGradcheck));
  EXPECT_TRUE(gradgradcheck(f, {crnd({2, 2, 2}), crnd({2, 2, 2})}, {}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(f, {rnd({0, 3, 2}), rnd({0, 2, 3})}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(f, {rnd({2, 0, 2}), rnd({2, 2, 3})}, kTightGradcheck));
  EXPECT_EQ(bmm(rnd({1, 2, 2}), rnd({1, 2, 2})).grad_fn()->name(), "BmmBackward0");
}

TEST(AutogradLinalg, ProductsIgnoreStridesOfSize1Dims) {
  // einsum aligns operands with unsqueeze, whose size-1 dims carry strides
  // BLAS never reads; such operands are "contiguous" and must not be refused.
  Tensor v = tensor({1.0, 2.0, 3.0}, kFloat64);
  Tensor a = v.as_strided({3, 1, 1}, {1, 3, 3});
  expect_tensor_near(bmm(a, a).view({3}), v * v);
  Tensor row = v.as_strided({1, 3}, {7, 1}), col = v.as_strided({3, 1}, {1, 5});
  expect_tensor_near(mm(row, col).view({1}), tensor({14.0}, kFloat64));
  expect_tensor_near(mm(col, row), outer(v, v));
  Tensor x = rnd({3}), m = rnd({3, 2});
  EXPECT_TRUE(gradcheck(einsum_fn("i,i,ij->j"), {x, x.detach().clone().requires_grad_(), m}, kTightGradcheck));
}

// ---- matmul: every broadcasting case ----

struct MatmulCase {
  std::vector<int64_t> a, b;
};

TEST(AutogradLinalg, MatmulBroadcastingCases) {
  const std::vector<MatmulCase> cases = {
      {{3}, {3}},                    // dot
      {{3}, {3, 4}},                 // vector-matrix
      {{2, 3}, {3}},                 // matrix-vector
      {{2, 3}, {3, 4}},              // mm
      {{4, 2, 3}, {3}},              // batched matrix-vector (folded)
      {{4, 2, 3}, {3, 5}},           // batched x matrix (folded)
      {{2, 2, 2, 3}, {3, 2}},        // two batch dims, folded
      {{3}, {2, 3, 4}},              // vector x batch
      {{3}, {2, 1, 3, 4}},           // vector x batch with size-1 dim
      {{2, 3}, {4, 3, 5}},           // matrix x batch: a broadcast over the batch
      {{4, 2, 3}, {4, 3, 5}},        // bmm
      {{4, 1, 2, 3}, {3, 3, 2}},     // broadcast: leading and size-1 batch dims
      {{1, 2, 3}, {4, 3, 2}},        // size-1 batch dim of a
      {{2, 1, 2, 3}, {1, 3, 3, 2}},  // both broadcast
      {{0, 2, 3}, {3, 2}},           // zero batch
      {{2, 0}, {0, 3}},              // empty contraction
      {{2, 3, 0}, {0}},              // empty contraction, folded, 1-d b
      {{0}, {0}},                    // empty dot
  };
  auto f = fn2([](const Tensor& a, const Tensor& b) { return matmul(a, b); });
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << "a " << IntArrayRef(c.a) << " b " << IntArrayRef(c.b));
    EXPECT_TRUE(gradcheck(f, {rnd(c.a), rnd(c.b)}, kTightGradcheck));
    // One side at a time (the needs() branches).
    EXPECT_TRUE(gradcheck(f, {rnd(c.a), plain(c.b)}, kTightGradcheck));
    EXPECT_TRUE(gradcheck(f, {plain(c.a), rnd(c.b)}, kTightGradcheck));
  }
}

TEST(AutogradLinalg, MatmulGradgradAndComplex) {
  const std::vector<MatmulCase> cases = {
      {{3}, {3}}, {{3}, {3, 2}}, {{2, 3}, {3}}, {{2, 2, 3}, {3, 2}}, {{3}, {2, 3, 2}},
      {{2, 1, 2, 3}, {3, 3, 2}}, {{2, 3}, {2, 3, 2}},
  };
  auto f = fn2([](const Tensor& a, const Tensor& b) { return matmul(a, b); });
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << "a " << IntArrayRef(c.a) << " b " << IntArrayRef(c.b));
    EXPECT_TRUE(gradgradcheck(f, {rnd(c.a), rnd(c.b)}, {}, kTightGradcheck));
    EXPECT_TRUE(gradcheck(f, {crnd(c.a), crnd(c.b)}, kTightGradcheck));
  }
  EXPECT_TRUE(gradgradcheck(f, {crnd({2, 2, 3}), crnd({3, 2})}, {}, kTightGradcheck));
  EXPECT_TRUE(gradgradcheck(f, {crnd({3}), crnd({2, 3, 2})}, {}, kTightGradcheck));
  // Non-contiguous operands.
  EXPECT_TRUE(gradcheck(f, {rnd({3, 2, 4}).transpose(0, 2), rnd_t(3, 2)}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(f, {rnd({2, 4, 3}).transpose(1, 2), rnd({2, 2, 4}).transpose(1, 2)}, kTightGradcheck));
}

TEST(AutogradLinalg, MatmulBroadcastGradientValues) {
  // a [2, 3] broadcast over b's batch of 4: its gradient sums the four products.
  Tensor a = rnd({2, 3}), b = rnd({4, 3, 5});
  Tensor y = matmul(a, b);
  EXPECT_EQ(y.grad_fn()->name(), "MatmulBackward0");
  y.sum().backward();
  EXPECT_EQ(a.grad().sizes(), IntArrayRef({2, 3}));
  const Tensor g = ones({4, 2, 5}, kFloat64);
  expect_tensor_near(a.grad(), bmm(g, b.detach().transpose(1, 2)).sum({0}), 1e-10, 1e-10);
  expect_tensor_near(b.grad(), bmm(a.detach().t().unsqueeze(0).expand({4, 3, 2}), g), 1e-10, 1e-10);
}

// ---- addmm / baddbmm / addmv ----

TEST(AutogradLinalg, AddmmGradcheck) {
  for (const std::vector<int64_t>& self_shape :
       {std::vector<int64_t>{3, 2}, {2}, {1, 2}, {3, 1}, {}}) {
    SCOPED_TRACE(::testing::Message() << "self " << IntArrayRef(self_shape));
    EXPECT_TRUE(gradcheck(fn3([](const Tensor& s, const Tensor& a, const Tensor& b) { return addmm(s, a, b); }),
                          {rnd(self_shape), rnd({3, 4}), rnd({4, 2})}, kTightGradcheck));
    EXPECT_TRUE(gradcheck(
        fn3([](const Tensor& s, const Tensor& a, const Tensor& b) { return addmm(s, a, b, 0.5, -2.0); }),
        {rnd(self_shape), rnd({3, 4}), rnd({4, 2})}, kTightGradcheck));
  }
  auto scaled = fn3([](const Tensor& s, const Tensor& a, const Tensor& b) { return addmm(s, a, b, 0.5, -2.0); });
  EXPECT_TRUE(gradgradcheck(scaled, {rnd({2}), rnd({3, 4}), rnd({4, 2})}, {}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(scaled, {rnd({2}), rnd_t(3, 4), rnd_t(4, 2)}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(scaled, {rnd({0, 2}), rnd({0, 4}), rnd({4, 2})}, kTightGradcheck));
  // beta == 0: self is ignored, its gradient is zero.
  Tensor s = rnd({3, 2}), a = rnd({3, 4}), b = rnd({4, 2});
  addmm(s, a, b, 0, 1).sum().backward();
  expect_tensor_near(s.grad(), zeros({3, 2}, kFloat64));
  // Complex, with complex coefficients (conjugated in the gradient).
  auto cf = fn3([](const Tensor& s, const Tensor& a, const Tensor& b) {
    return addmm(s, a, b, complex128(0.5, -1), complex128(2, 0.25));
  });
  EXPECT_TRUE(gradcheck(cf, {crnd({2}), crnd({3, 4}), crnd({4, 2})}, kTightGradcheck));
  EXPECT_TRUE(gradgradcheck(cf, {crnd({2}), crnd({2, 3}), crnd({3, 2})}, {}, kTightGradcheck));
  EXPECT_EQ(addmm(rnd({2}), a, b).grad_fn()->name(), "AddmmBackward0");
}

TEST(AutogradLinalg, AddmmInPlace) {
  auto f = [](const Scalar& beta, const Scalar& alpha) {
    return fn3([beta, alpha](const Tensor& s, const Tensor& a, const Tensor& b) {
      Tensor t = s * 1;
      t.addmm_(a, b, beta, alpha);
      return t;
    });
  };
  EXPECT_TRUE(gradcheck(f(1, 1), {rnd({3, 2}), rnd({3, 4}), rnd({4, 2})}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(f(0.5, 3), {rnd({3, 2}), rnd({3, 4}), rnd({4, 2})}, kTightGradcheck));
  EXPECT_TRUE(gradgradcheck(f(0.5, 3), {rnd({2, 2}), rnd({2, 3}), rnd({3, 2})}, {}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(f(complex128(1, 1), complex128(0, 2)), {crnd({3, 2}), crnd({3, 4}), crnd({4, 2})},
      kTightGradcheck));
  // Writing into a plain tensor from operands that require grad.
  Tensor out = zeros({2, 2}, kFloat64);
  Tensor a = rnd({2, 3}), b = rnd({3, 2});
  out.addmm_(a, b);
  EXPECT_TRUE(out.requires_grad());
  out.sum().backward();
  expect_tensor_near(a.grad(), ones({2, 2}, kFloat64).mm(b.detach().t()));
  // A leaf that requires grad cannot be written in place.
  expect_error([] { rnd({2, 2}).addmm_(rnd({2, 3}), rnd({3, 2})); }, "leaf Variable");
  // Into a view of an intermediate: the base's gradient gets the view's region.
  Tensor base = rnd({4, 2});
  Tensor tmp = base * 1;
  tmp.narrow(0, 1, 2).addmm_(a, b, 2, 1);
  tmp.sum().backward();
  expect_tensor_near(base.grad(), tensor({1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 1.0, 1.0}, kFloat64).view({4, 2}));
}

TEST(AutogradLinalg, BaddbmmGradcheck) {
  auto f = fn3([](const Tensor& s, const Tensor& a, const Tensor& b) { return baddbmm(s, a, b, 0.5, 2); });
  for (const std::vector<int64_t>& self_shape : {std::vector<int64_t>{2, 3, 2}, {2}, {3, 1}, {1, 1, 2}}) {
    SCOPED_TRACE(::testing::Message() << "self " << IntArrayRef(self_shape));
    EXPECT_TRUE(gradcheck(f, {rnd(self_shape), rnd({2, 3, 4}), rnd({2, 4, 2})}, kTightGradcheck));
  }
  EXPECT_TRUE(gradgradcheck(f, {rnd({2}), rnd({2, 2, 3}), rnd({2, 3, 2})}, {}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(f, {crnd({2}), crnd({2, 2, 3}), crnd({2, 3, 2})}, kTightGradcheck));
  auto inplace = fn3([](const Tensor& s, const Tensor& a, const Tensor& b) {
    Tensor t = s * 1;
    return t.baddbmm_(a, b, 2, -1);
  });
  EXPECT_TRUE(gradcheck(inplace, {rnd({2, 3, 2}), rnd({2, 3, 4}), rnd({2, 4, 2})}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(inplace, {crnd({2, 2, 2}), crnd({2, 2, 3}), crnd({2, 3, 2})}, kTightGradcheck));
}

TEST(AutogradLinalg, AddmvGradcheck) {
  auto f = fn3([](const Tensor& s, const Tensor& m, const Tensor& v) { return addmv(s, m, v, -1.5, 0.5); });
  EXPECT_TRUE(gradcheck(f, {rnd({3}), rnd({3, 4}), rnd({4})}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(f, {rnd({1}), rnd_t(3, 4), rnd({4})}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(f, {rnd({}), rnd({3, 0}), rnd({0})}, kTightGradcheck));
  EXPECT_TRUE(gradgradcheck(f, {rnd({3}), rnd({3, 2}), rnd({2})}, {}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(fn3([](const Tensor& s, const Tensor& m, const Tensor& v) {
                          return addmv(s, m, v, complex128(0, 1), complex128(1, -1));
                        }),
                        {crnd({3}), crnd({3, 4}), crnd({4})}, kTightGradcheck));
  auto inplace = fn3([](const Tensor& s, const Tensor& m, const Tensor& v) {
    Tensor t = s * 1;
    return t.addmv_(m, v, 2, 3);
  });
  EXPECT_TRUE(gradcheck(inplace, {rnd({3}), rnd({3, 4}), rnd({4})}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(inplace, {crnd({3}), crnd({3, 2}), crnd({2})}, kTightGradcheck));
}

// ---- vector products ----

TEST(AutogradLinalg, DotVdotMvOuter) {
  auto dotf = fn2([](const Tensor& a, const Tensor& b) { return dot(a, b); });
  auto vdotf = fn2([](const Tensor& a, const Tensor& b) { return vdot(a, b); });
  auto mvf = fn2([](const Tensor& a, const Tensor& b) { return mv(a, b); });
  auto outerf = fn2([](const Tensor& a, const Tensor& b) { return outer(a, b); });
  auto gerf = fn2([](const Tensor& a, const Tensor& b) { return ger(a, b); });
  EXPECT_TRUE(gradcheck(dotf, {rnd({4}), rnd({4})}, kTightGradcheck));
  EXPECT_TRUE(gradgradcheck(dotf, {rnd({4}), rnd({4})}, {}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(dotf, {crnd({4}), crnd({4})}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(dotf, {rnd({0}), rnd({0})}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(dotf, {rnd({3, 2}).select(1, 0), rnd({3})}, kTightGradcheck));  // strided
  EXPECT_TRUE(gradcheck(vdotf, {rnd({4}), rnd({4})}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(vdotf, {crnd({4}), crnd({4})}, kTightGradcheck));
  EXPECT_TRUE(gradgradcheck(vdotf, {crnd({3}), crnd({3})}, {}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(mvf, {rnd({3, 4}), rnd({4})}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(mvf, {rnd_t(3, 4), rnd({4})}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(mvf, {crnd({3, 4}), crnd({4})}, kTightGradcheck));
  EXPECT_TRUE(gradgradcheck(mvf, {rnd({2, 3}), rnd({3})}, {}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(mvf, {rnd({0, 3}), rnd({3})}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(outerf, {rnd({3}), rnd({4})}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(outerf, {crnd({3}), crnd({2})}, kTightGradcheck));
  EXPECT_TRUE(gradgradcheck(outerf, {rnd({3}), rnd({2})}, {}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(gerf, {rnd({2}), rnd({3})}, kTightGradcheck));
  // vdot conjugates its first argument: d vdot(a, b) / db = a (not conj(a)).
  // With grad_output 1: vdot gives (conj(1) * b, 1 * a), dot gives (conj(b), conj(a)).
  Tensor a = crnd({3}), b = crnd({3});
  const Tensor one = ones({}, kComplex128);
  auto g = autograd::grad({vdot(a, b)}, {a, b}, {one});
  expect_tensor_near(g[0], b.detach(), 1e-12, 1e-12);
  expect_tensor_near(g[1], a.detach(), 1e-12, 1e-12);
  auto gd = autograd::grad({dot(a, b)}, {a, b}, {one});
  expect_tensor_near(gd[0], b.detach().conj(), 1e-12, 1e-12);
  expect_tensor_near(gd[1], a.detach().conj(), 1e-12, 1e-12);
}

// ---- out= variants ----

TEST(AutogradLinalg, OutVariantsRejectGrad) {
  Tensor a = rnd({2, 3}), b = rnd({3, 2});
  Tensor out = empty({2, 2}, kFloat64);
  expect_error([&] { mm_out(out, a, b); }, "don't support automatic differentiation");
  expect_error([&] { matmul_out(out, a, b); }, "don't support automatic differentiation");
  expect_error([&] { addmm_out(out, zeros({2}, kFloat64), a, b); }, "don't support automatic differentiation");
  Tensor o3 = empty({1, 2, 2}, kFloat64);
  expect_error([&] { bmm_out(o3, a.unsqueeze(0), b.unsqueeze(0)); }, "don't support automatic differentiation");
  {
    NoGradGuard no_grad;
    mm_out(out, a, b);  // fine without grad mode
  }
  expect_tensor_near(out, mm(a.detach(), b.detach()));
}

// ---- a linear layer, as the MLP benchmark runs it ----

TEST(AutogradLinalg, LinearLayerGradients) {
  Tensor x = plain({5, 4});
  Tensor w = rnd({3, 4}), bias = rnd({3});
  Tensor y = addmm(bias, x, w.t());
  Tensor loss = (y * y).sum();
  loss.backward();
  const Tensor gy = y.detach() * 2;
  expect_tensor_near(w.grad(), gy.t().mm(x), 1e-10, 1e-10);
  expect_tensor_near(bias.grad(), gy.sum({0}), 1e-10, 1e-10);
  EXPECT_FALSE(x.grad().defined());
}

// ---- einsum / tensordot ----

struct EinsumCase {
  std::string eq;
  std::vector<std::vector<int64_t>> shapes;
};

std::vector<EinsumCase> einsum_cases() {
  return {
      {"ij,jk->ik", {{2, 3}, {3, 4}}},
      {"ij,jk", {{2, 3}, {3, 2}}},  // implicit output
      {"ii->", {{3, 3}}},           // trace
      {"ii->i", {{3, 3}}},          // diagonal
      {"ii", {{3, 3}}},             // implicit trace
      {"bii->bi", {{2, 3, 3}}},
      {"iij->j", {{2, 2, 3}}},
      {"ij->ji", {{2, 3}}},
      {"ij->", {{2, 3}}},
      {"ij->j", {{2, 3}}},
      {"i,i->", {{4}, {4}}},
      {"i,i", {{4}, {4}}},
      {"i,j->ij", {{3}, {2}}},
      {"ij,ij->ij", {{2, 3}, {2, 3}}},
      {"ij,ij->i", {{3, 1}, {3, 4}}},  // size-1 broadcast
      {"ii,i->i", {{3, 3}, {3}}},
      {"bij,bjk->bik", {{2, 2, 3}, {2, 3, 2}}},
      {"...ij,...jk->...ik", {{2, 1, 2, 3}, {4, 3, 2}}},  // broadcast ellipsis
      {"...ij,...jk", {{2, 3}, {2, 3, 2}}},
      {"b...,b...->b", {{2, 3, 2}, {2, 3, 2}}},
      {"...i->...", {{2, 3, 4}}},
      {"ijk,jl,lk->i", {{2, 3, 2}, {3, 2}, {2, 2}}},  // chain of three
      {"a,a,a->a", {{3}, {3}, {3}}},
      {"ij,jk,kl->il", {{2, 3}, {3, 2}, {2, 2}}},
      {"bn,anm,bm->ba", {{2, 3}, {2, 3, 2}, {2, 2}}},  // bilinear
      {"i,j,k->ijk", {{2}, {3}, {2}}},
      {"ij,kj->", {{0, 3}, {2, 3}}},  // zero-size
  };
}

variable_list einsum_inputs(const EinsumCase& c, bool complex) {
  variable_list in;
  for (const auto& s : c.shapes) in.push_back(complex ? crnd(s) : rnd(s));
  return in;
}

TEST(AutogradLinalg, EinsumGradcheck) {
  for (const auto& c : einsum_cases()) {
    SCOPED_TRACE(c.eq);
    const auto f = einsum_fn(c.eq);
    EXPECT_TRUE(gradcheck(f, einsum_inputs(c, false), kTightGradcheck));
  }
}

TEST(AutogradLinalg, EinsumGradgradAndComplex) {
  for (const auto& c : einsum_cases()) {
    if (c.shapes.size() > 2) continue;  // keep the second-order checks small
    SCOPED_TRACE(c.eq);
    const auto f = einsum_fn(c.eq);
    EXPECT_TRUE(gradgradcheck(f, einsum_inputs(c, false), {}, kTightGradcheck));
    EXPECT_TRUE(gradcheck(f, einsum_inputs(c, true), kTightGradcheck));
  }
}

TEST(AutogradLinalg, EinsumRepeatedOperand) {
  // One tensor used as several operands: the gradients add up.
  auto f = [](const variable_list& x) { return variable_list{einsum("ij,jk->ik", {x[0], x[0]})}; };
  EXPECT_TRUE(gradcheck(f, {rnd({3, 3})}, kTightGradcheck));
  EXPECT_TRUE(gradgradcheck(f, {rnd({2, 2})}, {}, kTightGradcheck));
  auto g = [](const variable_list& x) { return variable_list{einsum("i,i,ij->j", {x[0], x[0], x[1]})}; };
  EXPECT_TRUE(gradcheck(g, {rnd({3}), rnd({3, 2})}, kTightGradcheck));
  // Trace of x @ x: gradient 2 x^T.
  Tensor x = rnd({3, 3});
  einsum("ij,ji->", {x, x}).backward();
  expect_tensor_near(x.grad(), x.detach().t() * 2, 1e-12, 1e-12);
  // Non-contiguous operand.
  auto h = [](const variable_list& x) { return variable_list{einsum("ij,jk->ik", {x[0], x[1]})}; };
  EXPECT_TRUE(gradcheck(h, {rnd_t(2, 3), rnd({4, 3}).t()}, kTightGradcheck));
}

TEST(AutogradLinalg, Tensordot) {
  auto f2 = fn2([](const Tensor& a, const Tensor& b) { return tensordot(a, b, 2); });
  EXPECT_TRUE(gradcheck(f2, {rnd({2, 3, 4}), rnd({3, 4, 2})}, kTightGradcheck));
  EXPECT_TRUE(gradgradcheck(f2, {rnd({2, 2, 3}), rnd({2, 3, 2})}, {}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(f2, {crnd({2, 3, 2}), crnd({3, 2, 2})}, kTightGradcheck));
  auto fl = fn2([](const Tensor& a, const Tensor& b) { return tensordot(a, b, {0, 2}, {2, 0}); });
  EXPECT_TRUE(gradcheck(fl, {rnd({3, 2, 4}), rnd({4, 2, 3})}, kTightGradcheck));
  auto f0 = fn2([](const Tensor& a, const Tensor& b) { return tensordot(a, b, 0); });  // outer product
  EXPECT_TRUE(gradcheck(f0, {rnd({2, 3}), rnd({2})}, kTightGradcheck));
  EXPECT_TRUE(gradcheck(f2, {rnd({4, 3, 2}).permute({2, 1, 0}), rnd({3, 4, 2})}, kTightGradcheck));  // non-contiguous
}

}  // namespace autograd_linalg_test
}  // namespace ember
