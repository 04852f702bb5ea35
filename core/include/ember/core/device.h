#pragma once
// Device: where a tensor's memory lives (cpu, cuda:N, or the test device).
//
// Device types are one counted enum with their facts in one table
// (kDeviceTypeInfo): adding a backend adds one enumerator and one row, and
// every per-device-type table in core (kernel slots, allocators, guards)
// grows with kNumDeviceTypes.
#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace ember {

// Test: a device that exists for tests (Note [Test device] in
// docs/architecture.md). Its memory is host memory handed out by its own
// allocator, its kernels are the CPU kernels, but core treats it exactly like
// a foreign device (no host access except through the copy slot), so every
// place that assumes the CPU fails a test on it before a GPU finds it.
enum class DeviceType : uint8_t { CPU, CUDA, Test };

struct DeviceTypeInfo {
  DeviceType type;
  std::string_view name;  // as in "cuda:1"
  // Whether host code may read and write the memory directly. Only such
  // devices' data may be touched outside a kernel slot (data_ptr<T>()).
  bool host_accessible;
};

inline constexpr std::array kDeviceTypeInfo = {
    DeviceTypeInfo{DeviceType::CPU, "cpu", true},
    DeviceTypeInfo{DeviceType::CUDA, "cuda", false},
    DeviceTypeInfo{DeviceType::Test, "test", false},
};
inline constexpr int kNumDeviceTypes = static_cast<int>(kDeviceTypeInfo.size());

constexpr bool device_type_table_is_ordered() {
  for (int i = 0; i < kNumDeviceTypes; ++i)
    if (static_cast<int>(kDeviceTypeInfo[i].type) != i) return false;
  return true;
}
static_assert(device_type_table_is_ordered(), "kDeviceTypeInfo: row i must describe DeviceType i");

constexpr const DeviceTypeInfo& device_type_info(DeviceType t) {
  return kDeviceTypeInfo[static_cast<int>(t)];
}

struct Device {
  DeviceType type = DeviceType::CPU;
  int16_t index = -1;  // -1: the current device of that type

  constexpr Device() = default;
  constexpr Device(DeviceType t, int16_t i = -1) : type(t), index(i) {}
  // Parses "cpu", "cuda", "cuda:1", "test", ...; throws ember::Error otherwise.
  Device(std::string_view spec);
  Device(const char* spec) : Device(std::string_view(spec)) {}

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool is_host_accessible() const { return device_type_info(type).host_accessible; }
  std::string str() const;
  friend bool operator==(Device a, Device b) { return a.type == b.type && a.index == b.index; }
  friend bool operator!=(Device a, Device b) { return !(a == b); }
};

inline constexpr Device kCPU{DeviceType::CPU};
inline constexpr Device kCUDA{DeviceType::CUDA, 0};
inline constexpr Device kTestDevice{DeviceType::Test, 0};

std::ostream& operator<<(std::ostream& os, Device d);
std::ostream& operator<<(std::ostream& os, DeviceType t);

}  // namespace ember
