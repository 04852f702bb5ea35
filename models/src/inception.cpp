// Inception v3 as torchvision 0.14's models/inception.py.
#include "ember/models/inception.h"

#include <ember/core/error.h>
#include <ember/nn/functional/pooling.h>
#include <ember/nn/init.h>
#include <ember/ops/shape.h>

#include "inception_input.h"
#include "model_utils.h"
#include "registry.h"

namespace ember::models {

namespace F = nn::functional;

namespace {

// F.avg_pool2d(x, kernel_size=3, stride=1, padding=1) of the pooled branches
// (count_include_pad, PyTorch's default).
Tensor pool3x3(const Tensor& x) { return F::avg_pool2d(x, 3, {.stride = 1, .padding = 1}); }

// BasicConv2d with braced kernel sizes and paddings ({1, 7}).
BasicConv2d basic(int64_t in, int64_t out, F::ExpandingInts kernel_size, F::ExpandingInts stride = 1,
                  F::ExpandingInts padding = 0) {
  return BasicConv2d(std::make_shared<BasicConv2dImpl>(in, out, std::move(kernel_size), std::move(stride),
                                                       std::move(padding)));
}

}  // namespace

InceptionAImpl::InceptionAImpl(int64_t in_channels, int64_t pool_features) : nn::Module("InceptionA") {
  branch1x1 = register_module("branch1x1", basic(in_channels, 64, 1));
  branch5x5_1 = register_module("branch5x5_1", basic(in_channels, 48, 1));
  branch5x5_2 = register_module("branch5x5_2", basic(48, 64, 5, 1, 2));
  branch3x3dbl_1 = register_module("branch3x3dbl_1", basic(in_channels, 64, 1));
  branch3x3dbl_2 = register_module("branch3x3dbl_2", basic(64, 96, 3, 1, 1));
  branch3x3dbl_3 = register_module("branch3x3dbl_3", basic(96, 96, 3, 1, 1));
  branch_pool = register_module("branch_pool", basic(in_channels, pool_features, 1));
}

Tensor InceptionAImpl::forward(const Tensor& x) {
  Tensor b1 = branch1x1(x);
  Tensor b5 = branch5x5_2(branch5x5_1(x));
  Tensor b3 = branch3x3dbl_3(branch3x3dbl_2(branch3x3dbl_1(x)));
  Tensor bp = branch_pool(pool3x3(x));
  return cat({b1, b5, b3, bp}, 1);
}

InceptionBImpl::InceptionBImpl(int64_t in_channels) : nn::Module("InceptionB") {
  branch3x3 = register_module("branch3x3", basic(in_channels, 384, 3, 2));
  branch3x3dbl_1 = register_module("branch3x3dbl_1", basic(in_channels, 64, 1));
  branch3x3dbl_2 = register_module("branch3x3dbl_2", basic(64, 96, 3, 1, 1));
  branch3x3dbl_3 = register_module("branch3x3dbl_3", basic(96, 96, 3, 2));
}

Tensor InceptionBImpl::forward(const Tensor& x) {
  Tensor b3 = branch3x3(x);
  Tensor bd = branch3x3dbl_3(branch3x3dbl_2(branch3x3dbl_1(x)));
  Tensor bp = F::max_pool2d(x, 3, {.stride = 2});
  return cat({b3, bd, bp}, 1);
}

InceptionCImpl::InceptionCImpl(int64_t in_channels, int64_t c7) : nn::Module("InceptionC") {
  branch1x1 = register_module("branch1x1", basic(in_channels, 192, 1));
  branch7x7_1 = register_module("branch7x7_1", basic(in_channels, c7, 1));
  branch7x7_2 = register_module("branch7x7_2", basic(c7, c7, {1, 7}, 1, {0, 3}));
  branch7x7_3 = register_module("branch7x7_3", basic(c7, 192, {7, 1}, 1, {3, 0}));
  branch7x7dbl_1 = register_module("branch7x7dbl_1", basic(in_channels, c7, 1));
  branch7x7dbl_2 = register_module("branch7x7dbl_2", basic(c7, c7, {7, 1}, 1, {3, 0}));
  branch7x7dbl_3 = register_module("branch7x7dbl_3", basic(c7, c7, {1, 7}, 1, {0, 3}));
  branch7x7dbl_4 = register_module("branch7x7dbl_4", basic(c7, c7, {7, 1}, 1, {3, 0}));
  branch7x7dbl_5 = register_module("branch7x7dbl_5", basic(c7, 192, {1, 7}, 1, {0, 3}));
  branch_pool = register_module("branch_pool", basic(in_channels, 192, 1));
}

Tensor InceptionCImpl::forward(const Tensor& x) {
  Tensor b1 = branch1x1(x);
  Tensor b7 = branch7x7_3(branch7x7_2(branch7x7_1(x)));
  Tensor bd = branch7x7dbl_5(branch7x7dbl_4(branch7x7dbl_3(branch7x7dbl_2(branch7x7dbl_1(x)))));
  Tensor bp = branch_pool(pool3x3(x));
  return cat({b1, b7, bd, bp}, 1);
}

InceptionDImpl::InceptionDImpl(int64_t in_channels) : nn::Module("InceptionD") {
  branch3x3_1 = register_module("branch3x3_1", basic(in_channels, 192, 1));
  branch3x3_2 = register_module("branch3x3_2", basic(192, 320, 3, 2));
  branch7x7x3_1 = register_module("branch7x7x3_1", basic(in_channels, 192, 1));
  branch7x7x3_2 = register_module("branch7x7x3_2", basic(192, 192, {1, 7}, 1, {0, 3}));
  branch7x7x3_3 = register_module("branch7x7x3_3", basic(192, 192, {7, 1}, 1, {3, 0}));
  branch7x7x3_4 = register_module("branch7x7x3_4", basic(192, 192, 3, 2));
}

Tensor InceptionDImpl::forward(const Tensor& x) {
  Tensor b3 = branch3x3_2(branch3x3_1(x));
  Tensor b7 = branch7x7x3_4(branch7x7x3_3(branch7x7x3_2(branch7x7x3_1(x))));
  Tensor bp = F::max_pool2d(x, 3, {.stride = 2});
  return cat({b3, b7, bp}, 1);
}

InceptionEImpl::InceptionEImpl(int64_t in_channels) : nn::Module("InceptionE") {
  branch1x1 = register_module("branch1x1", basic(in_channels, 320, 1));
  branch3x3_1 = register_module("branch3x3_1", basic(in_channels, 384, 1));
  branch3x3_2a = register_module("branch3x3_2a", basic(384, 384, {1, 3}, 1, {0, 1}));
  branch3x3_2b = register_module("branch3x3_2b", basic(384, 384, {3, 1}, 1, {1, 0}));
  branch3x3dbl_1 = register_module("branch3x3dbl_1", basic(in_channels, 448, 1));
  branch3x3dbl_2 = register_module("branch3x3dbl_2", basic(448, 384, 3, 1, 1));
  branch3x3dbl_3a = register_module("branch3x3dbl_3a", basic(384, 384, {1, 3}, 1, {0, 1}));
  branch3x3dbl_3b = register_module("branch3x3dbl_3b", basic(384, 384, {3, 1}, 1, {1, 0}));
  branch_pool = register_module("branch_pool", basic(in_channels, 192, 1));
}

Tensor InceptionEImpl::forward(const Tensor& x) {
  Tensor b1 = branch1x1(x);
  Tensor b3 = branch3x3_1(x);
  b3 = cat({branch3x3_2a(b3), branch3x3_2b(b3)}, 1);
  Tensor bd = branch3x3dbl_2(branch3x3dbl_1(x));
  bd = cat({branch3x3dbl_3a(bd), branch3x3dbl_3b(bd)}, 1);
  Tensor bp = branch_pool(pool3x3(x));
  return cat({b1, b3, bd, bp}, 1);
}

InceptionAuxImpl::InceptionAuxImpl(int64_t in_channels, int64_t num_classes) : nn::Module("InceptionAux") {
  conv0 = register_module("conv0", basic(in_channels, 128, 1));
  conv1 = register_module("conv1", basic(128, 768, 5));
  fc = register_module("fc", nn::Linear(768, num_classes));
}

Tensor InceptionAuxImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.size(-2) >= 17 && input.size(-1) >= 17,
              "Inception3 AuxLogits: needs a feature map of at least 17x17 (a 299x299 image), got ",
              input.sizes(), "; run the auxiliary head on larger images or build the model with aux_logits = false");
  Tensor x = F::avg_pool2d(input, 5, {.stride = 3});  // N x 768 x 5 x 5
  x = conv1(conv0(x));                                // N x 768 x 1 x 1
  x = F::adaptive_avg_pool2d(x, 1).flatten(1);        // N x 768
  return fc(x);
}

