#include "kernels/slots/kernel_slot.h"

namespace ember {

std::vector<SlotEntry>& slot_registry() {
  static auto* registry = new std::vector<SlotEntry>();
  return *registry;
}

namespace {
std::string dtype_list(uint32_t mask) {
  std::string s;
  for (int i = 0; i < kNumDTypes; ++i)
    if (mask & dtype_bit(static_cast<DType>(i))) {
      if (!s.empty()) s += ", ";
      s += dtype_name(static_cast<DType>(i));
    }
  return s;
}
}  // namespace

std::vector<std::string> missing_kernels(DeviceType type) {
  std::vector<std::string> missing;
  const int t = static_cast<int>(type), cpu = static_cast<int>(DeviceType::CPU);
  for (const auto& e : slot_registry()) {
    if (e.table[t] == nullptr) {
      missing.emplace_back(e.name);
      continue;
    }
    if (type == DeviceType::CPU) continue;
    if (e.op_names == nullptr) {
      // A plain slot: the dtypes the CPU's kernel computes that this one does not.
      if (const uint32_t lacking = e.dtype_masks[cpu] & kMaskAll & ~e.dtype_masks[t])
        missing.push_back(std::string(e.name) + " (" + dtype_list(lacking) + ")");
      continue;
    }
    for (int op = 0; op < e.num_ops; ++op) {
      const uint32_t reference = (e.op_dtypes[cpu] ? e.op_dtypes[cpu][op] : ~0u) & e.dtype_masks[cpu] & kMaskAll;
      const uint32_t here = (e.op_dtypes[t] ? e.op_dtypes[t][op] : ~0u) & e.dtype_masks[t];
      if (const uint32_t lacking = reference & ~here)
        missing.push_back(std::string(e.name) + ": " + e.op_names[op] + " (" + dtype_list(lacking) + ")");
    }
  }
  return missing;
}

int fill_slots_from(DeviceType to, DeviceType from) {
  int filled = 0;
  for (const auto& e : slot_registry()) {
    void*& slot = e.table[static_cast<int>(to)];
    if (slot == nullptr && e.table[static_cast<int>(from)] != nullptr) {
      slot = e.table[static_cast<int>(from)];
      e.dtype_masks[static_cast<int>(to)] = e.dtype_masks[static_cast<int>(from)];
      e.op_dtypes[static_cast<int>(to)] = e.op_dtypes[static_cast<int>(from)];
      ++filled;
    }
  }
  return filled;
}

}  // namespace ember
