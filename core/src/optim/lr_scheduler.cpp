// Learning-rate schedulers (torch/optim/lr_scheduler.py of PyTorch 1.13). Each formula is
// written in PyTorch's order of operations so the lr sequences match to the last bit.
#include "ember/optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace ember::optim {

namespace {
constexpr double kPi = std::numbers::pi;

std::vector<double> per_group(const std::vector<double>& values, size_t groups, const char* who, const char* name) {
  if (values.size() == 1) return std::vector<double>(groups, values[0]);
  EMBER_CHECK(values.size() == groups, who, ": expected ", groups, " values for ", name, ", got ", values.size());
  return values;
}

// Adam's betas with beta1 replaced (cycled like SGD's momentum); lists in an
// IValue are immutable, so the group gets a new one.
Value with_beta1(const Value& betas, double beta1) {
  std::vector<double> b = betas.to_double_list();
  EMBER_CHECK(!b.empty(), "LRScheduler: the group's betas are empty");
  b[0] = beta1;
  return b;
}
}  // namespace

// ---- LRScheduler ----

LRScheduler::LRScheduler(Optimizer& optimizer, int64_t last_epoch) : optimizer_(&optimizer), last_epoch_(last_epoch) {
  auto& groups = optimizer.param_groups();
  if (last_epoch == -1) {
    for (auto& g : groups)
      if (!g.has("initial_lr")) g["initial_lr"] = g.lr();
  } else {
    for (size_t i = 0; i < groups.size(); ++i)
      EMBER_CHECK(groups[i].has("initial_lr"), "LRScheduler: param 'initial_lr' is not specified in param_groups[",
                  i, "] when resuming an optimizer (last_epoch ", last_epoch, ")");
  }
  for (auto& g : groups) base_lrs_.push_back(g.get_double("initial_lr"));
}

void LRScheduler::initial_step() {
  step_count_ = 0;
  step();
}

std::vector<double> LRScheduler::group_lrs() const {
  std::vector<double> out;
  for (const auto& g : optimizer_->param_groups()) out.push_back(g.lr());
  return out;
}

void LRScheduler::set_lrs(const std::vector<double>& lrs) {
  auto& groups = optimizer_->param_groups();
  EMBER_CHECK(lrs.size() == groups.size(), "LRScheduler: the optimizer has ", groups.size(),
              " parameter groups but the scheduler knows ", lrs.size());
  for (size_t i = 0; i < groups.size(); ++i) groups[i].set_lr(lrs[i]);
  last_lr_ = group_lrs();
}

void LRScheduler::step(std::optional<int64_t> epoch) {
  step_count_ += 1;
  std::vector<double> values;
  if (!epoch) {
    last_epoch_ += 1;
    values = get_lr();
  } else {
    last_epoch_ = *epoch;
    auto closed = closed_form_lr();
    values = closed ? std::move(*closed) : get_lr();
  }
  set_lrs(values);
}

// ---- LambdaLR / MultiplicativeLR ----

namespace {
std::vector<std::function<double(int64_t)>> lambdas_for(const Optimizer& opt,
                                                        std::vector<std::function<double(int64_t)>> fns,
                                                        const char* who) {
  const size_t n = opt.param_groups().size();
  EMBER_CHECK(fns.size() == n, who, ": expected ", n, " lr_lambdas, but got ", fns.size());
  for (size_t i = 0; i < n; ++i) EMBER_CHECK(static_cast<bool>(fns[i]), who, ": lr_lambda ", i, " is empty");
  return fns;
}
}  // namespace

LambdaLR::LambdaLR(Optimizer& optimizer, Lambda lr_lambda, int64_t last_epoch)
    : LambdaLR(optimizer, std::vector<Lambda>(optimizer.param_groups().size(), lr_lambda), last_epoch) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), lr_lambdas_(lambdas_for(optimizer, std::move(lr_lambdas), "LambdaLR")) {
  initial_step();
}

