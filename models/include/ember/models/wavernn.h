#pragma once
// WaveRNN (torchaudio.models.WaveRNN, torchaudio 0.13): the vocoder of
// Kalchbrenner et al. 2018 after fatchord/WaveRNN, with torchaudio's modules,
// state_dict keys, shapes and initialisation, so a torchaudio checkpoint
// loads strictly.
//
//   models::WaveRNN net({.upsample_scales = {5, 5, 8}, .n_classes = 256, .hop_length = 200});
//   Tensor logits = net(waveform, specgram);  // [N, 1, (T - 4) * 200], [N, 1, 128, T] -> [N, 1, (T - 4) * 200, 256]
//   net->eval();
//   auto [audio, lengths] = net->infer(mel, mel_lengths);  // [N, 128, T] -> [N, 1, T * 200]
//
// infer() generates sample by sample (multinomial sampling of each step's
// softmax, as torchaudio's infer), the whole batch at once; see
// Note [WaveRNN inference without per-step allocations] in wavernn.cpp.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <ember/core/generator.h>
#include <ember/nn/container.h>
#include <ember/nn/module.h>
#include <ember/nn/modules/activation.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/rnn.h>

namespace ember::models {

namespace wavernn {

// resblock_model = Sequential(Conv1d(n, n, 1, no bias), BatchNorm1d, ReLU,
// Conv1d(n, n, 1, no bias), BatchNorm1d), plus the input.
class ResBlockImpl : public nn::Module {
 public:
  explicit ResBlockImpl(int64_t n_freq = 128);
  Tensor forward(const Tensor& specgram);  // [N, n_freq, T] -> same
  void pretty_print(std::ostream& os) const override { os << "ResBlock()"; }
  nn::Sequential resblock_model{nullptr};
};
EMBER_MODULE(ResBlock);

// melresnet_model = Sequential(Conv1d(n_freq, n_hidden, kernel_size, no bias),
// BatchNorm1d, ReLU, n_res_block ResBlocks, Conv1d(n_hidden, n_output, 1)).
class MelResNetImpl : public nn::Module {
 public:
  MelResNetImpl(int64_t n_res_block = 10, int64_t n_freq = 128, int64_t n_hidden = 128, int64_t n_output = 128,
                int64_t kernel_size = 5);
  Tensor forward(const Tensor& specgram);  // [N, n_freq, T] -> [N, n_output, T - kernel_size + 1]
  void pretty_print(std::ostream& os) const override { os << "MelResNet()"; }
  nn::Sequential melresnet_model{nullptr};
};
EMBER_MODULE(MelResNet);

// Repeats each frequency bin freq_scale times and each frame time_scale times
// (no parameters).
class Stretch2dImpl : public nn::Module {
 public:
  Stretch2dImpl(int64_t time_scale, int64_t freq_scale);
  Tensor forward(const Tensor& specgram);  // [..., F, T] -> [..., F * freq_scale, T * time_scale]
  void pretty_print(std::ostream& os) const override;
  int64_t time_scale, freq_scale;
};
EMBER_MODULE(Stretch2d);

// resnet (MelResNet), resnet_stretch, and upsample_layers: for each scale s a
// Stretch2d(s, 1) and a Conv2d(1, 1, (1, 2s + 1), padding (0, s), no bias)
// with every weight 1 / (2s + 1) (a moving average), at indices 2i and 2i + 1.
class UpsampleNetworkImpl : public nn::Module {
 public:
  UpsampleNetworkImpl(const std::vector<int64_t>& upsample_scales, int64_t n_res_block = 10, int64_t n_freq = 128,
                      int64_t n_hidden = 128, int64_t n_output = 128, int64_t kernel_size = 5);
  // specgram [N, n_freq, T] -> (upsampled specgram [N, n_freq, S], upsampled
  // MelResNet features [N, n_output, S]), S = (T - kernel_size + 1) * total_scale.
  std::pair<Tensor, Tensor> forward(const Tensor& specgram);
  void pretty_print(std::ostream& os) const override { os << "UpsampleNetwork()"; }

