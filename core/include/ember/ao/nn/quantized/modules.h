#pragma once
// Quantized modules, as torch.ao.nn.quantized (and .intrinsic.quantized,
// .quantized.dynamic) in PyTorch 1.13: what the eager-mode workflow's
// convert() puts in place of observed float modules (docs/quantization.md).
// Each holds its quantized weight and its output's scale and zero point; the
// kernels are in ember/ao/nn/quantized/functional.h.
#include <memory>
#include <vector>

#include "ember/ao/nn/quantized/functional.h"
#include "ember/ao/nn/quantized/functional_modules.h"
#include "ember/nn/module.h"

namespace ember::nn {
class LinearImpl;
}
namespace ember::ao::quantization {
struct QConfig;
}

namespace ember::ao::nn::quantized {

// What the int8 kernel keeps between a module's calls (its packed weight and
// primitives; opaque, made on the first forward and remade when the weight or
// bias member is replaced or written to).
struct QKernelState;

// quantized.Linear: quint8 in, quint8 out; weight qint8 [out, in].
class LinearImpl : public ember::nn::Module {
 public:
  LinearImpl(Tensor weight, Tensor bias, double scale, int64_t zero_point, std::string type = "QuantizedLinear");
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  Tensor weight, bias;
  double scale;
  int64_t zero_point;

 protected:
  bool relu_ = false;
  std::shared_ptr<QKernelState> packed_;
};
EMBER_MODULE(Linear);

// The convolutions' options (one value, or one per spatial dim).
struct ConvOptions {
  ember::nn::functional::ExpandingInts stride = 1;
  ember::nn::functional::ExpandingInts padding = 0;
  ember::nn::functional::ExpandingInts dilation = 1;
  int64_t groups = 1;
};
using Conv1dOptions = ConvOptions;
using Conv2dOptions = ConvOptions;
using Conv3dOptions = ConvOptions;

// quantized.Conv1d / Conv2d / Conv3d (D spatial dims): weight qint8 [out, in /
// groups, k...] per tensor or per channel (dim 0); quint8 in, channels-last
// quint8 out (torch's layout). Conv1d runs as torch's, a 2-d convolution over
// [N, C, 1, L] (functional::conv1d). type: the module's name (default
// "QuantizedConv<D>d").
template <int D>
class ConvImpl : public ember::nn::Module {
 public:
  ConvImpl(Tensor weight, Tensor bias, const ConvOptions& options, double scale, int64_t zero_point,
           std::string type = "");
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  Tensor weight, bias;
  ConvOptions options;
  double scale;
  int64_t zero_point;

 protected:
  bool relu_ = false;
  std::shared_ptr<QKernelState> packed_;
  Tensor kernel_weight_;  // Conv1d: weight unsqueezed to [O, C / g, 1, k], remade when weight is replaced
  Tensor kernel_weight_of_;
};
using Conv1dImpl = ConvImpl<1>;
using Conv2dImpl = ConvImpl<2>;
using Conv3dImpl = ConvImpl<3>;
EMBER_MODULE(Conv1d);
EMBER_MODULE(Conv2d);
EMBER_MODULE(Conv3d);
extern template class ConvImpl<1>;
extern template class ConvImpl<2>;
extern template class ConvImpl<3>;

struct ConvTransposeOptions {
  ember::nn::functional::ExpandingInts stride = 1;
  ember::nn::functional::ExpandingInts padding = 0;
  ember::nn::functional::ExpandingInts output_padding = 0;
  int64_t groups = 1;
  ember::nn::functional::ExpandingInts dilation = 1;
};

// quantized.ConvTranspose1d / 2d / 3d: weight qint8 [in, out / groups, k...]
// per tensor (torch refuses per-channel weights here); output_padding taken
// (torch's onednn engine refuses a non-zero one, its qnnpack engine takes it).
template <int D>
class ConvTransposeImpl : public ember::nn::Module {
 public:
  ConvTransposeImpl(Tensor weight, Tensor bias, const ConvTransposeOptions& options, double scale,
                    int64_t zero_point);
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  Tensor weight, bias;
  ConvTransposeOptions options;
  double scale;
  int64_t zero_point;

