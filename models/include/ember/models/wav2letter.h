#pragma once
// Wav2Letter (torchaudio.models.Wav2Letter, torchaudio 0.13): the convolutional
// acoustic model of Collobert et al. 2016, with torchaudio's modules,
// state_dict keys, shapes and (PyTorch default) initialisation, so a
// torchaudio checkpoint loads strictly.
//
//   models::Wav2Letter net({.num_classes = 29});                 // raw waveform input
//   Tensor log_probs = net(waveform);                             // [N, 1, T] -> [N, 29, frames]
//   models::Wav2Letter mfcc_net(29, "mfcc", 13);                  // [N, 13, frames] -> [N, 29, frames']
//
// The output is log_softmax over the classes (dim 1), ready for CTC after a
// permute(2, 0, 1) to [frames, N, classes].
#include <string>

#include <ember/nn/container.h>
#include <ember/nn/module.h>

namespace ember::models {

struct Wav2LetterOptions {
  int64_t num_classes = 40;
  // "waveform" (a strided 250-wide convolution of the raw signal first),
  // "power_spectrum" or "mfcc" (the input is already [N, num_features, frames]).
  std::string input_type = "waveform";
  // Input channels: of the waveform (1 for mono), or the spectrum/MFCC bins.
  int64_t num_features = 1;
};

// Children: acoustic_model. For "waveform" it is Sequential(waveform_model,
// acoustic_model) (keys "acoustic_model.0.0.*" for the waveform convolution,
// "acoustic_model.1.<2k>.*" for the rest); otherwise the 11 convolutions
// directly ("acoustic_model.<2k>.*"). Every convolution is followed by a ReLU,
// the last one too (as torchaudio).
class Wav2LetterImpl : public nn::Module {
 public:
  using Options = Wav2LetterOptions;
  explicit Wav2LetterImpl(const Wav2LetterOptions& options = {});
  Wav2LetterImpl(int64_t num_classes, std::string input_type = "waveform", int64_t num_features = 1)
      : Wav2LetterImpl(Wav2LetterOptions{num_classes, std::move(input_type), num_features}) {}
  // x: [N, num_features, length] (float) -> log-probabilities [N, num_classes, frames].
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override { os << "Wav2Letter()"; }

  Wav2LetterOptions options;
  nn::Sequential acoustic_model{nullptr};
};
EMBER_MODULE(Wav2Letter);

}  // namespace ember::models
