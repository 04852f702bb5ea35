#pragma once
// <ember/torch.h>, part 3: torch::nn. Ember's modules are libtorch's already
// (Module, register_module/register_parameter, holders with ->, Sequential,
// the layers), so torch::nn is ember::nn plus what libtorch spells
// differently:
//  - options with chained setters, `Conv2dOptions(1, 10, 5).stride(2).bias(false)`,
//    which convert to Ember's designated-initializer options (Ember's own
//    style stays: `ember::nn::Conv2d({.in_channels = 1, ...})`);
//  - ExpandingArray, Functional, TORCH_MODULE;
//  - torch::nn::functional's option-taking forms (`F::dropout(x,
//    F::DropoutFuncOptions().p(0.5).training(is_training()))`).
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ember/nn/nn.h"
#include "ember/torch/arg.h"
#include "ember/torch/functional.h"

// TORCH_MODULE(Name): declares Name as the holder of NameImpl (as EMBER_MODULE).
#define TORCH_MODULE(Name) EMBER_MODULE(Name)

namespace torch {

// libtorch's reduction and padding-mode tags.
inline constexpr ember::nn::Reduction kNone = ember::nn::Reduction::None;
inline constexpr ember::nn::Reduction kMean = ember::nn::Reduction::Mean;
inline constexpr ember::nn::Reduction kSum = ember::nn::Reduction::Sum;
inline constexpr ember::nn::Reduction kBatchMean = ember::nn::Reduction::BatchMean;
inline constexpr const char* kZeros = "zeros";
inline constexpr const char* kReflect = "reflect";
inline constexpr const char* kReplicate = "replicate";
inline constexpr const char* kCircular = "circular";
inline constexpr const char* kTanh = "tanh";
inline constexpr const char* kReLU = "relu";
inline constexpr const char* kGELU = "gelu";

// ExpandingArray<D>: D values given as one (repeated) or as D
// (`ExpandingArray<2>(3)` is {3, 3}); converts to Ember's ExpandingInts.
template <size_t D, class T = int64_t>
class ExpandingArray {
 public:
  ExpandingArray(T single) : values_(D, single) {}  // NOLINT(google-explicit-constructor)
  ExpandingArray(std::initializer_list<T> list) : ExpandingArray(std::vector<T>(list)) {}
  ExpandingArray(std::vector<T> values) : values_(std::move(values)) {  // NOLINT(google-explicit-constructor)
    EMBER_CHECK(values_.size() == D, "torch::ExpandingArray: expected ", D, " values, got ", values_.size());
  }
  ExpandingArray(ember::IntArrayRef values) : ExpandingArray(values.vec()) {}  // NOLINT
  const std::vector<T>& operator*() const { return values_; }
  const std::vector<T>* operator->() const { return &values_; }
  size_t size() const { return D; }
  T operator[](size_t i) const { return values_.at(i); }
  operator ember::nn::functional::ExpandingInts() const {  // NOLINT(google-explicit-constructor)
    return std::vector<int64_t>(values_.begin(), values_.end());
  }

