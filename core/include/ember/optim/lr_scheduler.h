#pragma once
// Learning-rate schedulers (torch.optim.lr_scheduler of PyTorch 1.13). A scheduler changes
// the "lr" option of each of its optimizer's parameter groups; call step() once per epoch
// (or per batch for OneCycleLR), after optimizer.step(). Constructing a scheduler already
// takes its first step (epoch 0), as in PyTorch, and records the groups' starting lr as
// their "initial_lr" option.
//
// step() uses PyTorch's recursive ("chainable") formulas, which derive the new lr from the
// group's current one; step(epoch) sets the epoch and uses the closed form where PyTorch
// has one (SequentialLR relies on that at its milestones).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  virtual void step(std::optional<int64_t> epoch = std::nullopt);
  // The lr of each group after the last step.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  Optimizer& optimizer() const { return *optimizer_; }

  // The scheduler's progress with PyTorch's key names: "last_epoch", "_step_count",
  // "base_lrs", "_last_lr", plus what a scheduler changes as it steps (e.g. "T_i", "T_cur";
  // SequentialLR: "_schedulers.<i>.<key>" for its children). Its configuration (step_size,
  // gamma, lambdas, ...) comes from the constructor and is not part of it. Save it with
  // optim::write_scheduler_state (optim/state_io.h).
  virtual Dict state_dict() const;
  // Restores what state_dict() returned; keys it does not know (the configuration entries a
  // PyTorch scheduler's state_dict also holds) are ignored.
  virtual void load_state_dict(const Dict& state);

 protected:
  // last_epoch == -1: a fresh start (each group's "initial_lr" defaults to its "lr");
  // otherwise resuming, and every group must have "initial_lr".
  LRScheduler(Optimizer& optimizer, int64_t last_epoch);
  // The first step; each derived constructor calls it last (PyTorch's _initial_step).
  void initial_step();
  // The chainable form: the lr of each group for epoch last_epoch_.
  virtual std::vector<double> get_lr() = 0;
  // The closed form for step(epoch); nullopt where PyTorch has none (get_lr is used).
  virtual std::optional<std::vector<double>> closed_form_lr() { return std::nullopt; }
  std::vector<double> group_lrs() const;
  void set_lrs(const std::vector<double>& lrs);
  size_t num_groups() const { return optimizer_->param_groups().size(); }

  Optimizer* optimizer_;
  std::vector<double> base_lrs_;
  int64_t last_epoch_;
  int64_t step_count_ = 0;
  std::vector<double> last_lr_;

  friend class SequentialLR;
};

// lr = initial_lr * lr_lambda(epoch); one function for all groups or one per group.
class LambdaLR : public LRScheduler {
 public:
  using Lambda = std::function<double(int64_t)>;
  LambdaLR(Optimizer& optimizer, Lambda lr_lambda, int64_t last_epoch = -1);
  LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::vector<Lambda> lr_lambdas_;
};

// lr *= lr_lambda(epoch) for epochs > 0.
class MultiplicativeLR : public LRScheduler {
 public:
  using Lambda = std::function<double(int64_t)>;
  MultiplicativeLR(Optimizer& optimizer, Lambda lr_lambda, int64_t last_epoch = -1);
  MultiplicativeLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::vector<Lambda> lr_lambdas_;
};

// lr *= gamma every step_size epochs.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  int64_t step_size_;
  double gamma_;
};

// lr *= gamma at each milestone (a milestone listed k times multiplies by gamma^k).
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  std::vector<int64_t> milestones_;  // sorted, with repetitions
  double gamma_;
};

// lr = initial_lr * factor until epoch total_iters, then initial_lr.
class ConstantLR : public LRScheduler {
 public:
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  double factor_;
  int64_t total_iters_;
};

// The lr factor goes linearly from start_factor to end_factor over total_iters epochs.
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0, int64_t total_iters = 5,
           int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  double start_factor_, end_factor_;
  int64_t total_iters_;
};

// lr *= gamma every epoch.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  double gamma_;
};

// lr = initial_lr * (1 - epoch / total_iters)^power, constant after total_iters.
class PolynomialLR : public LRScheduler {
 public:
  PolynomialLR(Optimizer& optimizer, int64_t total_iters = 5, double power = 1.0, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  int64_t total_iters_;
  double power_;
};

// Cosine annealing from initial_lr down to eta_min over T_max epochs (and back up after,
// since the recursive form PyTorch uses is periodic with period 2 * T_max).
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  int64_t T_max_;
  double eta_min_;
};

