#include "kernels/slots/dispatch_stub.h"

namespace ember {

std::vector<StubEntry>& stub_registry() {
  static auto* registry = new std::vector<StubEntry>();
  return *registry;
}

std::vector<std::string> missing_kernels(DeviceType type) {
  std::vector<std::string> missing;
  for (const auto& e : stub_registry())
    if (e.table[static_cast<int>(type)] == nullptr) missing.emplace_back(e.name);
  return missing;
}

}  // namespace ember
