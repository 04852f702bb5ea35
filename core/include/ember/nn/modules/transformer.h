#pragma once
// MultiheadAttention and the Transformer family, as torch.nn's (PyTorch 1.13
// semantics; parameter names, default initialization, reprs and state_dict
// keys are PyTorch's, so torch.save'd checkpoints load with strict = true).
//
//   nn::MultiheadAttention mha(16, 2);                              // embed_dim, num_heads
//   auto [out, weights] = mha(x, x, x);                             // x [L, N, E]
//   auto [o2, w2] = mha(q, k, v, {.key_padding_mask = pad, .need_weights = false});
//
//   nn::TransformerEncoderLayer layer({.d_model = 512, .nhead = 8, .activation = "gelu"});
//   nn::TransformerEncoder encoder(layer, 6, nn::LayerNorm(512));  // 6 independent copies of layer
//   Tensor y = encoder(src, mask, key_padding_mask);
//
//   nn::Transformer model({.d_model = 16, .nhead = 2, .num_encoder_layers = 2, .num_decoder_layers = 2});
//   Tensor out = model(src, tgt, {.tgt_mask = nn::TransformerImpl::generate_square_subsequent_mask(T)});
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

#include "ember/nn/container.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/normalization.h"

namespace ember::nn {

// The out_proj of MultiheadAttention: a Linear printed under PyTorch's class name.
class NonDynamicallyQuantizableLinearImpl : public LinearImpl {
 public:
  using LinearImpl::LinearImpl;
  void pretty_print(std::ostream& os) const override;
};
EMBER_MODULE(NonDynamicallyQuantizableLinear);

struct MultiheadAttentionOptions {
  int64_t embed_dim = 0;
  int64_t num_heads = 0;
  double dropout = 0.0;  // on the attention weights, in training
  bool bias = true;      // in_proj_bias and out_proj.bias
  bool add_bias_kv = false;
  bool add_zero_attn = false;
  std::optional<int64_t> kdim = std::nullopt;  // nullopt: embed_dim
  std::optional<int64_t> vdim = std::nullopt;
  bool batch_first = false;
};

// MultiheadAttention's keyword arguments after query, key and value.
struct MultiheadAttentionForwardOptions {
  Tensor key_padding_mask = {};  // [N, S] ([S] unbatched): bool true = ignore, or float (added)
  bool need_weights = true;
  Tensor attn_mask = {};  // [L, S] or [N * num_heads, L, S]: bool true = not allowed, or float (added)
  bool average_attn_weights = true;
};

// Parameters: in_proj_weight [3E, E] when kdim == vdim == embed_dim, else
// q_proj_weight [E, E], k_proj_weight [E, kdim], v_proj_weight [E, vdim];
// in_proj_bias [3E]; bias_k, bias_v [1, 1, E] (add_bias_kv); out_proj (Linear).
// Init as PyTorch's: xavier_uniform projections, zero biases, xavier_normal bias_k/v.
class MultiheadAttentionImpl : public Module {
 public:
  using Options = MultiheadAttentionOptions;
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions{.embed_dim = embed_dim, .num_heads = num_heads}) {}
  void reset_parameters();

  // query [L, N, E] ([N, L, E] with batch_first; [L, E] unbatched), key [S, N, kdim],
  // value [S, N, vdim]. Returns (attn_output, attn_weights); attn_weights are
  // [N, L, S] (averaged over heads) or [N, num_heads, L, S], undefined when
  // need_weights is false. Pass the same Tensor as query, key and value for
  // self-attention (one fused in-projection).
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const MultiheadAttentionForwardOptions& options = {});
  // PyTorch's positional order.
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask, bool need_weights = true,
                                     const Tensor& attn_mask = {}, bool average_attn_weights = true) {
    return forward(query, key, value, MultiheadAttentionForwardOptions{key_padding_mask, need_weights, attn_mask,
                                                                       average_attn_weights});
  }

  MultiheadAttentionOptions options;
  int64_t embed_dim, kdim, vdim, num_heads, head_dim;
  bool qkv_same_embed_dim;
  Tensor in_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias, bias_k, bias_v;
  NonDynamicallyQuantizableLinear out_proj{nullptr};
};
EMBER_MODULE(MultiheadAttention);

