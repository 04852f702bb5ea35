#pragma once
// Activation modules (torch.nn.ReLU ... Softmax2d): thin wrappers over
// nn/functional/activation.h. `inplace` (where PyTorch has it) calls the
// functional `name_` variant, which overwrites the input (under autograd as
// PyTorch: not on a leaf that requires grad). Printing follows PyTorch's
// reprs ("LeakyReLU(negative_slope=0.01)", "ReLU(inplace=True)").
//
//   nn::ReLU relu;                           nn::LeakyReLU lrelu(0.2);
//   nn::ELU elu({.alpha = 0.5, .inplace = true});
//   nn::Softmax softmax(1);                  // dim is required (see SoftmaxOptions)
#include <optional>
#include <string>

#include "ember/nn/module.h"

namespace ember::nn {

// ---- ReLU family ----
struct ReLUOptions {
  bool inplace = false;
};
class ReLUImpl : public Module {
 public:
  using Options = ReLUOptions;
  explicit ReLUImpl(const ReLUOptions& options = {}) : Module("ReLU"), options(options) {}
  explicit ReLUImpl(bool inplace) : ReLUImpl(ReLUOptions{inplace}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  ReLUOptions options;
};
EMBER_MODULE(ReLU);

// min(max(x, 0), 6) (PyTorch's ReLU6 is a Hardtanh(0, 6)).
struct ReLU6Options {
  bool inplace = false;
};
class ReLU6Impl : public Module {
 public:
  using Options = ReLU6Options;
  explicit ReLU6Impl(const ReLU6Options& options = {}) : Module("ReLU6"), options(options) {}
  explicit ReLU6Impl(bool inplace) : ReLU6Impl(ReLU6Options{inplace}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  ReLU6Options options;
};
EMBER_MODULE(ReLU6);

struct LeakyReLUOptions {
  double negative_slope = 0.01;
  bool inplace = false;
};
class LeakyReLUImpl : public Module {
 public:
  using Options = LeakyReLUOptions;
  explicit LeakyReLUImpl(const LeakyReLUOptions& options = {}) : Module("LeakyReLU"), options(options) {}
  explicit LeakyReLUImpl(double negative_slope, bool inplace = false)
      : LeakyReLUImpl(LeakyReLUOptions{negative_slope, inplace}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  LeakyReLUOptions options;
};
EMBER_MODULE(LeakyReLU);

// Learnable negative slope: parameter `weight` [num_parameters] (1, or the
// number of channels: dim 1 of the input), initialized to `init`.
struct PReLUOptions {
  int64_t num_parameters = 1;
  double init = 0.25;
};
class PReLUImpl : public Module {
 public:
  using Options = PReLUOptions;
  explicit PReLUImpl(const PReLUOptions& options = {});
  explicit PReLUImpl(int64_t num_parameters, double init = 0.25) : PReLUImpl(PReLUOptions{num_parameters, init}) {}
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  PReLUOptions options;
  Tensor weight;
};
EMBER_MODULE(PReLU);

// Randomized leaky ReLU: in training mode each negative element gets a slope
// drawn from U(lower, upper) (the default generator); in eval mode the slope
// is (lower + upper) / 2.
struct RReLUOptions {
  double lower = 1.0 / 8;
  double upper = 1.0 / 3;
  bool inplace = false;
};
class RReLUImpl : public Module {
 public:
  using Options = RReLUOptions;
  explicit RReLUImpl(const RReLUOptions& options = {});
  explicit RReLUImpl(double lower, double upper = 1.0 / 3, bool inplace = false)
      : RReLUImpl(RReLUOptions{lower, upper, inplace}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  RReLUOptions options;
};
EMBER_MODULE(RReLU);

// ---- exponential family ----
struct ELUOptions {
  double alpha = 1.0;
  bool inplace = false;
};
class ELUImpl : public Module {
 public:
  using Options = ELUOptions;
  explicit ELUImpl(const ELUOptions& options = {}) : Module("ELU"), options(options) {}
  explicit ELUImpl(double alpha, bool inplace = false) : ELUImpl(ELUOptions{alpha, inplace}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  ELUOptions options;
};
EMBER_MODULE(ELU);

struct CELUOptions {
  double alpha = 1.0;  // != 0
  bool inplace = false;
};
class CELUImpl : public Module {
 public:
  using Options = CELUOptions;
  explicit CELUImpl(const CELUOptions& options = {});
  explicit CELUImpl(double alpha, bool inplace = false) : CELUImpl(CELUOptions{alpha, inplace}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  CELUOptions options;
};
EMBER_MODULE(CELU);

struct SELUOptions {
  bool inplace = false;
};
class SELUImpl : public Module {
 public:
  using Options = SELUOptions;
  explicit SELUImpl(const SELUOptions& options = {}) : Module("SELU"), options(options) {}
  explicit SELUImpl(bool inplace) : SELUImpl(SELUOptions{inplace}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  SELUOptions options;
};
EMBER_MODULE(SELU);

// ---- smooth gates ----
struct GELUOptions {
  std::string approximate = "none";  // "none" (erf) or "tanh"
};
class GELUImpl : public Module {
 public:
  using Options = GELUOptions;
  explicit GELUImpl(const GELUOptions& options = {});
  explicit GELUImpl(std::string approximate) : GELUImpl(GELUOptions{std::move(approximate)}) {}
  explicit GELUImpl(const char* approximate) : GELUImpl(GELUOptions{approximate}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  GELUOptions options;
};
EMBER_MODULE(GELU);

struct SiLUOptions {
  bool inplace = false;
};
class SiLUImpl : public Module {
 public:
  using Options = SiLUOptions;
  explicit SiLUImpl(const SiLUOptions& options = {}) : Module("SiLU"), options(options) {}
  explicit SiLUImpl(bool inplace) : SiLUImpl(SiLUOptions{inplace}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  SiLUOptions options;
};
EMBER_MODULE(SiLU);

struct MishOptions {
  bool inplace = false;
};
class MishImpl : public Module {
 public:
  using Options = MishOptions;
  explicit MishImpl(const MishOptions& options = {}) : Module("Mish"), options(options) {}
  explicit MishImpl(bool inplace) : MishImpl(MishOptions{inplace}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  MishOptions options;
};
EMBER_MODULE(Mish);

// Hardswish and Hardsigmoid print "Hardswish()" whatever inplace is (as PyTorch).
struct HardswishOptions {
  bool inplace = false;
};
class HardswishImpl : public Module {
 public:
  using Options = HardswishOptions;
  explicit HardswishImpl(const HardswishOptions& options = {}) : Module("Hardswish"), options(options) {}
  explicit HardswishImpl(bool inplace) : HardswishImpl(HardswishOptions{inplace}) {}
  Tensor forward(const Tensor& input);
  HardswishOptions options;
};
EMBER_MODULE(Hardswish);

struct HardsigmoidOptions {
  bool inplace = false;
};
class HardsigmoidImpl : public Module {
 public:
  using Options = HardsigmoidOptions;
  explicit HardsigmoidImpl(const HardsigmoidOptions& options = {}) : Module("Hardsigmoid"), options(options) {}
  explicit HardsigmoidImpl(bool inplace) : HardsigmoidImpl(HardsigmoidOptions{inplace}) {}
  Tensor forward(const Tensor& input);
  HardsigmoidOptions options;
};
EMBER_MODULE(Hardsigmoid);

// ---- clamps and shrinks ----
struct HardtanhOptions {
  double min_val = -1.0;
  double max_val = 1.0;  // > min_val
  bool inplace = false;
};
class HardtanhImpl : public Module {
 public:
  using Options = HardtanhOptions;
  explicit HardtanhImpl(const HardtanhOptions& options = {});
  HardtanhImpl(double min_val, double max_val, bool inplace = false)
      : HardtanhImpl(HardtanhOptions{min_val, max_val, inplace}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  HardtanhOptions options;
};
EMBER_MODULE(Hardtanh);

// log(1 + exp(beta x)) / beta; linear where beta x > threshold.
struct SoftplusOptions {
  double beta = 1.0;
  double threshold = 20.0;
};
class SoftplusImpl : public Module {
 public:
  using Options = SoftplusOptions;
  explicit SoftplusImpl(const SoftplusOptions& options = {}) : Module("Softplus"), options(options) {}
  explicit SoftplusImpl(double beta, double threshold = 20.0) : SoftplusImpl(SoftplusOptions{beta, threshold}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  SoftplusOptions options;
};
EMBER_MODULE(Softplus);

struct SoftshrinkOptions {
  double lambda = 0.5;  // >= 0 (PyTorch's `lambd`)
};
class SoftshrinkImpl : public Module {
 public:
  using Options = SoftshrinkOptions;
  explicit SoftshrinkImpl(const SoftshrinkOptions& options = {});
  explicit SoftshrinkImpl(double lambda) : SoftshrinkImpl(SoftshrinkOptions{lambda}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  SoftshrinkOptions options;
};
EMBER_MODULE(Softshrink);

struct HardshrinkOptions {
  double lambda = 0.5;
};
class HardshrinkImpl : public Module {
 public:
  using Options = HardshrinkOptions;
  explicit HardshrinkImpl(const HardshrinkOptions& options = {}) : Module("Hardshrink"), options(options) {}
  explicit HardshrinkImpl(double lambda) : HardshrinkImpl(HardshrinkOptions{lambda}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  HardshrinkOptions options;
};
EMBER_MODULE(Hardshrink);

// x where x > threshold, else value.
struct ThresholdOptions {
  double threshold = 0.0;
  double value = 0.0;
  bool inplace = false;
};
class ThresholdImpl : public Module {
 public:
  using Options = ThresholdOptions;
  explicit ThresholdImpl(const ThresholdOptions& options) : Module("Threshold"), options(options) {}
  ThresholdImpl(double threshold, double value, bool inplace = false)
      : ThresholdImpl(ThresholdOptions{threshold, value, inplace}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  ThresholdOptions options;
};
EMBER_MODULE(Threshold);

// ---- gates ----
struct GLUOptions {
  int64_t dim = -1;
};
class GLUImpl : public Module {
 public:
  using Options = GLUOptions;
  explicit GLUImpl(const GLUOptions& options = {}) : Module("GLU"), options(options) {}
  explicit GLUImpl(int64_t dim) : GLUImpl(GLUOptions{dim}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  GLUOptions options;
};
EMBER_MODULE(GLU);

// ---- option-less elementwise activations ----
class SoftsignImpl : public Module {
 public:
  SoftsignImpl() : Module("Softsign") {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Softsign);

class TanhshrinkImpl : public Module {
 public:
  TanhshrinkImpl() : Module("Tanhshrink") {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Tanhshrink);

class LogSigmoidImpl : public Module {
 public:
  LogSigmoidImpl() : Module("LogSigmoid") {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(LogSigmoid);

class SigmoidImpl : public Module {
 public:
  SigmoidImpl() : Module("Sigmoid") {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Sigmoid);

class TanhImpl : public Module {
 public:
  TanhImpl() : Module("Tanh") {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Tanh);

// ---- softmax family ----
// dim is required: PyTorch's implicit dim (dim=None, deprecated) is not
// supported; constructing without a dim is an error.
struct SoftmaxOptions {
  std::optional<int64_t> dim;
};
using LogSoftmaxOptions = SoftmaxOptions;
using SoftminOptions = SoftmaxOptions;

class SoftmaxImpl : public Module {
 public:
  using Options = SoftmaxOptions;
  explicit SoftmaxImpl(const SoftmaxOptions& options);
  explicit SoftmaxImpl(int64_t dim) : SoftmaxImpl(SoftmaxOptions{dim}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  int64_t dim;
};
EMBER_MODULE(Softmax);

class LogSoftmaxImpl : public Module {
 public:
  using Options = LogSoftmaxOptions;
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options);
  explicit LogSoftmaxImpl(int64_t dim) : LogSoftmaxImpl(LogSoftmaxOptions{dim}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  int64_t dim;
};
EMBER_MODULE(LogSoftmax);

class SoftminImpl : public Module {
 public:
  using Options = SoftminOptions;
  explicit SoftminImpl(const SoftminOptions& options);
  explicit SoftminImpl(int64_t dim) : SoftminImpl(SoftminOptions{dim}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  int64_t dim;
};
EMBER_MODULE(Softmin);

// Softmax over the channels (dim -3) of a [C, H, W] or [N, C, H, W] input.
class Softmax2dImpl : public Module {
 public:
  Softmax2dImpl() : Module("Softmax2d") {}
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(Softmax2d);

}  // namespace ember::nn
