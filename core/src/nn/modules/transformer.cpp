#include "ember/nn/modules/transformer.h"

#include <cmath>
#include <limits>
#include <ostream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/attention.h"
#include "ember/nn/init.h"
#include "ember/ops/factories.h"
#include "nn/modules/py_repr.h"

namespace ember::nn {

namespace F = functional;

void NonDynamicallyQuantizableLinearImpl::pretty_print(std::ostream& os) const {
  os << "NonDynamicallyQuantizableLinear(in_features=" << options.in << ", out_features=" << options.out
     << ", bias=" << detail::py_bool(options.bias) << ")";
}

// ---- MultiheadAttention ----

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& o)
    : Module("MultiheadAttention"),
      options(o),
      embed_dim(o.embed_dim),
      kdim(o.kdim.value_or(o.embed_dim)),
      vdim(o.vdim.value_or(o.embed_dim)),
      num_heads(o.num_heads),
      head_dim(o.num_heads > 0 ? o.embed_dim / o.num_heads : 0),
      qkv_same_embed_dim(kdim == o.embed_dim && vdim == o.embed_dim) {
  EMBER_CHECK(o.embed_dim > 0 && o.num_heads > 0,
              "MultiheadAttention: embed_dim and num_heads must be positive, got embed_dim=", o.embed_dim,
              " and num_heads=", o.num_heads);
  EMBER_CHECK(head_dim * num_heads == embed_dim, "MultiheadAttention: embed_dim must be divisible by num_heads (got ",
              "embed_dim=", embed_dim, " and num_heads=", num_heads, ")");
  EMBER_CHECK(kdim > 0 && vdim > 0, "MultiheadAttention: kdim and vdim must be positive, got ", kdim, " and ", vdim);
  EMBER_CHECK(o.dropout >= 0 && o.dropout <= 1, "MultiheadAttention: dropout must be in [0, 1], got ", o.dropout);
  const int64_t E = embed_dim;
  if (!qkv_same_embed_dim) {
    register_parameter("q_proj_weight", empty({E, E}), &q_proj_weight);
    register_parameter("k_proj_weight", empty({E, kdim}), &k_proj_weight);
    register_parameter("v_proj_weight", empty({E, vdim}), &v_proj_weight);
  } else {
    register_parameter("in_proj_weight", empty({3 * E, E}), &in_proj_weight);
  }
  if (o.bias) register_parameter("in_proj_bias", empty({3 * E}), &in_proj_bias);
  out_proj = register_module("out_proj", NonDynamicallyQuantizableLinear(LinearOptions{E, E, o.bias}));
  if (o.add_bias_kv) {
    register_parameter("bias_k", empty({1, 1, E}), &bias_k);
    register_parameter("bias_v", empty({1, 1, E}), &bias_v);
  }
  reset_parameters();
}

