// Quantizable Inception v3 (torchvision/models/quantization/inception.py,
// torchvision 0.14). Architecture, names and init follow the float model
// (models/src/inception.cpp); the functional poolings dispatch on quantized
// tensors as torch's do.
#include "ember/models/quantization/inception.h"

#include <ember/ao/nn/quantized/functional.h>
#include <ember/ao/quantization/quant_markers.h>
#include <ember/core/error.h>
#include <ember/nn/functional/pooling.h>
#include <ember/nn/init.h>
#include <ember/nn/modules/dropout.h>
#include <ember/nn/modules/linear.h>
#include <ember/nn/modules/normalization.h>
#include <ember/nn/modules/pooling.h>

#include "../inception_input.h"
#include "../model_utils.h"

namespace ember::models::quantization {

namespace F = nn::functional;
namespace QF = ao::nn::quantized::functional;
namespace aoq = ember::ao::quantization;

namespace {
nn::AnyModule basic(int64_t in, int64_t out, F::ExpandingInts kernel, F::ExpandingInts stride = 1,
                    F::ExpandingInts padding = 0) {
  return nn::AnyModule(QuantizableBasicConv2d(
      std::make_shared<QuantizableBasicConv2dImpl>(in, out, std::move(kernel), std::move(stride), std::move(padding))));
}
// F.avg_pool2d(x, 3, 1, 1) / F.max_pool2d(x, 3, 2) / F.avg_pool2d(x, 5, 3) of
// float or quantized tensors.
Tensor pool3x3(const Tensor& x) {
  return x.is_quantized() ? QF::avg_pool2d(x, 3, {.stride = 1, .padding = 1})
                          : F::avg_pool2d(x, 3, {.stride = 1, .padding = 1});
}
Tensor max3x3s2(const Tensor& x) {
  return x.is_quantized() ? QF::max_pool2d(x, 3, {.stride = 2}) : F::max_pool2d(x, 3, {.stride = 2});
}
const char* kind_name(QuantizableInceptionBlockImpl::Kind k) {
  using K = QuantizableInceptionBlockImpl::Kind;
  switch (k) {
    case K::A: return "QuantizableInceptionA";
    case K::B: return "QuantizableInceptionB";
    case K::C: return "QuantizableInceptionC";
    case K::D: return "QuantizableInceptionD";
    case K::E: return "QuantizableInceptionE";
    case K::Aux: return "QuantizableInceptionAux";
  }
  return "?";
}
}  // namespace

QuantizableInceptionBlockImpl::QuantizableInceptionBlockImpl(Kind k, int64_t in, int64_t extra)
    : QuantizableModuleImpl(kind_name(k)), kind(k) {
  switch (kind) {
    case Kind::A:
      add("branch1x1", basic(in, 64, 1));
      add("branch5x5_1", basic(in, 48, 1));
      add("branch5x5_2", basic(48, 64, 5, 1, 2));
      add("branch3x3dbl_1", basic(in, 64, 1));
      add("branch3x3dbl_2", basic(64, 96, 3, 1, 1));
      add("branch3x3dbl_3", basic(96, 96, 3, 1, 1));
      add("branch_pool", basic(in, extra, 1));
      add_functional("myop");
      break;
    case Kind::B:
      add("branch3x3", basic(in, 384, 3, 2));
      add("branch3x3dbl_1", basic(in, 64, 1));
      add("branch3x3dbl_2", basic(64, 96, 3, 1, 1));
      add("branch3x3dbl_3", basic(96, 96, 3, 2));
      add_functional("myop");
      break;
    case Kind::C:
      add("branch1x1", basic(in, 192, 1));
      add("branch7x7_1", basic(in, extra, 1));
      add("branch7x7_2", basic(extra, extra, {1, 7}, 1, {0, 3}));
      add("branch7x7_3", basic(extra, 192, {7, 1}, 1, {3, 0}));
      add("branch7x7dbl_1", basic(in, extra, 1));
      add("branch7x7dbl_2", basic(extra, extra, {7, 1}, 1, {3, 0}));
      add("branch7x7dbl_3", basic(extra, extra, {1, 7}, 1, {0, 3}));
      add("branch7x7dbl_4", basic(extra, extra, {7, 1}, 1, {3, 0}));
      add("branch7x7dbl_5", basic(extra, 192, {1, 7}, 1, {0, 3}));
      add("branch_pool", basic(in, 192, 1));
      add_functional("myop");
      break;
    case Kind::D:
      add("branch3x3_1", basic(in, 192, 1));
      add("branch3x3_2", basic(192, 320, 3, 2));
      add("branch7x7x3_1", basic(in, 192, 1));
      add("branch7x7x3_2", basic(192, 192, {1, 7}, 1, {0, 3}));
      add("branch7x7x3_3", basic(192, 192, {7, 1}, 1, {3, 0}));
      add("branch7x7x3_4", basic(192, 192, 3, 2));
      add_functional("myop");
      break;
    case Kind::E:
      add("branch1x1", basic(in, 320, 1));
      add("branch3x3_1", basic(in, 384, 1));
      add("branch3x3_2a", basic(384, 384, {1, 3}, 1, {0, 1}));
      add("branch3x3_2b", basic(384, 384, {3, 1}, 1, {1, 0}));
      add("branch3x3dbl_1", basic(in, 448, 1));
      add("branch3x3dbl_2", basic(448, 384, 3, 1, 1));
      add("branch3x3dbl_3a", basic(384, 384, {1, 3}, 1, {0, 1}));
      add("branch3x3dbl_3b", basic(384, 384, {3, 1}, 1, {1, 0}));
      add("branch_pool", basic(in, 192, 1));
      add_functional("myop1");
      add_functional("myop2");
      add_functional("myop3");
      break;
    case Kind::Aux:
      add("conv0", basic(in, 128, 1));
      add("conv1", basic(128, 768, 5));
      add("fc", nn::AnyModule(nn::Linear(768, extra)));
      break;
  }
}

Tensor QuantizableInceptionBlockImpl::forward(const Tensor& x) {
  auto r = [&](const char* name, const Tensor& t) { return run(name, t); };
  switch (kind) {
    case Kind::A:
      return functional("myop").cat({r("branch1x1", x), r("branch5x5_2", r("branch5x5_1", x)),
                                     r("branch3x3dbl_3", r("branch3x3dbl_2", r("branch3x3dbl_1", x))),
                                     r("branch_pool", pool3x3(x))},
                                    1);
    case Kind::B:
      return functional("myop").cat(
          {r("branch3x3", x), r("branch3x3dbl_3", r("branch3x3dbl_2", r("branch3x3dbl_1", x))), max3x3s2(x)}, 1);
    case Kind::C:
      return functional("myop").cat(
          {r("branch1x1", x), r("branch7x7_3", r("branch7x7_2", r("branch7x7_1", x))),
           r("branch7x7dbl_5", r("branch7x7dbl_4", r("branch7x7dbl_3", r("branch7x7dbl_2", r("branch7x7dbl_1", x))))),
           r("branch_pool", pool3x3(x))},
          1);
    case Kind::D:
      return functional("myop").cat(
          {r("branch3x3_2", r("branch3x3_1", x)),
           r("branch7x7x3_4", r("branch7x7x3_3", r("branch7x7x3_2", r("branch7x7x3_1", x)))), max3x3s2(x)},
          1);
    case Kind::E: {
      const Tensor b3 = r("branch3x3_1", x);
      const Tensor b3cat = functional("myop1").cat({r("branch3x3_2a", b3), r("branch3x3_2b", b3)}, 1);
      const Tensor bd = r("branch3x3dbl_2", r("branch3x3dbl_1", x));
      const Tensor bdcat = functional("myop2").cat({r("branch3x3dbl_3a", bd), r("branch3x3dbl_3b", bd)}, 1);
      return functional("myop3").cat({r("branch1x1", x), b3cat, bdcat, r("branch_pool", pool3x3(x))}, 1);
    }
    case Kind::Aux: {
      EMBER_CHECK(x.size(-2) >= 17 && x.size(-1) >= 17,
                  "QuantizableInception3 AuxLogits: needs a feature map of at least 17x17, got ", x.sizes());
      Tensor y = x.is_quantized() ? QF::avg_pool2d(x, 5, {.stride = 3}) : F::avg_pool2d(x, 5, {.stride = 3});
      y = r("conv1", r("conv0", y));
      y = (y.is_quantized() ? QF::adaptive_avg_pool2d(y, 1) : F::adaptive_avg_pool2d(y, 1)).flatten(1);
      return r("fc", y);
    }
  }
  return x;
}

QuantizableInception3Impl::QuantizableInception3Impl(const Inception3Options& o)
    : QuantizableModuleImpl("QuantizableInception3"), options(o) {
  using K = QuantizableInceptionBlockImpl::Kind;
  EMBER_CHECK(o.num_classes > 0, "Inception3: num_classes must be positive, got ", o.num_classes);
  EMBER_CHECK(o.dropout >= 0 && o.dropout <= 1, "Inception3: dropout must be in [0, 1], got ", o.dropout);
  auto block = [](K k, int64_t in, int64_t extra = 0) { return nn::AnyModule(QuantizableInceptionBlock(k, in, extra)); };
  add("Conv2d_1a_3x3", basic(3, 32, 3, 2));
  add("Conv2d_2a_3x3", basic(32, 32, 3));
  add("Conv2d_2b_3x3", basic(32, 64, 3, 1, 1));
  add("maxpool1", nn::AnyModule(nn::MaxPool2d(nn::MaxPool2dOptions{.kernel_size = 3, .stride = 2})));
  add("Conv2d_3b_1x1", basic(64, 80, 1));
  add("Conv2d_4a_3x3", basic(80, 192, 3));
  add("maxpool2", nn::AnyModule(nn::MaxPool2d(nn::MaxPool2dOptions{.kernel_size = 3, .stride = 2})));
  add("Mixed_5b", block(K::A, 192, 32));
  add("Mixed_5c", block(K::A, 256, 64));
  add("Mixed_5d", block(K::A, 288, 64));
  add("Mixed_6a", block(K::B, 288));
  add("Mixed_6b", block(K::C, 768, 128));
  add("Mixed_6c", block(K::C, 768, 160));
  add("Mixed_6d", block(K::C, 768, 160));
  add("Mixed_6e", block(K::C, 768, 192));
  if (o.aux_logits) add("AuxLogits", block(K::Aux, 768, o.num_classes));
  add("Mixed_7a", block(K::D, 768));
  add("Mixed_7b", block(K::E, 1280));
  add("Mixed_7c", block(K::E, 2048));
  add("avgpool", nn::AnyModule(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({1, 1}))));
  add("dropout", nn::AnyModule(nn::Dropout(o.dropout)));
  add("fc", nn::AnyModule(nn::Linear(2048, o.num_classes)));
  add("quant", nn::AnyModule(aoq::QuantMarker()));
  add("dequant", nn::AnyModule(aoq::DeQuantMarker()));
  if (o.init_weights) {
    // As the float model: std 0.1, AuxLogits.fc 0.001 (see models/src/inception.cpp).
    detail::for_each_layer<nn::Conv2dImpl>(
        *this, [](nn::Conv2dImpl& m) { nn::init::trunc_normal_(m.weight, 0.0, 0.1, -2, 2); });
    detail::for_each_layer<nn::LinearImpl>(
        *this, [](nn::LinearImpl& m) { nn::init::trunc_normal_(m.weight, 0.0, 0.1, -2, 2); });
    if (o.aux_logits) {
      auto& aux = static_cast<QuantizableInceptionBlockImpl&>(*child("AuxLogits").ptr());
      auto fc = std::dynamic_pointer_cast<nn::LinearImpl>(aux.child("fc").ptr());
      nn::init::trunc_normal_(fc->weight, 0.0, 0.001, -2, 2);
    }
    detail::for_each_layer<nn::BatchNorm2dImpl>(*this, [](nn::BatchNorm2dImpl& m) {
      nn::init::constant_(m.weight, 1);
      nn::init::constant_(m.bias, 0);
    });
  }
}

