#pragma once
// Pooling layers over nn::functional pooling: MaxPool1d/2d/3d,
// AvgPool1d/2d/3d, AdaptiveAvgPool1d/2d/3d, AdaptiveMaxPool1d/2d/3d,
// LPPool1d/2d. No parameters; reprs as PyTorch's.
//
//   nn::MaxPool2d pool({.kernel_size = 3, .stride = 2, .padding = 1, .ceil_mode = true});
//   auto [y, idx] = pool->forward_with_indices(x);      // PyTorch's return_indices=True
//   nn::AvgPool2d avg(2);
//   nn::AdaptiveAvgPool2d gap({std::nullopt, 7});       // None keeps the input's size
//   auto [m, i] = nn::AdaptiveMaxPool1d(4)->forward_with_indices(x);
//   nn::LPPool2d lp(2, 3);                              // norm_type, kernel_size
#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

#include "ember/nn/functional/pooling.h"
#include "ember/nn/module.h"

namespace ember::nn {

// MaxPool{1,2,3}dOptions, in PyTorch's argument order. `stride` empty: the
// kernel size. PyTorch's return_indices=True is forward_with_indices().
template <size_t D>
struct MaxPoolOptions {
  functional::ExpandingInts kernel_size = {};
  functional::ExpandingInts stride = {};
  functional::ExpandingInts padding = 0;
  functional::ExpandingInts dilation = 1;
  bool ceil_mode = false;
};

template <size_t D>
class MaxPoolImpl : public Module {
 public:
  using Options = MaxPoolOptions<D>;
  explicit MaxPoolImpl(const Options& options);
  MaxPoolImpl(functional::ExpandingInts kernel_size) : MaxPoolImpl(Options{.kernel_size = std::move(kernel_size)}) {}
  Tensor forward(const Tensor& input);
  // (values, indices): indices are flat positions in each input plane (int64).
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  Options options;
};

// AvgPool{1,2,3}dOptions, in PyTorch's argument order.
template <size_t D>
struct AvgPoolOptions {
  functional::ExpandingInts kernel_size = {};
  functional::ExpandingInts stride = {};
  functional::ExpandingInts padding = 0;
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::optional<int64_t> divisor_override = std::nullopt;
};

template <size_t D>
class AvgPoolImpl : public Module {
 public:
  using Options = AvgPoolOptions<D>;
  explicit AvgPoolImpl(const Options& options);
  AvgPoolImpl(functional::ExpandingInts kernel_size) : AvgPoolImpl(Options{.kernel_size = std::move(kernel_size)}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  Options options;
};

// Adaptive{Avg,Max}Pool{1,2,3}dOptions: the output size, one value for every
// dim or one per dim; std::nullopt (PyTorch's None) keeps the input's size in
// that dim: `nn::AdaptiveAvgPool2d gap({std::nullopt, 7});`.
template <size_t D>
struct AdaptivePoolOptions {
  AdaptivePoolOptions(int64_t v) : output_size{v} {}  // NOLINT(google-explicit-constructor)
  AdaptivePoolOptions(int v) : output_size{v} {}      // NOLINT(google-explicit-constructor)
  AdaptivePoolOptions(std::initializer_list<std::optional<int64_t>> v) : output_size(v) {}
  AdaptivePoolOptions(std::vector<std::optional<int64_t>> v) : output_size(std::move(v)) {}  // NOLINT
  std::vector<std::optional<int64_t>> output_size;
};

enum class AdaptiveKind { Avg, Max };

template <AdaptiveKind K, size_t D>
class AdaptivePoolImpl : public Module {
 public:
  using Options = AdaptivePoolOptions<D>;
  AdaptivePoolImpl(const Options& options);  // NOLINT(google-explicit-constructor): from an int too
  Tensor forward(const Tensor& input);
  // Max only: (values, indices), PyTorch's return_indices=True.
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& input)
    requires(K == AdaptiveKind::Max);
  // The output size for this input (nullopt entries resolved).
  std::vector<int64_t> output_size_for(const Tensor& input) const;
  void pretty_print(std::ostream& os) const override;
  Options options;
};

// LPPool{1,2}dOptions, in PyTorch's argument order. `stride` empty: the
// kernel size (printed as stride=None).
template <size_t D>
struct LPPoolOptions {
  double norm_type = 2;
  functional::ExpandingInts kernel_size = {};
  functional::ExpandingInts stride = {};
  bool ceil_mode = false;
};

template <size_t D>
class LPPoolImpl : public Module {
 public:
  using Options = LPPoolOptions<D>;
  explicit LPPoolImpl(const Options& options);
  LPPoolImpl(double norm_type, functional::ExpandingInts kernel_size)
      : LPPoolImpl(Options{.norm_type = norm_type, .kernel_size = std::move(kernel_size)}) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& os) const override;
  Options options;
};

#define EMBER_POOL_MODULES(D)                                                  \
  using MaxPool##D##dImpl = MaxPoolImpl<D>;                                    \
  using MaxPool##D##dOptions = MaxPoolOptions<D>;                              \
  using AvgPool##D##dImpl = AvgPoolImpl<D>;                                    \
  using AvgPool##D##dOptions = AvgPoolOptions<D>;                              \
  using AdaptiveAvgPool##D##dImpl = AdaptivePoolImpl<AdaptiveKind::Avg, D>;    \
  using AdaptiveAvgPool##D##dOptions = AdaptivePoolOptions<D>;                 \
  using AdaptiveMaxPool##D##dImpl = AdaptivePoolImpl<AdaptiveKind::Max, D>;    \
  using AdaptiveMaxPool##D##dOptions = AdaptivePoolOptions<D>;                 \
  EMBER_MODULE(MaxPool##D##d);                                                 \
  EMBER_MODULE(AvgPool##D##d);                                                 \
  EMBER_MODULE(AdaptiveAvgPool##D##d);                                         \
  EMBER_MODULE(AdaptiveMaxPool##D##d)
EMBER_POOL_MODULES(1);
EMBER_POOL_MODULES(2);
EMBER_POOL_MODULES(3);
#undef EMBER_POOL_MODULES

using LPPool1dImpl = LPPoolImpl<1>;
using LPPool2dImpl = LPPoolImpl<2>;
using LPPool1dOptions = LPPoolOptions<1>;
using LPPool2dOptions = LPPoolOptions<2>;
EMBER_MODULE(LPPool1d);
EMBER_MODULE(LPPool2d);

}  // namespace ember::nn
