#pragma once
// A module as libtorch's C++ torch::save(module, path) writes it: a
// TorchScript archive that libtorch's torch::load(module, path) and Python's
// torch.jit.load read (serialize::save_torchscript_module; docs/serialization.md,
// "Writing libtorch module archives"). Reading such archives back is
// serialize::load_torch_state_dict / load_torchscript.
#include <string>

#include "ember/nn/module.h"
#include "ember/serialize/torch_save.h"

namespace ember::nn {

// The module's parameters, persistent buffers and children, recursively, in
// registration order (every child, also those without tensors: libtorch's
// torch::load requires each of its submodules in the archive).
serialize::ScriptModuleTree script_module_tree(const Module& module);

// libtorch's torch::save(module, path).
void save_torchscript(const std::string& path, const Module& module);

}  // namespace ember::nn