void MultiheadAttentionImpl::reset_parameters() {
  if (qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::zeros_(in_proj_bias);
    init::zeros_(out_proj->bias);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(const Tensor& query, const Tensor& key,
                                                           const Tensor& value,
                                                           const MultiheadAttentionForwardOptions& f) {
  const bool batched = query.dim() == 3;
  Tensor q = query, k = key, v = value;
  if (options.batch_first && batched) {
    // To [L, N, E], keeping which arguments are the same Tensor (packed projection).
    q = query.transpose(0, 1);
    k = key.is_same(query) ? q : key.transpose(0, 1);
    v = value.is_same(query) ? q : value.is_same(key) ? k : value.transpose(0, 1);
  }
  auto [out, weights] = F::multi_head_attention_forward(
      q, k, v,
      {.embed_dim_to_check = embed_dim,
       .num_heads = num_heads,
       .in_proj_weight = in_proj_weight,
       .in_proj_bias = in_proj_bias,
       .bias_k = bias_k,
       .bias_v = bias_v,
       .add_zero_attn = options.add_zero_attn,
       .dropout_p = options.dropout,
       .out_proj_weight = out_proj->weight,
       .out_proj_bias = out_proj->bias,
       .training = is_training(),
       .key_padding_mask = f.key_padding_mask,
       .need_weights = f.need_weights,
       .attn_mask = f.attn_mask,
       .use_separate_proj_weight = !qkv_same_embed_dim,
       .q_proj_weight = q_proj_weight,
       .k_proj_weight = k_proj_weight,
       .v_proj_weight = v_proj_weight,
       .average_attn_weights = f.average_attn_weights});
  if (options.batch_first && batched) out = out.transpose(0, 1);
  return {out, weights};
}

// ---- activation ----

Tensor TransformerActivation::operator()(const Tensor& x) const {
  if (fn_) return fn_(x);
  if (name_ == "relu") return F::relu(x);
  if (name_ == "gelu") return F::gelu(x);
  EMBER_FAIL("activation should be relu/gelu, not ", name_);
}

namespace {

void check_layer_options(const char* layer, const TransformerLayerOptions& o) {
  const std::string& a = o.activation.name();
  EMBER_CHECK(a.empty() || a == "relu" || a == "gelu", "activation should be relu/gelu, not ", a);
  EMBER_CHECK(o.d_model > 0 && o.nhead > 0 && o.dim_feedforward > 0, layer,
              ": d_model, nhead and dim_feedforward must be positive, got ", o.d_model, ", ", o.nhead, " and ",
              o.dim_feedforward);
}

void check_padding_mask(const Tensor& mask, const char* name) {
  EMBER_CHECK(!mask.defined() || mask.dtype() == kBool || mask.is_floating_point(),
              "only bool and floating types of ", name, " are supported");
}

// A copy of `m` made by `make` with m's options: parameter values, dtype and
// training mode copied over.
template <class Impl>
std::shared_ptr<Impl> clone_module(const Impl& m, std::shared_ptr<Impl> copy) {
  const auto params = m.parameters();
  if (!params.empty()) copy->to(params.front().dtype());
  copy->load_state_dict(m.state_dict(), true);
  copy->train(m.is_training());
  return copy;
}

MultiheadAttention make_attention(const TransformerLayerOptions& o) {
  return MultiheadAttention(
      MultiheadAttentionOptions{.embed_dim = o.d_model, .num_heads = o.nhead, .dropout = o.dropout,
                                .batch_first = o.batch_first});
}

}  // namespace

// ---- TransformerEncoderLayer ----

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(const TransformerLayerOptions& o)
    : Module("TransformerEncoderLayer"), options(o) {
  check_layer_options("TransformerEncoderLayer", o);
  const std::vector<int64_t> shape{o.d_model};
  self_attn = register_module("self_attn", make_attention(o));
  linear1 = register_module("linear1", Linear(o.d_model, o.dim_feedforward));
  dropout = register_module("dropout", Dropout(o.dropout));
  linear2 = register_module("linear2", Linear(o.dim_feedforward, o.d_model));
  norm1 = register_module("norm1", LayerNorm(LayerNormOptions{.normalized_shape = shape, .eps = o.layer_norm_eps}));
  norm2 = register_module("norm2", LayerNorm(LayerNormOptions{.normalized_shape = shape, .eps = o.layer_norm_eps}));
  dropout1 = register_module("dropout1", Dropout(o.dropout));
  dropout2 = register_module("dropout2", Dropout(o.dropout));
}

Tensor TransformerEncoderLayerImpl::ff_block(const Tensor& x) {
  return dropout2(linear2(dropout(options.activation(linear1(x)))));
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) {
  check_padding_mask(src_key_padding_mask, "src_key_padding_mask");
  auto sa_block = [&](const Tensor& x) {
    auto [out, w] = self_attn->forward(x, x, x, {.key_padding_mask = src_key_padding_mask, .need_weights = false,
                                                 .attn_mask = src_mask});
    return dropout1(out);
  };
  Tensor x = src;
  if (options.norm_first) {
    x = x + sa_block(norm1(x));
    x = x + ff_block(norm2(x));
  } else {
    x = norm1(x + sa_block(x));
    x = norm2(x + ff_block(x));
  }
  return x;
}

std::shared_ptr<TransformerEncoderLayerImpl> TransformerEncoderLayerImpl::clone() const {
  return clone_module(*this, std::make_shared<TransformerEncoderLayerImpl>(options));
}

// ---- TransformerDecoderLayer ----

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(const TransformerLayerOptions& o)
    : Module("TransformerDecoderLayer"), options(o) {
  check_layer_options("TransformerDecoderLayer", o);
  const std::vector<int64_t> shape{o.d_model};
  auto norm = [&] { return LayerNorm(LayerNormOptions{.normalized_shape = shape, .eps = o.layer_norm_eps}); };
  self_attn = register_module("self_attn", make_attention(o));
  multihead_attn = register_module("multihead_attn", make_attention(o));
  linear1 = register_module("linear1", Linear(o.d_model, o.dim_feedforward));
  dropout = register_module("dropout", Dropout(o.dropout));
  linear2 = register_module("linear2", Linear(o.dim_feedforward, o.d_model));
  norm1 = register_module("norm1", norm());
  norm2 = register_module("norm2", norm());
  norm3 = register_module("norm3", norm());
  dropout1 = register_module("dropout1", Dropout(o.dropout));
  dropout2 = register_module("dropout2", Dropout(o.dropout));
  dropout3 = register_module("dropout3", Dropout(o.dropout));
}

Tensor TransformerDecoderLayerImpl::ff_block(const Tensor& x) {
  return dropout3(linear2(dropout(options.activation(linear1(x)))));
}

Tensor TransformerDecoderLayerImpl::forward(const Tensor& tgt, const Tensor& memory,
                                            const TransformerDecoderForwardOptions& f) {
  auto sa_block = [&](const Tensor& x) {
    auto [out, w] = self_attn->forward(x, x, x, {.key_padding_mask = f.tgt_key_padding_mask, .need_weights = false,
                                                 .attn_mask = f.tgt_mask});
    return dropout1(out);
  };
  auto mha_block = [&](const Tensor& x) {
    auto [out, w] = multihead_attn->forward(
        x, memory, memory,
        {.key_padding_mask = f.memory_key_padding_mask, .need_weights = false, .attn_mask = f.memory_mask});
    return dropout2(out);
  };
  Tensor x = tgt;
  if (options.norm_first) {
    x = x + sa_block(norm1(x));
    x = x + mha_block(norm2(x));
    x = x + ff_block(norm3(x));
  } else {
    x = norm1(x + sa_block(x));
    x = norm2(x + mha_block(x));
    x = norm3(x + ff_block(x));
  }
  return x;
}

std::shared_ptr<TransformerDecoderLayerImpl> TransformerDecoderLayerImpl::clone() const {
  return clone_module(*this, std::make_shared<TransformerDecoderLayerImpl>(options));
}

// ---- TransformerEncoder / TransformerDecoder ----

TransformerEncoderImpl::TransformerEncoderImpl(const TransformerEncoderLayer& encoder_layer, int64_t n,
                                               std::optional<AnyModule> norm_module)
    : Module("TransformerEncoder"), num_layers(n), norm(std::move(norm_module)) {
  EMBER_CHECK(encoder_layer, "TransformerEncoder: encoder_layer is empty");
  EMBER_CHECK(n >= 0, "TransformerEncoder: num_layers must be non-negative, got ", n);
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < n; ++i) layers->push_back(encoder_layer->clone());
  if (norm) register_module("norm", norm->ptr());
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& mask, const Tensor& src_key_padding_mask) {
  check_padding_mask(src_key_padding_mask, "key_padding_mask");
  Tensor output = src;
  for (size_t i = 0; i < layers->size(); ++i)
    output = layers->ptr<TransformerEncoderLayerImpl>(i)->forward(output, mask, src_key_padding_mask);
  if (norm) output = norm->forward(output);
  return output;
}

TransformerDecoderImpl::TransformerDecoderImpl(const TransformerDecoderLayer& decoder_layer, int64_t n,
                                               std::optional<AnyModule> norm_module)
    : Module("TransformerDecoder"), num_layers(n), norm(std::move(norm_module)) {
  EMBER_CHECK(decoder_layer, "TransformerDecoder: decoder_layer is empty");
  EMBER_CHECK(n >= 0, "TransformerDecoder: num_layers must be non-negative, got ", n);
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < n; ++i) layers->push_back(decoder_layer->clone());
  if (norm) register_module("norm", norm->ptr());
}

Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory,
                                       const TransformerDecoderForwardOptions& f) {
  Tensor output = tgt;
  for (size_t i = 0; i < layers->size(); ++i)
    output = layers->ptr<TransformerDecoderLayerImpl>(i)->forward(output, memory, f);
  if (norm) output = norm->forward(output);
  return output;
}