std::vector<double> LambdaLR::get_lr() {
  std::vector<double> out;
  for (size_t i = 0; i < base_lrs_.size(); ++i) out.push_back(base_lrs_[i] * lr_lambdas_[i](last_epoch_));
  return out;
}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, Lambda lr_lambda, int64_t last_epoch)
    : MultiplicativeLR(optimizer, std::vector<Lambda>(optimizer.param_groups().size(), lr_lambda), last_epoch) {}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch),
      lr_lambdas_(lambdas_for(optimizer, std::move(lr_lambdas), "MultiplicativeLR")) {
  initial_step();
}

std::vector<double> MultiplicativeLR::get_lr() {
  std::vector<double> out = group_lrs();
  if (last_epoch_ > 0)
    for (size_t i = 0; i < out.size(); ++i) out[i] = out[i] * lr_lambdas_[i](last_epoch_);
  return out;
}

// ---- StepLR ----

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK(step_size > 0, "StepLR: step_size must be positive, got ", step_size);
  initial_step();
}

std::vector<double> StepLR::get_lr() {
  std::vector<double> out = group_lrs();
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return out;
  for (auto& lr : out) lr = lr * gamma_;
  return out;
}

std::optional<std::vector<double>> StepLR::closed_form_lr() {
  const auto k = static_cast<double>(last_epoch_ >= 0 ? last_epoch_ / step_size_
                                                      : -((-last_epoch_ + step_size_ - 1) / step_size_));
  std::vector<double> out;
  for (double base : base_lrs_) out.push_back(base * std::pow(gamma_, k));
  return out;
}

// ---- MultiStepLR ----

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), milestones_(std::move(milestones)), gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() {
  std::vector<double> out = group_lrs();
  const auto count = std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  if (count == 0) return out;
  for (auto& lr : out) lr = lr * std::pow(gamma_, static_cast<double>(count));
  return out;
}

std::optional<std::vector<double>> MultiStepLR::closed_form_lr() {
  const auto k = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin();
  std::vector<double> out;
  for (double base : base_lrs_) out.push_back(base * std::pow(gamma_, static_cast<double>(k)));
  return out;
}

// ---- ConstantLR ----

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, int64_t total_iters, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), factor_(factor), total_iters_(total_iters) {
  EMBER_CHECK(factor >= 0 && factor <= 1.0,
              "ConstantLR: constant multiplicative factor expected to be between 0 and 1, got ", factor);
  initial_step();
}

std::vector<double> ConstantLR::get_lr() {
  std::vector<double> out = group_lrs();
  if (last_epoch_ == 0) {
    for (auto& lr : out) lr = lr * factor_;
  } else if (last_epoch_ == total_iters_) {
    for (auto& lr : out) lr = lr * (1.0 / factor_);
  }
  return out;
}

std::optional<std::vector<double>> ConstantLR::closed_form_lr() {
  std::vector<double> out;
  for (double base : base_lrs_)
    out.push_back(base * (factor_ + static_cast<double>(last_epoch_ >= total_iters_) * (1 - factor_)));
  return out;
}

// ---- LinearLR ----

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, int64_t total_iters,
                   int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), start_factor_(start_factor), end_factor_(end_factor),
      total_iters_(total_iters) {
  EMBER_CHECK(start_factor > 0 && start_factor <= 1.0,
              "LinearLR: starting multiplicative factor expected to be greater than 0 and less or equal to 1, got ",
              start_factor);
  EMBER_CHECK(end_factor >= 0 && end_factor <= 1.0,
              "LinearLR: ending multiplicative factor expected to be between 0 and 1, got ", end_factor);
  EMBER_CHECK(total_iters > 0, "LinearLR: total_iters must be positive, got ", total_iters);
  initial_step();
}

std::vector<double> LinearLR::get_lr() {
  std::vector<double> out = group_lrs();
  if (last_epoch_ == 0) {
    for (auto& lr : out) lr = lr * start_factor_;
    return out;
  }
  if (last_epoch_ > total_iters_) return out;
  const double delta = end_factor_ - start_factor_;
  const double f = 1. + delta / (static_cast<double>(total_iters_) * start_factor_ +
                                 static_cast<double>(last_epoch_ - 1) * delta);
  for (auto& lr : out) lr = lr * f;
  return out;
}

