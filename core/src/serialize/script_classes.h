#pragma once
// The class records of a TorchScript archive: which classes its code/ folder
// defines, which of them are modules, and which attributes of a module are
// parameters and buffers (Note [TorchScript archives] in torch_load.cpp).
//
// torch.jit.save and libtorch's torch::save(module) write, for every class,
// Python-like source under <archive>/code/<module path>.py:
//   class Conv2d(Module):
//     __parameters__ = ["weight", "bias", ]
//     __buffers__ = []
//     weight : Tensor
//     ...
// The records are read from those lines only; nothing in the code is run.
#include <string>
#include <string_view>
#include <vector>

namespace ember::serialize {

struct ScriptClassRecord {
  std::string name;  // qualified: "__torch__.torch.nn.modules.conv.Conv2d"
  bool is_module = false;  // derives from Module
  std::vector<std::string> parameters, buffers;  // in registration order
};

// "__torch__/torch/nn/modules/conv.py" (an entry's path under code/) ->
// "__torch__.torch.nn.modules.conv"; empty when the path is not a .py file.
std::string script_module_name(std::string_view path_under_code);

// Appends the classes defined in one code file (module: its module name);
// malformed __parameters__/__buffers__ lines are an ember::Error naming
// `what` (the archive and entry) and the line.
void parse_script_classes(std::string_view text, const std::string& module, const std::string& what,
                          std::vector<ScriptClassRecord>& out);

}  // namespace ember::serialize