InceptionOutputs QuantizableInception3Impl::forward_with_aux(const Tensor& images) {
  EMBER_CHECK(images.dim() == 4 && images.size(2) >= 75 && images.size(3) >= 75,
              "QuantizableInception3: expected images [N, 3, H, W] of at least 75x75, got ", images.sizes());
  Tensor x = run("quant", options.transform_input ? detail::transform_imagenet_input(images) : images);
  for (const char* name : {"Conv2d_1a_3x3", "Conv2d_2a_3x3", "Conv2d_2b_3x3", "maxpool1", "Conv2d_3b_1x1",
                           "Conv2d_4a_3x3", "maxpool2", "Mixed_5b", "Mixed_5c", "Mixed_5d", "Mixed_6a", "Mixed_6b",
                           "Mixed_6c", "Mixed_6d", "Mixed_6e"})
    x = run(name, x);
  InceptionOutputs out;
  if (is_training() && options.aux_logits) out.aux_logits = run("dequant", run("AuxLogits", x));
  for (const char* name : {"Mixed_7a", "Mixed_7b", "Mixed_7c", "avgpool", "dropout"}) x = run(name, x);
  out.logits = run("dequant", run("fc", x.flatten(1)));
  return out;
}

Tensor QuantizableInception3Impl::forward(const Tensor& images) { return forward_with_aux(images).logits; }

void QuantizableInception3Impl::fuse_model(std::optional<bool> is_qat) {
  for (const auto& m : modules(/*include_self=*/false)) {
    if (auto* b = dynamic_cast<QuantizableBasicConv2dImpl*>(m.get())) b->fuse_model(is_qat);
  }
}

QuantizableInception3 inception_v3(const Inception3Options& options) { return QuantizableInception3(options); }

}  // namespace ember::models::quantization