// ---- Transformer ----

TransformerImpl::TransformerImpl(const TransformerOptions& o) : Module("Transformer"), options(o) {
  const TransformerLayerOptions layer{.d_model = o.d_model,
                                      .nhead = o.nhead,
                                      .dim_feedforward = o.dim_feedforward,
                                      .dropout = o.dropout,
                                      .activation = o.activation,
                                      .layer_norm_eps = o.layer_norm_eps,
                                      .batch_first = o.batch_first,
                                      .norm_first = o.norm_first};
  auto final_norm = [&] {
    return LayerNorm(LayerNormOptions{.normalized_shape = {o.d_model}, .eps = o.layer_norm_eps});
  };
  encoder = o.custom_encoder ? o.custom_encoder
                             : TransformerEncoder(TransformerEncoderLayer(layer), o.num_encoder_layers, final_norm());
  decoder = o.custom_decoder ? o.custom_decoder
                             : TransformerDecoder(TransformerDecoderLayer(layer), o.num_decoder_layers, final_norm());
  register_module("encoder", encoder);
  register_module("decoder", decoder);
  // PyTorch's _reset_parameters.
  for (Tensor& p : parameters())
    if (p.dim() > 1) init::xavier_uniform_(p);
}

Tensor TransformerImpl::forward(const Tensor& src, const Tensor& tgt, const TransformerForwardOptions& f) {
  const bool batched = src.dim() == 3;
  if (batched) {
    const int64_t bdim = options.batch_first ? 0 : 1;
    EMBER_CHECK(tgt.dim() == 3 && src.size(bdim) == tgt.size(bdim), "the batch number of src and tgt must be equal");
  }
  EMBER_CHECK(src.size(-1) == options.d_model && tgt.size(-1) == options.d_model,
              "the feature number of src and tgt must be equal to d_model");
  Tensor memory = encoder->forward(src, f.src_mask, f.src_key_padding_mask);
  return decoder->forward(tgt, memory,
                          TransformerDecoderForwardOptions{f.tgt_mask, f.memory_mask, f.tgt_key_padding_mask,
                                                           f.memory_key_padding_mask});
}

Tensor TransformerImpl::generate_square_subsequent_mask(int64_t sz, DType dtype, Device device) {
  return full({sz, sz}, -std::numeric_limits<double>::infinity(), TensorOptions(dtype).device(device)).triu(1);
}

}  // namespace ember::nn
