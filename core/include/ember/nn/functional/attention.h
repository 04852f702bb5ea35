#pragma once
// Attention, as torch.nn.functional: scaled_dot_product_attention (PyTorch
// 2.0 semantics) and multi_head_attention_forward (the computation behind
// nn::MultiheadAttention). Both are composed of recorded Tensor ops (batched
// bmm/baddbmm, the fused softmax), so they are differentiable, twice.
//
//   using namespace ember::nn::functional;
//   Tensor y = scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true);
//   auto [out, weights] = multi_head_attention_forward(x, x, x, {.embed_dim_to_check = 16, .num_heads = 2,
//       .in_proj_weight = w, .in_proj_bias = b, .out_proj_weight = wo, .out_proj_bias = bo});
#include <optional>
#include <tuple>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember::nn::functional {

// softmax(q k^T * scale + mask) v over the last two dims.
// query [N, ..., L, E], key [N, ..., S, E], value [N, ..., S, Ev] -> [N, ..., L, Ev].
// attn_mask broadcasts to [N, ..., L, S]: bool (true = the position takes part
// in attention, as PyTorch 2.0's) or floating (added to the scores).
// is_causal: position i attends to keys j <= i (attn_mask must then be undefined).
// dropout_p: dropout on the attention weights (always applied when > 0, as
// PyTorch's: pass 0 in evaluation). scale: default 1/sqrt(E).
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = {}, double dropout_p = 0.0, bool is_causal = false,
                                    std::optional<double> scale = std::nullopt, Generator* generator = nullptr);

// torch.nn.functional.multi_head_attention_forward's arguments after
// query/key/value, in its order (undefined Tensors stand for None).
struct MultiheadAttentionForwardFuncOptions {
  int64_t embed_dim_to_check = 0;
  int64_t num_heads = 0;
  Tensor in_proj_weight = {};  // [3E, E] (packed q, k, v)
  Tensor in_proj_bias = {};    // [3E]
  Tensor bias_k = {};          // [1, 1, E]: appended to the keys
  Tensor bias_v = {};          // [1, 1, E]: appended to the values
  bool add_zero_attn = false;  // appends a zero key and value
  double dropout_p = 0.0;
  Tensor out_proj_weight = {};  // [E, E]
  Tensor out_proj_bias = {};    // [E]
  bool training = true;         // dropout only in training
  // [N, S] ([S] unbatched): bool (true = ignore that key) or floating (added).
  Tensor key_padding_mask = {};
  bool need_weights = true;
  // [L, S] or [N * num_heads, L, S]: bool (true = not allowed to attend) or floating (added).
  Tensor attn_mask = {};
  // q/k/v_proj_weight ([E, E], [E, kdim], [E, vdim]) instead of in_proj_weight.
  bool use_separate_proj_weight = false;
  Tensor q_proj_weight = {};
  Tensor k_proj_weight = {};
  Tensor v_proj_weight = {};
  Tensor static_k = {};  // [N * num_heads, S, E / num_heads]: used as the projected keys
  Tensor static_v = {};
  bool average_attn_weights = true;
  Generator* generator = nullptr;  // for dropout (nullptr: the default one)
};

// query [L, N, E] (or unbatched [L, E]), key [S, N, kdim], value [S, N, vdim].
// Returns (attn_output [L, N, E], attn_weights): the weights are [N, L, S]
// averaged over heads, or [N, num_heads, L, S] with average_attn_weights =
// false (unbatched: without N), undefined when need_weights is false.
// When query, key and value are the same Tensor, one matmul projects all three
// (key and value the same: one for both), as PyTorch's packed path.
std::tuple<Tensor, Tensor> multi_head_attention_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                        const MultiheadAttentionForwardFuncOptions& options);

}  // namespace ember::nn::functional
