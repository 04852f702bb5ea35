// Attention and the Transformer family: scaled_dot_product_attention against a
// float64 math reference, gradchecks of the functional ops, and the modules
// against PyTorch through the checkpoint path (scripts/fixtures/nn_transformer.py;
// tests/core/module_fixture.h), reprs, errors and cloning.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include <ember/ember.h>

#include "module_fixture.h"

namespace ember {
namespace nn_transformer_test {

namespace F = nn::functional;
using testing::expect_error;
using testing::expect_tensor_near;
using testing::ModuleCase;

const TensorOptions f64 = TensorOptions().dtype(kFloat64);
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor rnd(IntArrayRef shape) { return randn(shape, f64); }

// softmax(q k^T / sqrt(E) + mask) v with elementary ops; a bool mask is true
// where attention is allowed.
Tensor sdpa_reference(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask = {},
                      bool causal = false, double scale = 0) {
  const int64_t L = q.size(-2), S = k.size(-2);
  const double s = scale != 0 ? scale : 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  Tensor scores = q.matmul(k.mT()) * s;
  Tensor m = mask;
  if (causal) m = ones({L, S}, TensorOptions().dtype(kBool)).tril();
  if (m.defined()) {
    if (m.dtype() == kBool)
      scores = scores.masked_fill(m.logical_not(), -kInf);
    else
      scores = scores + m;
  }
  Tensor e = (scores - scores.amax({-1}, true)).exp();
  return (e / e.sum({-1}, true)).matmul(v);
}

// ---- scaled_dot_product_attention ----

TEST(NnTransformerSdpa, MatchesMathReference) {
  manual_seed(1);
  Tensor q = rnd({2, 3, 4, 5}), k = rnd({2, 3, 6, 5}), v = rnd({2, 3, 6, 7});
  expect_tensor_near(F::scaled_dot_product_attention(q, k, v), sdpa_reference(q, k, v), 1e-12, 1e-12);
  // bool mask [L, S] broadcast over the batch (true = take part).
  Tensor bm = rand({4, 6}, f64).gt(0.3);
  bm.select(1, 0).fill_(true);  // no fully masked row
  expect_tensor_near(F::scaled_dot_product_attention(q, k, v, bm), sdpa_reference(q, k, v, bm), 1e-12, 1e-12);
  // float mask with batch dims [2, 1, 4, 6].
  Tensor fm = rnd({2, 1, 4, 6});
  expect_tensor_near(F::scaled_dot_product_attention(q, k, v, fm), sdpa_reference(q, k, v, fm), 1e-12, 1e-12);
  // causal, L == S and L < S.
  Tensor kq = rnd({2, 3, 4, 5}), vq = rnd({2, 3, 4, 7});
  expect_tensor_near(F::scaled_dot_product_attention(q, kq, vq, {}, 0.0, true),
                     sdpa_reference(q, kq, vq, {}, true), 1e-12, 1e-12);
  expect_tensor_near(F::scaled_dot_product_attention(q, k, v, {}, 0.0, true), sdpa_reference(q, k, v, {}, true),
                     1e-12, 1e-12);
  // custom scale; 3-d inputs.
  expect_tensor_near(F::scaled_dot_product_attention(q, k, v, {}, 0.0, false, 0.7),
                     sdpa_reference(q, k, v, {}, false, 0.7), 1e-12, 1e-12);
  Tensor q3 = rnd({3, 4, 5}), k3 = rnd({3, 6, 5}), v3 = rnd({3, 6, 2});
  expect_tensor_near(F::scaled_dot_product_attention(q3, k3, v3), sdpa_reference(q3, k3, v3), 1e-12, 1e-12);
  // broadcast batch dims (matmul's rules).
  Tensor kb = rnd({1, 3, 6, 5}), vb = rnd({1, 3, 6, 7});
  expect_tensor_near(F::scaled_dot_product_attention(q, kb, vb, fm), sdpa_reference(q, kb, vb, fm), 1e-12, 1e-12);
  // non-contiguous inputs (a transposed view).
  Tensor qt = rnd({2, 4, 3, 5}).transpose(1, 2);
  expect_tensor_near(F::scaled_dot_product_attention(qt, k, v), sdpa_reference(qt, k, v), 1e-12, 1e-12);
  // float32 follows.
  Tensor out32 = F::scaled_dot_product_attention(q.to(kFloat32), k.to(kFloat32), v.to(kFloat32));
  EXPECT_EQ(out32.dtype(), kFloat32);
  expect_tensor_near(out32.to(kFloat64), sdpa_reference(q, k, v), 1e-4, 1e-5);
}

TEST(NnTransformerSdpa, Dropout) {
  Tensor q = rnd({2, 4, 3}), k = rnd({2, 5, 3}), v = rnd({2, 5, 3});
  // p = 1 drops every weight.
  expect_tensor_near(F::scaled_dot_product_attention(q, k, v, {}, 1.0), zeros({2, 4, 3}, f64));
  // Same generator state, same result; the expectation is the undropped output.
  Generator g1(7), g2(7);
  Tensor a = F::scaled_dot_product_attention(q, k, v, {}, 0.5, false, std::nullopt, &g1);
  Tensor b = F::scaled_dot_product_attention(q, k, v, {}, 0.5, false, std::nullopt, &g2);
  expect_tensor_near(a, b, 0, 0);
  EXPECT_FALSE(allclose(a, F::scaled_dot_product_attention(q, k, v)));
}

TEST(NnTransformerSdpa, Errors) {
  Tensor q = rnd({2, 4, 3}), k = rnd({2, 5, 3}), v = rnd({2, 5, 3});
  expect_error([&] { F::scaled_dot_product_attention(q, k, v, ones({4, 5}, f64), 0.0, true); },
               "Explicit attn_mask should not be set when is_causal=True");
  expect_error([&] { F::scaled_dot_product_attention(q, rnd({2, 5, 4}), v); }, "key's embedding dim");
  expect_error([&] { F::scaled_dot_product_attention(q, k, rnd({2, 6, 3})); }, "value's sequence length");
  expect_error([&] { F::scaled_dot_product_attention(q, k, v, ones({3, 5}, f64)); }, "cannot be broadcast");
}

TEST(NnTransformerSdpa, Gradcheck) {
  manual_seed(2);
  Tensor q = rnd({2, 3, 2}).requires_grad_(), k = rnd({2, 4, 2}).requires_grad_(),
         v = rnd({2, 4, 3}).requires_grad_(), m = rnd({3, 4}).requires_grad_();
  auto fn = [](const autograd::variable_list& x) {
    return autograd::variable_list{F::scaled_dot_product_attention(x[0], x[1], x[2], x[3])};
  };
  EXPECT_TRUE(autograd::gradcheck(fn, {q, k, v, m}));
  EXPECT_TRUE(autograd::gradgradcheck(fn, {q, k, v, m}));
  auto causal = [](const autograd::variable_list& x) {
    return autograd::variable_list{F::scaled_dot_product_attention(x[0], x[1], x[2], {}, 0.0, true)};
  };
  EXPECT_TRUE(autograd::gradcheck(causal, {q, k, v}));
}

// ---- multi_head_attention_forward ----

TEST(NnTransformerMha, GradcheckPacked) {
  manual_seed(3);
  const int64_t E = 4, H = 2;
  Tensor x = rnd({3, 2, E}).requires_grad_();
  Tensor w = (0.5 * rnd({3 * E, E})).requires_grad_(), b = rnd({3 * E}).requires_grad_();
  Tensor wo = (0.5 * rnd({E, E})).requires_grad_(), bo = rnd({E}).requires_grad_();
  Tensor kpm = tensor({false, false, true, false, false, false}).view({2, 3});
  auto fn = [&](const autograd::variable_list& in) {
    auto [out, weights] = F::multi_head_attention_forward(
        in[0], in[0], in[0],
        {.embed_dim_to_check = E, .num_heads = H, .in_proj_weight = in[1], .in_proj_bias = in[2],
         .out_proj_weight = in[3], .out_proj_bias = in[4], .key_padding_mask = kpm});
    return autograd::variable_list{out, weights};
  };
  EXPECT_TRUE(autograd::gradcheck(fn, {x, w, b, wo, bo}));
  // Second order through x only (the weights as constants).
  auto fx = [&](const autograd::variable_list& in) { return fn({in[0], w.detach(), b.detach(), wo.detach(), bo.detach()}); };
  EXPECT_TRUE(autograd::gradgradcheck(fx, {x}));
}

TEST(NnTransformerMha, GradcheckSeparateBiasKvZeroAttn) {
  manual_seed(4);
  const int64_t E = 4, H = 2;
  Tensor q = rnd({2, 2, E}).requires_grad_(), k = rnd({2, 2, 3}).requires_grad_(), v = rnd({2, 2, 3}).requires_grad_();
  Tensor wq = (0.5 * rnd({E, E})).requires_grad_(), wk = (0.5 * rnd({E, 3})).requires_grad_(),
         wv = (0.5 * rnd({E, 3})).requires_grad_();
  Tensor bk = rnd({1, 1, E}).requires_grad_(), bv = rnd({1, 1, E}).requires_grad_();
  Tensor wo = (0.5 * rnd({E, E})).requires_grad_();
  Tensor am = rnd({2, 2}).requires_grad_();  // float mask: differentiable too
  auto fn = [&](const autograd::variable_list& in) {
    auto [out, weights] = F::multi_head_attention_forward(
        in[0], in[1], in[2],
        {.embed_dim_to_check = E, .num_heads = H, .bias_k = in[6], .bias_v = in[7], .add_zero_attn = true,
         .out_proj_weight = in[8], .need_weights = true, .attn_mask = in[9], .use_separate_proj_weight = true,
         .q_proj_weight = in[3], .k_proj_weight = in[4], .v_proj_weight = in[5], .average_attn_weights = false});
    return autograd::variable_list{out, weights};
  };
  EXPECT_TRUE(autograd::gradcheck(fn, {q, k, v, wq, wk, wv, bk, bv, wo, am}));
}

TEST(NnTransformerMha, Errors) {
  expect_error([] { nn::MultiheadAttention(10, 3); }, "embed_dim must be divisible by num_heads");
  nn::MultiheadAttention m(8, 2);
  Tensor x = randn({4, 3, 8});
  expect_error([&] { m->forward(x, x, x, {.attn_mask = zeros({4, 5}, TensorOptions().dtype(kBool))}); },
               "The shape of the 2D attn_mask is [4, 5], but should be (4, 4).");
  expect_error([&] { m->forward(x, x, x, {.attn_mask = zeros({3, 4, 4})}); },
               "The shape of the 3D attn_mask is [3, 4, 4], but should be (6, 4, 4).");
  expect_error([&] { m->forward(x, x, x, {.attn_mask = zeros({1, 1, 4, 4})}); },
               "expected `attn_mask` to be `None`, 2-D or 3-D but found 4-D");
  expect_error([&] { m->forward(x, x, x, {.key_padding_mask = zeros({3}, TensorOptions().dtype(kBool))}); },
               "expected `key_padding_mask` to be `None` or 2-D but found 1-D");
  expect_error([&] { m->forward(x, x, x, {.key_padding_mask = zeros({3, 5}, TensorOptions().dtype(kBool))}); },
               "expecting key_padding_mask shape of (3, 4)");
  expect_error([&] { m->forward(x, x, x, {.key_padding_mask = zeros({3, 4}, TensorOptions().dtype(kInt64))}); },
               "only bool and floating types of key_padding_mask are supported");
  expect_error([&] { m(randn({4, 3, 6}), randn({4, 3, 6}), randn({4, 3, 6})); },
               "was expecting embedding dimension of 8, but got 6");
  expect_error([&] { m(x, randn({5, 8}), randn({5, 8})); }, "expected `key` and `value` to be 3-D");
  expect_error([&] { m(randn({2, 4, 3, 8}), x, x); }, "query should be unbatched 2D or batched 3D tensor");
  expect_error([] { nn::TransformerEncoderLayer({.d_model = 8, .nhead = 2, .activation = "tanh"}); },
               "activation should be relu/gelu, not tanh");
  expect_error([] { nn::TransformerEncoderLayer(10, 4); }, "embed_dim must be divisible by num_heads");
}

// ---- modules against PyTorch (checkpoint path) ----

// Loads the case's checkpoint and checks that m's state_dict keys are the
// checkpoint's, in PyTorch's order.
void load_strict(const ModuleCase& c, nn::Module& m) {
  c.load(m);
  const auto ckpt = serialize::load_torch_state_dict(
      testing::fixture_path("core/" + c.family + "/" + c.name + ".pt"));
  std::vector<std::string> ours, theirs;
  for (const auto& [key, t] : m.state_dict()) ours.push_back(key);
  for (const auto& [key, t] : ckpt) theirs.push_back(key);
  EXPECT_EQ(ours, theirs) << c.name;
}

const TensorOptions kBoolOpt = TensorOptions().dtype(kBool);

TEST(NnTransformerFixture, MultiheadAttentionSelf) {
  ModuleCase c{"nn_transformer", "mha_self"};
  nn::MultiheadAttention m(8, 2);
  load_strict(c, *m);
  Tensor x = c.leaf_in(0);
  auto [out, w] = m(x, x, x);
  c.check(*m, {out, w}, {x});
}

TEST(NnTransformerFixture, MultiheadAttentionCrossMasks) {
  ModuleCase c{"nn_transformer", "mha_cross_masks"};
  nn::MultiheadAttention m(8, 2);
  load_strict(c, *m);
  Tensor q = c.leaf_in(0), mem = c.leaf_in(1);
  auto [out, w] = m->forward(q, mem, mem, {.key_padding_mask = c.in(2), .attn_mask = c.in(3), .average_attn_weights = false});
  EXPECT_EQ(w.sizes(), IntArrayRef({3, 2, 4, 5}));
  c.check(*m, {out, w}, {q, mem});
}

TEST(NnTransformerFixture, MultiheadAttentionKvdimBatchFirst) {
  ModuleCase c{"nn_transformer", "mha_kvdim_bf"};
  nn::MultiheadAttention m({.embed_dim = 8, .num_heads = 2, .kdim = 6, .vdim = 5, .batch_first = true});
  EXPECT_FALSE(m->in_proj_weight.defined());
  load_strict(c, *m);
  Tensor q = c.leaf_in(0), k = c.leaf_in(1), v = c.leaf_in(2);
  auto [out, w] = m->forward(q, k, v, {.attn_mask = c.in(3)});
  c.check(*m, {out, w}, {q, k, v});
}

TEST(NnTransformerFixture, MultiheadAttentionBiasKvZeroAttn) {
  ModuleCase c{"nn_transformer", "mha_bias_kv_zero_attn"};
  nn::MultiheadAttention m({.embed_dim = 8, .num_heads = 2, .add_bias_kv = true, .add_zero_attn = true});
  load_strict(c, *m);
  Tensor q = c.leaf_in(0), k = c.leaf_in(1), v = c.leaf_in(2);
  // PyTorch's positional order: key_padding_mask, need_weights, attn_mask.
  auto [out, w] = m(q, k, v, c.in(3), true, c.in(4));
  EXPECT_EQ(w.sizes(), IntArrayRef({2, 4, 7}));
  c.check(*m, {out, w}, {q, k, v});
}

TEST(NnTransformerFixture, MultiheadAttentionUnbatchedNoBias) {
  ModuleCase c{"nn_transformer", "mha_unbatched_nobias"};
  nn::MultiheadAttention m({.embed_dim = 8, .num_heads = 2, .bias = false});
  load_strict(c, *m);
  Tensor x = c.leaf_in(0);
  auto [out, w] = m->forward(x, x, x, {.key_padding_mask = c.in(1), .need_weights = false});
  EXPECT_FALSE(w.defined());
  c.check(*m, {out}, {x});
}

TEST(NnTransformerFixture, MultiheadAttentionFloatKeyPadding) {
  ModuleCase c{"nn_transformer", "mha_float_kpm"};
  nn::MultiheadAttention m(8, 2);
  load_strict(c, *m);
  Tensor x = c.leaf_in(0);
  auto [out, w] = m->forward(x, x, x, {.key_padding_mask = c.in(1)});
  c.check(*m, {out, w}, {x});
}

TEST(NnTransformerFixture, EncoderLayer) {
  {
    ModuleCase c{"nn_transformer", "enc_layer"};
    nn::TransformerEncoderLayer m({.d_model = 8, .nhead = 2, .dim_feedforward = 8, .dropout = 0.0});
    load_strict(c, *m);
    Tensor x = c.leaf_in(0);
    c.check(*m, {m(x, c.in(1), c.in(2))}, {x});
  }
  {
    ModuleCase c{"nn_transformer", "enc_layer_bf_normfirst_gelu"};
    nn::TransformerEncoderLayer m({.d_model = 8, .nhead = 2, .dim_feedforward = 8, .dropout = 0.0,
                                   .activation = "gelu", .batch_first = true, .norm_first = true});
    load_strict(c, *m);
    Tensor x = c.leaf_in(0);
    c.check(*m, {m(x, c.in(1))}, {x});
  }
  {
    ModuleCase c{"nn_transformer", "enc_layer_unbatched"};
    nn::TransformerEncoderLayer m({.d_model = 8, .nhead = 2, .dim_feedforward = 8, .dropout = 0.0});
    load_strict(c, *m);
    Tensor x = c.leaf_in(0);
    c.check(*m, {m(x)}, {x});
  }
}

TEST(NnTransformerFixture, DecoderLayer) {
  {
    ModuleCase c{"nn_transformer", "dec_layer"};
    nn::TransformerDecoderLayer m({.d_model = 8, .nhead = 2, .dim_feedforward = 8, .dropout = 0.0});
    load_strict(c, *m);
    Tensor t = c.leaf_in(0), mem = c.leaf_in(1);
    c.check(*m, {m->forward(t, mem, {.tgt_mask = c.in(2), .memory_key_padding_mask = c.in(3)})}, {t, mem});
  }
  {
    ModuleCase c{"nn_transformer", "dec_layer_bf_normfirst_gelu"};
    // A callable activation (here F::gelu) works as "gelu".
    nn::TransformerDecoderLayer m({.d_model = 8, .nhead = 2, .dim_feedforward = 8, .dropout = 0.0,
                                   .activation = [](const Tensor& x) { return F::gelu(x); },
                                   .batch_first = true, .norm_first = true});
    load_strict(c, *m);
    Tensor t = c.leaf_in(0), mem = c.leaf_in(1);
    c.check(*m, {m->forward(t, mem, {.memory_mask = c.in(3), .tgt_key_padding_mask = c.in(2)})}, {t, mem});
  }
}

TEST(NnTransformerFixture, EncoderAndDecoderStacks) {
  {
    ModuleCase c{"nn_transformer", "encoder"};
    nn::TransformerEncoderLayer layer({.d_model = 8, .nhead = 2, .dim_feedforward = 8, .dropout = 0.0});
    nn::TransformerEncoder m(layer, 2, nn::LayerNorm(8));
    load_strict(c, *m);
    Tensor x = c.leaf_in(0);
    c.check(*m, {m(x, c.in(1), c.in(2))}, {x});
  }
  {
    ModuleCase c{"nn_transformer", "decoder"};
    nn::TransformerDecoderLayer layer({.d_model = 8, .nhead = 2, .dim_feedforward = 8, .dropout = 0.0});
    nn::TransformerDecoder m(layer, 2);
    load_strict(c, *m);
    Tensor t = c.leaf_in(0), mem = c.leaf_in(1);
    c.check(*m, {m(t, mem, c.in(2))}, {t, mem});
  }
}

TEST(NnTransformerFixture, Transformer) {
  ModuleCase c{"nn_transformer", "transformer"};
  nn::Transformer m({.d_model = 16, .nhead = 2, .num_encoder_layers = 2, .num_decoder_layers = 2,
                     .dim_feedforward = 16, .dropout = 0.0});
  load_strict(c, *m);
  Tensor src = c.leaf_in(0), tgt = c.leaf_in(1);
  Tensor y = m->forward(src, tgt,
               {.tgt_mask = c.in(2), .src_key_padding_mask = c.in(3), .memory_key_padding_mask = c.in(4)});
  c.check(*m, {y}, {src, tgt}, 1e-7, 1e-8);
}

// ---- behaviour ----

TEST(NnTransformer, SquareSubsequentMask) {
  Tensor m = nn::TransformerImpl::generate_square_subsequent_mask(3);
  EXPECT_EQ(m.dtype(), kFloat32);
  expect_tensor_near(m, tensor({0.0f, -INFINITY, -INFINITY, 0.0f, 0.0f, -INFINITY, 0.0f, 0.0f, 0.0f}).view({3, 3}));
}

TEST(NnTransformer, ClonesAreIndependent) {
  nn::TransformerEncoderLayer layer({.d_model = 8, .nhead = 2, .dim_feedforward = 16});
  layer->to(kFloat64);
  layer->eval();
  nn::TransformerEncoder enc(layer, 3);
  ASSERT_EQ(enc->layers->size(), 3u);
  auto l0 = enc->layers->ptr<nn::TransformerEncoderLayerImpl>(0);
  auto l1 = enc->layers->ptr<nn::TransformerEncoderLayerImpl>(1);
  // Copies of the prototype (values, dtype, mode), in their own storage.
  EXPECT_EQ(l0->linear1->weight.dtype(), kFloat64);
  EXPECT_FALSE(l0->is_training());
  expect_tensor_near(l0->linear1->weight, layer->linear1->weight, 0, 0);
  expect_tensor_near(l1->self_attn->in_proj_weight, layer->self_attn->in_proj_weight, 0, 0);
  EXPECT_NE(l0->linear1->weight.data_ptr(), l1->linear1->weight.data_ptr());
  EXPECT_NE(l0->linear1->weight.data_ptr(), layer->linear1->weight.data_ptr());
  {
    NoGradGuard g;
    l0->linear1->weight.fill_(1.0);
  }
  EXPECT_FALSE(allclose(l0->linear1->weight, l1->linear1->weight));
  EXPECT_EQ(enc->parameters().size(), 3 * layer->parameters().size());
}

TEST(NnTransformer, InitAndParameters) {
  nn::MultiheadAttention m({.embed_dim = 8, .num_heads = 2, .add_bias_kv = true});
  EXPECT_EQ(m->in_proj_weight.sizes(), IntArrayRef({24, 8}));
  EXPECT_EQ(m->bias_k.sizes(), IntArrayRef({1, 1, 8}));
  EXPECT_TRUE(m->in_proj_bias.eq(0).all().item<bool>());
  EXPECT_TRUE(m->out_proj->bias.eq(0).all().item<bool>());
  // xavier_uniform bound sqrt(6 / (fan_in + fan_out)).
  EXPECT_LE(m->in_proj_weight.abs().max().item<float>(), std::sqrt(6.0 / (8 + 24)) + 1e-6);
  std::vector<std::string> keys;
  for (const auto& [k, t] : m->state_dict()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"in_proj_weight", "in_proj_bias", "bias_k", "bias_v", "out_proj.weight",
                                            "out_proj.bias"}));
  // Transformer: xavier_uniform on every matrix, LayerNorm weights stay ones.
  nn::Transformer t({.d_model = 8, .nhead = 2, .num_encoder_layers = 1, .num_decoder_layers = 1,
                     .dim_feedforward = 16});
  auto l1 = t->encoder->layers->ptr<nn::TransformerEncoderLayerImpl>(0)->linear1->weight;
  EXPECT_LE(l1.abs().max().item<float>(), std::sqrt(6.0 / (8 + 16)) + 1e-6);
  EXPECT_TRUE(t->encoder->layers->ptr<nn::TransformerEncoderLayerImpl>(0)->norm1->weight.eq(1).all().item<bool>());
}

