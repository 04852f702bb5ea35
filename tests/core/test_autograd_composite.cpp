// Gradients of composite functions against PyTorch (fixtures from
// scripts/fixtures/autograd.py): an MLP with softmax cross-entropy, a small
// attention block, and a double backward through the attention block.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace autograd_composite_test {

using testing::expect_tensor_near;

Tensor fx(const std::string& name) { return testing::fixture("autograd", name); }
Tensor param(const std::string& name) { return fx(name).requires_grad_(); }

Tensor softmax_cross_entropy(const Tensor& logits, const Tensor& target) {
  Tensor logp = logits - logits.logsumexp({1}, true);
  return -logp.gather(1, target.unsqueeze(1)).mean();
}

TEST(AutogradComposite, MlpSoftmaxCrossEntropyMatchesPyTorch) {
  Tensor x = param("mlp_x"), w1 = param("mlp_w1"), b1 = param("mlp_b1");
  Tensor w2 = param("mlp_w2"), b2 = param("mlp_b2");
  Tensor logits = (x.matmul(w1) + b1).relu().matmul(w2) + b2;
  Tensor loss = softmax_cross_entropy(logits, fx("mlp_target"));
  expect_tensor_near(loss, fx("mlp_loss"), 1e-12, 1e-12);
  loss.backward();
  for (auto [name, t] : {std::pair{"x", x}, {"w1", w1}, {"b1", b1}, {"w2", w2}, {"b2", b2}})
    expect_tensor_near(t.grad(), fx(std::string("mlp_grad_") + name), 1e-10, 1e-12);
}

Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v) {
  Tensor scores = q.matmul(k.transpose(-2, -1)) / std::sqrt(8.0);
  Tensor p = (scores - scores.amax({-1}, true)).exp();
  p = p / p.sum({-1}, true);
  return p.matmul(v);
}

TEST(AutogradComposite, AttentionAndDoubleBackwardMatchPyTorch) {
  Tensor q = param("attn_q"), k = param("attn_k"), v = param("attn_v");
  Tensor out = attention(q, k, v);
  expect_tensor_near(out, fx("attn_out"), 1e-12, 1e-12);
  Tensor loss = (out * fx("attn_w")).sum();
  auto g = autograd::grad({loss}, {q, k, v}, {}, std::nullopt, /*create_graph=*/true);
  expect_tensor_near(g[0], fx("attn_grad_q"), 1e-10, 1e-12);
  expect_tensor_near(g[1], fx("attn_grad_k"), 1e-10, 1e-12);
  expect_tensor_near(g[2], fx("attn_grad_v"), 1e-10, 1e-12);
  auto gg = autograd::grad({(g[0] * g[0]).sum()}, {k, v});
  expect_tensor_near(gg[0], fx("attn_gradgrad_k"), 1e-9, 1e-12);
  expect_tensor_near(gg[1], fx("attn_gradgrad_v"), 1e-9, 1e-12);
}

}  // namespace autograd_composite_test
}  // namespace ember
