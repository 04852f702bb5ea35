// Prints modules with libtorch's operator<<, one case per block
// ("### name" then the text), for tests/compat/test_torch_pretty_print.cpp.
// Compiled against Debian's libtorch-dev by
// scripts/fixtures/torch_compat_pretty_print.py, not by the main build; the
// same cases are built with Ember in the test (tests/compat/pretty_print_cases.h
// compiles against both <torch/torch.h> and <ember/torch.h>).
#include <torch/torch.h>

#include <iostream>

#include "../pretty_print_cases.h"

int main() {
  for_each_pretty_print_case([](const std::string& name, const auto& module) {
    std::cout << "### " << name << "\n" << module << "\n";
  });
  return 0;
}
