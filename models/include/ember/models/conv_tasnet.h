#pragma once
// Conv-TasNet (torchaudio.models.ConvTasNet, torchaudio 0.13): the non-causal
// time-domain source separation model of Luo & Mesgarani 2019, with
// torchaudio's modules, state_dict keys, shapes and (PyTorch default)
// initialisation, so a torchaudio checkpoint loads strictly.
//
//   auto net = models::conv_tasnet_base(2);           // the paper's best setting, ReLU masks
//   Tensor sources = net(mixture);                     // [N, 1, T] -> [N, 2, T]
//   models::ConvTasNet small({.num_sources = 3, .enc_num_feats = 64, .msk_num_layers = 4});
#include <string>
#include <utility>
#include <vector>

#include <ember/nn/container.h>
#include <ember/nn/module.h>
#include <ember/nn/modules/activation.h>
#include <ember/nn/modules/conv.h>
#include <ember/nn/modules/normalization.h>

namespace ember::models {

namespace conv_tasnet {

// One block of the temporal convolution network (torchaudio's ConvBlock):
// conv_layers = Sequential(Conv1d(io, hidden, 1), PReLU, GroupNorm(1, hidden,
// eps 1e-8), depthwise Conv1d(hidden, hidden, kernel_size, padding, dilation),
// PReLU, GroupNorm); res_out (absent with no_residual) and skip_out are
// Conv1d(hidden, io, 1).
class ConvBlockImpl : public nn::Module {
 public:
  ConvBlockImpl(int64_t io_channels, int64_t hidden_channels, int64_t kernel_size, int64_t padding,
                int64_t dilation = 1, bool no_residual = false);
  // (residual or an undefined tensor with no_residual, skip), each [N, io, frames].
  std::pair<Tensor, Tensor> forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override { os << "ConvBlock()"; }

  nn::Sequential conv_layers{nullptr};
  nn::Conv1d res_out{nullptr};
  nn::Conv1d skip_out{nullptr};
};
EMBER_MODULE(ConvBlock);

// The separation module (torchaudio's MaskGenerator): input_norm, input_conv,
// conv_layers (num_stacks x num_layers ConvBlocks with dilations 1, 2, 4, ...;
// the very last has no residual output), output_prelu, output_conv, then the
// mask activation ("sigmoid" or "relu").
class MaskGeneratorImpl : public nn::Module {
 public:
  MaskGeneratorImpl(int64_t input_dim, int64_t num_sources, int64_t kernel_size, int64_t num_feats,
                    int64_t num_hidden, int64_t num_layers, int64_t num_stacks, const std::string& msk_activate);
  // [N, input_dim, frames] -> masks [N, num_sources, input_dim, frames].
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override { os << "MaskGenerator()"; }

  int64_t input_dim, num_sources;
  // torchaudio's receptive_field: the frames one output frame sees.
  int64_t receptive_field = 0;
  bool sigmoid_mask = true;
  nn::GroupNorm input_norm{nullptr};
  nn::Conv1d input_conv{nullptr};
  nn::ModuleList conv_layers{nullptr};
  nn::PReLU output_prelu{nullptr};
  nn::Conv1d output_conv{nullptr};
  // The blocks of conv_layers, typed (forward walks them without casts).
  std::vector<ConvBlock> blocks;
};
EMBER_MODULE(MaskGenerator);

}  // namespace conv_tasnet

// torchaudio's constructor arguments and defaults (<L>, <N>, <P>, <B>, <H>,
// <X>, <R> in the paper's notation).
struct ConvTasNetOptions {
  int64_t num_sources = 2;
  int64_t enc_kernel_size = 16;       // L; the encoder's stride is L / 2
  int64_t enc_num_feats = 512;        // N
  int64_t msk_kernel_size = 3;        // P
  int64_t msk_num_feats = 128;        // B (= Sc)
  int64_t msk_num_hidden_feats = 512;  // H
  int64_t msk_num_layers = 8;         // X
  int64_t msk_num_stacks = 3;         // R
  std::string msk_activate = "sigmoid";  // or "relu"
};

// Children: encoder (Conv1d(1, N, L, stride L/2, padding L/2, no bias)),
// mask_generator, decoder (ConvTranspose1d(N, 1, L, stride L/2, padding L/2,
// no bias)).
class ConvTasNetImpl : public nn::Module {
 public:
  using Options = ConvTasNetOptions;
  explicit ConvTasNetImpl(const ConvTasNetOptions& options = {});
  // mixture [N, 1, frames] (float) -> separated sources [N, num_sources, frames].
  // The input is zero-padded at the end to a whole number of encoder strides
  // (torchaudio's _align_num_frames_with_strides) and the output cut back.
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override { os << "ConvTasNet()"; }

  ConvTasNetOptions options;
  int64_t enc_stride;
  nn::Conv1d encoder{nullptr};
  conv_tasnet::MaskGenerator mask_generator{nullptr};
  nn::ConvTranspose1d decoder{nullptr};
};
EMBER_MODULE(ConvTasNet);

// torchaudio's conv_tasnet_base: L 16, N 512, P 3, B 128, H 512, X 8, R 3,
// ReLU masks (5.1M parameters).
ConvTasNet conv_tasnet_base(int64_t num_sources = 2);

}  // namespace ember::models
