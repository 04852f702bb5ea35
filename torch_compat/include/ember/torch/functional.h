#pragma once
// <ember/torch.h>, part 2: ATen's namespace-level ops (torch::relu,
// torch::max_pool2d, torch::nll_loss, torch::reshape, ...) with ATen's
// signatures. Ops Ember has at namespace level are Ember's own functions
// (Note [No using-directive of ember in torch] in tensor.h); the rest call
// ember::nn::functional or the Tensor method of the same name.
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/embedding.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/functional/loss.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/functional/pooling.h"
#include "ember/ops/complex.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/indexing.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduce.h"
#include "ember/ops/scan.h"
#include "ember/ops/shape.h"
#include "ember/ops/sort.h"
#include "ember/torch/tensor.h"

namespace torch {

// ---- Ember's namespace-level ops, as ATen's ----
// elementwise
using ember::abs;
using ember::acos;
using ember::add;
using ember::addcdiv;
using ember::addcmul;
using ember::asin;
using ember::atan;
using ember::atan2;
using ember::ceil;
using ember::clamp;
using ember::cos;
using ember::cosh;
using ember::div;
using ember::eq;
using ember::erf;
using ember::exp;
using ember::expm1;
using ember::floor;
using ember::fmod;
using ember::ge;
using ember::gelu;
using ember::gt;
using ember::isfinite;
using ember::isinf;
using ember::isnan;
using ember::le;
using ember::lerp;
using ember::log;
using ember::log10;
using ember::log1p;
using ember::log2;
using ember::logical_and;
using ember::logical_not;
using ember::logical_or;
using ember::lt;
using ember::maximum;
using ember::minimum;
using ember::mul;
using ember::ne;
using ember::neg;
using ember::pow;
using ember::reciprocal;
using ember::relu;
using ember::relu_;
using ember::remainder;
using ember::round;
using ember::rsqrt;
using ember::sigmoid;
using ember::sigmoid_;
using ember::sign;
using ember::silu;
using ember::sin;
using ember::sinh;
using ember::softplus;
using ember::sqrt;
using ember::square;
using ember::sub;
using ember::tan;
using ember::tanh;
using ember::tanh_;
using ember::trunc;
using ember::where;
// reductions, scans, sorting
using ember::all;
using ember::allclose;
using ember::amax;
using ember::amin;
using ember::any;
using ember::argmax;
using ember::argmin;
using ember::argsort;
using ember::count_nonzero;
using ember::cumprod;
using ember::cumsum;
using ember::equal;
using ember::isclose;
using ember::logsumexp;
using ember::max;
using ember::mean;
using ember::median;
using ember::min;
using ember::norm;
using ember::prod;
using ember::sort;
using ember::sum;
using ember::topk;
using ember::unique;
// shape, indexing, linear algebra
using ember::cat;
using ember::concat;
using ember::flip;
using ember::gather;
using ember::hstack;
using ember::index_select;
using ember::masked_fill;
using ember::masked_select;
using ember::nonzero;
using ember::pad;
using ember::repeat_interleave;
using ember::roll;
using ember::scatter;
using ember::scatter_add;
using ember::stack;
using ember::tile;
using ember::tril;
using ember::triu;
using ember::vstack;
using ember::addmm;
using ember::bmm;
using ember::dot;
using ember::einsum;
using ember::matmul;
using ember::mm;
using ember::mv;
using ember::outer;
using ember::tensordot;
using ember::bernoulli;
using ember::multinomial;
using ember::normal;
using ember::polar;
using ember::view_as_complex;
using ember::view_as_real;

// ---- Tensor methods that ATen also has as functions ----
inline Tensor reshape(const Tensor& self, IntArrayRef shape) { return self.reshape(shape); }
inline Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1) {
  return self.flatten(start_dim, end_dim);
}
inline Tensor squeeze(const Tensor& self) { return self.squeeze(); }
inline Tensor squeeze(const Tensor& self, int64_t dim) { return self.squeeze(dim); }
inline Tensor unsqueeze(const Tensor& self, int64_t dim) { return self.unsqueeze(dim); }
inline Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) { return self.transpose(dim0, dim1); }
inline Tensor permute(const Tensor& self, IntArrayRef dims) { return self.permute(dims); }
inline Tensor t(const Tensor& self) { return self.t(); }
inline Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return self.narrow(dim, start, length);
}
inline Tensor select(const Tensor& self, int64_t dim, int64_t index) { return self.select(dim, index); }
inline std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim = 0) {
  return self.chunk(chunks, dim);
}
inline std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim = 0) {
  return self.split(split_size, dim);
}
inline Tensor clone(const Tensor& self) { return self.clone(); }
inline Tensor detach(const Tensor& self) { return self.detach(); }