std::optional<std::vector<double>> LinearLR::closed_form_lr() {
  std::vector<double> out;
  const double progress = static_cast<double>(std::min(total_iters_, last_epoch_));
  for (double base : base_lrs_)
    out.push_back(base * (start_factor_ + (end_factor_ - start_factor_) * progress /
                                              static_cast<double>(total_iters_)));
  return out;
}

// ---- ExponentialLR ----

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), gamma_(gamma) {
  initial_step();
}

std::vector<double> ExponentialLR::get_lr() {
  std::vector<double> out = group_lrs();
  if (last_epoch_ == 0) return out;
  for (auto& lr : out) lr = lr * gamma_;
  return out;
}

std::optional<std::vector<double>> ExponentialLR::closed_form_lr() {
  std::vector<double> out;
  for (double base : base_lrs_) out.push_back(base * std::pow(gamma_, static_cast<double>(last_epoch_)));
  return out;
}

// ---- PolynomialLR ----

PolynomialLR::PolynomialLR(Optimizer& optimizer, int64_t total_iters, double power, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), total_iters_(total_iters), power_(power) {
  EMBER_CHECK(total_iters > 0, "PolynomialLR: total_iters must be positive, got ", total_iters);
  initial_step();
}

std::vector<double> PolynomialLR::get_lr() {
  std::vector<double> out = group_lrs();
  if (last_epoch_ == 0 || last_epoch_ > total_iters_) return out;
  const double T = static_cast<double>(total_iters_);
  const double decay_factor = std::pow(
      (1.0 - static_cast<double>(last_epoch_) / T) / (1.0 - static_cast<double>(last_epoch_ - 1) / T), power_);
  for (auto& lr : out) lr = lr * decay_factor;
  return out;
}

std::optional<std::vector<double>> PolynomialLR::closed_form_lr() {
  std::vector<double> out;
  const double T = static_cast<double>(total_iters_);
  for (double base : base_lrs_)
    out.push_back(base * std::pow(1.0 - static_cast<double>(std::min(total_iters_, last_epoch_)) / T, power_));
  return out;
}

// ---- CosineAnnealingLR ----

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), T_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK(T_max > 0, "CosineAnnealingLR: T_max must be positive, got ", T_max);
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() {
  std::vector<double> out = group_lrs();
  const double e = static_cast<double>(last_epoch_), T = static_cast<double>(T_max_);
  if (last_epoch_ == 0) return out;
  if (step_count_ == 1 && last_epoch_ > 0) {
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = eta_min_ + (base_lrs_[i] - eta_min_) * (1 + std::cos(e * kPi / T)) / 2;
    return out;
  }
  if ((last_epoch_ - 1 - T_max_) % (2 * T_max_) == 0) {
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = out[i] + (base_lrs_[i] - eta_min_) * (1 - std::cos(kPi / T)) / 2;
    return out;
  }
  for (auto& lr : out)
    lr = (1 + std::cos(kPi * e / T)) / (1 + std::cos(kPi * (e - 1) / T)) * (lr - eta_min_) + eta_min_;
  return out;
}

std::optional<std::vector<double>> CosineAnnealingLR::closed_form_lr() {
  std::vector<double> out;
  const double e = static_cast<double>(last_epoch_), T = static_cast<double>(T_max_);
  for (double base : base_lrs_) out.push_back(eta_min_ + (base - eta_min_) * (1 + std::cos(kPi * e / T)) / 2);
  return out;
}

// ---- CosineAnnealingWarmRestarts ----

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult,
                                                         double eta_min, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), T_0_(T_0), T_i_(T_0), T_mult_(T_mult), eta_min_(eta_min),
      T_cur_(static_cast<double>(last_epoch)) {
  EMBER_CHECK(T_0 > 0, "CosineAnnealingWarmRestarts: expected positive integer T_0, but got ", T_0);
  EMBER_CHECK(T_mult >= 1, "CosineAnnealingWarmRestarts: expected integer T_mult >= 1, but got ", T_mult);
  initial_step();
}