Inception3Impl::Inception3Impl(const Inception3Options& o) : ImageClassifierImpl("Inception3"), options(o) {
  EMBER_CHECK(o.num_classes > 0, "Inception3: num_classes must be positive, got ", o.num_classes);
  EMBER_CHECK(o.dropout >= 0 && o.dropout <= 1, "Inception3: dropout must be in [0, 1], got ", o.dropout);
  Conv2d_1a_3x3 = register_module("Conv2d_1a_3x3", basic(3, 32, 3, 2));
  Conv2d_2a_3x3 = register_module("Conv2d_2a_3x3", basic(32, 32, 3));
  Conv2d_2b_3x3 = register_module("Conv2d_2b_3x3", basic(32, 64, 3, 1, 1));
  maxpool1 = register_module("maxpool1", nn::MaxPool2d(nn::MaxPool2dOptions{.kernel_size = 3, .stride = 2}));
  Conv2d_3b_1x1 = register_module("Conv2d_3b_1x1", basic(64, 80, 1));
  Conv2d_4a_3x3 = register_module("Conv2d_4a_3x3", basic(80, 192, 3));
  maxpool2 = register_module("maxpool2", nn::MaxPool2d(nn::MaxPool2dOptions{.kernel_size = 3, .stride = 2}));
  Mixed_5b = register_module("Mixed_5b", InceptionA(192, 32));
  Mixed_5c = register_module("Mixed_5c", InceptionA(256, 64));
  Mixed_5d = register_module("Mixed_5d", InceptionA(288, 64));
  Mixed_6a = register_module("Mixed_6a", InceptionB(288));
  Mixed_6b = register_module("Mixed_6b", InceptionC(768, 128));
  Mixed_6c = register_module("Mixed_6c", InceptionC(768, 160));
  Mixed_6d = register_module("Mixed_6d", InceptionC(768, 160));
  Mixed_6e = register_module("Mixed_6e", InceptionC(768, 192));
  if (o.aux_logits) AuxLogits = register_module("AuxLogits", InceptionAux(768, o.num_classes));
  Mixed_7a = register_module("Mixed_7a", InceptionD(768));
  Mixed_7b = register_module("Mixed_7b", InceptionE(1280));
  Mixed_7c = register_module("Mixed_7c", InceptionE(2048));
  // output_size (1, 1), as torchvision (prints so)
  avgpool = register_module("avgpool", nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({1, 1})));
  dropout = register_module("dropout", nn::Dropout(o.dropout));
  fc = register_module("fc", nn::Linear(2048, o.num_classes));

  if (o.init_weights) {
    // torchvision reads a `stddev` attribute where a layer has one (0.1
    // otherwise); only AuxLogits.fc's (0.001) is on a Conv2d or Linear itself:
    // AuxLogits.conv1.stddev sits on the BasicConv2d and is never read.
    detail::for_each_layer<nn::Conv2dImpl>(
        *this, [](nn::Conv2dImpl& m) { nn::init::trunc_normal_(m.weight, 0.0, 0.1, -2, 2); });
    detail::for_each_layer<nn::LinearImpl>(
        *this, [](nn::LinearImpl& m) { nn::init::trunc_normal_(m.weight, 0.0, 0.1, -2, 2); });
    if (AuxLogits) nn::init::trunc_normal_(AuxLogits->fc->weight, 0.0, 0.001, -2, 2);
    detail::for_each_layer<nn::BatchNorm2dImpl>(*this, [](nn::BatchNorm2dImpl& m) {
      nn::init::constant_(m.weight, 1);
      nn::init::constant_(m.bias, 0);
    });
  }
}

