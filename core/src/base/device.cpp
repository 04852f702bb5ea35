#include "ember/core/device.h"

#include <charconv>

#include "ember/core/error.h"

namespace ember {

namespace {
std::string known_device_types() {
  std::string s;
  for (const DeviceTypeInfo& info : kDeviceTypeInfo) {
    if (!s.empty()) s += ", ";
    s += '\'';
    s += info.name;
    s += '\'';
  }
  return s;
}
}  // namespace

Device::Device(std::string_view spec) {
  std::string_view kind = spec.substr(0, spec.find(':'));
  const DeviceTypeInfo* found = nullptr;
  for (const DeviceTypeInfo& info : kDeviceTypeInfo)
    if (info.name == kind) found = &info;
  EMBER_CHECK(found != nullptr, "Device: expected a device type (", known_device_types(),
              ") optionally followed by ':N', got '", spec, "'");
  type = found->type;
  if (kind.size() != spec.size()) {
    std::string_view num = spec.substr(kind.size() + 1);
    int value = -1;
    auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), value);
    EMBER_CHECK(ec == std::errc() && ptr == num.data() + num.size() && value >= 0 && value < 32768,
                "Device: bad device index in '", spec, "'");
    index = static_cast<int16_t>(value);
  }
}

std::string Device::str() const {
  std::string s(device_type_info(type).name);
  if (index >= 0) {
    // Two appends: `":" + to_string(...)` trips a GCC 12 -Wrestrict false positive.
    s += ':';
    s += std::to_string(index);
  }
  return s;
}

std::ostream& operator<<(std::ostream& os, Device d) { return os << d.str(); }
std::ostream& operator<<(std::ostream& os, DeviceType t) { return os << device_type_info(t).name; }

}  // namespace ember
