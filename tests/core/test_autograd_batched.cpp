// Batched gradients (autograd::grad with is_grads_batched) and the vectorized
// jacobian built on them: B vector-Jacobian products in one pass must equal B
// separate backward passes, through nodes that batch (elementwise) and nodes
// that run once per batch entry (matmul, reductions, views, indexing).
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace autograd_batched_test {

using testing::expect_error;
using testing::expect_tensor_near;

Tensor mixed(const Tensor& x, const Tensor& w) {
  Tensor h = x.matmul(w).tanh() * x.sum() + x.exp().slice(1, 0, 3).repeat({1, 2}) / (1 + w.sum(0));
  return h.index_select(0, tensor(std::vector<int64_t>{1, 0, 1})).pow(2);
}

TEST(AutogradBatched, BatchedVjpsEqualSeparatePasses) {
  Generator gen(7);
  Tensor x = randn({3, 4}, kFloat64, &gen).requires_grad_();
  Tensor w = randn({4, 6}, kFloat64, &gen).requires_grad_();
  Tensor y = mixed(x, w);
  Tensor v = randn({5, 3, 6}, kFloat64, &gen);
  auto batched = autograd::grad({y}, {x, w}, {v}, true, false, false, /*is_grads_batched=*/true);
  ASSERT_EQ(batched[0].sizes(), IntArrayRef({5, 3, 4}));
  ASSERT_EQ(batched[1].sizes(), IntArrayRef({5, 4, 6}));
  for (int64_t b = 0; b < 5; ++b) {
    auto one = autograd::grad({y}, {x, w}, {v[b]}, true);
    expect_tensor_near(batched[0][b], one[0], 1e-12, 1e-12);
    expect_tensor_near(batched[1][b], one[1], 1e-12, 1e-12);
  }
}

TEST(AutogradBatched, BroadcastingInsideBatchedElementwiseNodes) {
  Tensor a = randn({4}, kFloat64).requires_grad_();
  Tensor b = randn({3, 1}, kFloat64).requires_grad_();
  Tensor y = (a * b + a.sigmoid()).sin();  // [3, 4]
  Tensor v = randn({2, 3, 4}, kFloat64);
  auto batched = autograd::grad({y}, {a, b}, {v}, true, false, false, true);
  for (int64_t k = 0; k < 2; ++k) {
    auto one = autograd::grad({y}, {a, b}, {v[k]}, true);
    expect_tensor_near(batched[0][k], one[0], 1e-12, 1e-12);
    expect_tensor_near(batched[1][k], one[1], 1e-12, 1e-12);
  }
}

TEST(AutogradBatched, VectorizedJacobianMatchesRowByRow) {
  Generator gen(11);
  Tensor x = randn({3, 4}, kFloat64, &gen), w = randn({4, 6}, kFloat64, &gen);
  autograd::functional::TensorListFn f = [](const autograd::variable_list& in) {
    return autograd::variable_list{mixed(in[0], in[1]), (in[0] * 2).sum()};
  };
  auto rows = autograd::functional::jacobian(f, {x, w}, false, false, /*vectorize=*/false);
  auto vec = autograd::functional::jacobian(f, {x, w}, false, false, /*vectorize=*/true);
  for (size_t i = 0; i < 2; ++i)
    for (size_t j = 0; j < 2; ++j) expect_tensor_near(vec[i][j], rows[i][j], 1e-12, 1e-12);
  // create_graph: the vectorized jacobian is itself differentiable (hessian).
  auto cubic = [](const Tensor& t) { return (t * t * t).sum(); };
  Tensor z = randn({4}, kFloat64, &gen);
  Tensor jac = autograd::functional::jacobian([&](const Tensor& t) {
    return autograd::functional::jacobian(cubic, t, true, false, true);
  }, z, false, false, true);
  expect_tensor_near(jac, eye(4, kFloat64) * (z * 6), 1e-12, 1e-12);
}

TEST(AutogradBatched, BadBatchedGradientsAreErrors) {
  Tensor x = randn({3}, kFloat64).requires_grad_();
  Tensor y = x * 2;
  expect_error([&] { autograd::grad({y}, {x}, {randn({3}, kFloat64)}, true, false, false, true); },
               "is_grads_batched");
  expect_error([&] { autograd::grad({y}, {x}, {}, true, false, false, true); }, "batched gradient");
}

}  // namespace autograd_batched_test
}  // namespace ember