 private:
  std::vector<T> values_;
};

namespace nn {
using namespace ::ember::nn;  // NOLINT(google-build-using-namespace): torch::nn is ember::nn plus this file

// ---- module options ----
template <size_t D>
class ConvOptions {
 public:
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}
  operator ::ember::nn::ConvOptions<D>() const {  // NOLINT(google-explicit-constructor)
    return {.in_channels = in_channels_, .out_channels = out_channels_, .kernel_size = kernel_size_,
            .stride = stride_, .padding = ::ember::nn::functional::ConvPadding(*padding_),
            .dilation = dilation_, .groups = groups_, .bias = bias_, .padding_mode = padding_mode_};
  }
  EMBER_TORCH_ARG(int64_t, in_channels);
  EMBER_TORCH_ARG(int64_t, out_channels);
  EMBER_TORCH_ARG(ExpandingArray<D>, kernel_size);
  EMBER_TORCH_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_TORCH_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_TORCH_ARG(int64_t, groups) = 1;
  EMBER_TORCH_ARG(bool, bias) = true;
  EMBER_TORCH_ARG(std::string, padding_mode) = "zeros";
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

template <size_t D>
class ConvTransposeOptions {
 public:
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}
  operator ::ember::nn::ConvTransposeOptions<D>() const {  // NOLINT(google-explicit-constructor)
    return {.in_channels = in_channels_, .out_channels = out_channels_, .kernel_size = kernel_size_,
            .stride = stride_, .padding = padding_, .output_padding = output_padding_, .groups = groups_,
            .bias = bias_, .dilation = dilation_, .padding_mode = padding_mode_};
  }
  EMBER_TORCH_ARG(int64_t, in_channels);
  EMBER_TORCH_ARG(int64_t, out_channels);
  EMBER_TORCH_ARG(ExpandingArray<D>, kernel_size);
  EMBER_TORCH_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_TORCH_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_TORCH_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_TORCH_ARG(int64_t, groups) = 1;
  EMBER_TORCH_ARG(bool, bias) = true;
  EMBER_TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_TORCH_ARG(std::string, padding_mode) = "zeros";
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

class LinearOptions {
 public:
  LinearOptions(int64_t in_features, int64_t out_features) : in_features_(in_features), out_features_(out_features) {}
  operator ::ember::nn::LinearOptions() const {  // NOLINT(google-explicit-constructor)
    return {.in = in_features_, .out = out_features_, .bias = bias_};
  }
  EMBER_TORCH_ARG(int64_t, in_features);
  EMBER_TORCH_ARG(int64_t, out_features);
  EMBER_TORCH_ARG(bool, bias) = true;
};

class BatchNormOptions {
 public:
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT(google-explicit-constructor)
  operator ::ember::nn::BatchNormOptions() const {  // NOLINT(google-explicit-constructor)
    return {.num_features = num_features_, .eps = eps_, .momentum = momentum_, .affine = affine_,
            .track_running_stats = track_running_stats_};
  }
  EMBER_TORCH_ARG(int64_t, num_features);
  EMBER_TORCH_ARG(double, eps) = 1e-5;
  EMBER_TORCH_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_TORCH_ARG(bool, affine) = true;
  EMBER_TORCH_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

class DropoutOptions {
 public:
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT(google-explicit-constructor)
  operator ::ember::nn::DropoutOptions() const { return {.p = p_, .inplace = inplace_}; }  // NOLINT
  EMBER_TORCH_ARG(double, p);
  EMBER_TORCH_ARG(bool, inplace) = false;
};
using Dropout2dOptions = DropoutOptions;
using Dropout3dOptions = DropoutOptions;
using AlphaDropoutOptions = DropoutOptions;

class EmbeddingOptions {
 public:
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  operator ::ember::nn::EmbeddingOptions() const {  // NOLINT(google-explicit-constructor)
    return {.num_embeddings = num_embeddings_, .embedding_dim = embedding_dim_, .padding_idx = padding_idx_,
            .max_norm = max_norm_, .norm_type = norm_type_, .scale_grad_by_freq = scale_grad_by_freq_,
            .sparse = sparse_, ._weight = _weight_};
  }
  EMBER_TORCH_ARG(int64_t, num_embeddings);
  EMBER_TORCH_ARG(int64_t, embedding_dim);
  EMBER_TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  EMBER_TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_TORCH_ARG(double, norm_type) = 2.;
  EMBER_TORCH_ARG(bool, scale_grad_by_freq) = false;
  EMBER_TORCH_ARG(bool, sparse) = false;
  EMBER_TORCH_ARG(Tensor, _weight) = Tensor();
};

// LSTMOptions / GRUOptions / RNNOptions(input_size, hidden_size).
template <class EmberOptions>
class RecurrentOptions {
 public:
  RecurrentOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  operator EmberOptions() const {  // NOLINT(google-explicit-constructor)
    EmberOptions o;
    o.input_size = input_size_;
    o.hidden_size = hidden_size_;
    o.num_layers = num_layers_;
    o.bias = bias_;
    o.batch_first = batch_first_;
    o.dropout = dropout_;
    o.bidirectional = bidirectional_;
    return o;
  }
  EMBER_TORCH_ARG(int64_t, input_size);
  EMBER_TORCH_ARG(int64_t, hidden_size);
  EMBER_TORCH_ARG(int64_t, num_layers) = 1;
  EMBER_TORCH_ARG(bool, bias) = true;
  EMBER_TORCH_ARG(bool, batch_first) = false;
  EMBER_TORCH_ARG(double, dropout) = 0.0;
  EMBER_TORCH_ARG(bool, bidirectional) = false;
};
class LSTMOptions : public RecurrentOptions<::ember::nn::LSTMOptions> {
 public:
  using RecurrentOptions::RecurrentOptions;
  operator ::ember::nn::LSTMOptions() const {  // NOLINT(google-explicit-constructor)
    ::ember::nn::LSTMOptions o = RecurrentOptions::operator ::ember::nn::LSTMOptions();
    o.proj_size = proj_size_;
    return o;
  }
  EMBER_TORCH_ARG(int64_t, proj_size) = 0;
};
using GRUOptions = RecurrentOptions<::ember::nn::GRUOptions>;
class RNNOptions : public RecurrentOptions<::ember::nn::RNNOptions> {
 public:
  using RecurrentOptions::RecurrentOptions;
  operator ::ember::nn::RNNOptions() const {  // NOLINT(google-explicit-constructor)
    ::ember::nn::RNNOptions o = RecurrentOptions::operator ::ember::nn::RNNOptions();
    o.nonlinearity = nonlinearity_;
    return o;
  }
  EMBER_TORCH_ARG(std::string, nonlinearity) = "tanh";
};

class LeakyReLUOptions {
 public:
  LeakyReLUOptions() = default;
  operator ::ember::nn::LeakyReLUOptions() const {  // NOLINT(google-explicit-constructor)
    return {.negative_slope = negative_slope_, .inplace = inplace_};
  }
  EMBER_TORCH_ARG(double, negative_slope) = 1e-2;
  EMBER_TORCH_ARG(bool, inplace) = false;
};

// ---- Functional: a function as a module (an element of a Sequential) ----
// `nn::Functional(torch::relu)`, or with trailing arguments bound:
// `nn::Functional(torch::leaky_relu, 0.2)`.
class FunctionalImpl : public ::ember::nn::Module {
 public:
  using Function = std::function<Tensor(Tensor)>;
  explicit FunctionalImpl(Function function) : Module("Functional"), function_(std::move(function)) {}
  template <class F, class Arg, class... Args>
  FunctionalImpl(F function, Arg arg, Args... args)
      : FunctionalImpl(Function([function, arg, args...](Tensor input) {
          return function(std::move(input), arg, args...);
        })) {}
  Tensor forward(Tensor input) { return function_(std::move(input)); }
  void pretty_print(std::ostream& os) const override { os << "torch::nn::Functional()"; }