// The feed-forward activation of the Transformer layers: "relu", "gelu" or
// any callable Tensor(const Tensor&).
class TransformerActivation {
 public:
  TransformerActivation(const char* name) : name_(name) {}
  TransformerActivation(std::string name) : name_(std::move(name)) {}
  template <class F>
    requires(std::is_invocable_r_v<Tensor, F, const Tensor&> && !std::is_convertible_v<F, std::string>)
  TransformerActivation(F fn) : fn_(std::move(fn)) {}
  // "relu", "gelu", another name (rejected by the layers), or "" for a callable.
  const std::string& name() const { return name_; }
  Tensor operator()(const Tensor& x) const;

 private:
  std::string name_;
  std::function<Tensor(const Tensor&)> fn_;
};

// TransformerEncoderLayer / TransformerDecoderLayer arguments, in PyTorch's order.
struct TransformerLayerOptions {
  int64_t d_model = 0;
  int64_t nhead = 0;
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  TransformerActivation activation = "relu";
  double layer_norm_eps = 1e-5;
  bool batch_first = false;
  bool norm_first = false;
};
using TransformerEncoderLayerOptions = TransformerLayerOptions;
using TransformerDecoderLayerOptions = TransformerLayerOptions;

// Self-attention then feed-forward, each with a residual connection and a
// LayerNorm (after the residual, or before the block with norm_first).
class TransformerEncoderLayerImpl : public Module {
 public:
  using Options = TransformerLayerOptions;
  explicit TransformerEncoderLayerImpl(const TransformerLayerOptions& options);
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerLayerOptions{.d_model = d_model, .nhead = nhead}) {}
  // src [S, N, E] ([N, S, E] with batch_first; [S, E] unbatched); src_mask
  // [S, S] or [N * nhead, S, S]; src_key_padding_mask [N, S].
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});
  // A new layer with the same options, parameter values, dtype and mode
  // (independent parameters: PyTorch's copy.deepcopy in _get_clones).
  std::shared_ptr<TransformerEncoderLayerImpl> clone() const;

  TransformerLayerOptions options;
  MultiheadAttention self_attn{nullptr};
  Linear linear1{nullptr}, linear2{nullptr};
  Dropout dropout{nullptr}, dropout1{nullptr}, dropout2{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr};

 private:
  Tensor ff_block(const Tensor& x);
};
EMBER_MODULE(TransformerEncoderLayer);

// Keyword arguments of the decoder's forward (and Transformer's, below).
struct TransformerDecoderForwardOptions {
  Tensor tgt_mask = {};
  Tensor memory_mask = {};
  Tensor tgt_key_padding_mask = {};
  Tensor memory_key_padding_mask = {};
};

// Self-attention, attention over the encoder's memory, feed-forward.
class TransformerDecoderLayerImpl : public Module {
 public:
  using Options = TransformerLayerOptions;
  explicit TransformerDecoderLayerImpl(const TransformerLayerOptions& options);
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerLayerOptions{.d_model = d_model, .nhead = nhead}) {}
  // tgt [T, N, E], memory [S, N, E] (batch first: [N, ., E]); tgt_mask [T, T],
  // memory_mask [T, S] (or 3-d per head); *_key_padding_mask [N, T] / [N, S].
  Tensor forward(const Tensor& tgt, const Tensor& memory, const TransformerDecoderForwardOptions& options);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {}) {
    return forward(tgt, memory,
                   TransformerDecoderForwardOptions{tgt_mask, memory_mask, tgt_key_padding_mask,
                                                    memory_key_padding_mask});
  }
  std::shared_ptr<TransformerDecoderLayerImpl> clone() const;

  TransformerLayerOptions options;
  MultiheadAttention self_attn{nullptr}, multihead_attn{nullptr};
  Linear linear1{nullptr}, linear2{nullptr};
  Dropout dropout{nullptr}, dropout1{nullptr}, dropout2{nullptr}, dropout3{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr}, norm3{nullptr};

 private:
  Tensor ff_block(const Tensor& x);
};
EMBER_MODULE(TransformerDecoderLayer);

