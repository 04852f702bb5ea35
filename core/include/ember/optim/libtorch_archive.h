#pragma once
// Optimizer archives as libtorch's C++ torch::save(optimizer, path) writes
// them and torch::load(optimizer, path) reads them (torch/optim/serialize.h):
// a TorchScript archive of nested modules,
//   pytorch_version : str = "1.5.0"
//   state           : one submodule per parameter with state, named by the
//                     parameter's TensorImpl address ("0x55d0c8a3f230"), its
//                     attributes the ParamState's fields (Adam: step : int,
//                     exp_avg : Tensor, exp_avg_sq : Tensor[, max_exp_avg_sq])
//   param_groups    : parameter "param_groups/size" (an int64 0-dim tensor)
//                     and submodules "param_groups/<i>", each with parameter
//                     "params/size", attributes "params/<j>" (the addresses
//                     naming the group's parameters in `state`) and submodule
//                     "options" (SGD: lr, momentum, dampening, weight_decay :
//                     float, nesterov : bool).
// The optimizers libtorch 1.13 has are covered: SGD, Adam, AdamW, RMSprop,
// Adagrad and LBFGS (its state: Note [LBFGS archives] in libtorch_archive.cpp). Ember keeps Adam's, AdamW's and Adagrad's "step" as a
// float32 0-dim tensor (torch.optim's layout); libtorch as an int.
//
// Loading restores the per-parameter state and, as libtorch's torch::load,
// leaves the optimizer's options (lr, ...) as they are; the archive's options
// are read only to check that it is this optimizer's (an Adam archive given to
// SGD lacks "momentum": an ember::Error naming it). docs/serialization.md,
// "libtorch's optimizer and tensor archives".
#include <string>

#include "ember/optim/optimizer.h"
#include "ember/serialize/torch_save.h"

namespace ember::optim {

// The archive's module tree (what torch::serialize::OutputArchive holds after
// `archive << optimizer`); `who` names the caller in errors.
serialize::ScriptModuleTree libtorch_optimizer_tree(const Optimizer& optimizer, const std::string& who);
// libtorch's torch::save(optimizer, path).
void save_libtorch_optimizer(const std::string& path, const Optimizer& optimizer);
// libtorch's torch::load(optimizer, path): the optimizer must be of the same
// kind, with as many groups and parameters per group as the archive.
void load_libtorch_optimizer(Optimizer& optimizer, const std::string& path);
// The same from a loaded archive's attribute tree (serialize::load_torch);
// `what` names the file in errors.
void load_libtorch_optimizer(Optimizer& optimizer, const IValue& archive, const std::string& what);

}  // namespace ember::optim
