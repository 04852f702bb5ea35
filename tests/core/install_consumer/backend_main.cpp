// Built against the installed Ember's backend-author header set
// (Ember::backend, include/ember/backend/): what a separate backend library
// does. Every CPU slot is filled in the installed library, and a slot found
// through the installed header runs the library's kernel over a
// TensorIterator the program builds itself. (Each slot header is also
// compiled on its own, in the slot_headers object library.)
#include "iter/tensor_iterator.h"
#include "kernels/slots/copy_kernels.h"
#include "kernels/slots/kernel_slot.h"

#include <ember/ops/factories.h>

#include <iostream>

int main() {
  std::vector<std::string> missing = ember::missing_kernels(ember::DeviceType::CPU);
  for (const std::string& name : missing) std::cerr << "no CPU kernel: " << name << "\n";
  ember::Tensor t = ember::zeros({2, 3});
  ember::TensorIterator iter("fill_");
  iter.add_output(t).is_inplace();
  iter.build();
  ember::fill_slot(t.device())(iter, 2.5);
  std::cout << "slots: " << ember::slot_registry().size() << ", filled: " << t.sum().item<float>() << "\n";
  return missing.empty() && t.sum().item<float>() == 15.f ? 0 : 1;
}