std::vector<double> CosineAnnealingWarmRestarts::get_lr() {
  std::vector<double> out;
  for (double base : base_lrs_)
    out.push_back(eta_min_ + (base - eta_min_) * (1 + std::cos(kPi * T_cur_ / static_cast<double>(T_i_))) / 2);
  return out;
}

void CosineAnnealingWarmRestarts::step(std::optional<int64_t> epoch) {
  step_impl(epoch ? std::optional<double>(static_cast<double>(*epoch)) : std::nullopt);
}

void CosineAnnealingWarmRestarts::step(double epoch) { step_impl(epoch); }

void CosineAnnealingWarmRestarts::step_impl(std::optional<double> epoch) {
  step_count_ += 1;
  if (!epoch && last_epoch_ < 0) epoch = 0.0;
  double e;
  if (!epoch) {
    e = static_cast<double>(last_epoch_ + 1);
    T_cur_ = T_cur_ + 1;
    if (T_cur_ >= static_cast<double>(T_i_)) {
      T_cur_ = T_cur_ - static_cast<double>(T_i_);
      T_i_ = T_i_ * T_mult_;
    }
  } else {
    e = *epoch;
    EMBER_CHECK(e >= 0, "CosineAnnealingWarmRestarts: expected non-negative epoch, but got ", e);
    const double T0 = static_cast<double>(T_0_);
    if (e >= T0) {
      if (T_mult_ == 1) {
        T_cur_ = std::fmod(e, T0);
      } else {
        const double m = static_cast<double>(T_mult_);
        const auto n = static_cast<int64_t>(std::log(e / T0 * (m - 1) + 1) / std::log(m));
        const double mn = std::pow(m, static_cast<double>(n));
        T_cur_ = e - T0 * (mn - 1) / (m - 1);
        T_i_ = T_0_ * static_cast<int64_t>(mn);
      }
    } else {
      T_i_ = T_0_;
      T_cur_ = e;
    }
  }
  last_epoch_ = static_cast<int64_t>(std::floor(e));
  set_lrs(get_lr());
}

// ---- OneCycleLR ----