 protected:
  std::shared_ptr<QKernelState> packed_;
  Tensor kernel_weight_, kernel_weight_of_;  // as ConvImpl<1>
};
using ConvTranspose1dImpl = ConvTransposeImpl<1>;
using ConvTranspose2dImpl = ConvTransposeImpl<2>;
using ConvTranspose3dImpl = ConvTransposeImpl<3>;
EMBER_MODULE(ConvTranspose1d);
EMBER_MODULE(ConvTranspose2d);
EMBER_MODULE(ConvTranspose3d);
extern template class ConvTransposeImpl<1>;
extern template class ConvTransposeImpl<2>;
extern template class ConvTransposeImpl<3>;

class ReLUImpl : public ember::nn::Module {
 public:
  ReLUImpl() : Module("QuantizedReLU") {}
  // A float input takes the float relu (convert puts this module in place of
  // every nn::ReLU with a qconfig, some of which may see float tensors; see
  // Note [Modules PyTorch leaves to tensor dispatch]).
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(ReLU);

class HardswishImpl : public ember::nn::Module {
 public:
  HardswishImpl(double scale, int64_t zero_point) : Module("QuantizedHardswish"), scale(scale), zero_point(zero_point) {}
  Tensor forward(const Tensor& input) { return functional::hardswish(input, scale, zero_point); }
  double scale;
  int64_t zero_point;
};
EMBER_MODULE(Hardswish);

// quantized.LeakyReLU(scale, zero_point, negative_slope) and
// quantized.ELU(scale, zero_point, alpha): the output's parameters from the
// float module's observer (convert).
class LeakyReLUImpl : public ember::nn::Module {
 public:
  LeakyReLUImpl(double scale, int64_t zero_point, double negative_slope = 0.01)
      : Module("QuantizedLeakyReLU"), scale(scale), zero_point(zero_point), negative_slope(negative_slope) {}
  Tensor forward(const Tensor& input) { return functional::leaky_relu(input, negative_slope, scale, zero_point); }
  double scale;
  int64_t zero_point;
  double negative_slope;
};
EMBER_MODULE(LeakyReLU);

class ELUImpl : public ember::nn::Module {
 public:
  ELUImpl(double scale, int64_t zero_point, double alpha = 1.0)
      : Module("QuantizedELU"), scale(scale), zero_point(zero_point), alpha(alpha) {}
  Tensor forward(const Tensor& input) { return functional::elu(input, scale, zero_point, alpha); }
  double scale;
  int64_t zero_point;
  double alpha;
};
EMBER_MODULE(ELU);

class HardsigmoidImpl : public ember::nn::Module {
 public:
  HardsigmoidImpl() : Module("QuantizedHardsigmoid") {}
  // A float input takes the float hardsigmoid (as ReLU).
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Hardsigmoid);

// quantized.BatchNorm2d: eval-mode statistics (float), quantized output.
class BatchNorm2dImpl : public ember::nn::Module {
 public:
  BatchNorm2dImpl(Tensor weight, Tensor bias, Tensor running_mean, Tensor running_var, double eps, double scale,
                  int64_t zero_point);
  Tensor forward(const Tensor& input);
  Tensor weight, bias, running_mean, running_var;
  double eps, scale;
  int64_t zero_point;
};
EMBER_MODULE(BatchNorm2d);

// torch.ao.nn.quantized.Quantize / DeQuantize (what convert() makes of the workflow's quantize and dequantize markers).
class QuantizeImpl : public ember::nn::Module {
 public:
  QuantizeImpl(double scale, int64_t zero_point, DType dtype = kQUInt8);
  Tensor forward(const Tensor& input);
  double scale;
  int64_t zero_point;
  DType dtype;
};
EMBER_MODULE(Quantize);

class DeQuantizeImpl : public ember::nn::Module {
 public:
  DeQuantizeImpl() : Module("DeQuantize") {}
  Tensor forward(const Tensor& input) { return input.dequantize(); }
};
EMBER_MODULE(DeQuantize);

// quantized.QFunctional (what FloatFunctional becomes): add, add_relu, mul,
// cat with the module's output scale and zero point.
class QFunctionalImpl : public FunctionalModule {
 public:
  QFunctionalImpl(double scale = 1.0, int64_t zero_point = 0)
      : FunctionalModule("QFunctional"), scale(scale), zero_point(zero_point) {}
  Tensor add(const Tensor& a, const Tensor& b) override { return functional::add(a, b, scale, zero_point); }
  Tensor add_relu(const Tensor& a, const Tensor& b) override {
    return functional::add_relu(a, b, scale, zero_point);
  }
  Tensor mul(const Tensor& a, const Tensor& b) override { return functional::mul(a, b, scale, zero_point); }
  Tensor cat(const std::vector<Tensor>& xs, int64_t dim = 0) override {
    return functional::cat(xs, dim, scale, zero_point);
  }
  void pretty_print(std::ostream& os) const override;
  double scale;
  int64_t zero_point;
};
EMBER_MODULE(QFunctional);

namespace dynamic {
// quantized.dynamic.Linear: float in, float out. A qint8 weight quantizes the
// activations per call (reduce_range as PyTorch's module passes it); a
// float16 weight (float16_dynamic_qconfig) multiplies in float32
// (functional::linear_dynamic_fp16). weight and bias are registered buffers
// (state_dict keys "weight", "bias").
class LinearImpl : public ember::nn::Module {
 public:
  LinearImpl(Tensor weight, Tensor bias, bool reduce_range = true);
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  // torch's Linear.from_float: the weight quantized by qconfig.weight's
  // observer (default_dynamic_qconfig when none is given; a float16 observer
  // stores it as float16; dynamic.cpp).
  static std::shared_ptr<LinearImpl> from_float(const ember::nn::LinearImpl& m,
                                                const ao::quantization::QConfig& qconfig);
  static std::shared_ptr<LinearImpl> from_float(const ember::nn::LinearImpl& m);
  Tensor weight, bias;
  bool reduce_range;