// num_layers independent copies of encoder_layer (ModuleList "layers"), then
// the optional norm (any module mapping a Tensor to a Tensor, e.g. LayerNorm).
class TransformerEncoderImpl : public Module {
 public:
  TransformerEncoderImpl(const TransformerEncoderLayer& encoder_layer, int64_t num_layers,
                         std::optional<AnyModule> norm = std::nullopt);
  Tensor forward(const Tensor& src, const Tensor& mask = {}, const Tensor& src_key_padding_mask = {});

  int64_t num_layers;
  ModuleList layers{nullptr};
  std::optional<AnyModule> norm;
};
EMBER_MODULE(TransformerEncoder);

class TransformerDecoderImpl : public Module {
 public:
  TransformerDecoderImpl(const TransformerDecoderLayer& decoder_layer, int64_t num_layers,
                         std::optional<AnyModule> norm = std::nullopt);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const TransformerDecoderForwardOptions& options);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {}) {
    return forward(tgt, memory,
                   TransformerDecoderForwardOptions{tgt_mask, memory_mask, tgt_key_padding_mask,
                                                    memory_key_padding_mask});
  }

  int64_t num_layers;
  ModuleList layers{nullptr};
  std::optional<AnyModule> norm;
};
EMBER_MODULE(TransformerDecoder);

struct TransformerOptions {
  int64_t d_model = 512;
  int64_t nhead = 8;
  int64_t num_encoder_layers = 6;
  int64_t num_decoder_layers = 6;
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  TransformerActivation activation = "relu";
  TransformerEncoder custom_encoder = nullptr;  // replaces the encoder built from the options
  TransformerDecoder custom_decoder = nullptr;
  double layer_norm_eps = 1e-5;
  bool batch_first = false;
  bool norm_first = false;
};

// Keyword arguments of Transformer's forward.
struct TransformerForwardOptions {
  Tensor src_mask = {};
  Tensor tgt_mask = {};
  Tensor memory_mask = {};
  Tensor src_key_padding_mask = {};
  Tensor tgt_key_padding_mask = {};
  Tensor memory_key_padding_mask = {};
};

// encoder (TransformerEncoder with a final LayerNorm) and decoder
// (TransformerDecoder with a final LayerNorm); every parameter with more than
// one dim is re-initialized with xavier_uniform, as PyTorch's.
class TransformerImpl : public Module {
 public:
  using Options = TransformerOptions;
  explicit TransformerImpl(const TransformerOptions& options = {});
  // src [S, N, E], tgt [T, N, E] (batch first: [N, ., E]; unbatched: [., E]) -> [T, N, E].
  Tensor forward(const Tensor& src, const Tensor& tgt, const TransformerForwardOptions& options);
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {}, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& src_key_padding_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {}) {
    return forward(src, tgt,
                   TransformerForwardOptions{src_mask, tgt_mask, memory_mask, src_key_padding_mask,
                                             tgt_key_padding_mask, memory_key_padding_mask});
  }
  // [sz, sz] float mask: 0 on and below the diagonal, -inf above.
  static Tensor generate_square_subsequent_mask(int64_t sz, DType dtype = kFloat32, Device device = kCPU);

  TransformerOptions options;
  TransformerEncoder encoder{nullptr};
  TransformerDecoder decoder{nullptr};
};
EMBER_MODULE(Transformer);

}  // namespace ember::nn
