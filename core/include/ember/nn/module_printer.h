#pragma once
// A program-wide replacement for operator<<(std::ostream&, const Module&).
// Ember prints modules as PyTorch's Python repr; <ember/torch.h> installs
// libtorch's C++ format instead (torch::nn::Conv2d(1, 16, kernel_size=[3, 3], ...)),
// so a ported libtorch program prints what it printed before. Kept out of
// module.h so that installing a printer touches one translation unit.
#include <ostream>

#include "ember/nn/module.h"

namespace ember::nn {

// Prints `module` (and its children) to `os`; nullptr restores Ember's format.
using ModulePrinter = void (*)(std::ostream& os, const Module& module);
void set_module_printer(ModulePrinter printer);
ModulePrinter module_printer();

// Ember's own format (PyTorch's repr), whatever printer is installed.
void print_module_pytorch_style(std::ostream& os, const Module& module);

// A holder prints its module (libtorch's operator<< on a ModuleHolder).
template <class Impl>
std::ostream& operator<<(std::ostream& os, const ModuleHolder<Impl>& holder) {
  return os << static_cast<const Module&>(*holder);
}

}  // namespace ember::nn
