#pragma once
// <ember/torch.h>, part 4: torch::optim. The optimizers are Ember's
// (torch.optim's algorithms, state_dict layout and checks); SGD, Adam, AdamW,
// RMSprop, Adagrad and LBFGS also take libtorch's options with chained setters
// (`SGDOptions(0.01).momentum(0.5)`, `AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.5))`),
// and SGD a bare learning rate (`torch::optim::SGD sgd(params, 0.1)`), as
// libtorch's implicit SGDOptions(double).
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ember/optim/optim.h"
#include "ember/torch/nn.h"

namespace torch::optim {
using namespace ::ember::optim;  // NOLINT(google-build-using-namespace): torch::optim is ember::optim plus this file

class SGDOptions {
 public:
  SGDOptions(double lr) : lr_(lr) {}  // NOLINT(google-explicit-constructor)
  operator ::ember::optim::SGDOptions() const {  // NOLINT(google-explicit-constructor)
    return {.lr = lr_, .momentum = momentum_, .dampening = dampening_, .weight_decay = weight_decay_,
            .nesterov = nesterov_};
  }
  EMBER_TORCH_ARG(double, lr);
  EMBER_TORCH_ARG(double, momentum) = 0;
  EMBER_TORCH_ARG(double, dampening) = 0;
  EMBER_TORCH_ARG(double, weight_decay) = 0;
  EMBER_TORCH_ARG(bool, nesterov) = false;
};

// libtorch's betas are a std::tuple<double, double>.
template <class EmberOptions>
class AdamFamilyOptions {
 public:
  using Betas = std::tuple<double, double>;
  AdamFamilyOptions(double lr = 1e-3) : lr_(lr) {}  // NOLINT(google-explicit-constructor)
  operator EmberOptions() const {  // NOLINT(google-explicit-constructor)
    EmberOptions o;
    o.lr = lr_;
    o.betas = {std::get<0>(betas_), std::get<1>(betas_)};
    o.eps = eps_;
    o.weight_decay = weight_decay_;
    o.amsgrad = amsgrad_;
    return o;
  }
  EMBER_TORCH_ARG(double, lr);
  EMBER_TORCH_ARG(Betas, betas) = std::make_tuple(0.9, 0.999);
  EMBER_TORCH_ARG(double, eps) = 1e-8;
  EMBER_TORCH_ARG(double, weight_decay) = EmberOptions{}.weight_decay;
  EMBER_TORCH_ARG(bool, amsgrad) = false;
};
using AdamOptions = AdamFamilyOptions<::ember::optim::AdamOptions>;
using AdamWOptions = AdamFamilyOptions<::ember::optim::AdamWOptions>;

class RMSpropOptions {
 public:
  RMSpropOptions(double lr = 1e-2) : lr_(lr) {}  // NOLINT(google-explicit-constructor)
  operator ::ember::optim::RMSpropOptions() const {  // NOLINT(google-explicit-constructor)
    return {.lr = lr_, .alpha = alpha_, .eps = eps_, .weight_decay = weight_decay_, .momentum = momentum_,
            .centered = centered_};
  }
  EMBER_TORCH_ARG(double, lr);
  EMBER_TORCH_ARG(double, alpha) = 0.99;
  EMBER_TORCH_ARG(double, eps) = 1e-8;
  EMBER_TORCH_ARG(double, weight_decay) = 0;
  EMBER_TORCH_ARG(double, momentum) = 0;
  EMBER_TORCH_ARG(bool, centered) = false;
};

class AdagradOptions {
 public:
  AdagradOptions(double lr = 1e-2) : lr_(lr) {}  // NOLINT(google-explicit-constructor)
  operator ::ember::optim::AdagradOptions() const {  // NOLINT(google-explicit-constructor)
    return {.lr = lr_, .lr_decay = lr_decay_, .weight_decay = weight_decay_,
            .initial_accumulator_value = initial_accumulator_value_, .eps = eps_};
  }
  EMBER_TORCH_ARG(double, lr);
  EMBER_TORCH_ARG(double, lr_decay) = 0;
  EMBER_TORCH_ARG(double, weight_decay) = 0;
  EMBER_TORCH_ARG(double, initial_accumulator_value) = 0;
  EMBER_TORCH_ARG(double, eps) = 1e-10;
};

// libtorch's LBFGSOptions. An unset max_eval means max_iter * 5 / 4 (libtorch's
// constructor writes that value into the options; Ember computes it at each
// step, and the archive holds the computed value as libtorch's does).
class LBFGSOptions {
 public:
  LBFGSOptions(double lr = 1) : lr_(lr) {}  // NOLINT(google-explicit-constructor)
  operator ::ember::optim::LBFGSOptions() const {  // NOLINT(google-explicit-constructor)
    return {.lr = lr_, .max_iter = max_iter_, .max_eval = max_eval_, .tolerance_grad = tolerance_grad_,
            .tolerance_change = tolerance_change_, .history_size = history_size_, .line_search_fn = line_search_fn_};
  }
  EMBER_TORCH_ARG(double, lr);
  EMBER_TORCH_ARG(int64_t, max_iter) = 20;
  EMBER_TORCH_ARG(std::optional<int64_t>, max_eval) = std::nullopt;
  EMBER_TORCH_ARG(double, tolerance_grad) = 1e-7;
  EMBER_TORCH_ARG(double, tolerance_change) = 1e-9;
  EMBER_TORCH_ARG(int64_t, history_size) = 100;
  EMBER_TORCH_ARG(std::optional<std::string>, line_search_fn) = std::nullopt;
};

// Ember's optimizer, constructed from libtorch's options (or Ember's own).
template <class EmberOptimizer, class TorchOptions>
class WithTorchOptions : public EmberOptimizer {
 public:
  using EmberOptimizer::EmberOptimizer;
  WithTorchOptions(std::vector<Tensor> params, const TorchOptions& options)
      : EmberOptimizer(std::move(params), static_cast<typename EmberOptimizer::Options>(options)) {}
  WithTorchOptions(std::vector<::ember::optim::ParamGroup> groups, const TorchOptions& options)
      : EmberOptimizer(std::move(groups), static_cast<typename EmberOptimizer::Options>(options)) {}
};
using SGD = WithTorchOptions<::ember::optim::SGD, SGDOptions>;
using Adam = WithTorchOptions<::ember::optim::Adam, AdamOptions>;
using AdamW = WithTorchOptions<::ember::optim::AdamW, AdamWOptions>;
using RMSprop = WithTorchOptions<::ember::optim::RMSprop, RMSpropOptions>;
using Adagrad = WithTorchOptions<::ember::optim::Adagrad, AdagradOptions>;
// step(closure) as libtorch's: the closure re-evaluates the model and returns the loss.
using LBFGS = WithTorchOptions<::ember::optim::LBFGS, LBFGSOptions>;
// libtorch 1.13's C++ API has no Adadelta, Adamax, NAdam or RAdam: Ember's
// (torch.optim's) are under torch::optim with Ember's options structs.

}  // namespace torch::optim
