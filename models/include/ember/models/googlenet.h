#pragma once
// GoogLeNet, Inception v1 (torchvision.models.googlenet, "Going Deeper with
// Convolutions", http://arxiv.org/abs/1409.4842), with torchvision 0.14's
// layers, parameter names and weight initialisation.
//
//   auto net = models::googlenet({.num_classes = 10});      // aux_logits = true
//   Tensor logits = net(images);                            // main logits, any mode
//   net->train();
//   GoogLeNetOutputs out = net->forward_with_aux(images);   // + the auxiliary heads
//   Tensor loss = ce(out.logits) + 0.3 * (ce(out.aux_logits1) + ce(out.aux_logits2));
#include <ember/models/basic_conv2d.h>
#include <ember/models/classifier.h>
#include <ember/nn/container.h>
#include <ember/nn/modules/dropout.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/pooling.h>

namespace ember::models {

// torchvision's googlenet.Inception (printed "Inception"): four branches
// concatenated along the channels: 1x1; 1x1 -> 3x3; 1x1 -> 3x3 (torchvision
// uses 3x3 where the paper has 5x5, pytorch/vision#906, kept for its
// weights); 3x3 max pool -> 1x1.
class GoogLeNetInceptionImpl : public nn::Module {
 public:
  GoogLeNetInceptionImpl(int64_t in_channels, int64_t ch1x1, int64_t ch3x3red, int64_t ch3x3, int64_t ch5x5red,
                         int64_t ch5x5, int64_t pool_proj);
  Tensor forward(const Tensor& x);

  BasicConv2d branch1{nullptr};
  nn::Sequential branch2{nullptr}, branch3{nullptr}, branch4{nullptr};
};
EMBER_MODULE(GoogLeNetInception);

// torchvision's googlenet.InceptionAux (printed "InceptionAux"): adaptive
// average pooling to 4x4, a 1x1 BasicConv2d to 128 channels, fc1 (2048 ->
// 1024) with ReLU, dropout, fc2.
class GoogLeNetInceptionAuxImpl : public nn::Module {
 public:
  GoogLeNetInceptionAuxImpl(int64_t in_channels, int64_t num_classes, double dropout = 0.7);
  Tensor forward(const Tensor& x);

  BasicConv2d conv{nullptr};
  nn::Linear fc1{nullptr}, fc2{nullptr};
  nn::Dropout dropout{nullptr};
};
EMBER_MODULE(GoogLeNetInceptionAux);

struct GoogLeNetOptions {
  int64_t num_classes = 1000;
  // Build aux1 and aux2 (torchvision's default for a model without weights).
  bool aux_logits = true;
  // Re-normalise input normalised with ImageNet's mean/std to the [-1, 1]
  // scaling the original (TensorFlow-ported) weights expect.
  bool transform_input = false;
  // torchvision's initialisation (truncated normal, std 0.01); false keeps
  // PyTorch's layer defaults.
  bool init_weights = true;
  double dropout = 0.2;
  double dropout_aux = 0.7;
};

// torchvision's GoogLeNetOutputs namedtuple. Note: as torchvision 0.14 does,
// aux_logits2 holds the output of the head after inception4a (aux1) and
// aux_logits1 the one after inception4d (aux2); the fields are named and
// filled as torchvision's so that ported training code sees the same tensors.
// Undefined outside training mode or without aux_logits.
struct GoogLeNetOutputs {
  Tensor logits, aux_logits2, aux_logits1;
};

class GoogLeNetImpl : public ImageClassifierImpl {
 public:
  using Options = GoogLeNetOptions;
  explicit GoogLeNetImpl(const GoogLeNetOptions& options = {});
  // The main logits in any mode (the auxiliary heads are not run).
  Tensor forward(const Tensor& images) override;
  // torchvision's forward in training mode: the main logits and, in training
  // mode with aux_logits, the auxiliary heads' logits.
  GoogLeNetOutputs forward_with_aux(const Tensor& images);
  // The input as the network sees it (transform_input applied).
  Tensor transform_input(const Tensor& images) const;

  GoogLeNetOptions options;
  BasicConv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  nn::MaxPool2d maxpool1{nullptr}, maxpool2{nullptr}, maxpool3{nullptr}, maxpool4{nullptr};
  GoogLeNetInception inception3a{nullptr}, inception3b{nullptr}, inception4a{nullptr}, inception4b{nullptr},
      inception4c{nullptr}, inception4d{nullptr}, inception4e{nullptr}, inception5a{nullptr}, inception5b{nullptr};
  GoogLeNetInceptionAux aux1{nullptr}, aux2{nullptr};  // empty without aux_logits
  nn::AdaptiveAvgPool2d avgpool{nullptr};
  nn::Dropout dropout{nullptr};
  nn::Linear fc{nullptr};

 private:
  GoogLeNetOutputs run(const Tensor& images, bool with_aux);
};
EMBER_MODULE(GoogLeNet);

GoogLeNet googlenet(const GoogLeNetOptions& options = {});

}  // namespace ember::models
