#pragma once
// Convolution layers over nn::functional::conv*: Conv1d/2d/3d and
// ConvTranspose1d/2d/3d, with PyTorch's options, weight shapes, default
// initialization and reprs.
//
//   nn::Conv2d conv(3, 8, 3);                                     // in, out, kernel_size
//   nn::Conv2d c2({.in_channels = 3, .out_channels = 8, .kernel_size = 3, .stride = 2,
//                  .padding = 1, .bias = false});
//   nn::Conv1d same({.in_channels = 4, .out_channels = 4, .kernel_size = 4, .padding = "same",
//                    .dilation = 2, .padding_mode = "reflect"});
//   nn::ConvTranspose2d up({.in_channels = 8, .out_channels = 4, .kernel_size = 3, .stride = 2,
//                           .padding = 1});
//   Tensor y = up->forward(x, {2, 4, 16, 16});                   // output_size picks output_padding
#include <string>
#include <vector>

#include "ember/nn/functional/conv.h"
#include "ember/nn/module.h"

namespace ember::nn {

// Conv{1,2,3}dOptions, in PyTorch's argument order. `padding`: numbers (one,
// or one per spatial dim) or "same" / "valid". padding_mode: "zeros",
// "reflect", "replicate" or "circular" (the non-zero modes pad the input with
// ember::pad first, as PyTorch's _conv_forward).
template <size_t D>
struct ConvOptions {
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  functional::ExpandingInts kernel_size = {};
  functional::ExpandingInts stride = 1;
  functional::ConvPadding padding = 0;
  functional::ExpandingInts dilation = 1;
  int64_t groups = 1;
  bool bias = true;
  std::string padding_mode = "zeros";
};

// ConvTranspose{1,2,3}dOptions, in PyTorch's argument order (padding_mode
// must be "zeros", as PyTorch).
template <size_t D>
struct ConvTransposeOptions {
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  functional::ExpandingInts kernel_size = {};
  functional::ExpandingInts stride = 1;
  functional::ExpandingInts padding = 0;
  functional::ExpandingInts output_padding = 0;
  int64_t groups = 1;
  bool bias = true;
  functional::ExpandingInts dilation = 1;
  std::string padding_mode = "zeros";
};

// weight [out, in / groups, k...], bias [out]; kaiming_uniform(a = sqrt 5) and
// bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)), PyTorch's reset_parameters().
template <size_t D>
class ConvImpl : public Module {
 public:
  using Options = ConvOptions<D>;
  explicit ConvImpl(const Options& options);
  ConvImpl(int64_t in_channels, int64_t out_channels, functional::ExpandingInts kernel_size)
      : ConvImpl(Options{.in_channels = in_channels, .out_channels = out_channels, .kernel_size = kernel_size}) {}
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;

  Options options;
  // Expanded to D values each (PyTorch's tuples); padding empty for "same"/"valid".
  std::vector<int64_t> kernel_size, stride, padding, dilation;
  Tensor weight, bias;
};

// weight [in, out / groups, k...], bias [out].
template <size_t D>
class ConvTransposeImpl : public Module {
 public:
  using Options = ConvTransposeOptions<D>;
  explicit ConvTransposeImpl(const Options& options);
  ConvTransposeImpl(int64_t in_channels, int64_t out_channels, functional::ExpandingInts kernel_size)
      : ConvTransposeImpl(
            Options{.in_channels = in_channels, .out_channels = out_channels, .kernel_size = kernel_size}) {}
  void reset_parameters();
  Tensor forward(const Tensor& input);
  // output_size: the D spatial sizes, or with the batch/channel dims too
  // (2 + D, or 1 + D for an unbatched input); selects output_padding within
  // [0, stride) as PyTorch's _output_padding.
  Tensor forward(const Tensor& input, const std::vector<int64_t>& output_size);
  // The output_padding that forward(input, output_size) uses.
  std::vector<int64_t> output_padding_for(const Tensor& input, const std::vector<int64_t>& output_size) const;
  void pretty_print(std::ostream& os) const override;

  Options options;
  std::vector<int64_t> kernel_size, stride, padding, output_padding, dilation;
  Tensor weight, bias;

 private:
  Tensor run(const Tensor& input, const std::vector<int64_t>& output_padding);
};

using Conv1dImpl = ConvImpl<1>;
using Conv2dImpl = ConvImpl<2>;
using Conv3dImpl = ConvImpl<3>;
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;
using ConvTranspose1dImpl = ConvTransposeImpl<1>;
using ConvTranspose2dImpl = ConvTransposeImpl<2>;
using ConvTranspose3dImpl = ConvTransposeImpl<3>;
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;
EMBER_MODULE(Conv1d);
EMBER_MODULE(Conv2d);
EMBER_MODULE(Conv3d);
EMBER_MODULE(ConvTranspose1d);
EMBER_MODULE(ConvTranspose2d);
EMBER_MODULE(ConvTranspose3d);

}  // namespace ember::nn