Tensor Inception3Impl::transform_input(const Tensor& images) const {
  return options.transform_input ? detail::transform_imagenet_input(images) : images;
}

InceptionOutputs Inception3Impl::run(const Tensor& images, bool with_aux) {
  detail::check_images(images, "Inception3");
  EMBER_CHECK(images.size(2) >= 75 && images.size(3) >= 75, "Inception3: expected images of at least 75x75, got ",
              images.sizes());
  Tensor x = transform_input(images);
  x = Conv2d_1a_3x3(x);  // N x 32 x 149 x 149 (at 299 x 299)
  x = Conv2d_2a_3x3(x);  // N x 32 x 147 x 147
  x = Conv2d_2b_3x3(x);  // N x 64 x 147 x 147
  x = maxpool1(x);       // N x 64 x 73 x 73
  x = Conv2d_3b_1x1(x);  // N x 80 x 73 x 73
  x = Conv2d_4a_3x3(x);  // N x 192 x 71 x 71
  x = maxpool2(x);       // N x 192 x 35 x 35
  x = Mixed_5b(x);       // N x 256 x 35 x 35
  x = Mixed_5c(x);       // N x 288 x 35 x 35
  x = Mixed_5d(x);       // N x 288 x 35 x 35
  x = Mixed_6a(x);       // N x 768 x 17 x 17
  x = Mixed_6b(x);
  x = Mixed_6c(x);
  x = Mixed_6d(x);
  x = Mixed_6e(x);  // N x 768 x 17 x 17
  InceptionOutputs out;
  if (with_aux) out.aux_logits = AuxLogits(x);
  x = Mixed_7a(x);  // N x 1280 x 8 x 8
  x = Mixed_7b(x);  // N x 2048 x 8 x 8
  x = Mixed_7c(x);  // N x 2048 x 8 x 8
  x = avgpool(x);   // N x 2048 x 1 x 1
  x = dropout(x);
  out.logits = fc(x.flatten(1));
  return out;
}

Tensor Inception3Impl::forward(const Tensor& images) { return run(images, false).logits; }

InceptionOutputs Inception3Impl::forward_with_aux(const Tensor& images) {
  return run(images, is_training() && options.aux_logits);
}

Inception3 inception_v3(const Inception3Options& options) { return Inception3(options); }

}  // namespace ember::models

namespace ember::models::detail {

void register_inception_models(const AddModel& add) {
  add("inception_v3", [](const ModelOptions& o) -> ImageClassifier {
    Inception3Options options{.num_classes = o.num_classes, .transform_input = o.transform_input};
    if (o.aux_logits) options.aux_logits = *o.aux_logits;
    if (o.dropout) options.dropout = *o.dropout;
    return inception_v3(options).ptr();
  });
}

}  // namespace ember::models::detail