// ---- activations and softmax (ATen's signatures) ----
inline Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope = 0.01) {
  return ember::nn::functional::leaky_relu(self, negative_slope.to<double>());
}
inline Tensor elu(const Tensor& self, const Scalar& alpha = 1.0) {
  return ember::nn::functional::elu(self, alpha.to<double>());
}
inline Tensor selu(const Tensor& self) { return ember::nn::functional::selu(self); }
inline Tensor hardtanh(const Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1) {
  return ember::nn::functional::hardtanh(self, min_val.to<double>(), max_val.to<double>());
}
inline Tensor softmax(const Tensor& self, int64_t dim, std::optional<ember::DType> dtype = std::nullopt) {
  return ember::nn::functional::softmax(self, dim, dtype);
}
inline Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ember::DType> dtype = std::nullopt) {
  return ember::nn::functional::log_softmax(self, dim, dtype);
}

// ---- dropout (ATen: p and train are required) ----
inline Tensor dropout(const Tensor& input, double p, bool train) {
  return ember::nn::functional::dropout(input, p, train);
}
inline Tensor feature_dropout(const Tensor& input, double p, bool train) {
  return ember::nn::functional::dropout2d(input, p, train);
}

// ---- pooling ----
inline Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                         IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false) {
  return ember::nn::functional::max_pool1d(self, kernel_size.vec(),
                                           {.stride = stride.vec(), .padding = padding.vec(),
                                            .dilation = dilation.vec(), .ceil_mode = ceil_mode});
}
inline Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                         IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false) {
  return ember::nn::functional::max_pool2d(self, kernel_size.vec(),
                                           {.stride = stride.vec(), .padding = padding.vec(),
                                            .dilation = dilation.vec(), .ceil_mode = ceil_mode});
}
inline Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                         IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true,
                         std::optional<int64_t> divisor_override = std::nullopt) {
  return ember::nn::functional::avg_pool2d(self, kernel_size.vec(),
                                           {.stride = stride.vec(), .padding = padding.vec(),
                                            .ceil_mode = ceil_mode, .count_include_pad = count_include_pad,
                                            .divisor_override = divisor_override});
}
inline Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  return ember::nn::functional::adaptive_avg_pool2d(self, output_size.vec());
}
inline Tensor adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size) {
  return ember::nn::functional::adaptive_max_pool2d(self, output_size.vec());
}

