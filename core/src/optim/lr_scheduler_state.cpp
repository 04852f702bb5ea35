// state_dict / load_state_dict of the LR schedulers: the progress a scheduler
// makes as it steps, under PyTorch's attribute names, so a state saved by
// Ember (optim::write_scheduler_state) or converted from a PyTorch checkpoint
// (optim::dict_from_torch) restores it.
#include <string>

#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

namespace {

const Value& required(const Dict& state, const std::string& key, const char* who) {
  auto it = state.find(key);
  EMBER_CHECK(it != state.end(), who, ".load_state_dict: the state has no '", key, "' entry");
  return it->second;
}

const Value* optional_entry(const Dict& state, const std::string& key) {
  auto it = state.find(key);
  return it == state.end() || it->second.is_none() ? nullptr : &it->second;
}

std::vector<double> group_values(const Value& v, size_t groups, const char* who, const char* key) {
  std::vector<double> values = v.is_number() ? std::vector<double>{v.to_double()} : v.to_double_list();
  EMBER_CHECK(values.size() == groups, who, ".load_state_dict: '", key, "' has ", values.size(),
              " values but the optimizer has ", groups, " parameter groups");
  return values;
}

}  // namespace

Dict LRScheduler::state_dict() const {
  return {{"last_epoch", last_epoch_}, {"_step_count", step_count_}, {"base_lrs", base_lrs_}, {"_last_lr", last_lr_}};
}

void LRScheduler::load_state_dict(const Dict& state) {
  const char* who = "LRScheduler";
  last_epoch_ = required(state, "last_epoch", who).to_int();
  // PyTorch's SequentialLR keeps no base_lrs of its own; its children do.
  if (const Value* v = optional_entry(state, "base_lrs")) base_lrs_ = group_values(*v, num_groups(), who, "base_lrs");
  if (const Value* v = optional_entry(state, "_step_count")) step_count_ = v->to_int();
  if (const Value* v = optional_entry(state, "_last_lr")) last_lr_ = group_values(*v, num_groups(), who, "_last_lr");
}

Dict CosineAnnealingWarmRestarts::state_dict() const {
  Dict d = LRScheduler::state_dict();
  d["T_i"] = T_i_;
  d["T_cur"] = T_cur_;
  return d;
}

void CosineAnnealingWarmRestarts::load_state_dict(const Dict& state) {
  LRScheduler::load_state_dict(state);
  const char* who = "CosineAnnealingWarmRestarts";
  T_i_ = required(state, "T_i", who).to_int();
  T_cur_ = required(state, "T_cur", who).to_double();
}

// PyTorch nests the children's state dicts in a list under "_schedulers"; a
// flat Dict spells child i's key k as "_schedulers.<i>.<k>" (dict_from_torch
// flattens a PyTorch checkpoint the same way).
Dict SequentialLR::state_dict() const {
  Dict d = LRScheduler::state_dict();
  for (size_t i = 0; i < schedulers_.size(); ++i)
    for (auto& [key, value] : schedulers_[i]->state_dict())
      d["_schedulers." + std::to_string(i) + "." + key] = value;
  return d;
}

void SequentialLR::load_state_dict(const Dict& state) {
  LRScheduler::load_state_dict(state);
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    const std::string prefix = "_schedulers." + std::to_string(i) + ".";
    Dict child;
    for (const auto& [key, value] : state)
      if (key.starts_with(prefix)) child[key.substr(prefix.size())] = value;
    EMBER_CHECK(!child.empty(), "SequentialLR.load_state_dict: the state has no entries for scheduler ", i);
    schedulers_[i]->load_state_dict(child);
  }
}

Dict ReduceLROnPlateau::state_dict() const {
  return {{"best", best_},
          {"num_bad_epochs", num_bad_epochs_},
          {"cooldown_counter", cooldown_counter_},
          {"last_epoch", last_epoch_},
          {"_last_lr", last_lr_}};
}

void ReduceLROnPlateau::load_state_dict(const Dict& state) {
  const char* who = "ReduceLROnPlateau";
  best_ = required(state, "best", who).to_double();
  num_bad_epochs_ = required(state, "num_bad_epochs", who).to_int();
  cooldown_counter_ = required(state, "cooldown_counter", who).to_int();
  last_epoch_ = required(state, "last_epoch", who).to_int();
  if (const Value* v = optional_entry(state, "_last_lr"))
    last_lr_ = group_values(*v, optimizer_->param_groups().size(), who, "_last_lr");
}

}  // namespace ember::optim