// SGDR: cosine annealing restarted after T_0 epochs, then after T_0 * T_mult, ...
class CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult = 1, double eta_min = 0,
                              int64_t last_epoch = -1);
  void step(std::optional<int64_t> epoch = std::nullopt) override;
  // A fractional epoch (e.g. epoch + batch / batches_per_epoch).
  void step(double epoch);
  double T_cur() const { return T_cur_; }
  int64_t T_i() const { return T_i_; }
  Dict state_dict() const override;
  void load_state_dict(const Dict& state) override;

 protected:
  std::vector<double> get_lr() override;
  void step_impl(std::optional<double> epoch);
  int64_t T_0_, T_i_, T_mult_;
  double eta_min_;
  double T_cur_;
};

struct OneCycleLROptions {
  // Peak lr, one value for all groups or one per group.
  std::vector<double> max_lr = {};
  // The number of steps of the cycle: total_steps, or epochs * steps_per_epoch.
  std::optional<int64_t> total_steps = std::nullopt;
  std::optional<int64_t> epochs = std::nullopt;
  std::optional<int64_t> steps_per_epoch = std::nullopt;
  double pct_start = 0.3;
  std::string anneal_strategy = "cos";  // "cos" or "linear"
  bool cycle_momentum = true;           // cycles "momentum", or beta1 of "betas"
  std::vector<double> base_momentum = {0.85};
  std::vector<double> max_momentum = {0.95};
  double div_factor = 25.;         // initial_lr = max_lr / div_factor
  double final_div_factor = 1e4;   // min_lr = initial_lr / final_div_factor
  bool three_phase = false;
};

// The 1cycle policy: lr warms up from initial_lr to max_lr, then anneals to min_lr (and
// momentum the other way); step() once per batch.
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& options, int64_t last_epoch = -1);
  int64_t total_steps() const { return total_steps_; }

 protected:
  struct Phase {
    double end_step;
    const char *start_lr, *end_lr, *start_momentum, *end_momentum;
  };
  std::vector<double> get_lr() override;
  double anneal(double start, double end, double pct) const;
  int64_t total_steps_;
  std::vector<Phase> phases_;
  bool linear_;
  bool cycle_momentum_;
  bool use_beta1_ = false;
};

// Runs schedulers one after another: schedulers[i] from milestones[i - 1] on.
class SequentialLR : public LRScheduler {
 public:
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<int64_t> milestones, int64_t last_epoch = -1);
  // Epoch arguments are not supported (as in PyTorch).
  void step(std::optional<int64_t> epoch = std::nullopt) override;
  const std::vector<std::shared_ptr<LRScheduler>>& schedulers() const { return schedulers_; }
  Dict state_dict() const override;
  void load_state_dict(const Dict& state) override;

 protected:
  std::vector<double> get_lr() override { return group_lrs(); }
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<int64_t> milestones_;
};

struct ReduceLROnPlateauOptions {
  std::string mode = "min";  // "min": the metric should decrease; "max": increase
  double factor = 0.1;       // new_lr = lr * factor
  int64_t patience = 10;     // epochs without improvement before reducing
  double threshold = 1e-4;
  std::string threshold_mode = "rel";  // "rel" or "abs"
  int64_t cooldown = 0;                // epochs to wait after a reduction
  std::vector<double> min_lr = {0};    // one value for all groups or one per group
  double eps = 1e-8;                   // smaller lr changes are ignored
};

// Reduces the lr when a metric has stopped improving: step(metric) once per epoch.
class ReduceLROnPlateau {
 public:
  ReduceLROnPlateau(Optimizer& optimizer, const ReduceLROnPlateauOptions& options = {});
  void step(double metric, std::optional<int64_t> epoch = std::nullopt);
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  double best() const { return best_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }
  int64_t cooldown_counter() const { return cooldown_counter_; }
  bool in_cooldown() const { return cooldown_counter_ > 0; }
  bool is_better(double a, double best) const;
  Optimizer& optimizer() const { return *optimizer_; }
  // "best", "num_bad_epochs", "cooldown_counter", "last_epoch", "_last_lr" (PyTorch's
  // names); loading ignores other keys.
  Dict state_dict() const;
  void load_state_dict(const Dict& state);

 private:
  void reduce_lr();
  Optimizer* optimizer_;
  ReduceLROnPlateauOptions options_;
  std::vector<double> min_lrs_;
  double best_;
  int64_t num_bad_epochs_ = 0;
  int64_t cooldown_counter_ = 0;
  int64_t last_epoch_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace ember::optim
