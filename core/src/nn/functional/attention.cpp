#include "ember/nn/functional/attention.h"

#include <cmath>
#include <limits>
#include <vector>

#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/linear.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/shape.h"

namespace ember::nn::functional {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<int64_t> vec(IntArrayRef s) { return {s.begin(), s.end()}; }

int64_t prod(IntArrayRef s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

// An additive float mask from a bool one: -inf where `masked_value` is found.
Tensor additive_mask(const Tensor& mask, bool masked_value, DType dtype) {
  Tensor out = zeros(mask.sizes(), TensorOptions().dtype(dtype).device(mask.device()));
  out.masked_fill_(masked_value ? mask : mask.logical_not(), -kInf);
  return out;
}

// PyTorch's _canonical_mask: bool (true = masked out) and uint8 masks become
// additive float masks of `dtype`; floating masks are used as they are.
Tensor canonical_mask(const Tensor& mask, const char* name, DType dtype) {
  if (!mask.defined()) return mask;
  if (mask.dtype() == kBool || mask.dtype() == kUInt8) return additive_mask(mask.to(kBool), true, dtype);
  EMBER_CHECK(mask.is_floating_point(), "multi_head_attention_forward: only bool and floating types of ", name,
              " are supported, not ", mask.dtype());
  return mask.dtype() == dtype ? mask : mask.to(dtype);
}

// beta * self + alpha * a @ b without a `self` (beta = 0 ignores it): the
// scale folds into the product.
Tensor scaled_bmm(const Tensor& a, const Tensor& b, double alpha) {
  if (alpha == 1.0) return bmm(a, b);
  return baddbmm(zeros({1, 1, 1}, a.options()), a, b, 0, alpha);
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, Generator* generator) {
  EMBER_CHECK(query.defined() && key.defined() && value.defined(),
              "scaled_dot_product_attention: query, key and value must be defined");
  EMBER_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2,
              "scaled_dot_product_attention: query, key and value must have at least 2 dims, got ", query.sizes(),
              ", ", key.sizes(), " and ", value.sizes());
  EMBER_CHECK(query.is_floating_point() && key.dtype() == query.dtype() && value.dtype() == query.dtype(),
              "scaled_dot_product_attention: expected query, key and value of one floating dtype, got ",
              query.dtype(), ", ", key.dtype(), " and ", value.dtype());
  EMBER_CHECK(dropout_p >= 0 && dropout_p <= 1, "scaled_dot_product_attention: dropout_p must be in [0, 1], got ",
              dropout_p);
  const int64_t L = query.size(-2), S = key.size(-2), E = query.size(-1), Ev = value.size(-1);
  EMBER_CHECK(key.size(-1) == E, "scaled_dot_product_attention: key's embedding dim ", key.size(-1),
              " does not match query's ", E, " (query ", query.sizes(), ", key ", key.sizes(), ")");
  EMBER_CHECK(value.size(-2) == S, "scaled_dot_product_attention: value's sequence length ", value.size(-2),
              " does not match key's ", S, " (key ", key.sizes(), ", value ", value.sizes(), ")");
  const double s = scale.value_or(1.0 / std::sqrt(static_cast<double>(E)));

  // The additive mask.
  Tensor mask;
  if (is_causal) {
    EMBER_CHECK(!attn_mask.defined(),
                "scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
    mask = full({L, S}, -kInf, query.options()).triu(1);
  } else if (attn_mask.defined()) {
    if (attn_mask.dtype() == kBool) {
      mask = additive_mask(attn_mask, false, query.dtype());
    } else {
      EMBER_CHECK(attn_mask.is_floating_point(),
                  "scaled_dot_product_attention: attn_mask must be bool or floating, got ", attn_mask.dtype());
      mask = attn_mask.dtype() == query.dtype() ? attn_mask : attn_mask.to(query.dtype());
    }
    EMBER_CHECK(mask.dim() <= query.dim(), "scaled_dot_product_attention: attn_mask of shape ", attn_mask.sizes(),
                " has more dims than query ", query.sizes());
  }

  const IntArrayRef batch = query.sizes().slice(0, query.dim() - 2);
  const bool same_batch = key.sizes().slice(0, key.dim() - 2) == batch &&
                          value.sizes().slice(0, value.dim() - 2) == batch;
  Tensor weights;
  Tensor v3;
  std::vector<int64_t> out_shape;
  if (same_batch) {
    // One batched product over the flattened batch dims.
    const int64_t B = prod(batch);
    Tensor q3 = query.reshape({B, L, E});
    Tensor k3 = key.reshape({B, S, E});
    v3 = value.reshape({B, S, Ev});
    if (mask.defined()) {
      std::vector<int64_t> full_shape = vec(batch);
      full_shape.push_back(L);
      full_shape.push_back(S);
      Tensor m3;
      try {
        if (mask.dim() <= 2) {
          (void)mask.expand({L, S});  // checks the shape; baddbmm broadcasts it
          m3 = mask;
        } else {
          m3 = mask.expand(full_shape).reshape({B, L, S});
        }
      } catch (const Error&) {
        EMBER_FAIL("scaled_dot_product_attention: attn_mask of shape ", attn_mask.sizes(),
                   " cannot be broadcast to the attention shape ", IntArrayRef(full_shape));
      }
      weights = baddbmm(m3, q3, k3.transpose(1, 2), 1, s);
    } else {
      weights = scaled_bmm(q3, k3.transpose(1, 2), s);
    }
    out_shape = vec(batch);
  } else {
    // Broadcast batch dims: matmul's rules.
    weights = query.matmul(key.mT()) * s;
    if (mask.defined()) weights = weights + mask;
  }
  weights = softmax(weights, -1);
  if (dropout_p > 0) weights = dropout(weights, dropout_p, true, false, generator);
  if (!same_batch) return weights.matmul(value);
  out_shape.push_back(L);
  out_shape.push_back(Ev);
  return bmm(weights, v3).view(out_shape);
}

std::tuple<Tensor, Tensor> multi_head_attention_forward(const Tensor& query_in, const Tensor& key_in,
                                                        const Tensor& value_in,
                                                        const MultiheadAttentionForwardFuncOptions& o) {
  constexpr const char* fn = "multi_head_attention_forward";
  EMBER_CHECK(query_in.defined() && key_in.defined() && value_in.defined(), fn,
              ": query, key and value must be defined");
  const int64_t H = o.num_heads;
  EMBER_CHECK(H > 0, fn, ": num_heads must be positive, got ", H);
  Tensor kpm = o.key_padding_mask;
  Tensor attn_mask = o.attn_mask;

  // _mha_shape_check: batched (3-d) or unbatched (2-d) inputs.
  bool batched = true;
  if (query_in.dim() == 3) {
    EMBER_CHECK(key_in.dim() == 3 && value_in.dim() == 3,
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found ", key_in.dim(),
                "-D and ", value_in.dim(), "-D tensors respectively");
    EMBER_CHECK(!kpm.defined() || kpm.dim() == 2,
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found ", kpm.dim(),
                "-D tensor instead");
    EMBER_CHECK(!attn_mask.defined() || attn_mask.dim() == 2 || attn_mask.dim() == 3,
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found ",
                attn_mask.dim(), "-D tensor instead");
  } else if (query_in.dim() == 2) {
    batched = false;
    EMBER_CHECK(key_in.dim() == 2 && value_in.dim() == 2,
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found ", key_in.dim(),
                "-D and ", value_in.dim(), "-D tensors respectively");
    EMBER_CHECK(!kpm.defined() || kpm.dim() == 1,
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found ",
                kpm.dim(), "-D tensor instead");
    if (attn_mask.defined()) {
      EMBER_CHECK(attn_mask.dim() == 2 || attn_mask.dim() == 3,
                  "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found ",
                  attn_mask.dim(), "-D tensor instead");
      if (attn_mask.dim() == 3) {
        const std::vector<int64_t> expected{H, query_in.size(0), key_in.size(0)};
        EMBER_CHECK(attn_mask.sizes() == IntArrayRef(expected), "Expected `attn_mask` shape to be ",
                    IntArrayRef(expected), " but got ", attn_mask.sizes());
      }
    }
  } else {
    EMBER_FAIL("query should be unbatched 2D or batched 3D tensor but received ", query_in.dim(),
               "-D query tensor");
  }

  // Unbatched inputs get a batch dim of 1 (keeping which inputs are the same
  // Tensor, for the packed projection).
  Tensor query = batched ? query_in : query_in.unsqueeze(1);
  Tensor key = !batched ? (key_in.is_same(query_in) ? query : key_in.unsqueeze(1)) : key_in;
  Tensor value = !batched ? (value_in.is_same(query_in) ? query
                             : value_in.is_same(key_in) ? key
                                                        : value_in.unsqueeze(1))
                          : value_in;
  if (!batched && kpm.defined()) kpm = kpm.unsqueeze(0);

  const int64_t tgt_len = query.size(0), bsz = query.size(1), embed_dim = query.size(2);
  const int64_t src_len = key.size(0);
  EMBER_CHECK(embed_dim == o.embed_dim_to_check, "was expecting embedding dimension of ", o.embed_dim_to_check,
              ", but got ", embed_dim);
  const int64_t head_dim = embed_dim / H;
  EMBER_CHECK(head_dim * H == embed_dim, "embed_dim ", embed_dim, " not divisible by num_heads ", H);
  if (o.use_separate_proj_weight) {
    EMBER_CHECK(key.size(0) == value.size(0) && key.size(1) == value.size(1),
                "key's sequence and batch dims ", key.sizes().slice(0, 2), " do not match value's ",
                value.sizes().slice(0, 2));
  } else {
    EMBER_CHECK(key.sizes() == value.sizes(), "key shape ", key.sizes(), " does not match value shape ",
                value.sizes());
  }
  // Masks become additive float masks (PyTorch 2.0's _canonical_mask).
  kpm = canonical_mask(kpm, "key_padding_mask", query.dtype());
  attn_mask = canonical_mask(attn_mask, "attn_mask", query.dtype());

  // ---- in-projection ----
  Tensor q, k, v;
  const Tensor& b = o.in_proj_bias;
  if (!o.use_separate_proj_weight) {
    EMBER_CHECK(o.in_proj_weight.defined(), "use_separate_proj_weight is False but in_proj_weight is None");
    const Tensor& w = o.in_proj_weight;
    const int64_t E = embed_dim;
    if (key.is_same(value) && query.is_same(key)) {
      // Self-attention: one matmul for q, k and v.
      auto qkv = linear(query, w, b).chunk(3, -1);
      q = qkv[0], k = qkv[1], v = qkv[2];
    } else if (key.is_same(value)) {
      // Encoder-decoder attention: one matmul for k and v.
      auto ws = w.split_with_sizes({E, 2 * E});
      std::vector<Tensor> bs = b.defined() ? b.split_with_sizes({E, 2 * E}) : std::vector<Tensor>(2);
      q = linear(query, ws[0], bs[0]);
      auto kv = linear(key, ws[1], bs[1]).chunk(2, -1);
      k = kv[0], v = kv[1];
    } else {
      auto ws = w.chunk(3);
      std::vector<Tensor> bs = b.defined() ? b.chunk(3) : std::vector<Tensor>(3);
      q = linear(query, ws[0], bs[0]);
      k = linear(key, ws[1], bs[1]);
      v = linear(value, ws[2], bs[2]);
    }
  } else {
    EMBER_CHECK(o.q_proj_weight.defined(), "use_separate_proj_weight is True but q_proj_weight is None");
    EMBER_CHECK(o.k_proj_weight.defined(), "use_separate_proj_weight is True but k_proj_weight is None");
    EMBER_CHECK(o.v_proj_weight.defined(), "use_separate_proj_weight is True but v_proj_weight is None");
    const int64_t Eq = embed_dim, Ek = key.size(-1), Ev = value.size(-1);
    auto check_w = [](const Tensor& t, int64_t r, int64_t c, const char* what) {
      EMBER_CHECK(t.dim() == 2 && t.size(0) == r && t.size(1) == c, "expecting ", what, " weights shape of (", r,
                  ", ", c, "), but got ", t.sizes());
    };
    check_w(o.q_proj_weight, Eq, Eq, "query");
    check_w(o.k_proj_weight, Eq, Ek, "key");
    check_w(o.v_proj_weight, Eq, Ev, "value");
    std::vector<Tensor> bs = b.defined() ? b.chunk(3) : std::vector<Tensor>(3);
    q = linear(query, o.q_proj_weight, bs[0]);
    k = linear(key, o.k_proj_weight, bs[1]);
    v = linear(value, o.v_proj_weight, bs[2]);
  }

  // ---- attention mask: [1 or N*H, L, S] ----
  if (attn_mask.defined()) {
    if (attn_mask.dim() == 2) {
      EMBER_CHECK(attn_mask.size(0) == tgt_len && attn_mask.size(1) == src_len, "The shape of the 2D attn_mask is ",
                  attn_mask.sizes(), ", but should be (", tgt_len, ", ", src_len, ").");
      attn_mask = attn_mask.unsqueeze(0);
    } else {
      EMBER_CHECK(attn_mask.size(0) == bsz * H && attn_mask.size(1) == tgt_len && attn_mask.size(2) == src_len,
                  "The shape of the 3D attn_mask is ", attn_mask.sizes(), ", but should be (", bsz * H, ", ",
                  tgt_len, ", ", src_len, ").");
    }
  }

  // ---- bias_k / bias_v: one more key and value ----
  if (o.bias_k.defined() && o.bias_v.defined()) {
    EMBER_CHECK(!o.static_k.defined(), "bias cannot be added to static key.");
    EMBER_CHECK(!o.static_v.defined(), "bias cannot be added to static value.");
    k = cat({k, o.bias_k.expand({1, bsz, embed_dim})});
    v = cat({v, o.bias_v.expand({1, bsz, embed_dim})});
    if (attn_mask.defined()) attn_mask = pad(attn_mask, {0, 1});
    if (kpm.defined()) kpm = pad(kpm, {0, 1});
  } else {
    EMBER_CHECK(!o.bias_k.defined() && !o.bias_v.defined(), fn, ": bias_k and bias_v must be given together");
  }

  // ---- heads: [N*H, len, head_dim] (batch first) ----
  // The query is scaled on the way (one pass that also makes it contiguous).
  q = (q / std::sqrt(static_cast<double>(head_dim))).reshape({tgt_len, bsz * H, head_dim}).transpose(0, 1);
  if (!o.static_k.defined()) {
    k = k.reshape({k.size(0), bsz * H, head_dim}).transpose(0, 1);
  } else {
    EMBER_CHECK(o.static_k.dim() == 3 && o.static_k.size(0) == bsz * H, "expecting static_k.size(0) of ", bsz * H,
                ", but got ", o.static_k.dim() == 3 ? o.static_k.size(0) : -1);
    EMBER_CHECK(o.static_k.size(2) == head_dim, "expecting static_k.size(2) of ", head_dim, ", but got ",
                o.static_k.size(2));
    k = o.static_k;
  }
  if (!o.static_v.defined()) {
    v = v.reshape({v.size(0), bsz * H, head_dim}).transpose(0, 1);
  } else {
    EMBER_CHECK(o.static_v.dim() == 3 && o.static_v.size(0) == bsz * H, "expecting static_v.size(0) of ", bsz * H,
                ", but got ", o.static_v.dim() == 3 ? o.static_v.size(0) : -1);
    EMBER_CHECK(o.static_v.size(2) == head_dim, "expecting static_v.size(2) of ", head_dim, ", but got ",
                o.static_v.size(2));
    v = o.static_v;
  }

  // ---- add_zero_attn: a zero key and value ----
  if (o.add_zero_attn) {
    k = cat({k, zeros({bsz * H, 1, head_dim}, k.options())}, 1);
    v = cat({v, zeros({bsz * H, 1, head_dim}, v.options())}, 1);
    if (attn_mask.defined()) attn_mask = pad(attn_mask, {0, 1});
    if (kpm.defined()) kpm = pad(kpm, {0, 1});
  }
  const int64_t S = k.size(1);

  // ---- merge the key padding mask ----
  if (kpm.defined()) {
    EMBER_CHECK(kpm.size(0) == bsz && kpm.size(1) == S, "expecting key_padding_mask shape of (", bsz, ", ", S,
                "), but got ", kpm.sizes());
    kpm = kpm.view({bsz, 1, 1, S}).expand({bsz, H, 1, S}).reshape({bsz * H, 1, S});
    attn_mask = attn_mask.defined() ? attn_mask + kpm : kpm;
  }

  // ---- attention ----
  const double p = o.training ? o.dropout_p : 0.0;
  Tensor weights = attn_mask.defined() ? baddbmm(attn_mask, q, k.transpose(1, 2)) : bmm(q, k.transpose(1, 2));
  weights = softmax(weights, -1);
  if (p > 0) weights = dropout(weights, p, true, false, o.generator);
  Tensor attn = bmm(weights, v);
  attn = attn.transpose(0, 1).reshape({tgt_len * bsz, embed_dim});
  attn = linear(attn, o.out_proj_weight, o.out_proj_bias).view({tgt_len, bsz, -1});
  if (!batched) attn = attn.squeeze(1);
  if (!o.need_weights) return {attn, Tensor()};

  // As PyTorch's, the weights returned are those after dropout.
  weights = weights.view({bsz, H, tgt_len, S});
  if (o.average_attn_weights) weights = weights.sum({1}) / static_cast<double>(H);
  if (!batched) weights = weights.squeeze(0);
  return {attn, weights};
}

}  // namespace ember::nn::functional
