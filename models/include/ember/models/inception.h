#pragma once
// Inception v3 (torchvision.models.inception_v3, "Rethinking the Inception
// Architecture for Computer Vision", http://arxiv.org/abs/1512.00567), with
// torchvision 0.14's layers, parameter names and weight initialisation.
// Nominal input 299x299; any size from 75x75 works in eval mode, and the
// auxiliary head (training mode) needs 299x299 or more.
//
//   auto net = models::inception_v3({.num_classes = 10});    // aux_logits = true
//   Tensor logits = net(images);                              // main logits, any mode
//   net->train();
//   InceptionOutputs out = net->forward_with_aux(images);     // + out.aux_logits
#include <ember/models/basic_conv2d.h>
#include <ember/models/classifier.h>
#include <ember/nn/modules/dropout.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/pooling.h>

namespace ember::models {

// The Inception blocks of torchvision's inception.py (printed under their
// torchvision names); each concatenates its branches along the channels.
// InceptionA: 35x35 grid; 1x1, 5x5, double 3x3 and pooled branches.
class InceptionAImpl : public nn::Module {
 public:
  InceptionAImpl(int64_t in_channels, int64_t pool_features);
  Tensor forward(const Tensor& x);
  BasicConv2d branch1x1{nullptr}, branch5x5_1{nullptr}, branch5x5_2{nullptr}, branch3x3dbl_1{nullptr},
      branch3x3dbl_2{nullptr}, branch3x3dbl_3{nullptr}, branch_pool{nullptr};
};
EMBER_MODULE(InceptionA);

// InceptionB: grid reduction 35 -> 17.
class InceptionBImpl : public nn::Module {
 public:
  explicit InceptionBImpl(int64_t in_channels);
  Tensor forward(const Tensor& x);
  BasicConv2d branch3x3{nullptr}, branch3x3dbl_1{nullptr}, branch3x3dbl_2{nullptr}, branch3x3dbl_3{nullptr};
};
EMBER_MODULE(InceptionB);

// InceptionC: 17x17 grid with factorised 7x7 convolutions (1x7, 7x1).
class InceptionCImpl : public nn::Module {
 public:
  InceptionCImpl(int64_t in_channels, int64_t channels_7x7);
  Tensor forward(const Tensor& x);
  BasicConv2d branch1x1{nullptr}, branch7x7_1{nullptr}, branch7x7_2{nullptr}, branch7x7_3{nullptr},
      branch7x7dbl_1{nullptr}, branch7x7dbl_2{nullptr}, branch7x7dbl_3{nullptr}, branch7x7dbl_4{nullptr},
      branch7x7dbl_5{nullptr}, branch_pool{nullptr};
};
EMBER_MODULE(InceptionC);

// InceptionD: grid reduction 17 -> 8.
class InceptionDImpl : public nn::Module {
 public:
  explicit InceptionDImpl(int64_t in_channels);
  Tensor forward(const Tensor& x);
  BasicConv2d branch3x3_1{nullptr}, branch3x3_2{nullptr}, branch7x7x3_1{nullptr}, branch7x7x3_2{nullptr},
      branch7x7x3_3{nullptr}, branch7x7x3_4{nullptr};
};
EMBER_MODULE(InceptionD);

// InceptionE: 8x8 grid with expanded filter banks (1x3 and 3x1 side by side).
class InceptionEImpl : public nn::Module {
 public:
  explicit InceptionEImpl(int64_t in_channels);
  Tensor forward(const Tensor& x);
  BasicConv2d branch1x1{nullptr}, branch3x3_1{nullptr}, branch3x3_2a{nullptr}, branch3x3_2b{nullptr},
      branch3x3dbl_1{nullptr}, branch3x3dbl_2{nullptr}, branch3x3dbl_3a{nullptr}, branch3x3dbl_3b{nullptr},
      branch_pool{nullptr};
};
EMBER_MODULE(InceptionE);

// The auxiliary classifier on Mixed_6e's 17x17 output: 5x5 average pooling
// (stride 3), conv0 (1x1, 128), conv1 (5x5, 768), global pooling, fc.
class InceptionAuxImpl : public nn::Module {
 public:
  InceptionAuxImpl(int64_t in_channels, int64_t num_classes);
  Tensor forward(const Tensor& x);
  BasicConv2d conv0{nullptr}, conv1{nullptr};
  nn::Linear fc{nullptr};
};
EMBER_MODULE(InceptionAux);

struct Inception3Options {
  int64_t num_classes = 1000;
  // Build AuxLogits (torchvision's default for a model without weights).
  bool aux_logits = true;
  // Re-normalise ImageNet-normalised input to the original weights' [-1, 1].
  bool transform_input = false;
  // torchvision's initialisation (truncated normal, std 0.1; AuxLogits.fc
  // 0.001); false keeps PyTorch's layer defaults.
  bool init_weights = true;
  double dropout = 0.5;
};

// torchvision's InceptionOutputs namedtuple; aux_logits is undefined outside
// training mode or without aux_logits.
struct InceptionOutputs {
  Tensor logits, aux_logits;
};

class Inception3Impl : public ImageClassifierImpl {
 public:
  using Options = Inception3Options;
  explicit Inception3Impl(const Inception3Options& options = {});
  // The main logits in any mode (the auxiliary head is not run).
  Tensor forward(const Tensor& images) override;
  // torchvision's forward in training mode: the main logits and, in training
  // mode with aux_logits, AuxLogits' output.
  InceptionOutputs forward_with_aux(const Tensor& images);
  Tensor transform_input(const Tensor& images) const;

  Inception3Options options;
  BasicConv2d Conv2d_1a_3x3{nullptr}, Conv2d_2a_3x3{nullptr}, Conv2d_2b_3x3{nullptr}, Conv2d_3b_1x1{nullptr},
      Conv2d_4a_3x3{nullptr};
  nn::MaxPool2d maxpool1{nullptr}, maxpool2{nullptr};
  InceptionA Mixed_5b{nullptr}, Mixed_5c{nullptr}, Mixed_5d{nullptr};
  InceptionB Mixed_6a{nullptr};
  InceptionC Mixed_6b{nullptr}, Mixed_6c{nullptr}, Mixed_6d{nullptr}, Mixed_6e{nullptr};
  InceptionAux AuxLogits{nullptr};  // empty without aux_logits
  InceptionD Mixed_7a{nullptr};
  InceptionE Mixed_7b{nullptr}, Mixed_7c{nullptr};
  nn::AdaptiveAvgPool2d avgpool{nullptr};
  nn::Dropout dropout{nullptr};
  nn::Linear fc{nullptr};

 private:
  InceptionOutputs run(const Tensor& images, bool with_aux);
};
EMBER_MODULE(Inception3);

Inception3 inception_v3(const Inception3Options& options = {});

}  // namespace ember::models
