#pragma once
// <ember/torch.h>, part 3b: more of libtorch's module options with chained
// setters (pooling, normalization, attention and transformer layers,
// Flatten), each converting to Ember's designated-initializer options, so
// `torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(3).stride(2))` and
// `torch::nn::TransformerEncoderLayer(TransformerEncoderLayerOptions(512, 8).dropout(0.1))`
// compile as in libtorch. Defaults are libtorch's.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/nn.h"
#include "ember/torch/arg.h"
#include "ember/torch/nn.h"

namespace torch::nn {

// MaxPool1d/2d/3dOptions(kernel_size): stride defaults to the kernel size.
template <size_t D>
class MaxPoolOptions {
 public:
  MaxPoolOptions(ExpandingArray<D> kernel_size)  // NOLINT(google-explicit-constructor)
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  operator ::ember::nn::MaxPoolOptions<D>() const {  // NOLINT(google-explicit-constructor)
    return {.kernel_size = kernel_size_, .stride = stride_, .padding = padding_, .dilation = dilation_,
            .ceil_mode = ceil_mode_};
  }
  EMBER_TORCH_ARG(ExpandingArray<D>, kernel_size);
  EMBER_TORCH_ARG(ExpandingArray<D>, stride);
  EMBER_TORCH_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_TORCH_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;
using MaxPool3dOptions = MaxPoolOptions<3>;

// AvgPool1d/2d/3dOptions(kernel_size): stride defaults to the kernel size.
template <size_t D>
class AvgPoolOptions {
 public:
  AvgPoolOptions(ExpandingArray<D> kernel_size)  // NOLINT(google-explicit-constructor)
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  operator ::ember::nn::AvgPoolOptions<D>() const {  // NOLINT(google-explicit-constructor)
    return {.kernel_size = kernel_size_, .stride = stride_, .padding = padding_, .ceil_mode = ceil_mode_,
            .count_include_pad = count_include_pad_, .divisor_override = divisor_override_};
  }
  EMBER_TORCH_ARG(ExpandingArray<D>, kernel_size);
  EMBER_TORCH_ARG(ExpandingArray<D>, stride);
  EMBER_TORCH_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_TORCH_ARG(bool, ceil_mode) = false;
  EMBER_TORCH_ARG(bool, count_include_pad) = true;
  EMBER_TORCH_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;
using AvgPool3dOptions = AvgPoolOptions<3>;

// LayerNormOptions(normalized_shape).eps().elementwise_affine().
class LayerNormOptions {
 public:
  LayerNormOptions(std::vector<int64_t> normalized_shape)  // NOLINT(google-explicit-constructor)
      : normalized_shape_(std::move(normalized_shape)) {}
  operator ::ember::nn::LayerNormOptions() const {  // NOLINT(google-explicit-constructor)
    return {.normalized_shape = normalized_shape_, .eps = eps_, .elementwise_affine = elementwise_affine_};
  }
  EMBER_TORCH_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_TORCH_ARG(double, eps) = 1e-5;
  EMBER_TORCH_ARG(bool, elementwise_affine) = true;
};

// GroupNormOptions(num_groups, num_channels).eps().affine().
class GroupNormOptions {
 public:
  GroupNormOptions(int64_t num_groups, int64_t num_channels) : num_groups_(num_groups), num_channels_(num_channels) {}
  operator ::ember::nn::GroupNormOptions() const {  // NOLINT(google-explicit-constructor)
    return {.num_groups = num_groups_, .num_channels = num_channels_, .eps = eps_, .affine = affine_};
  }
  EMBER_TORCH_ARG(int64_t, num_groups);
  EMBER_TORCH_ARG(int64_t, num_channels);
  EMBER_TORCH_ARG(double, eps) = 1e-5;
  EMBER_TORCH_ARG(bool, affine) = true;
};

// FlattenOptions().start_dim().end_dim().
class FlattenOptions {
 public:
  operator ::ember::nn::FlattenOptions() const {  // NOLINT(google-explicit-constructor)
    return {.start_dim = start_dim_, .end_dim = end_dim_};
  }
  EMBER_TORCH_ARG(int64_t, start_dim) = 1;
  EMBER_TORCH_ARG(int64_t, end_dim) = -1;
};

// MultiheadAttentionOptions(embed_dim, num_heads).dropout().bias()
// .add_bias_kv().add_zero_attn().kdim().vdim() (libtorch 1.13 has no batch_first).
class MultiheadAttentionOptions {
 public:
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads) : embed_dim_(embed_dim), num_heads_(num_heads) {}
  operator ::ember::nn::MultiheadAttentionOptions() const {  // NOLINT(google-explicit-constructor)
    return {.embed_dim = embed_dim_, .num_heads = num_heads_, .dropout = dropout_, .bias = bias_,
            .add_bias_kv = add_bias_kv_, .add_zero_attn = add_zero_attn_, .kdim = kdim_, .vdim = vdim_};
  }
  EMBER_TORCH_ARG(int64_t, embed_dim);
  EMBER_TORCH_ARG(int64_t, num_heads);
  EMBER_TORCH_ARG(double, dropout) = 0.0;
  EMBER_TORCH_ARG(bool, bias) = true;
  EMBER_TORCH_ARG(bool, add_bias_kv) = false;
  EMBER_TORCH_ARG(bool, add_zero_attn) = false;
  EMBER_TORCH_ARG(std::optional<int64_t>, kdim) = std::nullopt;
  EMBER_TORCH_ARG(std::optional<int64_t>, vdim) = std::nullopt;
};

// TransformerEncoderLayerOptions / TransformerDecoderLayerOptions(d_model,
// nhead).dim_feedforward().dropout().activation(torch::kReLU | torch::kGELU | a function).
class TransformerLayerOptions {
 public:
  TransformerLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  operator ::ember::nn::TransformerLayerOptions() const {  // NOLINT(google-explicit-constructor)
    return {.d_model = d_model_, .nhead = nhead_, .dim_feedforward = dim_feedforward_, .dropout = dropout_,
            .activation = activation_};
  }
  EMBER_TORCH_ARG(int64_t, d_model);
  EMBER_TORCH_ARG(int64_t, nhead);
  EMBER_TORCH_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_TORCH_ARG(double, dropout) = 0.1;
  EMBER_TORCH_ARG(::ember::nn::TransformerActivation, activation) = "relu";
};
using TransformerEncoderLayerOptions = TransformerLayerOptions;
using TransformerDecoderLayerOptions = TransformerLayerOptions;

// TransformerOptions(d_model = 512, nhead = 8, num_encoder_layers = 6,
// num_decoder_layers = 6).dim_feedforward().dropout().activation()
// .custom_encoder().custom_decoder().
class TransformerOptions {
 public:
  TransformerOptions() = default;
  TransformerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TransformerOptions(int64_t d_model, int64_t nhead, int64_t num_encoder_layers, int64_t num_decoder_layers)
      : d_model_(d_model), nhead_(nhead), num_encoder_layers_(num_encoder_layers),
        num_decoder_layers_(num_decoder_layers) {}
  operator ::ember::nn::TransformerOptions() const {  // NOLINT(google-explicit-constructor)
    ::ember::nn::TransformerOptions o;
    o.d_model = d_model_;
    o.nhead = nhead_;
    o.num_encoder_layers = num_encoder_layers_;
    o.num_decoder_layers = num_decoder_layers_;
    o.dim_feedforward = dim_feedforward_;
    o.dropout = dropout_;
    o.activation = activation_;
    o.custom_encoder = custom_encoder_;
    o.custom_decoder = custom_decoder_;
    return o;
  }
  EMBER_TORCH_ARG(int64_t, d_model) = 512;
  EMBER_TORCH_ARG(int64_t, nhead) = 8;
  EMBER_TORCH_ARG(int64_t, num_encoder_layers) = 6;
  EMBER_TORCH_ARG(int64_t, num_decoder_layers) = 6;
  EMBER_TORCH_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_TORCH_ARG(double, dropout) = 0.1;
  EMBER_TORCH_ARG(::ember::nn::TransformerActivation, activation) = "relu";
  EMBER_TORCH_ARG(::ember::nn::TransformerEncoder, custom_encoder) = nullptr;
  EMBER_TORCH_ARG(::ember::nn::TransformerDecoder, custom_decoder) = nullptr;
};

}  // namespace torch::nn