 private:
  Function function_;
};
TORCH_MODULE(Functional);

// ---- torch::nn::functional: libtorch's option-taking forms ----
namespace functional {
using namespace ::ember::nn::functional;  // NOLINT(google-build-using-namespace)

class DropoutFuncOptions {
 public:
  EMBER_TORCH_ARG(double, p) = 0.5;
  EMBER_TORCH_ARG(bool, training) = true;
  EMBER_TORCH_ARG(bool, inplace) = false;
};
using Dropout2dFuncOptions = DropoutFuncOptions;
inline Tensor dropout(const Tensor& input, const DropoutFuncOptions& options = {}) {
  return ::ember::nn::functional::dropout(input, options.p(), options.training(), options.inplace());
}
inline Tensor dropout2d(const Tensor& input, const DropoutFuncOptions& options = {}) {
  return ::ember::nn::functional::dropout2d(input, options.p(), options.training(), options.inplace());
}

template <size_t D>
class MaxPoolFuncOptions {
 public:
  MaxPoolFuncOptions(ExpandingArray<D> kernel_size)  // NOLINT(google-explicit-constructor)
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_TORCH_ARG(ExpandingArray<D>, kernel_size);
  EMBER_TORCH_ARG(ExpandingArray<D>, stride);
  EMBER_TORCH_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_TORCH_ARG(bool, ceil_mode) = false;
};
using MaxPool1dFuncOptions = MaxPoolFuncOptions<1>;
using MaxPool2dFuncOptions = MaxPoolFuncOptions<2>;
inline Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options) {
  return ::ember::nn::functional::max_pool2d(
      input, options.kernel_size(),
      {.stride = options.stride(), .padding = options.padding(), .dilation = options.dilation(),
       .ceil_mode = options.ceil_mode()});
}
inline Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options) {
  return ::ember::nn::functional::max_pool1d(
      input, options.kernel_size(),
      {.stride = options.stride(), .padding = options.padding(), .dilation = options.dilation(),
       .ceil_mode = options.ceil_mode()});
}

class SoftmaxFuncOptions {
 public:
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT(google-explicit-constructor)
  EMBER_TORCH_ARG(int64_t, dim);
  EMBER_TORCH_ARG(std::optional<ember::DType>, dtype) = std::nullopt;
};
using LogSoftmaxFuncOptions = SoftmaxFuncOptions;
inline Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return ::ember::nn::functional::softmax(input, options.dim(), options.dtype());
}
inline Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  return ::ember::nn::functional::log_softmax(input, options.dim(), options.dtype());
}

