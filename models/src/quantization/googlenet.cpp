// Quantizable GoogLeNet (torchvision/models/quantization/googlenet.py,
// torchvision 0.14). Architecture, names and init follow the float model
// (models/src/googlenet.cpp).
#include "ember/models/quantization/googlenet.h"

#include <ember/ao/nn/quantized/functional.h>
#include <ember/ao/quantization/quant_markers.h>
#include <ember/core/error.h>
#include <ember/nn/functional/pooling.h>
#include <ember/nn/init.h>
#include <ember/nn/modules/activation.h>
#include <ember/nn/modules/dropout.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/normalization.h>
#include <ember/nn/modules/pooling.h>

#include "../inception_input.h"
#include "../model_utils.h"

namespace ember::models::quantization {

namespace aoq = ember::ao::quantization;

namespace {
nn::AnyModule ceil_max_pool(int64_t kernel, int64_t stride, int64_t padding = 0) {
  return nn::AnyModule(
      nn::MaxPool2d(nn::MaxPool2dOptions{.kernel_size = kernel, .stride = stride, .padding = padding, .ceil_mode = true}));
}
nn::AnyModule basic(int64_t in, int64_t out, int64_t kernel, int64_t stride = 1, int64_t padding = 0) {
  return nn::AnyModule(QuantizableBasicConv2d(in, out, kernel, stride, padding));
}
}  // namespace

// ---- QuantizableBasicConv2d ----

QuantizableBasicConv2dImpl::QuantizableBasicConv2dImpl(int64_t in, int64_t out, nn::functional::ExpandingInts kernel,
                                                       nn::functional::ExpandingInts stride,
                                                       nn::functional::ExpandingInts padding)
    : QuantizableModuleImpl("QuantizableBasicConv2d") {
  add("conv", nn::AnyModule(nn::Conv2d(nn::Conv2dOptions{.in_channels = in, .out_channels = out,
                                                         .kernel_size = std::move(kernel),
                                                         .stride = std::move(stride),
                                                         .padding = std::move(padding.values), .bias = false})));
  add("bn", nn::AnyModule(nn::BatchNorm2d(nn::BatchNorm2dOptions{.num_features = out, .eps = 0.001})));
  add("relu", nn::AnyModule(nn::ReLU()));
}

Tensor QuantizableBasicConv2dImpl::forward(const Tensor& x) { return run("relu", run("bn", run("conv", x))); }

void QuantizableBasicConv2dImpl::fuse_model(std::optional<bool> is_qat) {
  fuse_groups(*this, {{"conv", "bn", "relu"}}, is_qat);
}

// ---- QuantizableInception ----

QuantizableInceptionImpl::QuantizableInceptionImpl(int64_t in_channels, int64_t ch1x1, int64_t ch3x3red,
                                                   int64_t ch3x3, int64_t ch5x5red, int64_t ch5x5, int64_t pool_proj)
    : QuantizableModuleImpl("QuantizableInception") {
  add("branch1", basic(in_channels, ch1x1, 1));
  add("branch2", nn::AnyModule(nn::Sequential(basic(in_channels, ch3x3red, 1), basic(ch3x3red, ch3x3, 3, 1, 1))));
  // kernel_size=3 instead of 5: torchvision's known bug (pytorch/vision#906).
  add("branch3", nn::AnyModule(nn::Sequential(basic(in_channels, ch5x5red, 1), basic(ch5x5red, ch5x5, 3, 1, 1))));
  add("branch4", nn::AnyModule(nn::Sequential(ceil_max_pool(3, 1, 1), basic(in_channels, pool_proj, 1))));
  add_functional("cat");
}

Tensor QuantizableInceptionImpl::forward(const Tensor& x) {
  return functional("cat").cat({run("branch1", x), run("branch2", x), run("branch3", x), run("branch4", x)}, 1);
}

// ---- QuantizableInceptionAux ----

QuantizableInceptionAuxImpl::QuantizableInceptionAuxImpl(int64_t in_channels, int64_t num_classes, double p)
    : QuantizableModuleImpl("QuantizableInceptionAux") {
  add("conv", basic(in_channels, 128, 1));
  add("fc1", nn::AnyModule(nn::Linear(2048, 1024)));
  add("fc2", nn::AnyModule(nn::Linear(1024, num_classes)));
  add("dropout", nn::AnyModule(nn::Dropout(p)));
  add("relu", nn::AnyModule(nn::ReLU()));
}

Tensor QuantizableInceptionAuxImpl::forward(const Tensor& input) {
  Tensor x = input.is_quantized() ? ao::nn::quantized::functional::adaptive_avg_pool2d(input, {4, 4})
                                  : nn::functional::adaptive_avg_pool2d(input, {4, 4});
  x = run("conv", x).flatten(1);
  x = run("relu", run("fc1", x));
  return run("fc2", run("dropout", x));
}

// ---- QuantizableGoogLeNet ----

QuantizableGoogLeNetImpl::QuantizableGoogLeNetImpl(const GoogLeNetOptions& o)
    : QuantizableModuleImpl("QuantizableGoogLeNet"), options(o) {
  EMBER_CHECK(o.num_classes > 0, "GoogLeNet: num_classes must be positive, got ", o.num_classes);
  EMBER_CHECK(o.dropout >= 0 && o.dropout <= 1 && o.dropout_aux >= 0 && o.dropout_aux <= 1,
              "GoogLeNet: dropout and dropout_aux must be in [0, 1], got ", o.dropout, " and ", o.dropout_aux);
  add("conv1", basic(3, 64, 7, 2, 3));
  add("maxpool1", ceil_max_pool(3, 2));
  add("conv2", basic(64, 64, 1));
  add("conv3", basic(64, 192, 3, 1, 1));
  add("maxpool2", ceil_max_pool(3, 2));
  add("inception3a", nn::AnyModule(QuantizableInception(192, 64, 96, 128, 16, 32, 32)));
  add("inception3b", nn::AnyModule(QuantizableInception(256, 128, 128, 192, 32, 96, 64)));
  add("maxpool3", ceil_max_pool(3, 2));
  add("inception4a", nn::AnyModule(QuantizableInception(480, 192, 96, 208, 16, 48, 64)));
  add("inception4b", nn::AnyModule(QuantizableInception(512, 160, 112, 224, 24, 64, 64)));
  add("inception4c", nn::AnyModule(QuantizableInception(512, 128, 128, 256, 24, 64, 64)));
  add("inception4d", nn::AnyModule(QuantizableInception(512, 112, 144, 288, 32, 64, 64)));
  add("inception4e", nn::AnyModule(QuantizableInception(528, 256, 160, 320, 32, 128, 128)));
  add("maxpool4", ceil_max_pool(2, 2));
  add("inception5a", nn::AnyModule(QuantizableInception(832, 256, 160, 320, 32, 128, 128)));
  add("inception5b", nn::AnyModule(QuantizableInception(832, 384, 192, 384, 48, 128, 128)));
  if (o.aux_logits) {
    add("aux1", nn::AnyModule(QuantizableInceptionAux(512, o.num_classes, o.dropout_aux)));
    add("aux2", nn::AnyModule(QuantizableInceptionAux(528, o.num_classes, o.dropout_aux)));
  }
  add("avgpool", nn::AnyModule(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({1, 1}))));
  add("dropout", nn::AnyModule(nn::Dropout(o.dropout)));
  add("fc", nn::AnyModule(nn::Linear(1024, o.num_classes)));
  add("quant", nn::AnyModule(aoq::QuantMarker()));
  add("dequant", nn::AnyModule(aoq::DeQuantMarker()));
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

GoogLeNetOutputs QuantizableGoogLeNetImpl::forward_with_aux(const Tensor& images) {
  EMBER_CHECK(images.dim() == 4, "QuantizableGoogLeNet: expected a 4-d input [N, 3, H, W], got sizes ",
              images.sizes());
  const bool with_aux = is_training() && options.aux_logits;
  Tensor x = run("quant", options.transform_input ? detail::transform_imagenet_input(images) : images);
  x = run("maxpool1", run("conv1", x));
  x = run("maxpool2", run("conv3", run("conv2", x)));
  x = run("maxpool3", run("inception3b", run("inception3a", x)));
  x = run("inception4a", x);
  GoogLeNetOutputs out;
  if (with_aux) out.aux_logits2 = run("aux1", x);  // the float model's field order
  x = run("inception4d", run("inception4c", run("inception4b", x)));
  if (with_aux) out.aux_logits1 = run("aux2", x);
  x = run("maxpool4", run("inception4e", x));
  x = run("inception5b", run("inception5a", x));
  x = run("avgpool", x).flatten(1);
  out.logits = run("dequant", run("fc", run("dropout", x)));
  return out;
}

Tensor QuantizableGoogLeNetImpl::forward(const Tensor& images) { return forward_with_aux(images).logits; }

void QuantizableGoogLeNetImpl::fuse_model(std::optional<bool> is_qat) { fuse_descendants(is_qat); }

QuantizableGoogLeNet googlenet(const GoogLeNetOptions& options) { return QuantizableGoogLeNet(options); }

}  // namespace ember::models::quantization