  int64_t total_scale = 1;
  int64_t indent = 0;  // (kernel_size - 1) / 2 * total_scale frames cut from each end
  MelResNet resnet{nullptr};
  Stretch2d resnet_stretch{nullptr};
  nn::Sequential upsample_layers{nullptr};
};
EMBER_MODULE(UpsampleNetwork);

}  // namespace wavernn

// torchaudio's constructor arguments and defaults.
struct WaveRNNOptions {
  std::vector<int64_t> upsample_scales;  // their product must be hop_length
  int64_t n_classes = 0;                 // output classes (2^bits for a bits-deep mu-law/linear code)
  int64_t hop_length = 0;
  int64_t n_res_block = 10;
  int64_t n_rnn = 512;
  int64_t n_fc = 512;
  int64_t kernel_size = 5;  // odd, at least 3
  int64_t n_freq = 128;
  int64_t n_hidden = 128;
  int64_t n_output = 128;  // the MelResNet features, split in 4 auxiliary inputs of n_output / 4
};

// Chooses each batch element's class at a step of infer(): `logits` is the
// step's fc3 output [N, n_classes] (contiguous, on the CPU); write N class
// indices into `classes`. The default draws from softmax(logits).
using WaveRNNSampler = std::function<void(int64_t step, const Tensor& logits, std::span<int64_t> classes)>;

// Children: upsample, fc (Linear(n_freq + n_aux + 1, n_rnn)), rnn1 (GRU(n_rnn,
// n_rnn)), rnn2 (GRU(n_rnn + n_aux, n_rnn)), relu1, relu2, fc1 (Linear(n_rnn
// + n_aux, n_fc)), fc2 (Linear(n_fc + n_aux, n_fc)), fc3 (Linear(n_fc,
// n_classes)); n_aux = n_output / 4.
class WaveRNNImpl : public nn::Module {
 public:
  using Options = WaveRNNOptions;
  explicit WaveRNNImpl(const WaveRNNOptions& options);

  // Teacher-forced: waveform [N, 1, S] (the previous samples, in [-1, 1]) and
  // specgram [N, 1, n_freq, T] with S = (T - kernel_size + 1) * hop_length ->
  // logits [N, 1, S, n_classes].
  Tensor forward(const Tensor& waveform, const Tensor& specgram);

  // Generation: specgram [N, n_freq, T] (padded by kernel_size / 2 frames on
  // each side, as torchaudio) -> (waveform [N, 1, T * hop_length] in the
  // specgram's dtype, lengths * hop_length when lengths [N] are given). Each
  // step's class c becomes the sample 2c / (2^bits - 1) - 1, bits =
  // floor(log2(n_classes)). Call eval() first (BatchNorm). Runs without autograd.
  std::pair<Tensor, std::optional<Tensor>> infer(const Tensor& specgram,
                                                 const std::optional<Tensor>& lengths = std::nullopt,
                                                 Generator* generator = nullptr);
  // The same with the classes chosen by `sampler` (greedy decoding, a
  // temperature, or replaying known samples).
  std::pair<Tensor, std::optional<Tensor>> infer(const Tensor& specgram, const std::optional<Tensor>& lengths,
                                                 const WaveRNNSampler& sampler);
  void pretty_print(std::ostream& os) const override { os << "WaveRNN()"; }

  WaveRNNOptions options;
  int64_t n_aux, n_bits, pad;
  wavernn::UpsampleNetwork upsample{nullptr};
  nn::Linear fc{nullptr};
  nn::GRU rnn1{nullptr}, rnn2{nullptr};
  nn::ReLU relu1{nullptr}, relu2{nullptr};
  nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};
EMBER_MODULE(WaveRNN);

}  // namespace ember::models
