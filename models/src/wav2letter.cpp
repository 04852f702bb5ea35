// Wav2Letter (torchaudio/models/wav2letter.py, torchaudio 0.13).
#include "ember/models/wav2letter.h"

#include <ember/core/error.h>
#include <ember/nn/functional/activation.h>
#include <ember/nn/modules/activation.h>
#include <ember/nn/modules/conv.h>

namespace ember::models {

namespace {

// Conv1d + ReLU(inplace), appended as two entries (torchaudio's Sequential).
void add_conv_relu(nn::SequentialImpl& seq, int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding) {
  seq.push_back(nn::Conv1d(
      {.in_channels = in, .out_channels = out, .kernel_size = kernel, .stride = stride, .padding = padding}));
  seq.push_back(nn::ReLU(true));
}

}  // namespace

Wav2LetterImpl::Wav2LetterImpl(const Wav2LetterOptions& options_) : nn::Module("Wav2Letter"), options(options_) {
  const std::string& type = options.input_type;
  EMBER_CHECK(type == "waveform" || type == "power_spectrum" || type == "mfcc",
              "Wav2Letter: input_type must be \"waveform\", \"power_spectrum\" or \"mfcc\", got \"", type, "\"");
  EMBER_CHECK(options.num_classes > 0, "Wav2Letter: num_classes must be positive, got ", options.num_classes);
  EMBER_CHECK(options.num_features > 0, "Wav2Letter: num_features must be positive, got ", options.num_features);

  const bool waveform = type == "waveform";
  nn::Sequential acoustic;
  add_conv_relu(*acoustic, waveform ? 250 : options.num_features, 250, 48, 2, 23);
  for (int i = 0; i < 7; ++i) add_conv_relu(*acoustic, 250, 250, 7, 1, 3);
  add_conv_relu(*acoustic, 250, 2000, 32, 1, 16);
  add_conv_relu(*acoustic, 2000, 2000, 1, 1, 0);
  add_conv_relu(*acoustic, 2000, options.num_classes, 1, 1, 0);

  if (waveform) {
    nn::Sequential waveform_model;
    add_conv_relu(*waveform_model, options.num_features, 250, 250, 160, 45);
    acoustic_model = register_module("acoustic_model", nn::Sequential(waveform_model, acoustic));
  } else {
    acoustic_model = register_module("acoustic_model", acoustic);
  }
}

Tensor Wav2LetterImpl::forward(const Tensor& x) {
  EMBER_CHECK(x.defined(), "Wav2Letter: the input is undefined");
  EMBER_CHECK(x.dim() == 3 && x.size(1) == options.num_features, "Wav2Letter: expected input [N, ",
              options.num_features, ", length] (num_features = ", options.num_features, "), got sizes ", x.sizes());
  EMBER_CHECK(is_floating_point(x.dtype()), "Wav2Letter: expected a floating point input, got ", x.dtype());
  return nn::functional::log_softmax(acoustic_model(x), 1);
}

}  // namespace ember::models
