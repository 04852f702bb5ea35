// nn::functional::embedding / embedding_bag and the Embedding / EmbeddingBag
// modules. Fixtures: scripts/fixtures/nn_embedding.py.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "tensor_expect.h"

namespace ember {
namespace nn_embedding_test {

using testing::expect_error;
using testing::expect_tensor_near;
using testing::fixture;
namespace F = nn::functional;

Tensor fx(const std::string& name) { return fixture("nn_embedding", name); }

void expect_near(const Tensor& a, const Tensor& b) { expect_tensor_near(a, b, 1e-10, 1e-12); }

TEST(NnEmbedding, MatchesTorch) {
  const std::vector<std::pair<std::string, F::EmbeddingFuncOptions>> cases = {
      {"emb_plain", {}},
      {"emb_pad", {.padding_idx = 2}},
      {"emb_pad_neg", {.padding_idx = -1}},
      {"emb_freq", {.scale_grad_by_freq = true}},
      {"emb_maxnorm", {.max_norm = 1.5}},
      {"emb_maxnorm_l1", {.max_norm = 1.0, .norm_type = 1.0}},
  };
  Tensor idx = fx("emb_input");
  for (const auto& [name, o] : cases) {
    SCOPED_TRACE(name);
    Tensor w = fx(name + "_weight").requires_grad_();
    Tensor out = F::embedding(idx, w, o);
    expect_near(out, fx(name + "_out"));
    expect_near(w.detach(), fx(name + "_weight_after"));  // max_norm renormalizes in place
    out.backward(fx(name + "_v"));
    expect_near(w.grad(), fx(name + "_gw"));
  }
  // int32 indices.
  Tensor w = fx("emb_plain_weight");
  expect_near(F::embedding(idx.to(kInt32), w), fx("emb_plain_out"));
}

TEST(NnEmbedding, PaddingRowGetsNoGradientAndGradcheck) {
  Tensor w = randn({6, 3}, kFloat64).requires_grad_();
  Tensor idx = tensor<int64_t>({0, 3, 3, 5, 0}, kInt64);
  F::embedding(idx, w, {.padding_idx = 3}).sum().backward();
  EXPECT_EQ(w.grad().select(0, 3).abs().sum().item<double>(), 0.0);
  EXPECT_EQ(w.grad().select(0, 0).sum().item<double>(), 6.0);  // twice, 3 columns
  // padding_idx and scale_grad_by_freq change the gradient on purpose, so
  // gradcheck covers the plain lookup (repeated indices accumulate).
  auto fn = [&](const autograd::variable_list& in) {
    return autograd::variable_list{F::embedding(idx.reshape({1, 5}), in[0])};
  };
  Tensor wg = randn({6, 3}, kFloat64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(fn, {wg}));
  EXPECT_TRUE(autograd::gradgradcheck(fn, {wg}));
  // scale_grad_by_freq: index 0 occurs twice, so each occurrence counts half.
  Tensor wf = randn({6, 3}, kFloat64).requires_grad_();
  F::embedding(idx, wf, {.scale_grad_by_freq = true}).sum().backward();
  EXPECT_EQ(wf.grad().select(0, 0).sum().item<double>(), 3.0);
  EXPECT_EQ(wf.grad().select(0, 5).sum().item<double>(), 3.0);
  EXPECT_EQ(F::embedding(tensor<int64_t>({1}, kInt64), w).grad_fn()->name(), "EmbeddingBackward0");
}

TEST(NnEmbedding, RenormTouchesOnlyLookedUpRows) {
  Tensor w = full({4, 2}, 3.0, kFloat64);
  F::embedding_renorm_(w, tensor<int64_t>({1, 1, 2}, kInt64), 1.0, 2.0);
  EXPECT_NEAR(w.select(0, 1).norm().item<double>(), 1.0, 1e-6);
  EXPECT_NEAR(w.select(0, 2).norm().item<double>(), 1.0, 1e-6);
  EXPECT_EQ(w.select(0, 0).sum().item<double>(), 6.0);
  EXPECT_EQ(w.select(0, 3).sum().item<double>(), 6.0);
}

TEST(NnEmbedding, Errors) {
  Tensor w = randn({5, 2});
  expect_error([&] { F::embedding(tensor<int64_t>({5}, kInt64), w); }, "embedding: index out of range in self: index 5");
  expect_error([&] { F::embedding(tensor<int64_t>({-1}, kInt64), w); }, "index out of range");
  expect_error([&] { F::embedding(ones({2}), w); }, "embedding: Expected tensor for argument 'indices'");
  expect_error([&] { F::embedding(tensor<int64_t>({1}, kInt64), randn({5})); }, "embedding: 'weight' must be 2-D");
  expect_error([&] { F::embedding(tensor<int64_t>({1}, kInt64), w, {.padding_idx = 5}); },
               "Padding_idx must be within num_embeddings");
  expect_error([&] { F::embedding(tensor<int64_t>({1}, kInt64), w, {.sparse = true}); }, "sparse");
  expect_error([] { nn::Embedding({.num_embeddings = 3, .embedding_dim = 2, .padding_idx = -4}); },
               "Embedding: Padding_idx must be within num_embeddings");
}

TEST(NnEmbedding, Module) {
  nn::Embedding emb({.num_embeddings = 10, .embedding_dim = 3, .padding_idx = -1});
  EXPECT_EQ(emb->options.padding_idx, 9);
  EXPECT_EQ(emb->weight.select(0, 9).abs().sum().item<double>(), 0.0);
  EXPECT_TRUE(emb->weight.requires_grad());
  Tensor idx = tensor<int64_t>({1, 9, 2}, kInt64).reshape({3, 1});
  Tensor y = emb(idx);
  EXPECT_EQ(y.sizes(), IntArrayRef({3, 1, 3}));
  y.sum().backward();
  EXPECT_EQ(emb->weight.grad().select(0, 9).abs().sum().item<double>(), 0.0);
  EXPECT_EQ(emb->str(), "Embedding(10, 3, padding_idx=9)");
  EXPECT_EQ(nn::Embedding({.num_embeddings = 10, .embedding_dim = 3, .padding_idx = 0, .max_norm = 2.0,
                           .norm_type = 1.0, .scale_grad_by_freq = true})
                ->str(),
            "Embedding(10, 3, padding_idx=0, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True)");
  EXPECT_EQ(nn::Embedding(4, 2)->named_parameters().keys(), std::vector<std::string>{"weight"});
  // Weight ~ N(0, 1).
  nn::Embedding big(1000, 100);
  EXPECT_NEAR(big->weight.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR(big->weight.std().item<double>(), 1.0, 0.02);
}

TEST(NnEmbedding, FromPretrained) {
  Tensor vectors = randn({4, 3});
  auto frozen = nn::Embedding::from_pretrained(vectors);
  EXPECT_FALSE(frozen->weight.requires_grad());
  EXPECT_EQ(frozen->weight.data_ptr(), vectors.data_ptr());  // shares the data
  expect_tensor_near(frozen(tensor<int64_t>({2}, kInt64)), vectors.index({indexing::Slice(2, 3)}));
  auto trainable = nn::Embedding::from_pretrained(vectors, {.freeze = false, .padding_idx = 1});
  EXPECT_TRUE(trainable->weight.requires_grad());
  EXPECT_NE(trainable->weight.select(0, 1).abs().sum().item<double>(), 0.0);  // not zeroed
  auto bag = nn::EmbeddingBag::from_pretrained(vectors, {.mode = "sum"});
  expect_tensor_near(bag(tensor<int64_t>({0, 1, 2, 3}, kInt64).reshape({2, 2})),
                     stack({vectors[0] + vectors[1], vectors[2] + vectors[3]}));
  EXPECT_FALSE(bag->weight.requires_grad());
}

struct BagCase {
  std::string name;
  bool two_d = false, psw = false, last = false;
  std::string mode;
  std::optional<int64_t> padding_idx = std::nullopt;
  bool freq = false;
  std::optional<double> max_norm = std::nullopt;
};

TEST(NnEmbeddingBag, MatchesTorch) {
  // Mirrors BAG_CASES in scripts/fixtures/nn_embedding.py.
  const std::vector<BagCase> cases = {
      {.name = "bag_sum", .mode = "sum"},
      {.name = "bag_mean", .mode = "mean"},
      {.name = "bag_max", .mode = "max"},
      {.name = "bag_last", .last = true, .mode = "mean"},
      {.name = "bag_2d", .two_d = true, .mode = "sum"},
      {.name = "bag_2d_max", .two_d = true, .mode = "max"},
      {.name = "bag_psw", .psw = true, .mode = "sum"},
      {.name = "bag_pad", .mode = "mean", .padding_idx = 1},
      {.name = "bag_pad_sum_psw", .psw = true, .mode = "sum", .padding_idx = 5},
      {.name = "bag_pad_max", .mode = "max", .padding_idx = 5},
      {.name = "bag_freq", .mode = "sum", .freq = true},
      {.name = "bag_maxnorm", .mode = "mean", .max_norm = 1.2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Tensor w = fx(c.name + "_weight").requires_grad_();
    Tensor psw = c.psw ? fx(c.name + "_psw").requires_grad_() : Tensor();
    Tensor out = F::embedding_bag(fx(c.name + "_input"), w,
                                  {.offsets = c.two_d ? Tensor() : fx(c.name + "_offsets"),
                                   .max_norm = c.max_norm,
                                   .scale_grad_by_freq = c.freq,
                                   .mode = c.mode,
                                   .per_sample_weights = psw,
                                   .include_last_offset = c.last,
                                   .padding_idx = c.padding_idx});
    expect_near(out, fx(c.name + "_out"));
    expect_near(w.detach(), fx(c.name + "_weight_after"));
    out.backward(fx(c.name + "_v"));
    expect_near(w.grad(), fx(c.name + "_gw"));
    if (c.psw) expect_near(psw.grad(), fx(c.name + "_gpsw"));
  }
}

TEST(NnEmbeddingBag, GradcheckAndModule) {
  Tensor input = tensor<int64_t>({0, 2, 1, 2, 3, 4}, kInt64), offsets = tensor<int64_t>({0, 2, 2, 5}, kInt64);
  for (const char* mode : {"sum", "mean", "max"}) {
    SCOPED_TRACE(mode);
    auto fn = [&](const autograd::variable_list& in) {
      return autograd::variable_list{F::embedding_bag(input, in[0], {.offsets = offsets, .mode = mode})};
    };
    Tensor w = randn({5, 3}, kFloat64).requires_grad_();
    EXPECT_TRUE(autograd::gradcheck(fn, {w}));
  }
  auto psw_fn = [&](const autograd::variable_list& in) {
    return autograd::variable_list{
        F::embedding_bag(input, in[0], {.offsets = offsets, .mode = "sum", .per_sample_weights = in[1]})};
  };
  EXPECT_TRUE(autograd::gradcheck(psw_fn, {randn({5, 3}, kFloat64).requires_grad_(),
                                           randn({6}, kFloat64).requires_grad_()}));
  EXPECT_TRUE(autograd::gradgradcheck(psw_fn, {randn({5, 3}, kFloat64).requires_grad_(),
                                               randn({6}, kFloat64).requires_grad_()}));

  nn::EmbeddingBag bag({.num_embeddings = 5, .embedding_dim = 3, .mode = "sum"});
  Tensor y = bag(input, offsets);
  EXPECT_EQ(y.sizes(), IntArrayRef({4, 3}));
  EXPECT_EQ(y.select(0, 1).abs().sum().item<double>(), 0.0);  // empty bag
  expect_tensor_near(y.select(0, 0), bag->weight[0] + bag->weight[2]);
  EXPECT_EQ(nn::EmbeddingBag({.num_embeddings = 10, .embedding_dim = 3, .max_norm = 1.0, .padding_idx = 0})->str(),
            "EmbeddingBag(10, 3, max_norm=1.0, mode=mean, padding_idx=0)");
  EXPECT_EQ(nn::EmbeddingBag(4, 2)->str(), "EmbeddingBag(4, 2, mode=mean)");
}

TEST(NnEmbeddingBag, Errors) {
  Tensor w = randn({5, 2});
  Tensor in1 = tensor<int64_t>({0, 1, 2}, kInt64);
  expect_error([&] { F::embedding_bag(in1, w); }, "embedding_bag: offsets has to be a 1D Tensor but got None");
  expect_error([&] { F::embedding_bag(in1.reshape({1, 3}), w, {.offsets = tensor<int64_t>({0}, kInt64)}); },
               "If input is 2D, then offsets has to be None");
  expect_error([&] { F::embedding_bag(in1, w, {.offsets = tensor<int64_t>({1}, kInt64)}); },
               "offsets[0] has to be 0");
  expect_error([&] { F::embedding_bag(in1, w, {.offsets = tensor<int64_t>({0, 4}, kInt64)}); },
               "can not be greater than input's length");
  expect_error([&] { F::embedding_bag(in1, w, {.offsets = tensor<int64_t>({0}, kInt64), .mode = "median"}); },
               "mode has to be one of sum, mean or max");
  expect_error([&] {
    F::embedding_bag(in1, w, {.offsets = tensor<int64_t>({0}, kInt64), .mode = "mean", .per_sample_weights = ones({3})});
  }, "per_sample_weights is only supported for mode='sum'");
  expect_error([&] { F::embedding_bag(in1.reshape({1, 1, 3}), w); }, "input has to be 1D or 2D Tensor");
  expect_error([&] { F::embedding_bag(tensor<int64_t>({7}, kInt64), w, {.offsets = tensor<int64_t>({0}, kInt64)}); },
               "embedding_bag: index out of range");
}

}  // namespace nn_embedding_test
}  // namespace ember