OneCycleLR::OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& o, int64_t last_epoch)
    : LRScheduler((
                      [&] {
                        // PyTorch sets the groups' initial_lr before the base initialization.
                        const size_t n = optimizer.param_groups().size();
                        EMBER_CHECK(!o.max_lr.empty(), "OneCycleLR: max_lr is required");
                        auto max_lrs = per_group(o.max_lr, n, "OneCycleLR", "max_lr");
                        if (last_epoch == -1) {
                          for (size_t i = 0; i < n; ++i) {
                            auto& g = optimizer.param_groups()[i];
                            g["initial_lr"] = max_lrs[i] / o.div_factor;
                            g["max_lr"] = max_lrs[i];
                            g["min_lr"] = g.get_double("initial_lr") / o.final_div_factor;
                          }
                        }
                      }(),
                      optimizer),
                  last_epoch),
      linear_(o.anneal_strategy == "linear"),
      cycle_momentum_(o.cycle_momentum) {
  if (o.total_steps) {
    EMBER_CHECK(*o.total_steps > 0, "OneCycleLR: expected positive integer total_steps, but got ", *o.total_steps);
    total_steps_ = *o.total_steps;
  } else {
    EMBER_CHECK(o.epochs && o.steps_per_epoch,
                "OneCycleLR: you must define either total_steps OR (epochs AND steps_per_epoch)");
    EMBER_CHECK(*o.epochs > 0, "OneCycleLR: expected positive integer epochs, but got ", *o.epochs);
    EMBER_CHECK(*o.steps_per_epoch > 0, "OneCycleLR: expected positive integer steps_per_epoch, but got ",
                *o.steps_per_epoch);
    total_steps_ = *o.epochs * *o.steps_per_epoch;
  }
  EMBER_CHECK(o.pct_start >= 0 && o.pct_start <= 1, "OneCycleLR: expected float between 0 and 1 pct_start, but got ",
              o.pct_start);
  EMBER_CHECK(o.anneal_strategy == "cos" || o.anneal_strategy == "linear",
              "OneCycleLR: anneal_strategy must by one of 'cos' or 'linear', instead got '", o.anneal_strategy, "'");
  const double total = static_cast<double>(total_steps_);
  if (o.three_phase) {
    phases_ = {{o.pct_start * total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {2 * o.pct_start * total - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"},
               {total - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"}};
  } else {
    phases_ = {{o.pct_start * total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {total - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"}};
  }
  if (cycle_momentum_) {
    const Dict& defaults = optimizer.defaults();
    EMBER_CHECK(defaults.count("momentum") || defaults.count("betas"), "OneCycleLR: optimizer ", optimizer.name(),
                " must support momentum with `cycle_momentum` option enabled");
    use_beta1_ = defaults.count("betas") != 0;
    const size_t n = num_groups();
    auto max_m = per_group(o.max_momentum, n, "OneCycleLR", "max_momentum");
    auto base_m = per_group(o.base_momentum, n, "OneCycleLR", "base_momentum");
    if (last_epoch == -1) {
      for (size_t i = 0; i < n; ++i) {
        auto& g = optimizer.param_groups()[i];
        if (use_beta1_)
          g["betas"] = with_beta1(g.at("betas"), max_m[i]);
        else
          g["momentum"] = max_m[i];
        g["max_momentum"] = max_m[i];
        g["base_momentum"] = base_m[i];
      }
    }
  }
  initial_step();
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (linear_) return (end - start) * pct + start;
  const double cos_out = std::cos(kPi * pct) + 1;
  return end + (start - end) / 2.0 * cos_out;
}

std::vector<double> OneCycleLR::get_lr() {
  const int64_t step_num = last_epoch_;
  EMBER_CHECK(step_num <= total_steps_, "OneCycleLR: tried to step ", step_num + 1,
              " times. The specified number of total steps is ", total_steps_);
  std::vector<double> lrs;
  const double s = static_cast<double>(step_num);
  for (auto& g : optimizer_->param_groups()) {
    double start_step = 0, lr = 0, momentum = 0;
    for (size_t i = 0; i < phases_.size(); ++i) {
      const Phase& ph = phases_[i];
      if (s <= ph.end_step || i == phases_.size() - 1) {
        // PyTorch raises ZeroDivisionError here; without the check the lr would be NaN.
        EMBER_CHECK(ph.end_step != start_step, "OneCycleLR: phase ", i + 1, " of the schedule is empty at step ",
                    step_num, " (it ends at step ", ph.end_step, ", where it starts; total_steps ", total_steps_,
                    "): choose pct_start so that pct_start * total_steps is not 1");
        const double pct = (s - start_step) / (ph.end_step - start_step);
        lr = anneal(g.get_double(ph.start_lr), g.get_double(ph.end_lr), pct);
        if (cycle_momentum_) momentum = anneal(g.get_double(ph.start_momentum), g.get_double(ph.end_momentum), pct);
        break;
      }
      start_step = ph.end_step;
    }
    lrs.push_back(lr);
    if (cycle_momentum_) {
      if (use_beta1_)
        g["betas"] = with_beta1(g.at("betas"), momentum);
      else
        g["momentum"] = momentum;
    }
  }
  return lrs;
}

// ---- SequentialLR ----

SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones, int64_t last_epoch)
    : LRScheduler(optimizer, -1), schedulers_(std::move(schedulers)), milestones_(std::move(milestones)) {
  EMBER_CHECK(!schedulers_.empty(), "SequentialLR: expects at least one scheduler");
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    EMBER_CHECK(schedulers_[i] != nullptr, "SequentialLR: scheduler ", i, " is null");
    EMBER_CHECK(&schedulers_[i]->optimizer() == &optimizer,
                "SequentialLR: expects all schedulers to belong to the same optimizer, but got schedulers at index ",
                i, " to be different than the optimizer passed in");
  }
  EMBER_CHECK(milestones_.size() == schedulers_.size() - 1,
              "SequentialLR: expects number of schedulers provided to be one more than the number of milestone "
              "points, but got number of schedulers ",
              schedulers_.size(), " and the number of milestones to be equal to ", milestones_.size());
  last_epoch_ = last_epoch + 1;
  // Reset the learning rates back to initial values, and undo the schedulers' first steps.
  for (auto& g : optimizer.param_groups()) g.set_lr(g.get_double("initial_lr"));
  for (auto& s : schedulers_) s->last_epoch_ -= 1;
  // Perform the initial step for only the first scheduler.
  schedulers_[0]->initial_step();
  last_lr_ = schedulers_[0]->get_last_lr();
}

void SequentialLR::step(std::optional<int64_t> epoch) {
  EMBER_CHECK(!epoch, "SequentialLR: step() takes no epoch");
  last_epoch_ += 1;
  const size_t idx = static_cast<size_t>(std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) -
                                         milestones_.begin());
  auto& scheduler = schedulers_[idx];
  if (idx > 0 && milestones_[idx - 1] == last_epoch_)
    scheduler->step(int64_t{0});
  else
    scheduler->step();
  last_lr_ = scheduler->get_last_lr();
}

// ---- ReduceLROnPlateau ----

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, const ReduceLROnPlateauOptions& options)
    : optimizer_(&optimizer), options_(options) {
  EMBER_CHECK(options.factor < 1.0, "ReduceLROnPlateau: factor should be < 1.0, got ", options.factor);
  EMBER_CHECK(options.mode == "min" || options.mode == "max", "ReduceLROnPlateau: mode '", options.mode,
              "' is unknown (expected 'min' or 'max')");
  EMBER_CHECK(options.threshold_mode == "rel" || options.threshold_mode == "abs", "ReduceLROnPlateau: threshold mode '",
              options.threshold_mode, "' is unknown (expected 'rel' or 'abs')");
  EMBER_CHECK(!options.min_lr.empty(), "ReduceLROnPlateau: min_lr is empty");
  min_lrs_ = per_group(options.min_lr, optimizer.param_groups().size(), "ReduceLROnPlateau", "min_lr");
  best_ = options.mode == "min" ? INFINITY : -INFINITY;
  for (const auto& g : optimizer.param_groups()) last_lr_.push_back(g.lr());
}

bool ReduceLROnPlateau::is_better(double a, double best) const {
  const bool rel = options_.threshold_mode == "rel";
  if (options_.mode == "min") return rel ? a < best * (1. - options_.threshold) : a < best - options_.threshold;
  return rel ? a > best * (options_.threshold + 1.) : a > best + options_.threshold;
}

void ReduceLROnPlateau::step(double metric, std::optional<int64_t> epoch) {
  last_epoch_ = epoch ? *epoch : last_epoch_ + 1;
  if (is_better(metric, best_)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    num_bad_epochs_ += 1;
  }
  if (in_cooldown()) {
    cooldown_counter_ -= 1;
    num_bad_epochs_ = 0;  // ignore any bad epochs in cooldown
  }
  if (num_bad_epochs_ > options_.patience) {
    reduce_lr();
    cooldown_counter_ = options_.cooldown;
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (const auto& g : optimizer_->param_groups()) last_lr_.push_back(g.lr());
}

void ReduceLROnPlateau::reduce_lr() {
  auto& groups = optimizer_->param_groups();
  for (size_t i = 0; i < groups.size(); ++i) {
    const double old_lr = groups[i].lr();
    const double new_lr = std::max(old_lr * options_.factor, min_lrs_[i]);
    if (old_lr - new_lr > options_.eps) groups[i].set_lr(new_lr);
  }
}

}  // namespace ember::optim
