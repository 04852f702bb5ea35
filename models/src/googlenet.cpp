// GoogLeNet as torchvision 0.14's models/googlenet.py.
#include "ember/models/googlenet.h"

#include <ember/core/error.h>
#include <ember/nn/functional/activation.h>
#include <ember/nn/functional/pooling.h>
#include <ember/nn/init.h>
#include <ember/ops/shape.h>

#include "inception_input.h"
#include "model_utils.h"
#include "registry.h"

namespace ember::models {

namespace {

nn::MaxPool2d ceil_max_pool(int64_t kernel, int64_t stride, int64_t padding = 0) {
  return nn::MaxPool2d(
      nn::MaxPool2dOptions{.kernel_size = kernel, .stride = stride, .padding = padding, .ceil_mode = true});
}

}  // namespace

GoogLeNetInceptionImpl::GoogLeNetInceptionImpl(int64_t in_channels, int64_t ch1x1, int64_t ch3x3red, int64_t ch3x3,
                                               int64_t ch5x5red, int64_t ch5x5, int64_t pool_proj)
    : nn::Module("Inception") {
  branch1 = register_module("branch1", BasicConv2d(in_channels, ch1x1, 1));
  branch2 = register_module("branch2", nn::Sequential(BasicConv2d(in_channels, ch3x3red, 1),
                                                      BasicConv2d(ch3x3red, ch3x3, 3, 1, 1)));
  // kernel_size=3 instead of 5: torchvision's known bug (pytorch/vision#906).
  branch3 = register_module("branch3", nn::Sequential(BasicConv2d(in_channels, ch5x5red, 1),
                                                      BasicConv2d(ch5x5red, ch5x5, 3, 1, 1)));
  branch4 = register_module("branch4", nn::Sequential(ceil_max_pool(3, 1, 1), BasicConv2d(in_channels, pool_proj, 1)));
}

Tensor GoogLeNetInceptionImpl::forward(const Tensor& x) {
  return cat({branch1(x), branch2(x), branch3(x), branch4(x)}, 1);
}

GoogLeNetInceptionAuxImpl::GoogLeNetInceptionAuxImpl(int64_t in_channels, int64_t num_classes, double p)
    : nn::Module("InceptionAux") {
  conv = register_module("conv", BasicConv2d(in_channels, 128, 1));
  fc1 = register_module("fc1", nn::Linear(2048, 1024));
  fc2 = register_module("fc2", nn::Linear(1024, num_classes));
  dropout = register_module("dropout", nn::Dropout(p));
}

Tensor GoogLeNetInceptionAuxImpl::forward(const Tensor& input) {
  // aux1: N x 512 x 14 x 14, aux2: N x 528 x 14 x 14 (at 224 x 224)
  Tensor x = nn::functional::adaptive_avg_pool2d(input, {4, 4});
  x = conv(x).flatten(1);  // N x 2048
  x = fc1(x);
  x = nn::functional::relu_(x);
  x = dropout(x);
  return fc2(x);
}

GoogLeNetImpl::GoogLeNetImpl(const GoogLeNetOptions& o) : ImageClassifierImpl("GoogLeNet"), options(o) {
  EMBER_CHECK(o.num_classes > 0, "GoogLeNet: num_classes must be positive, got ", o.num_classes);
  EMBER_CHECK(o.dropout >= 0 && o.dropout <= 1 && o.dropout_aux >= 0 && o.dropout_aux <= 1,
              "GoogLeNet: dropout and dropout_aux must be in [0, 1], got ", o.dropout, " and ", o.dropout_aux);
  conv1 = register_module("conv1", BasicConv2d(3, 64, 7, 2, 3));
  maxpool1 = register_module("maxpool1", ceil_max_pool(3, 2));
  conv2 = register_module("conv2", BasicConv2d(64, 64, 1));
  conv3 = register_module("conv3", BasicConv2d(64, 192, 3, 1, 1));
  maxpool2 = register_module("maxpool2", ceil_max_pool(3, 2));

  inception3a = register_module("inception3a", GoogLeNetInception(192, 64, 96, 128, 16, 32, 32));
  inception3b = register_module("inception3b", GoogLeNetInception(256, 128, 128, 192, 32, 96, 64));
  maxpool3 = register_module("maxpool3", ceil_max_pool(3, 2));

  inception4a = register_module("inception4a", GoogLeNetInception(480, 192, 96, 208, 16, 48, 64));
  inception4b = register_module("inception4b", GoogLeNetInception(512, 160, 112, 224, 24, 64, 64));
  inception4c = register_module("inception4c", GoogLeNetInception(512, 128, 128, 256, 24, 64, 64));
  inception4d = register_module("inception4d", GoogLeNetInception(512, 112, 144, 288, 32, 64, 64));
  inception4e = register_module("inception4e", GoogLeNetInception(528, 256, 160, 320, 32, 128, 128));
  maxpool4 = register_module("maxpool4", ceil_max_pool(2, 2));

  inception5a = register_module("inception5a", GoogLeNetInception(832, 256, 160, 320, 32, 128, 128));
  inception5b = register_module("inception5b", GoogLeNetInception(832, 384, 192, 384, 48, 128, 128));

  if (o.aux_logits) {
    aux1 = register_module("aux1", GoogLeNetInceptionAux(512, o.num_classes, o.dropout_aux));
    aux2 = register_module("aux2", GoogLeNetInceptionAux(528, o.num_classes, o.dropout_aux));
  }
  // output_size (1, 1), as torchvision (prints so)
  avgpool = register_module("avgpool", nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({1, 1})));
  dropout = register_module("dropout", nn::Dropout(o.dropout));
  fc = register_module("fc", nn::Linear(1024, o.num_classes));