 protected:
  LinearImpl(Tensor weight, Tensor bias, bool reduce_range, std::string type);
  bool relu_ = false;  // the dynamic LinearReLU
};
EMBER_MODULE(Linear);
}  // namespace dynamic

}  // namespace ember::ao::nn::quantized

namespace ember::ao::nn::intrinsic::quantized {
// Fused quantized modules (torch.ao.nn.intrinsic.quantized): the ReLU is part
// of the requantization.
class LinearReLUImpl : public ember::ao::nn::quantized::LinearImpl {
 public:
  LinearReLUImpl(Tensor weight, Tensor bias, double scale, int64_t zero_point);
};
EMBER_MODULE(LinearReLU);

// ConvReLU1d / 2d / 3d: the convolution with the ReLU in its requantization.
template <int D>
class ConvReLUImpl : public ember::ao::nn::quantized::ConvImpl<D> {
 public:
  ConvReLUImpl(Tensor weight, Tensor bias, const ember::ao::nn::quantized::ConvOptions& options, double scale,
               int64_t zero_point);
};
using ConvReLU1dImpl = ConvReLUImpl<1>;
using ConvReLU2dImpl = ConvReLUImpl<2>;
using ConvReLU3dImpl = ConvReLUImpl<3>;
EMBER_MODULE(ConvReLU1d);
EMBER_MODULE(ConvReLU2d);
EMBER_MODULE(ConvReLU3d);
extern template class ConvReLUImpl<1>;
extern template class ConvReLUImpl<2>;
extern template class ConvReLUImpl<3>;

namespace dynamic {
// intrinsic.quantized.dynamic.LinearReLU: dynamic Linear then ReLU, fused
// (quantized::linear_relu_dynamic, or its fp16 form), from a fused
// ao::quantization::LinearReLU (dynamic.cpp).
class LinearReLUImpl : public ember::ao::nn::quantized::dynamic::LinearImpl {
 public:
  LinearReLUImpl(Tensor weight, Tensor bias, bool reduce_range = true);
  static std::shared_ptr<LinearReLUImpl> from_float(const ember::nn::Module& fused,
                                                    const ao::quantization::QConfig& qconfig);
};
EMBER_MODULE(LinearReLU);
}  // namespace dynamic
}  // namespace ember::ao::nn::intrinsic::quantized
