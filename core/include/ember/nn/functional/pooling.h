#pragma once
// Poolings, as torch.nn.functional: max_pool1d/2d/3d (with indices, ceil_mode,
// dilation, padding), avg_pool1d/2d/3d (ceil_mode, count_include_pad,
// divisor_override), adaptive_avg_pool1d/2d/3d, adaptive_max_pool1d/2d/3d
// (with indices), lp_pool1d/2d. float32 and float64; batched [N, C, ...] or
// unbatched [C, ...] inputs; row-major or channels-last (kept by the output).
// Differentiable, twice.
//
//   using namespace ember::nn::functional;
//   Tensor y = max_pool2d(x, 3, {.stride = 2, .padding = 1});
//   auto [v, idx] = max_pool2d_with_indices(x, {2, 2}, {.ceil_mode = true});
#include <optional>
#include <utility>

#include "ember/core/tensor.h"
#include "ember/nn/functional/expanding.h"

namespace ember::nn::functional {

struct MaxPoolFuncOptions {
  ExpandingInts stride = {};  // empty: kernel_size
  ExpandingInts padding = 0;
  ExpandingInts dilation = 1;
  bool ceil_mode = false;
};
using MaxPool1dFuncOptions = MaxPoolFuncOptions;
using MaxPool2dFuncOptions = MaxPoolFuncOptions;
using MaxPool3dFuncOptions = MaxPoolFuncOptions;

Tensor max_pool1d(const Tensor& input, const ExpandingInts& kernel_size, const MaxPoolFuncOptions& options = {});
Tensor max_pool2d(const Tensor& input, const ExpandingInts& kernel_size, const MaxPoolFuncOptions& options = {});
Tensor max_pool3d(const Tensor& input, const ExpandingInts& kernel_size, const MaxPoolFuncOptions& options = {});
// (values, indices): indices are flat positions in each input plane (int64).
std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const ExpandingInts& kernel_size,
                                                  const MaxPoolFuncOptions& options = {});
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const ExpandingInts& kernel_size,
                                                  const MaxPoolFuncOptions& options = {});
std::pair<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const ExpandingInts& kernel_size,
                                                  const MaxPoolFuncOptions& options = {});

struct AvgPoolFuncOptions {
  ExpandingInts stride = {};  // empty: kernel_size
  ExpandingInts padding = 0;
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::optional<int64_t> divisor_override = std::nullopt;
};
using AvgPool1dFuncOptions = AvgPoolFuncOptions;
using AvgPool2dFuncOptions = AvgPoolFuncOptions;
using AvgPool3dFuncOptions = AvgPoolFuncOptions;

Tensor avg_pool1d(const Tensor& input, const ExpandingInts& kernel_size, const AvgPoolFuncOptions& options = {});
Tensor avg_pool2d(const Tensor& input, const ExpandingInts& kernel_size, const AvgPoolFuncOptions& options = {});
Tensor avg_pool3d(const Tensor& input, const ExpandingInts& kernel_size, const AvgPoolFuncOptions& options = {});

Tensor adaptive_avg_pool1d(const Tensor& input, const ExpandingInts& output_size);
Tensor adaptive_avg_pool2d(const Tensor& input, const ExpandingInts& output_size);
Tensor adaptive_avg_pool3d(const Tensor& input, const ExpandingInts& output_size);
Tensor adaptive_max_pool1d(const Tensor& input, const ExpandingInts& output_size);
Tensor adaptive_max_pool2d(const Tensor& input, const ExpandingInts& output_size);
Tensor adaptive_max_pool3d(const Tensor& input, const ExpandingInts& output_size);
std::pair<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input, const ExpandingInts& output_size);
std::pair<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input, const ExpandingInts& output_size);
std::pair<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input, const ExpandingInts& output_size);

struct LPPoolFuncOptions {
  ExpandingInts stride = {};  // empty: kernel_size
  bool ceil_mode = false;
};
using LPPool1dFuncOptions = LPPoolFuncOptions;
using LPPool2dFuncOptions = LPPoolFuncOptions;
// (sum over the window of x^p)^(1/p), as PyTorch (sign-preserving).
Tensor lp_pool1d(const Tensor& input, double norm_type, const ExpandingInts& kernel_size,
                 const LPPoolFuncOptions& options = {});
Tensor lp_pool2d(const Tensor& input, double norm_type, const ExpandingInts& kernel_size,
                 const LPPoolFuncOptions& options = {});

}  // namespace ember::nn::functional
