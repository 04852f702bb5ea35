#include "ember/nn/torchscript.h"

namespace ember::nn {

serialize::ScriptModuleTree script_module_tree(const Module& module) {
  serialize::ScriptModuleTree out;
  for (const auto& [name, p] : module.named_parameters(/*recurse=*/false)) out.parameters.emplace_back(name, p.detach());
  // Non-persistent buffers stay out, as in state_dict().
  const StateDict persistent = module.state_dict();
  for (const auto& [name, b] : module.named_buffers(/*recurse=*/false))
    if (persistent.contains(name)) out.buffers.emplace_back(name, b.detach());
  for (const auto& [name, child] : module.named_children()) {
    out.child_names.push_back(name);
    out.children.push_back(script_module_tree(*child));
  }
  return out;
}

void save_torchscript(const std::string& path, const Module& module) {
  serialize::save_torchscript_module(path, script_module_tree(module));
}

}  // namespace ember::nn