// ---- layers as functions ----
inline Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {}) {
  return ember::nn::functional::linear(input, weight, bias);
}
inline Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = 1,
                     IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1) {
  return ember::nn::functional::conv2d(input, weight,
                                       {.bias = bias, .stride = stride.vec(), .padding = padding.vec(),
                                        .dilation = dilation.vec(), .groups = groups});
}
inline Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = 1,
                     IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1) {
  return ember::nn::functional::conv1d(input, weight,
                                       {.bias = bias, .stride = stride.vec(), .padding = padding.vec(),
                                        .dilation = dilation.vec(), .groups = groups});
}
inline Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                               IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef output_padding = 0,
                               int64_t groups = 1, IntArrayRef dilation = 1) {
  return ember::nn::functional::conv_transpose2d(
      input, weight,
      {.bias = bias, .stride = stride.vec(), .padding = padding.vec(), .output_padding = output_padding.vec(),
       .groups = groups, .dilation = dilation.vec()});
}
inline Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                         const Tensor& running_var, bool training, double momentum, double eps,
                         bool /*cudnn_enabled*/ = true) {
  return ember::nn::functional::batch_norm(
      input, running_mean, running_var,
      {.weight = weight, .bias = bias, .training = training, .momentum = momentum, .eps = eps});
}
inline Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight = {},
                         const Tensor& bias = {}, double eps = 1e-5, bool /*cudnn_enable*/ = true) {
  return ember::nn::functional::layer_norm(input, normalized_shape, {.weight = weight, .bias = bias, .eps = eps});
}
inline Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1,
                        bool scale_grad_by_freq = false, bool sparse = false) {
  ember::nn::functional::EmbeddingFuncOptions options;
  if (padding_idx >= 0) options.padding_idx = padding_idx;
  options.scale_grad_by_freq = scale_grad_by_freq;
  options.sparse = sparse;
  return ember::nn::functional::embedding(indices, weight, options);
}

// ---- losses: ATen's int64 reduction (torch::Reduction::Mean, ...) ----
namespace Reduction {
// at::Reduction::Reduction, with ATen's values.
enum Reduction { None = 0, Mean = 1, Sum = 2, END = 3 };
}  // namespace Reduction

namespace detail {
inline ember::nn::Reduction reduction_from_aten(int64_t reduction) {
  EMBER_CHECK(reduction >= 0 && reduction < Reduction::END, "torch: reduction must be torch::Reduction::None, ",
              "Mean or Sum (0, 1 or 2), got ", reduction);
  return reduction == Reduction::None ? ember::nn::Reduction::None
         : reduction == Reduction::Sum ? ember::nn::Reduction::Sum
                                       : ember::nn::Reduction::Mean;
}
}  // namespace detail

inline Tensor nll_loss(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                       int64_t reduction = Reduction::Mean, int64_t ignore_index = -100) {
  return ember::nn::functional::nll_loss(
      self, target,
      {.weight = weight, .ignore_index = ignore_index, .reduction = detail::reduction_from_aten(reduction)});
}
inline Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                                 int64_t reduction = Reduction::Mean, int64_t ignore_index = -100,
                                 double label_smoothing = 0.0) {
  return ember::nn::functional::cross_entropy(self, target,
                                              {.weight = weight,
                                               .ignore_index = ignore_index,
                                               .reduction = detail::reduction_from_aten(reduction),
                                               .label_smoothing = label_smoothing});
}
inline Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean) {
  return ember::nn::functional::mse_loss(self, target, detail::reduction_from_aten(reduction));
}
inline Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean) {
  return ember::nn::functional::l1_loss(self, target, detail::reduction_from_aten(reduction));
}
inline Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean,
                             double beta = 1.0) {
  return ember::nn::functional::smooth_l1_loss(self, target,
                                               {.reduction = detail::reduction_from_aten(reduction), .beta = beta});
}
inline Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean,
                         double delta = 1.0) {
  return ember::nn::functional::huber_loss(self, target,
                                           {.reduction = detail::reduction_from_aten(reduction), .delta = delta});
}
inline Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                                   int64_t reduction = Reduction::Mean) {
  return ember::nn::functional::binary_cross_entropy(
      self, target, {.weight = weight, .reduction = detail::reduction_from_aten(reduction)});
}
inline Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                                               const Tensor& pos_weight = {}, int64_t reduction = Reduction::Mean) {
  return ember::nn::functional::binary_cross_entropy_with_logits(
      self, target,
      {.weight = weight, .pos_weight = pos_weight, .reduction = detail::reduction_from_aten(reduction)});
}
inline Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean,
                     bool log_target = false) {
  return ember::nn::functional::kl_div(
      self, target, {.reduction = detail::reduction_from_aten(reduction), .log_target = log_target});
}

}  // namespace torch