TEST(NnTransformer, TrainEvalDropout) {
  manual_seed(5);
  nn::TransformerEncoderLayer layer({.d_model = 8, .nhead = 2, .dim_feedforward = 16, .dropout = 0.5});
  Tensor x = randn({4, 2, 8});
  Tensor a = layer(x), b = layer(x);
  EXPECT_FALSE(allclose(a, b));  // dropout active in training
  layer->eval();
  expect_tensor_near(layer(x), layer(x), 0, 0);
  nn::MultiheadAttention m({.embed_dim = 8, .num_heads = 2, .dropout = 0.5});
  m->eval();
  auto [o1, w1] = m(x, x, x);
  // Eval: the weights are a softmax (rows sum to 1).
  expect_tensor_near(w1.sum({-1}), ones({2, 4}), 1e-5, 1e-5);
}

TEST(NnTransformer, Float32Backward) {
  nn::Transformer t({.d_model = 8, .nhead = 2, .num_encoder_layers = 1, .num_decoder_layers = 1,
                     .dim_feedforward = 16, .dropout = 0.1, .batch_first = true});
  Tensor src = randn({2, 5, 8}), tgt = randn({2, 3, 8});
  Tensor y = t->forward(src, tgt, {.tgt_mask = nn::TransformerImpl::generate_square_subsequent_mask(3)});
  EXPECT_EQ(y.sizes(), IntArrayRef({2, 3, 8}));
  y.sum().backward();
  for (const auto& [k, p] : t->named_parameters()) EXPECT_TRUE(p.grad().defined()) << k;
  expect_error([&] { t(src, randn({3, 3, 8})); }, "the batch number of src and tgt must be equal");
  expect_error([&] { t(src, randn({2, 3, 4})); }, "the feature number of src and tgt must be equal to d_model");
}