class LeakyReLUFuncOptions {
 public:
  EMBER_TORCH_ARG(double, negative_slope) = 1e-2;
  EMBER_TORCH_ARG(bool, inplace) = false;
};
inline Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options = {}) {
  Tensor out = ::ember::nn::functional::leaky_relu(input, options.negative_slope());
  if (!options.inplace()) return out;
  Tensor target = input;
  return target.copy_(out);
}

class NLLLossFuncOptions {
 public:
  EMBER_TORCH_ARG(Tensor, weight) = {};
  EMBER_TORCH_ARG(int64_t, ignore_index) = -100;
  EMBER_TORCH_ARG(::ember::nn::Reduction, reduction) = ::ember::nn::Reduction::Mean;
};
inline Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {}) {
  return ::ember::nn::functional::nll_loss(
      input, target,
      {.weight = options.weight(), .ignore_index = options.ignore_index(), .reduction = options.reduction()});
}
class CrossEntropyFuncOptions {
 public:
  EMBER_TORCH_ARG(Tensor, weight) = {};
  EMBER_TORCH_ARG(int64_t, ignore_index) = -100;
  EMBER_TORCH_ARG(::ember::nn::Reduction, reduction) = ::ember::nn::Reduction::Mean;
  EMBER_TORCH_ARG(double, label_smoothing) = 0.0;
};
inline Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options = {}) {
  return ::ember::nn::functional::cross_entropy(input, target,
                                                {.weight = options.weight(),
                                                 .ignore_index = options.ignore_index(),
                                                 .reduction = options.reduction(),
                                                 .label_smoothing = options.label_smoothing()});
}
class MSELossFuncOptions {
 public:
  MSELossFuncOptions() = default;
  MSELossFuncOptions(::ember::nn::Reduction reduction) : reduction_(reduction) {}  // NOLINT
  EMBER_TORCH_ARG(::ember::nn::Reduction, reduction) = ::ember::nn::Reduction::Mean;
};
using L1LossFuncOptions = MSELossFuncOptions;
inline Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {}) {
  return ::ember::nn::functional::mse_loss(input, target, options.reduction());
}
inline Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {}) {
  return ::ember::nn::functional::l1_loss(input, target, options.reduction());
}
class BinaryCrossEntropyFuncOptions {
 public:
  EMBER_TORCH_ARG(Tensor, weight) = {};
  EMBER_TORCH_ARG(::ember::nn::Reduction, reduction) = ::ember::nn::Reduction::Mean;
};
inline Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                                   const BinaryCrossEntropyFuncOptions& options = {}) {
  return ::ember::nn::functional::binary_cross_entropy(input, target,
                                                       {.weight = options.weight(), .reduction = options.reduction()});
}
}  // namespace functional
}  // namespace nn
}  // namespace torch
