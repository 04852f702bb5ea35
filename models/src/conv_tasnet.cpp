// Conv-TasNet (torchaudio/models/conv_tasnet.py, torchaudio 0.13).
#include "ember/models/conv_tasnet.h"

#include <ember/core/error.h>
#include <ember/ops/shape.h>

namespace ember::models {

namespace conv_tasnet {

namespace {
nn::GroupNorm layer_norm(int64_t channels) {
  // torchaudio's "global layer norm": one group over channels and frames.
  return nn::GroupNorm({.num_groups = 1, .num_channels = channels, .eps = 1e-8});
}
}  // namespace

ConvBlockImpl::ConvBlockImpl(int64_t io_channels, int64_t hidden_channels, int64_t kernel_size, int64_t padding,
                             int64_t dilation, bool no_residual)
    : nn::Module("ConvBlock") {
  conv_layers = register_module(
      "conv_layers",
      nn::Sequential(nn::Conv1d({.in_channels = io_channels, .out_channels = hidden_channels, .kernel_size = 1}),
                     nn::PReLU(), layer_norm(hidden_channels),
                     nn::Conv1d({.in_channels = hidden_channels,
                                 .out_channels = hidden_channels,
                                 .kernel_size = kernel_size,
                                 .padding = padding,
                                 .dilation = dilation,
                                 .groups = hidden_channels}),
                     nn::PReLU(), layer_norm(hidden_channels)));
  if (!no_residual)
    res_out = register_module(
        "res_out", nn::Conv1d({.in_channels = hidden_channels, .out_channels = io_channels, .kernel_size = 1}));
  skip_out = register_module(
      "skip_out", nn::Conv1d({.in_channels = hidden_channels, .out_channels = io_channels, .kernel_size = 1}));
}

std::pair<Tensor, Tensor> ConvBlockImpl::forward(const Tensor& input) {
  const Tensor feature = conv_layers(input);
  Tensor residual = res_out ? res_out(feature) : Tensor();
  return {std::move(residual), skip_out(feature)};
}

MaskGeneratorImpl::MaskGeneratorImpl(int64_t input_dim_, int64_t num_sources_, int64_t kernel_size,
                                     int64_t num_feats, int64_t num_hidden, int64_t num_layers, int64_t num_stacks,
                                     const std::string& msk_activate)
    : nn::Module("MaskGenerator"), input_dim(input_dim_), num_sources(num_sources_) {
  EMBER_CHECK(msk_activate == "sigmoid" || msk_activate == "relu",
              "ConvTasNet: unsupported mask activation \"", msk_activate, "\" (expected \"sigmoid\" or \"relu\")");
  sigmoid_mask = msk_activate == "sigmoid";
  input_norm = register_module("input_norm", layer_norm(input_dim));
  input_conv = register_module("input_conv",
                               nn::Conv1d({.in_channels = input_dim, .out_channels = num_feats, .kernel_size = 1}));
  conv_layers = register_module("conv_layers", nn::ModuleList());
  for (int64_t s = 0; s < num_stacks; ++s) {
    for (int64_t l = 0; l < num_layers; ++l) {
      const int64_t multi = int64_t(1) << l;
      ConvBlock block(num_feats, num_hidden, kernel_size, /*padding=*/multi, /*dilation=*/multi,
                      /*no_residual=*/l == num_layers - 1 && s == num_stacks - 1);
      conv_layers->push_back(block);
      blocks.push_back(block);
      receptive_field += s == 0 && l == 0 ? kernel_size : (kernel_size - 1) * multi;
    }
  }
  output_prelu = register_module("output_prelu", nn::PReLU());
  output_conv = register_module(
      "output_conv",
      nn::Conv1d({.in_channels = num_feats, .out_channels = input_dim * num_sources, .kernel_size = 1}));
}

Tensor MaskGeneratorImpl::forward(const Tensor& input) {
  const int64_t batch = input.size(0);
  Tensor feats = input_conv(input_norm(input));
  Tensor output;
  for (const ConvBlock& block : blocks) {
    auto [residual, skip] = block(feats);
    if (residual.defined()) feats = feats + residual;  // the last block has no residual output
    output = output.defined() ? output + skip : skip;
  }
  output = output_conv(output_prelu(output));
  output = sigmoid_mask ? output.sigmoid() : output.relu();
  return output.view({batch, num_sources, input_dim, -1});
}

}  // namespace conv_tasnet

ConvTasNetImpl::ConvTasNetImpl(const ConvTasNetOptions& options_) : nn::Module("ConvTasNet"), options(options_) {
  const auto& o = options;
  EMBER_CHECK(o.num_sources > 0, "ConvTasNet: num_sources must be positive, got ", o.num_sources);
  EMBER_CHECK(o.enc_kernel_size >= 2, "ConvTasNet: enc_kernel_size must be at least 2 (the encoder's stride is ",
              "enc_kernel_size / 2), got ", o.enc_kernel_size);
  EMBER_CHECK(o.enc_num_feats > 0 && o.msk_num_feats > 0 && o.msk_num_hidden_feats > 0,
              "ConvTasNet: enc_num_feats, msk_num_feats and msk_num_hidden_feats must be positive, got ",
              o.enc_num_feats, ", ", o.msk_num_feats, ", ", o.msk_num_hidden_feats);
  EMBER_CHECK(o.msk_num_layers > 0 && o.msk_num_layers < 31 && o.msk_num_stacks > 0,
              "ConvTasNet: msk_num_layers must be in [1, 30] and msk_num_stacks positive, got ", o.msk_num_layers,
              " and ", o.msk_num_stacks);
  // Each block pads its dilated convolution by the dilation, which keeps the
  // number of frames (needed by the residual sums) only for a kernel of 3;
  // torchaudio accepts other sizes and then fails in forward on the sums.
  EMBER_CHECK(o.msk_kernel_size == 3, "ConvTasNet: msk_kernel_size must be 3 (the mask generator pads each ",
              "dilated convolution by its dilation, which keeps the frame count only for kernel size 3), got ",
              o.msk_kernel_size);
  enc_stride = o.enc_kernel_size / 2;
  encoder = register_module("encoder", nn::Conv1d({.in_channels = 1,
                                                   .out_channels = o.enc_num_feats,
                                                   .kernel_size = o.enc_kernel_size,
                                                   .stride = enc_stride,
                                                   .padding = enc_stride,
                                                   .bias = false}));
  mask_generator = register_module(
      "mask_generator",
      conv_tasnet::MaskGenerator(o.enc_num_feats, o.num_sources, o.msk_kernel_size, o.msk_num_feats,
                                 o.msk_num_hidden_feats, o.msk_num_layers, o.msk_num_stacks, o.msk_activate));
  decoder = register_module("decoder", nn::ConvTranspose1d({.in_channels = o.enc_num_feats,
                                                            .out_channels = 1,
                                                            .kernel_size = o.enc_kernel_size,
                                                            .stride = enc_stride,
                                                            .padding = enc_stride,
                                                            .bias = false}));
}

Tensor ConvTasNetImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.defined(), "ConvTasNet: the input is undefined");
  EMBER_CHECK(input.dim() == 3 && input.size(1) == 1, "ConvTasNet: expected a 3-d input [batch, channel == 1, ",
              "frames], got sizes ", input.sizes());
  EMBER_CHECK(is_floating_point(input.dtype()), "ConvTasNet: expected a floating point input, got ", input.dtype());
  EMBER_CHECK(input.size(0) > 0 && input.size(2) > 0, "ConvTasNet: expected a non-empty input, got sizes ",
              input.sizes());
  // torchaudio's _align_num_frames_with_strides: the last encoder window ends
  // at the input's end (odd kernel: its centre; even: its first half).
  const int64_t batch = input.size(0), frames = input.size(2);
  const int64_t is_odd = options.enc_kernel_size % 2;
  const int64_t num_strides = (frames - is_odd) / enc_stride;
  const int64_t remaining = frames - (is_odd + num_strides * enc_stride);
  const int64_t num_pads = remaining == 0 ? 0 : enc_stride - remaining;
  const Tensor padded = num_pads > 0 ? pad(input, {0, num_pads}) : input;
  const int64_t padded_frames = padded.size(2);

  const Tensor feats = encoder(padded);                                     // [B, F, M]
  Tensor masked = mask_generator(feats) * feats.unsqueeze(1);                // [B, S, F, M]
  masked = masked.view({batch * options.num_sources, options.enc_num_feats, -1});
  const Tensor decoded = decoder(masked);                                    // [B*S, 1, L']
  Tensor output = decoded.view({batch, options.num_sources, padded_frames});  // [B, S, L']
  if (num_pads > 0) output = output.slice(2, 0, padded_frames - num_pads);
  return output;
}

ConvTasNet conv_tasnet_base(int64_t num_sources) {
  return ConvTasNet({.num_sources = num_sources,
                     .enc_kernel_size = 16,
                     .enc_num_feats = 512,
                     .msk_kernel_size = 3,
                     .msk_num_feats = 128,
                     .msk_num_hidden_feats = 512,
                     .msk_num_layers = 8,
                     .msk_num_stacks = 3,
                     .msk_activate = "relu"});
}

}  // namespace ember::models