  if (o.init_weights) {
    detail::for_each_layer<nn::Conv2dImpl>(
        *this, [](nn::Conv2dImpl& m) { nn::init::trunc_normal_(m.weight, 0.0, 0.01, -2, 2); });
    detail::for_each_layer<nn::LinearImpl>(
        *this, [](nn::LinearImpl& m) { nn::init::trunc_normal_(m.weight, 0.0, 0.01, -2, 2); });
    detail::for_each_layer<nn::BatchNorm2dImpl>(*this, [](nn::BatchNorm2dImpl& m) {
      nn::init::constant_(m.weight, 1);
      nn::init::constant_(m.bias, 0);
    });
  }
}

Tensor GoogLeNetImpl::transform_input(const Tensor& images) const {
  return options.transform_input ? detail::transform_imagenet_input(images) : images;
}

GoogLeNetOutputs GoogLeNetImpl::run(const Tensor& images, bool with_aux) {
  detail::check_images(images, "GoogLeNet");
  Tensor x = transform_input(images);
  x = conv1(x);     // N x 64 x 112 x 112 (at 224 x 224)
  x = maxpool1(x);  // N x 64 x 56 x 56
  x = conv2(x);
  x = conv3(x);     // N x 192 x 56 x 56
  x = maxpool2(x);  // N x 192 x 28 x 28
  x = inception3a(x);
  x = inception3b(x);  // N x 480 x 28 x 28
  x = maxpool3(x);     // N x 480 x 14 x 14
  x = inception4a(x);  // N x 512 x 14 x 14
  GoogLeNetOutputs out;
  if (with_aux) out.aux_logits2 = aux1(x);  // torchvision's field order, see GoogLeNetOutputs
  x = inception4b(x);
  x = inception4c(x);
  x = inception4d(x);  // N x 528 x 14 x 14
  if (with_aux) out.aux_logits1 = aux2(x);
  x = inception4e(x);  // N x 832 x 14 x 14
  x = maxpool4(x);     // N x 832 x 7 x 7
  x = inception5a(x);
  x = inception5b(x);  // N x 1024 x 7 x 7
  x = avgpool(x).flatten(1);
  x = dropout(x);
  out.logits = fc(x);
  return out;
}

Tensor GoogLeNetImpl::forward(const Tensor& images) { return run(images, false).logits; }

GoogLeNetOutputs GoogLeNetImpl::forward_with_aux(const Tensor& images) {
  return run(images, is_training() && options.aux_logits);
}

GoogLeNet googlenet(const GoogLeNetOptions& options) { return GoogLeNet(options); }

}  // namespace ember::models

namespace ember::models::detail {

void register_googlenet_models(const AddModel& add) {
  add("googlenet", [](const ModelOptions& o) -> ImageClassifier {
    GoogLeNetOptions options{.num_classes = o.num_classes, .transform_input = o.transform_input};
    if (o.aux_logits) options.aux_logits = *o.aux_logits;
    if (o.dropout) options.dropout = *o.dropout;
    return googlenet(options).ptr();
  });
}

}  // namespace ember::models::detail