TEST(NnTransformer, CustomEncoderAndUnbatched) {
  nn::TransformerEncoder custom(nn::TransformerEncoderLayer({.d_model = 8, .nhead = 2, .dim_feedforward = 4}), 1);
  nn::Transformer t({.d_model = 8, .nhead = 2, .num_encoder_layers = 3, .num_decoder_layers = 1,
                     .dim_feedforward = 16, .custom_encoder = custom});
  EXPECT_EQ(t->encoder.get(), custom.get());
  EXPECT_EQ(t->encoder->layers->size(), 1u);
  EXPECT_FALSE(t->encoder->norm.has_value());
  EXPECT_TRUE(t->named_parameters().contains("encoder.layers.0.linear1.weight"));
  t->eval();
  // Unbatched: [S, E], [T, E] -> [T, E], equal to the batch-of-one result.
  Tensor src = randn({5, 8}), tgt = randn({3, 8});
  Tensor y = t(src, tgt);
  EXPECT_EQ(y.sizes(), IntArrayRef({3, 8}));
  expect_tensor_near(y, t(src.unsqueeze(1), tgt.unsqueeze(1)).squeeze(1), 1e-5, 1e-6);
}

TEST(NnTransformer, Reprs) {
  nn::MultiheadAttention m(16, 2);
  EXPECT_EQ(m->str(),
            "MultiheadAttention(\n"
            "  (out_proj): NonDynamicallyQuantizableLinear(in_features=16, out_features=16, bias=True)\n"
            ")");
  nn::TransformerEncoderLayer enc({.d_model = 16, .nhead = 2, .activation = "gelu"});
  EXPECT_EQ(enc->str(),
            "TransformerEncoderLayer(\n"
            "  (self_attn): MultiheadAttention(\n"
            "    (out_proj): NonDynamicallyQuantizableLinear(in_features=16, out_features=16, bias=True)\n"
            "  )\n"
            "  (linear1): Linear(in_features=16, out_features=2048, bias=True)\n"
            "  (dropout): Dropout(p=0.1, inplace=False)\n"
            "  (linear2): Linear(in_features=2048, out_features=16, bias=True)\n"
            "  (norm1): LayerNorm((16,), eps=1e-05, elementwise_affine=True)\n"
            "  (norm2): LayerNorm((16,), eps=1e-05, elementwise_affine=True)\n"
            "  (dropout1): Dropout(p=0.1, inplace=False)\n"
            "  (dropout2): Dropout(p=0.1, inplace=False)\n"
            ")");
  nn::Transformer t({.d_model = 16, .nhead = 2, .num_encoder_layers = 1, .num_decoder_layers = 1,
                     .dim_feedforward = 32});
  const std::string s = t->str();
  EXPECT_EQ(s.rfind("Transformer(\n"
                    "  (encoder): TransformerEncoder(\n"
                    "    (layers): ModuleList(\n"
                    "      (0): TransformerEncoderLayer(\n", 0),
            0u);
  EXPECT_NE(s.find("    (norm): LayerNorm((16,), eps=1e-05, elementwise_affine=True)\n  )\n  (decoder): "
                   "TransformerDecoder(\n"),
            std::string::npos);
  EXPECT_NE(s.find("        (multihead_attn): MultiheadAttention(\n"), std::string::npos);
  EXPECT_NE(s.find("        (norm3): LayerNorm((16,), eps=1e-05, elementwise_affine=True)\n"), std::string::npos);
}

}  // namespace nn_transformer_test
}  // namespace ember
